"""report.html: the pipeline report as one self-contained HTML page, and the HTML table shared with notebooks.

The page holds everything inline (style sheet, script, figures as SVG, analysis plots as PNG ``data:`` URIs);
it loads nothing from the network, so it works from ``file://`` and after the folder is moved. It is readable
without scripts (real ``<table>`` elements with captions, figures with ``<title>``/``<desc>`` text alternatives
and tooltips on the heatmap cells) and better with them: tables sort by a click on a column header, the preference heatmaps
show the pair's mean preference, wins/ties/losses and adjusted p-value on hover (a click opens the pair in the
per-query view), and the per-query view draws the distribution of one pair's per-query preferences (a method)
or differences (a measure) for any method or measure and pair of runs.

Why plain SVG written by prefeval (:mod:`prefeval.report.svg`) and no plotting library: the report's figures
are a heatmap, dots with error bars and a histogram, a few hundred lines of SVG each. matplotlib's SVG output
draws every glyph as a path (about 120 KB for a 12-run heatmap, twice prefeval's with every cell's numbers) and
cannot attach a pair's numbers to a heatmap cell; a JavaScript plotting library (Plotly, Vega) would be inlined
into every report (Plotly's script alone is about 3.5 MB) and is a new dependency to keep. Hand-written SVG
keeps the demo's page small (about 1.3 MB, most of it the per-query values of the view), needs nothing beyond
the standard library, and every number drawn is an attribute the tests read back. The analysis figures stay
matplotlib PNGs (the analyses draw them), embedded as ``data:`` URIs.

The sections are the report's blocks (:class:`prefeval.report.document.Block`), the same as report.md and
report.tex; the numbers behind the interactive parts come in :class:`HtmlInputs`.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval._version import __version__
from prefeval.core.lazy import lazy_module
from prefeval.report import svg
from prefeval.report.document import Block
from prefeval.report.tables import Cell, Grid, cell_text
from prefeval.report.text import inline_markup

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")  # only the report's frames need it, not a notebook view of a comparison

__all__ = ["HtmlInputs", "grid_table", "frame_table", "rows_table", "inline", "render", "MAX_EMBEDDED_VALUES",
           "MAX_HEATMAP_RUNS"]

#: Per-query values embedded for the per-query view at most (about 8 bytes each in the page, so at most about
#: 4 MB); beyond, only the pairs with the baseline, then none (the page says which).
MAX_EMBEDDED_VALUES = 500_000
#: Heatmaps are drawn for up to this many runs (a cell per ordered pair; beyond, the page points to the CSV).
MAX_HEATMAP_RUNS = 40


@dataclass
class HtmlInputs:
    """The numbers behind report.html's figures and views.

    * ``runs`` (the comparison's order), ``baseline``, ``measures``, ``methods``
    * ``means_ci``: ``measure, run, mean, half, queries`` (:func:`prefeval.pipeline.aggregate_step.means_ci`) and
      ``means_order`` (one run order for every panel)
    * ``pairs``: per method, ``run_a, run_b, mean, wins, ties, losses, p_adjusted`` of every pair (the
      comparison's preference summary); ``orders``: per method, the runs in its ranking's order
    * ``per_query_metrics``: ``run, query_id, measure, value``; ``per_query_preferences``:
      ``method, query_id, run_a, run_b, value`` (None when not kept)
    * ``images``: PNG bytes of figures by block key (``analysis:<name>:<part>``)
    """

    runs: list[str]
    baseline: str | None = None
    measures: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    means_ci: pd.DataFrame | None = None
    means_order: list[str] = field(default_factory=list)
    pairs: dict[str, pd.DataFrame] = field(default_factory=dict)
    orders: dict[str, list[str]] = field(default_factory=dict)
    per_query_metrics: pd.DataFrame | None = None
    per_query_preferences: pd.DataFrame | None = None
    images: dict[str, bytes] = field(default_factory=dict)


# -- text and tables -----------------------------------------------------------------------------------------

def inline(text: Any) -> str:
    """HTML of a report text: ``**bold**`` as ``<strong>``, ```code``` as ``<code>``, everything else escaped."""
    return inline_markup(text, lambda inner: f"<strong>{escape(inner)}</strong>",
                         lambda inner: f"<code>{escape(inner)}</code>", escape)


def _sort_key(value: Any) -> str | None:
    """The number a cell sorts by when it is not its text (None: the script reads the text)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float, np.integer, np.floating)):
        return repr(float(value)) if math.isfinite(float(value)) else ""
    return None


def rows_table(header: Sequence[Any], rows: Sequence[Sequence[Any]], caption: str, align: str | None = None,
               sortable: bool = True, note: str = "") -> str:
    """A ``<table>`` with its ``<caption>`` (report text: ``**bold**`` and ```code``` kept, the rest escaped);
    ``align``: one of l, r, c per column; ``sortable``: the page's script sorts it by a click on a header."""
    cells = [[(inline(value), _cell_key(value)) for value in row] for row in rows]
    return _table([inline(h) for h in header], cells, inline(caption), align, sortable, inline(note) if note else "")


