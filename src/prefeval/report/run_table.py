"""Rendering of the run x measure table (:class:`prefeval.engine.table.RunTable`, from :func:`prefeval.table`): the
wide grid (one row per run, one column per measure) as plain text, Markdown, LaTeX or HTML, and the long-form rows
as csv, json or jsonl, with a note generated from the table's numbers.

Marks: with a baseline, ▲/▼ significantly better/worse than the baseline; without, the letters of the runs a run is
significantly better than; the best value of each column emphasised (not in a column of trec_eval's counts, which
is a sum over the queries, neither tested nor compared).
"""

from __future__ import annotations

import math
from typing import Any

from prefeval.engine.table import CI_LEVEL, letter_marks
from prefeval.errors import PrefevalError
from prefeval.report.comparison import describe_test, judged_note
from prefeval.report.html import grid_table
from prefeval.report.tables import FRAGILE, ROW_FORMATS, Cell, Grid, latex, markdown, plain, row_text
from prefeval.report.text import named_items, undefined_interval

__all__ = ["note", "robust_note", "robust_sentence", "undefined_note", "judged_note", "grid", "to_text", "latex_table",
           "families", "baseline_tables_text"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def note(table: Any) -> str:
    """What the numbers and marks of ``table`` mean, from its results."""
    means = [m for m in table.measures if m not in table.summed_columns]
    parts = [f"Means over {table.queries} queries." if means else f"Over {table.queries} queries."]
    if table.summed_columns:
        parts.append(f"{', '.join(table.summed_columns)}: sums over the queries (as trec_eval -c), not tested.")
    prefs = [m for m in table.measures if table.kind(m) == "preference"]
    if prefs and table.baseline is not None:
        parts.append(f"{', '.join(prefs)}: mean preference over {table.baseline} (positive: the run is preferred).")
    elif prefs:
        parts.append(f"{', '.join(prefs)}: mean preference over the other runs (positive: the run is preferred).")
    if table.ci:
        kind = "Student-t" if table.ci == "t" else "percentile bootstrap (over queries)"
        parts.append(f"±: half-width of the {CI_LEVEL:.0%} {kind} confidence interval of the mean.")
        parts.append(undefined_note(table, means))
    used = families(table)
    if used and table.baseline is not None:
        parts.append(f"▲/▼: significantly better/worse than {table.baseline} at alpha={table.alpha} ({used}).")
    elif used:
        sep = " (separated by commas)" if len(table.runs) > 26 else ""
        parts.append(f"Letters{sep}: the runs a run is significantly better than at alpha={table.alpha} ({used}).")
    if means:
        parts.append("Best value of each column of means emphasised." if table.summed_columns
                     else "Best value of each column emphasised.")
    parts.append(robust_note(table))
    parts.append(judged_note(table))
    return " ".join(p for p in parts if p)


def undefined_note(table: Any, columns: list[str]) -> str:
    """The cells of ``columns`` (means) with a mean and no interval (NaN: :func:`prefeval.core.stats.mean_interval`),
    named with why (:func:`~prefeval.report.text.undefined_interval`); empty when every interval is defined."""
    records = ((run, m, table.record(run, m)) for m in columns for run in table.runs)
    cells = [f"{run} ({m})" for run, m, r in records if math.isnan(r["ci_low"]) and not math.isnan(r["mean"])]
    if not cells:
        return ""
    return f"No ±: the interval is {undefined_interval(table.queries)} for {named_items(cells)}."


def robust_note(table: Any) -> str:
    """How many significant differences are robust to the unjudged documents (:func:`robust_sentence`) and what †
    marks (:meth:`prefeval.engine.table.RunTable.set_robust`); empty when the table was not made with ``robust=True``."""
    if table.robust_fill is None:
        return ""
    return robust_sentence(*table.robust_counts(), *table.robust_fill) + f"; {FRAGILE}: significant, not robust."


def robust_sentence(robust: int, total: int, rel: int, depth: int, against: str = "") -> str:
    """The one sentence on robustness to the unjudged documents (the run table's note, the pipeline report's
    headline and tests): ``robust`` of ``total`` significant differences (``against``: e.g. ``" with the baseline
    `bm25`"``) are significant in the same direction under the three readings of
    :func:`prefeval.engine.holes.readings`, the unjudged documents of each run's top ``depth`` filled at grade
    ``rel`` in the third. No final full stop."""
    verb = "is" if total == 1 else "are"
    return (f"{robust} of {_plural(total, 'significant difference')}{against} {verb} robust to the unjudged documents: "
            "significant in the same direction with unjudged documents read as non-relevant, removed (condensed "
            f"lists) and judged relevant at grade {rel} within each run's top {depth} (three readings, not every "
            "filling)")


def families(table: Any) -> str:
    """The tests of ``table`` and the families their corrections ran over, in words: once when every tested column
    shares its test and correction, else per column; the undefined tests said to be left out."""
    tested = {m: t for m, t in table.tests.items() if t is not None}
    if not tested:
        return ""
    if table.family == "table":
        size = next(iter(table.family_sizes.values()))[0] if table.family_sizes else 0
        family = f"one family of the {_plural(size, 'defined test')} of the whole table"
    elif table.baseline is not None:
        family = f"the {_plural(len(table.runs) - 1, 'run')} compared with {table.baseline}, per measure"
    else:
        family = f"the {_plural(len(table.runs) * (len(table.runs) - 1) // 2, 'pair')} of runs, per measure"
    groups: dict[tuple[str, str], list[str]] = {}
    for m, t in tested.items():
        groups.setdefault(t, []).append(m)
    if len(groups) == 1:
        text = describe_test(*next(iter(groups)), family)
    else:
        text = "; ".join(f"{', '.join(ms)}: {describe_test(*t, family)}" for t, ms in groups.items())
    undefined = sum(u for _, u in table.family_sizes.values())
    if undefined:
        text += (f"; {_plural(undefined, 'test')} undefined (too few queries, every query tied or zero variance): "
                 "no p-value, no mark, left out of the family")
    return text


def _number(value: float, digits: int, signed: bool, count: bool) -> str:
    if math.isnan(value):
        return "nan"
    if count and value == int(value):
        return str(int(value))
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def grid(table: Any, digits: int = 4) -> Grid:
    """The wide table: one row per run, one column per measure (a count column's sums as integers)."""
    best = {}
    for m in table.measures:
        means = [table.record(run, m)["mean"] for run in table.runs]
        finite = [v for v in means if not math.isnan(v)]
        best[m] = round(max(finite), digits) if finite and m not in table.summed_columns else None
    letter = dict(zip(table.runs, table.letters))
    rows = []
    for run in table.runs:
        row = ([Cell(letter[run])] if table.letters else []) + [Cell(run)]
        for m in table.measures:
            rec = table.record(run, m)
            mean = rec["mean"]
            text = _number(mean, digits, table.kind(m) == "preference", m in table.summed_columns)
            mark = {1: "up", -1: "down"}.get(rec.get("direction", 0), "")
            ci = ""
            if table.ci and not math.isnan(rec["ci_low"]):
                ci = f"±{(rec['ci_high'] - rec['ci_low']) / 2:.{digits}f}"
            letters = letter_marks([letter[b] for b in rec.get("better_than", [])], len(table.runs))
            is_best = best[m] is not None and not math.isnan(mean) and round(mean, digits) == best[m]
            row.append(Cell(text, mark, letters, ci, is_best, number=True, fragile=rec.get("robust") is False))
        rows.append(row)
    header = (["", "run"] if table.letters else ["run"]) + table.measures
    numeric = [False] * (len(header) - len(table.measures)) + [True] * len(table.measures)
    caption = (f"{len(table.runs)} runs x {len(table.measures)} measures"
               + (f", against the baseline {table.baseline}" if table.baseline is not None else ""))
    return Grid(header, rows, caption=caption, note=note(table), numeric=numeric)


def latex_table(table: Any, digits: int = 4, label: str | None = None) -> str:
    """A booktabs ``table`` (significance as superscripts, best in bold) that compiles as is with ``booktabs``."""
    return latex(grid(table, digits), label)


#: the wide formats and their writers of a :class:`~prefeval.report.tables.Grid`
_WRITERS = {"table": plain, "markdown": markdown, "latex": latex, "html": grid_table}


def to_text(table: Any, fmt: str, digits: int = 4) -> str:
    """``table`` in ``fmt``: ``table`` (plain text), ``markdown``, ``latex``, ``html``, or the long-form rows as
    ``csv``, ``json`` (one document) or ``jsonl`` (one record per line)."""
    if fmt in ROW_FORMATS:
        return row_text(*table.rows(), fmt)
    if fmt not in _WRITERS:
        raise PrefevalError(f"unknown format {fmt!r}; choose one of {', '.join([*_WRITERS, *ROW_FORMATS])}")
    return _WRITERS[fmt](grid(table, digits))


def baseline_tables_text(tables: Any, fmt: str, digits: int = 4) -> str:
    """A :class:`~prefeval.engine.table.BaselineTables` in ``fmt``: the long-form formats as one set of rows (each
    carrying its ``baseline``), the wide ones as one table per baseline."""
    if fmt in ROW_FORMATS:
        return row_text(*tables.rows(), fmt)
    return "\n".join(to_text(t, fmt, digits) for t in tables.parts)