def _table(header: Sequence[str], rows: Sequence[Sequence[tuple[str, str | None]]], caption: str,
           align: str | None, sortable: bool, note: str) -> str:
    """The one ``<table>`` writer of the report and the notebook views, from cells already in HTML: ``rows`` hold
    ``(html, sort key)`` pairs (a key of None: the page's script sorts by the text). Alignment is an inline style,
    so that a notebook, which has no report stylesheet, aligns the numbers too."""
    align = align or "l" + "r" * (len(header) - 1)
    style = {"l": "", "r": ' style="text-align:right"', "c": ' style="text-align:center"'}
    cls = ' class="sortable"' if sortable and len(rows) > 1 else ""
    parts = [f'<div class="tw"><table{cls}>' + (f"<caption>{caption}</caption>" if caption else ""),
             "<thead><tr>" + "".join(f'<th scope="col"{style[a]}>{h}</th>' for h, a in zip(header, align))
             + "</tr></thead><tbody>"]
    for row in rows:
        parts.append("<tr>" + "".join(f"<td{style[a]}" + (f' data-sort="{key}"' if key is not None else "")
                                      + f">{text}</td>" for (text, key), a in zip(row, align)) + "</tr>")
    parts.append("</tbody></table></div>")
    if note:
        parts.append(f'<p class="note">{note}</p>')
    return "".join(parts)


_MARKS = {"": "", "*": "<sup>*</sup>", "up": "▲", "down": "▼"}


def grid_table(grid: Grid, sortable: bool = False) -> str:
    """A :class:`~prefeval.report.tables.Grid` (the run x measure table, a comparison's pairs) as the report's
    ``<table>``: the best value of a column in bold, significance marks, intervals and the letters of the runs a
    value is significantly better than as superscripts, the note under the table."""
    def cell(c: Cell) -> str:
        return cell_text(c, escape(c.text), lambda t: f"<b>{t}</b>", _MARKS, lambda ci: f" <small>{escape(ci)}</small>",
                         lambda letters: f"<sup>{escape(letters)}</sup>")

    align = "".join("r" if grid.is_numeric(k) else "l" for k in range(len(grid.header)))
    rows = [[(cell(c), None) for c in row] for row in grid.rows]
    body = _table([escape(h) for h in grid.header], rows, escape(grid.caption or ""), align, sortable,
                  escape(grid.note) if grid.note else "")
    return f'<div class="prefeval-table">{body}</div>'


def _format(value: Any, digits: int) -> str:
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def frame_table(frame: pd.DataFrame, caption: str, digits: int = 4, sortable: bool = True, index: bool | None = None,
               note: str = "") -> str:
    """A DataFrame as the report's ``<table>`` (with ``<caption>``; floats with ``digits`` decimals, sorted by
    their full value): what report.html and the notebook views (``_repr_html_``) show. ``index``: include the
    index as the first column (default: when it is named or not a plain range)."""
    if index is None:
        index = frame.index.name is not None or not isinstance(frame.index, pd.RangeIndex)
    data = frame.reset_index() if index else frame
    header = [str(c) for c in data.columns]
    align = "".join("r" if pd.api.types.is_numeric_dtype(data[c]) and not pd.api.types.is_bool_dtype(data[c])
                    else "l" for c in data.columns)
    body = rows_table(header, [[_Cell(v, digits) for v in row] for row in data.itertuples(index=False)],
                      caption, align, sortable, note)
    return f'<div class="prefeval-table">{body}</div>'


class _Cell(str):
    """A formatted cell that still sorts by its number."""

    def __new__(cls, value: Any, digits: int) -> _Cell:
        cell = super().__new__(cls, _format(value, digits))
        cell.number = value if isinstance(value, (int, float, np.integer, np.floating)) else None
        return cell


def _cell_key(value: Any) -> str | None:
    if isinstance(value, _Cell):
        return _sort_key(value.number)
    return _sort_key(value)


# -- figures and views ----------------------------------------------------------------------------------------

def _heatmap_cells(pairs: pd.DataFrame) -> dict[tuple[str, str], dict[str, float]]:
    """Both orientations of every pair: (a, b) as summarised and (b, a) with the mean negated and wins/losses
    swapped."""
    cells: dict[tuple[str, str], dict[str, float]] = {}
    for row in pairs.itertuples(index=False):
        a, b = str(row.run_a), str(row.run_b)
        p = float(row.p_adjusted) if "p_adjusted" in pairs.columns else float("nan")
        cells[(a, b)] = {"mean": float(row.mean) + 0.0, "wins": int(row.wins), "ties": int(row.ties),
                         "losses": int(row.losses), "p": p}
        cells[(b, a)] = {"mean": -float(row.mean) + 0.0, "wins": int(row.losses), "ties": int(row.ties),
                         "losses": int(row.wins), "p": p}
    return cells


def pairs_family(pairs: pd.DataFrame) -> str:
    """The family of a method's all-pairs adjusted p-values, from its ``test``, ``correction`` and ``family_size``
    columns: ``"sign test, holm correction over the 66 defined tests of all 66 pairs"``; empty without them."""
    if not {"test", "correction", "family_size"} <= set(pairs.columns) or pairs.empty:
        return ""
    test, correction, size = str(pairs["test"].iloc[0]), str(pairs["correction"].iloc[0]), int(pairs["family_size"].iloc[0])
    if correction == "none":
        return f"{test} test, no correction"
    return f"{test} test, {correction} correction over the {size} defined tests of all {len(pairs)} pairs"


def _png(data: bytes, alt: str) -> str:
    return f'<img src="data:image/png;base64,{base64.b64encode(data).decode("ascii")}" alt="{escape(alt, True)}">'


def _figure(block: Block, inputs: HtmlInputs, number: int) -> str:
    caption = f"<figcaption>Figure {number}: {inline(block.text)}</figcaption>"
    key = block.key or ""
    if key == "means" and inputs.means_ci is not None:
        body = svg.means_with_ci(inputs.means_ci, inputs.measures, inputs.means_order or inputs.runs,
                                 inputs.baseline, block.text)
    elif key.startswith("heatmap:") and key[8:] in inputs.pairs:
        method = key[8:]
        order = inputs.orders.get(method) or inputs.runs
        if len(order) > MAX_HEATMAP_RUNS:
            body = (f'<p class="note">{len(order)} runs are too many for a readable heatmap (at most '
                    f'{MAX_HEATMAP_RUNS}); every pair is in preference_summary.csv.</p>')
        else:
            body = svg.heatmap(method, order, _heatmap_cells(inputs.pairs[method]), ident=f"hm{number}",
                               family=pairs_family(inputs.pairs[method]))
    elif key in inputs.images:
        body = _png(inputs.images[key], block.text)
    else:
        return ""
    return f'<figure id="fig-{number}">{body}{caption}</figure>'


def _rounded(values: np.ndarray) -> list[float | None]:
    """Per-query values for the page: 6 significant digits, None for a missing value."""
    return [None if not math.isfinite(v) else float(f"{v:.6g}") for v in values.tolist()]


def _view_data(inputs: HtmlInputs) -> tuple[dict[str, Any], str]:
    """The per-query values the view can show, and a sentence saying which are embedded."""
    runs = list(inputs.runs)
    index = {r: i for i, r in enumerate(runs)}
    metrics: dict[str, list[list[float | None]]] = {}
    prefs: dict[str, dict[str, list[float | None]]] = {}
    queries: list[str] = []
    frames = [f for f in (inputs.per_query_metrics, inputs.per_query_preferences) if f is not None]
    if frames:
        queries = sorted(set().union(*(set(f["query_id"].astype(str)) for f in frames)))
    position = {q: k for k, q in enumerate(queries)}
    Q = len(queries)
    notes = []
    metric_values = len(runs) * len(inputs.measures) * Q
    if inputs.per_query_metrics is not None and metric_values <= MAX_EMBEDDED_VALUES:
        frame = inputs.per_query_metrics
        for measure, part in frame.groupby(frame["measure"].astype(str), sort=False):
            grid = np.full((len(runs), Q), np.nan)
            rows = part["run"].astype(str).map(index).to_numpy()
            cols = part["query_id"].astype(str).map(position).to_numpy()
            keep = ~pd.isna(rows)
            grid[rows[keep].astype(int), cols[keep].astype(int)] = part["value"].to_numpy(dtype=float)[keep]
            metrics[str(measure)] = [_rounded(grid[i]) for i in range(len(runs))]
    elif inputs.per_query_metrics is not None:
        notes.append(f"the per-query metric values ({metric_values:,} values) are too many to embed; they are in "
                     "per_query.csv")
    budget = MAX_EMBEDDED_VALUES - sum(len(runs) * Q for _ in metrics)
    pref = inputs.per_query_preferences
    if pref is not None and len(pref):
        frame = pref
        scope = "every pair"
        if len(frame) > budget and inputs.baseline is not None:
            frame = frame[(frame["run_a"] == inputs.baseline) | (frame["run_b"] == inputs.baseline)]
            scope = f"the pairs with the baseline {inputs.baseline} only (all pairs are in preferences.csv)"
        if len(frame) > budget:
            notes.append("the per-query preferences are too many to embed; they are in preferences.csv")
        else:
            for (method, a, b), part in frame.groupby([frame["method"].astype(str), frame["run_a"].astype(str),
                                                       frame["run_b"].astype(str)], sort=False, observed=True):
                values = np.full(Q, np.nan)
                values[part["query_id"].astype(str).map(position).to_numpy(dtype=int)] = part["value"].to_numpy(float)
                prefs.setdefault(method, {})[f"{index[a]},{index[b]}"] = _rounded(values)
            if scope != "every pair":
                notes.append(f"per-query preferences are embedded for {scope}")
    elif inputs.methods:
        notes.append("the per-query preferences were not kept (a comparison too large, or the Dask engine), so "
                     "only measures can be shown")
    data = {"runs": runs, "baseline": inputs.baseline, "queries": queries, "metrics": metrics, "prefs": prefs,
            "bins": svg.HISTOGRAM_BINS, "tie": svg.TIE_TOL}
    note = ("Values are rounded to 6 significant digits; " + "; ".join(notes) + ".") if notes else \
        "Values are rounded to 6 significant digits."
    return data, note


def _series(data: dict[str, Any], kind: str, name: str, a: int, b: int) -> np.ndarray | None:
    """Per-query values of run ``a`` against run ``b`` (indices): the preference of a over b, or a's value minus
    b's. Mirrors ``series()`` of the page's script."""
    if kind == "pref":
        pairs = data["prefs"].get(name, {})
        if f"{a},{b}" in pairs:
            return np.array([np.nan if v is None else v for v in pairs[f"{a},{b}"]], dtype=float)
        if f"{b},{a}" in pairs:
            return -np.array([np.nan if v is None else v for v in pairs[f"{b},{a}"]], dtype=float)
        return None
    rows = data["metrics"].get(name)
    if rows is None:
        return None
    x = np.array([np.nan if v is None else v for v in rows[a]], dtype=float)
    y = np.array([np.nan if v is None else v for v in rows[b]], dtype=float)
    return x - y


def _describe(values: np.ndarray, kind: str, name: str, run_a: str, run_b: str, queries: list[str]) -> tuple[str, str, str]:
    """Title, summary sentence and largest differences of one series (``describe()`` of the page's script)."""
    finite = np.isfinite(values)
    v = values[finite]
    what = f"preference of {run_a} over {run_b} under {name}" if kind == "pref" else \
        f"difference {run_a} − {run_b} in {name}"
    title = f"Per-query {what}"
    wins, losses = int((v > svg.TIE_TOL).sum()), int((v < -svg.TIE_TOL).sum())
    ties = int(v.size - wins - losses)
    mean = float(v.mean()) if v.size else float("nan")
    summary = (f"{v.size} queries; mean {mean:+.4f}; {run_a} ahead on {wins}, tied on {ties}, {run_b} ahead on "
               f"{losses}.")
    ids = np.array(queries)[finite]
    order = np.argsort(-v, kind="stable")
    extremes = (f"Largest for {run_a}: {_largest(ids, v, [k for k in order if v[k] > svg.TIE_TOL])}. "
                f"Largest for {run_b}: {_largest(ids, v, [k for k in order[::-1] if v[k] < -svg.TIE_TOL])}.")
    return title, summary, extremes


#: the per-query view names this many queries with the largest values on each side
LARGEST = 5


def _largest(ids: np.ndarray, v: np.ndarray, ranked: list[int]) -> str:
    """The first :data:`LARGEST` of ``ranked`` (indices by decreasing magnitude) with their values, and how many
    more queries tie with the last one shown (a ±1-valued preference ties on most queries: the ids shown are then
    the first of a tie, and the text says so). Mirrors ``largest()`` of the page's script."""
    if not ranked:
        return "none"
    shown = ranked[:LARGEST]
    text = ", ".join(f"{ids[k]} ({v[k]:+.4g})" for k in shown)
    last = v[shown[-1]]
    tied = sum(1 for k in ranked[LARGEST:] if abs(v[k] - last) <= svg.TIE_TOL)
    if tied:
        text += f", and {tied} more tied at {last:+.4g}"
    return text


def _bound(kind: str, values: np.ndarray) -> float | None:
    v = values[np.isfinite(values)]
    if kind == "pref" and v.size and float(np.abs(v).max()) <= 1:
        return 1.0
    return None


def _per_query_view(block: Block, inputs: HtmlInputs) -> str:
    data, note = _view_data(inputs)
    runs = data["runs"]
    options = [("pref", m) for m in inputs.methods if m in data["prefs"]] + \
              [("metric", m) for m in inputs.measures if m in data["metrics"]]
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")  # no tag in data
    script = f'<script type="application/json" id="pq-data">{payload}</script>'
    if not options or len(runs) < 2:
        return f'<p class="note">No per-query values to show. {inline(note)}</p>{script}'
    kind, name = options[0]
    order = inputs.orders.get(name) or inputs.means_order or runs
    first = next((r for r in order if r != inputs.baseline), runs[0])
    second = inputs.baseline if inputs.baseline in runs and inputs.baseline != first else \
        next(r for r in runs if r != first)
    values = _series(data, kind, name, runs.index(first), runs.index(second))
    if values is None:  # the first pairs embedded are the baseline's; another default is not needed
        return f'<p class="note">{inline(note)}</p>{script}'
    title, summary, extremes = _describe(values, kind, name, first, second, data["queries"])

    def select(ident: str, label: str, chosen: str) -> str:
        opts = "".join(f'<option value="{i}"{" selected" if r == chosen else ""}>{escape(r)}</option>'
                       for i, r in enumerate(runs))
        return f'<label>{label} <select id="{ident}">{opts}</select></label>'

    groups = []
    for group_kind, label in (("pref", "preference methods"), ("metric", "measures")):
        items = "".join(f'<option value="{group_kind}:{escape(n, True)}"'
                        f'{" selected" if (group_kind, n) == (kind, name) else ""}>{escape(n)}</option>'
                        for k, n in options if k == group_kind)
        if items:
            groups.append(f'<optgroup label="{label}">{items}</optgroup>')
    return (f'<p>{inline(block.text)} {inline(note)}</p>'
            f'<form class="controls" id="pq-form" hidden><label>Method or measure <select id="pq-kind">'
            f'{"".join(groups)}</select></label> {select("pq-a", "Run A", first)} {select("pq-b", "Run B", second)}'
            f'</form><figure><div id="pq-figure">{svg.histogram(values, title, _bound(kind, values))}</div>'
            f'<figcaption id="pq-title">{escape(title)}</figcaption></figure>'
            f'<p id="pq-summary" aria-live="polite">{escape(summary)}</p><p id="pq-extremes">{escape(extremes)}</p>'
            + script)


def _top_list(docs: Sequence[Sequence[Any]]) -> str:
    """One run's top documents as an ordered list: the judged grade beside each, unjudged ones marked."""
    items = []
    for doc, grade in docs:
        mark = f'<span class="grade">grade {int(grade)}</span>' if grade is not None else \
            '<span class="unjudged">unjudged</span>'
        items.append(f"<li><code>{escape(str(doc))}</code> {mark}</li>")
    return "<ol>" + "".join(items) + "</ol>" if items else "<p>no document retrieved</p>"


def disagreement_view(block: Block) -> str:
    """The disagreement view (``id="disagreement"``): per (preference, metric) and pair of runs, the queries where
    the two disagree, each opening (``<details>``) onto both runs' top documents side by side. ``block.rows``:
    ``[method, metric, run_a, run_b, count, [[query, top of run_a, top of run_b], ...]]``, each top a list of
    ``[doc_id, grade or None]``."""
    parts = [f'<section class="view" id="disagreement" aria-labelledby="disagreement-h">'
             f'<h3 id="disagreement-h">Disagreement view</h3><p class="note">{inline(block.text)}</p>']
    for method, metric, run_a, run_b, count, queries in block.rows:
        parts.append(f"<details><summary>{escape(str(method))} vs {escape(str(metric))}: "
                     f"<code>{escape(str(run_a))}</code> / <code>{escape(str(run_b))}</code>, "
                     f"{int(count)} disagreeing quer{'y' if int(count) == 1 else 'ies'}</summary>")
        for query, top_a, top_b in queries:
            parts.append(f'<details class="query"><summary>query <code>{escape(str(query))}</code></summary>'
                         f'<div class="side"><div><p><code>{escape(str(run_a))}</code></p>{_top_list(top_a)}</div>'
                         f'<div><p><code>{escape(str(run_b))}</code></p>{_top_list(top_b)}</div></div></details>')
        parts.append("</details>")
    parts.append("</section>")
    return "".join(parts)


# -- the page ---------------------------------------------------------------------------------------------------

def _slug(text: str, used: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
    slug, k = base, 2
    while slug in used:
        slug, k = f"{base}-{k}", k + 1
    used.add(slug)
    return slug


def render(blocks: Sequence[Block], inputs: HtmlInputs) -> str:
    """The page: the blocks in order (tables numbered as in report.md and report.tex), a table of contents, the
    simulated-data banner (the block keyed ``simulated``) and the figures and views of ``inputs``."""
    body, toc, used = [], [], set()
    tables = figures = 0
    title = next((b.text for b in blocks if b.kind == "heading" and b.level == 1), "prefeval report")
    for block in blocks:
        if block.kind == "heading":
            level = max(1, min(block.level, 4))
            ident = _slug(block.text, used)
            if level == 2:
                toc.append(f'<li><a href="#{ident}">{inline(block.text)}</a></li>')
            body.append(f'<h{level} id="{ident}">{inline(block.text)}</h{level}>')
        elif block.kind == "text" and block.key == "simulated":
            body.append(f'<div class="banner" role="note"><p class="flag">SIMULATED DATA</p><p>{inline(block.text)}'
                        "</p></div>")
        elif block.kind == "text":
            body.append(f"<p>{inline(block.text)}</p>")
        elif block.kind == "table":
            tables += 1
            body.append(rows_table(block.header, block.rows, f"Table {tables}: {block.text}", block.align))
        elif block.kind == "image":
            figure = _figure(block, inputs, figures + 1)
            if figure:
                figures += 1
                body.append(figure)
        elif block.kind == "items":
            body.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in block.items) + "</ul>")
        elif block.kind == "view" and block.key == "disagreement":
            body.append(disagreement_view(block))
        elif block.kind == "view" and block.key == "per-query":
            body.append(f'<section class="view" id="per-query" aria-labelledby="per-query-h">'
                        f'<h3 id="per-query-h">Per-query view</h3>{_per_query_view(block, inputs)}</section>')
    if toc:
        nav = f'<nav aria-label="Sections"><ul>{"".join(toc)}</ul></nav>'
        body.insert(1 if body and body[0].startswith("<h1") else 0, nav)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content="prefeval {escape(__version__)}">\n<title>{escape(title)}</title>\n'
            f"<style>{_CSS}</style>\n</head>\n<body>\n<main>\n" + "\n".join(body)
            + f'\n</main>\n<footer>Written by prefeval {escape(__version__)}. Self-contained: nothing is loaded from '
              f'the network.</footer>\n<div id="tip" role="tooltip" hidden></div>\n<script>{_JS}</script>\n'
              "</body>\n</html>\n")


_CSS = """
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--head:#f3f5f7;--accent:#1f5fa8}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:#fff}
main{max-width:1280px;margin:0 auto;padding:1.2rem 1.5rem 3rem}
h1{font-size:1.7rem;margin:.2rem 0 .8rem}h2{font-size:1.35rem;margin:2rem 0 .6rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}
h3{font-size:1.1rem;margin:1.5rem 0 .5rem}
nav ul{display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;list-style:none;padding:0;margin:.3rem 0 1rem}
a{color:var(--accent)}
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f2f4f6;padding:0 .25em;border-radius:3px}
.banner{border:2px solid #b35c00;background:#fff4e5;border-radius:6px;padding:.6rem 1rem;margin:0 0 1rem}
.banner .flag{font-weight:700;letter-spacing:.08em;color:#8a4500;margin:0 0 .2rem}
.banner p{margin:.2rem 0}
.tw{overflow-x:auto;margin:.4rem 0 1rem}
table{border-collapse:collapse;font-size:13.5px;font-variant-numeric:tabular-nums}
caption{caption-side:top;text-align:left;font-weight:600;padding:.2rem 0 .35rem;color:var(--fg)}
th,td{border:1px solid var(--line);padding:.22rem .55rem;vertical-align:top}
th{background:var(--head);font-weight:600;text-align:left;white-space:nowrap}

tbody tr:nth-child(even){background:#fafbfc}
button.sort{all:unset;cursor:pointer;display:inline-block;width:100%}
button.sort:focus-visible{outline:2px solid var(--accent)}
th[aria-sort] button.sort::after{content:" \\25B2";font-size:.75em}
th[aria-sort=descending] button.sort::after{content:" \\25BC"}
.note{color:var(--muted);font-size:.92em}
details{margin:.2rem 0}details.query{margin-left:1.2rem}.side{display:flex;gap:2rem;flex-wrap:wrap}
.side ol{margin:.2rem 0;padding-left:1.6rem}.unjudged{color:#8a4500;font-style:italic}.grade{color:var(--muted)}
figure{margin:.6rem 0 1.4rem;overflow-x:auto}
figcaption{color:var(--muted);font-size:.92em;margin-top:.25rem}
figure img{max-width:100%;height:auto}
svg text{font:11px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#222}
svg text.cell{font-size:10px;pointer-events:none}svg text.ttl{font-size:12px;font-weight:600}
svg .grid{stroke:#e3e6e9}svg .ci{stroke:#555;stroke-width:1.6}svg .axis{stroke:#888}
svg.heatmap rect[data-a]:hover{stroke:#111;stroke-width:2}
svg.heatmap rect[data-a]{cursor:pointer}
#tip{position:absolute;z-index:10;pointer-events:none;background:#1b1f24;color:#fff;padding:.4rem .6rem;border-radius:4px;font-size:12.5px;line-height:1.4;max-width:26rem;box-shadow:0 2px 8px rgba(0,0,0,.25)}
#tip b{color:#ffd479}
.controls{display:flex;flex-wrap:wrap;gap:.6rem 1.2rem;margin:.4rem 0}
.controls select{font:inherit;padding:.1rem .3rem}
footer{max-width:1280px;margin:0 auto;padding:0 1.5rem 2rem;color:var(--muted);font-size:.85em}
"""

_JS = r"""
(function () {
  "use strict";
  function each(list, f) { Array.prototype.forEach.call(list, f); }
  function number(text) {
    var m = /^\s*\+?(-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)/i.exec(String(text).replace("\u2212", "-"));
    return m ? parseFloat(m[1]) : NaN;
  }
  // sortable tables: a click on a header sorts the rows by that column (numbers by value, text by text)
  function sortTable(table, col, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    each(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var keys = rows.map(function (row, i) {
      var cell = row.cells[col];
      var raw = cell ? (cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent) : "";
      return { row: row, i: i, text: raw.trim(), n: number(raw) };
    });
    var numeric = keys.some(function (k) { return !isNaN(k.n); }) &&
      keys.every(function (k) { return !isNaN(k.n) || k.text === "" || k.text === "\u2013"; });
    var sign = dir === "ascending" ? 1 : -1;
    keys.sort(function (a, b) {
      if (numeric) {
        if (isNaN(a.n) || isNaN(b.n)) { return (isNaN(a.n) - isNaN(b.n)) || a.i - b.i; }
        return sign * (a.n - b.n) || a.i - b.i;
      }
      return sign * a.text.localeCompare(b.text, undefined, { numeric: true }) || a.i - b.i;
    });
    keys.forEach(function (k) { body.appendChild(k.row); });
  }
  each(document.querySelectorAll("table.sortable"), function (table) {
    each(table.tHead.rows[0].cells, function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.title = "sort by this column";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () { sortTable(table, col, th); });
    });
  });

  // heatmaps: hover a cell for the pair's numbers; a click shows the pair in the per-query view
  var tip = document.getElementById("tip");
  function p(value) { return isNaN(value) ? "\u2013" : value < 0.001 ? "<0.001" : value.toFixed(3); }
  function line(parent, label, value) {
    var row = document.createElement("div");
    var b = document.createElement("b");
    b.textContent = label;
    row.appendChild(b);
    row.appendChild(document.createTextNode(" " + value));
    parent.appendChild(row);
  }
  each(document.querySelectorAll("svg.heatmap"), function (svg) {
    each(svg.querySelectorAll("rect[data-a] > title"), function (t) { t.parentNode.removeChild(t); });
    svg.addEventListener("mousemove", function (e) {
      var cell = e.target;
      if (!cell.hasAttribute || !cell.hasAttribute("data-a")) { tip.hidden = true; return; }
      var a = cell.getAttribute("data-a"), b = cell.getAttribute("data-b");
      tip.textContent = "";
      line(tip, "pair", a + " over " + b + " (" + svg.getAttribute("data-method") + ")");
      line(tip, "mean preference", (+cell.getAttribute("data-mean") >= 0 ? "+" : "") +
           (+cell.getAttribute("data-mean")).toFixed(4));
      line(tip, "wins/ties/losses", cell.getAttribute("data-wins") + "/" + cell.getAttribute("data-ties") + "/" +
           cell.getAttribute("data-losses") + " queries (" + a + " preferred / tied / " + b + " preferred)");
      var family = svg.getAttribute("data-family");
      line(tip, "adjusted p-value", p(parseFloat(cell.getAttribute("data-p"))) + (family ? " (" + family + ")" : ""));
      tip.hidden = false;
      tip.style.left = (e.pageX + 14) + "px";
      tip.style.top = (e.pageY + 14) + "px";
    });
    svg.addEventListener("mouseleave", function () { tip.hidden = true; });
    svg.addEventListener("click", function (e) {
      var cell = e.target;
      if (!cell.hasAttribute || !cell.hasAttribute("data-a") || !view) { return; }
      view.show("pref:" + svg.getAttribute("data-method"), cell.getAttribute("data-a"), cell.getAttribute("data-b"));
    });
  });

  // the per-query view
  var view = null;
  var source = document.getElementById("pq-data");
  var form = document.getElementById("pq-form");
  if (source && form) {
    var data = JSON.parse(source.textContent);
    var kind = document.getElementById("pq-kind"), selA = document.getElementById("pq-a"),
      selB = document.getElementById("pq-b");
    var NS = "http://www.w3.org/2000/svg";  // the SVG namespace name (not a resource)
    var el = function (name, attrs, text) {
      var node = document.createElementNS(NS, name);
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
      if (text !== undefined) { node.textContent = text; }
      return node;
    };
    var series = function (choice, a, b) {
      var split = choice.indexOf(":"), k = choice.slice(0, split), name = choice.slice(split + 1);
      if (k === "pref") {
        var pairs = data.prefs[name] || {};
        if (pairs[a + "," + b]) { return pairs[a + "," + b]; }
        if (pairs[b + "," + a]) { return pairs[b + "," + a].map(function (v) { return v === null ? null : -v; }); }
        return null;
      }
      var rows = data.metrics[name];
      if (!rows) { return null; }
      return rows[a].map(function (v, q) { return v === null || rows[b][q] === null ? null : v - rows[b][q]; });
    };
    var fmt = function (v, d) { return (v >= 0 ? "+" : "") + v.toFixed(d); };
    var draw = function (values, title, bound) {
      var v = values.filter(function (x) { return x !== null; });
      var m = bound || v.reduce(function (acc, x) { return Math.max(acc, Math.abs(x)); }, 0) || 1;
      var bins = data.bins, width = 2 * m / bins, counts = [];
      for (var k = 0; k < bins; k++) { counts.push(0); }
      v.forEach(function (x) { counts[Math.min(bins - 1, Math.max(0, Math.floor((x + m) / width)))] += 1; });
      var W = 560, H = 220, left = 44, bottom = 30, top = 12, most = Math.max(1, Math.max.apply(null, counts));
      var bw = (W - left - 10) / bins;
      var svg = el("svg", { "class": "hist", role: "img", viewBox: "0 0 " + W + " " + H,
        width: W, height: H });
      svg.appendChild(el("title", {}, title));
      counts.forEach(function (count, k) {
        var h = (H - bottom - top) * count / most, mid = k - (bins - 1) / 2;
        var rect = el("rect", { x: left + k * bw + 1, y: H - bottom - h, width: bw - 2, height: h,
          fill: mid === 0 ? "#999999" : mid > 0 ? "#1f5fa8" : "#c0392b" });
        var lo = -m + k * width;
        rect.appendChild(el("title", {}, count + " queries in [" + lo.toPrecision(3) + ", " +
          (lo + width).toPrecision(3) + (k === bins - 1 ? "]" : ")")));
        svg.appendChild(rect);
      });
      svg.appendChild(el("line", { x1: left, x2: W - 10, y1: H - bottom, y2: H - bottom, "class": "axis" }));
      [[-m, "start"], [0, "middle"], [m, "end"]].forEach(function (t) {
        var x = left + (t[0] + m) / (2 * m) * (W - left - 10);
        svg.appendChild(el("text", { x: x, y: H - bottom + 14, "text-anchor": t[1], "class": "lab" },
          t[0] === 0 ? "0" : (t[0] > 0 ? "+" : "") + Number(t[0].toPrecision(3))));
      });
      svg.appendChild(el("text", { x: left - 6, y: top + 8, "text-anchor": "end", "class": "lab" }, String(most)));
      svg.appendChild(el("text", { x: left - 6, y: H - bottom, "text-anchor": "end", "class": "lab" }, "0"));
      return svg;
    };
    var update = function () {
      var choice = kind.value, a = +selA.value, b = +selB.value;
      var name = choice.slice(choice.indexOf(":") + 1), pref = choice.indexOf("pref:") === 0;
      var runA = data.runs[a], runB = data.runs[b];
      var figure = document.getElementById("pq-figure");
      var summary = document.getElementById("pq-summary"), extremes = document.getElementById("pq-extremes");
      var title = "Per-query " + (pref ? "preference of " + runA + " over " + runB + " under " + name :
        "difference " + runA + " \u2212 " + runB + " in " + name);
      document.getElementById("pq-title").textContent = title;
      var values = a === b ? null : series(choice, a, b);
      figure.textContent = "";
      if (!values) {
        summary.textContent = a === b ? "Choose two different runs." :
          "This pair's per-query values are not embedded in the page (see preferences.csv).";
        extremes.textContent = "";
        return;
      }
      var v = [], ids = [];
      values.forEach(function (x, q) { if (x !== null) { v.push(x); ids.push(data.queries[q]); } });
      var bound = pref && v.every(function (x) { return Math.abs(x) <= 1; }) && v.length ? 1 : null;
      figure.appendChild(draw(values, title, bound));
      var wins = v.filter(function (x) { return x > data.tie; }).length,
        losses = v.filter(function (x) { return x < -data.tie; }).length;
      var mean = v.reduce(function (s, x) { return s + x; }, 0) / v.length;
      summary.textContent = v.length + " queries; mean " + (v.length ? fmt(mean, 4) : "nan") + "; " + runA +
        " ahead on " + wins + ", tied on " + (v.length - wins - losses) + ", " + runB + " ahead on " + losses + ".";
      var order = v.map(function (x, i) { return i; }).sort(function (i, j) { return v[j] - v[i] || i - j; });
      var signed = function (x) { return (x > 0 ? "+" : "-") + Number(Math.abs(x).toPrecision(4)); };
      var largest = function (ranked) {
        if (!ranked.length) { return "none"; }
        var shown = ranked.slice(0, 5), last = v[shown[shown.length - 1]];
        var text = shown.map(function (i) { return ids[i] + " (" + signed(v[i]) + ")"; }).join(", ");
        var tied = ranked.slice(5).filter(function (i) { return Math.abs(v[i] - last) <= data.tie; }).length;
        return tied ? text + ", and " + tied + " more tied at " + signed(last) : text;
      };
      var top = largest(order.filter(function (i) { return v[i] > data.tie; }));
      var bottom = largest(order.slice().reverse().filter(function (i) { return v[i] < -data.tie; }));
      extremes.textContent = "Largest for " + runA + ": " + top + ". Largest for " + runB + ": " + bottom + ".";
    };
    form.hidden = false;
    [kind, selA, selB].forEach(function (s) { s.addEventListener("change", update); });
    view = {
      show: function (choice, a, b) {
        var option = Array.prototype.find.call(kind.options, function (o) { return o.value === choice; });
        if (!option) { return; }
        kind.value = choice;
        selA.value = String(data.runs.indexOf(a));
        selB.value = String(data.runs.indexOf(b));
        update();
        document.getElementById("per-query").scrollIntoView({ behavior: "smooth", block: "start" });
      }
    };
  }
})();
"""
