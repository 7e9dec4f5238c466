"""The ``Report`` step: write report.md, report.html, report.tex, summary.json, CSV tables and PNG plots to a folder.

Files (``formats`` selects groups: md, html, tex, json, csv, png):

* ``report.md`` / ``report.html`` / ``report.tex``: overview, per-run means with significance marks against the
  baseline and wins/ties/losses, the preference summary, rankings side by side with Kendall's tau, analyses;
  simulated data are announced at the top. All three render the same blocks (:mod:`prefeval.pipeline.document`);
  report.html is one self-contained page with sortable tables, interactive heatmaps and a per-query view
  (:mod:`prefeval.report.html`); ``prefeval report OUTDIR`` renders it again from the folder's files
  (:func:`render_html_again`).
* ``summary.json``: everything above, machine-readable (keys in docs/pipelines.md).
* ``per_query.csv`` (run, query_id, measure, value), ``means.csv``, ``versus_baseline.csv``,
  ``preferences.csv`` (method, query_id, run_a, run_b, value), ``preference_summary.csv``,
  ``rankings.csv``, ``kendall_tau.csv``, ``analysis_NAME_PART.csv``.
* ``means.png`` (per-run means with 95% CIs), ``heatmap_<method>.png`` (mean-preference matrix per method).
* ``manifest.json``, written last: every file with its size and SHA-256 (see :mod:`prefeval.pipeline.output`).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from prefeval.errors import PrefevalError
from prefeval.pipeline import document
from prefeval.pipeline.aggregate_step import means_ci
from prefeval.pipeline.base import Origin, Plan, Step
from prefeval.pipeline.context import PipelineContext
from prefeval.pipeline.output import MANIFEST, OutputFolder, checkpoint
from prefeval.pipeline.progress import Progress
from prefeval.pipeline.schema import Key, Table
from prefeval.pipeline.summary import FORMAT, build_summary
from prefeval.pipeline.verify import verify_folder
from prefeval.report import html, plots
from prefeval.report.document import Block, render_latex, render_markdown
from prefeval.report.text import path_slug, slug

__all__ = ["Report", "FORMATS", "render_html_again", "HTML"]

#: The HTML report's file name.
HTML = "report.html"

FORMATS: tuple[str, ...] = ("md", "html", "csv", "json", "tex", "png")


#: Largest ``digits`` accepted (a float has about 17 significant decimal digits).
MAX_DIGITS = 15


class Report(Step):
    """Write the report files into ``out`` (default ``out/<pipeline name as a safe file name>``, relative to the
    current folder).

    The folder is written atomically and carries a ``manifest.json``; a folder holding files prefeval did not
    write is refused unless ``force`` (see :mod:`prefeval.pipeline.output`).
    """

    kind = "report"
    TABLE = Table(doc="output folder and formats", primary="out", keys={
        "out": Key("str", None, "output folder (relative to the current directory; default out/NAME)"),
        "formats": Key("str|list[str]", list(FORMATS), "any of md, html, csv, json, tex, png", choices=FORMATS),
        "title": Key("str", None, "report title (default: the pipeline name)"),
        "digits": Key("int", 4, f"decimals in tables (0 to {MAX_DIGITS})", minimum=0),
    })
    NEEDS = frozenset({"per_query", "comparison", "rankings", "significance", "analyses"})
    PROVIDES = frozenset()

    def __init__(self, out: str | Path | None = None, formats: Sequence[str] | str | None = None,
                 title: str | None = None, digits: int = 4, origin: Origin | None = None,
                 force: bool = False) -> None:
        super().__init__(origin)
        self.out = out
        self.explicit_formats = formats is not None
        formats = FORMATS if formats is None else ([formats] if isinstance(formats, str) else list(formats))
        self.formats = list(formats)
        self.title, self.digits, self.force = title, digits, force

    @classmethod
    def from_table(cls, values: dict[str, Any], origin: Origin) -> Report:
        """The formats count as given only when they differ from the default (all formats)."""
        explicit = values["formats"] != list(FORMATS)
        return cls(values["out"], formats=values["formats"] if explicit else None, title=values["title"],
                   digits=values["digits"], origin=origin)

    def options(self) -> dict[str, Any]:
        return {"out": None if self.out is None else str(self.out), "formats": self.formats, "title": self.title,
                "digits": self.digits}

    def validate(self, plan: Plan) -> None:
        for i, fmt_name in enumerate(self.formats):
            if fmt_name not in FORMATS:
                raise self.error(f"formats[{i}]", f"{fmt_name!r} is not one of {list(FORMATS)}")
        if "png" in self.formats and self.explicit_formats and not plots.available():
            raise self.error("formats", "png plots need matplotlib: pip install 'prefeval[plot]' "
                                        "(or leave \"png\" out of report.formats)")
        if isinstance(self.digits, bool) or not isinstance(self.digits, int) or not 0 <= self.digits <= MAX_DIGITS:
            raise self.error("digits", f"expected an integer from 0 to {MAX_DIGITS}, got {self.digits!r}")
        if self.out is not None and not str(self.out).strip():
            raise self.error("out", "the output folder is an empty string; give a folder name")
        if self.out is not None and Path(self.out).exists() and not Path(self.out).is_dir():
            raise self.error("out", f"{str(self.out)!r} exists and is not a folder")

    def folder(self, name: str, force: bool | None = None) -> OutputFolder:
        """The output folder of a pipeline called ``name`` (default ``out/<name as a safe file name>``)."""
        path = Path(self.out) if self.out is not None else Path("out") / path_slug(name)
        return OutputFolder(path, self.force if force is None else force,
                            where=f"{self.origin.file}: report.out" if self.origin.file else "report.out")

    def run(self, context: PipelineContext, progress: Progress) -> None:
        """Write the files into ``context.out_dir`` (the runner's staging folder, moved into place at the end)."""
        if context.out_dir is None:
            raise RuntimeError("Report.run needs context.out_dir (Pipeline.run sets it)")
        with progress.stage("report"):
            context.files = write_report(context, context.out_dir, self.formats, self.digits, self.title)


def write_report(context: PipelineContext, out: Path, formats: Sequence[str], digits: int = 4,
                 title: str | None = None) -> list[Path]:
    """Write the selected formats into ``out`` (the staging folder of an :class:`OutputFolder`, whose
    ``manifest.json`` summary.json lists too); returns the files written (summary.json last)."""
    written: list[Path] = []
    images: dict[str, str] = {}
    # computed once; the plots, the text, the CSV files and report.html take these objects
    intervals = means_ci(context.per_query, list(context.measures), list(context.runs))
    pairs = preference_summary(context) if context.comparison is not None and {"csv", "html"} & set(formats) \
        else None
    if "png" in formats:
        if plots.available():
            images = _write_plots(context, out, written, intervals)
        else:
            warnings.warn("matplotlib is not installed: no plots (pip install 'prefeval[plot]')", stacklevel=2)
    blocks = document.build(context, digits=digits, images=images, title=title, formats=formats,
                            intervals=intervals)
    checkpoint("report:text")
    if context.qrels is not None and context.runs:  # runs lacking judged queries
        notes = [note for name, run in context.runs.items()
                 if (note := context.collection().coverage_note(name, pd.unique(run["query_id"])))]
        blocks[1:1] = [document.Block("items", items=notes)] if notes else []
    if "md" in formats:
        written.append(_write(out / "report.md", render_markdown(blocks)))
    if "tex" in formats:
        written.append(_write(out / "report.tex", render_latex(blocks)))
    if "csv" in formats:
        _write_csvs(context, out, written, pairs)
    if "html" in formats:
        checkpoint("report:html")
        page = html.render(blocks, context_inputs(context, blocks, out, intervals, pairs))
        written.append(_write(out / HTML, page))
    checkpoint("report:json")
    if "json" in formats:
        path = out / "summary.json"
        names = [p.name for p in written] + [path.name, MANIFEST]
        summary = build_summary(context, names, blocks)
        written.append(_write(path, json.dumps(summary, indent=2, ensure_ascii=False, allow_nan=False) + "\n"))
    return written


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _unique(name: str, used: set[str]) -> str:
    candidate, k = name, 2
    while candidate in used:
        candidate, k = f"{name}_{k}", k + 1
    used.add(candidate)
    return candidate


def _write_plots(context: PipelineContext, out: Path, written: list[Path],
                 intervals: pd.DataFrame | None) -> dict[str, str]:
    images: dict[str, str] = {}
    used: set[str] = set()
    if intervals is not None:
        path = plots.means_with_ci(intervals, context.measures, list(context.runs), out / "means.png",
                                   context.baseline, document.means_order(context))
        written.append(path)
        images["means"] = path.name
    if context.comparison is not None:
        for method in context.methods:
            label = context.ranking_label(method)
            order = list(context.rankings[label]["run"]) if label else list(context.runs)
            name = _unique(f"heatmap_{slug(method)}", used)
            path = plots.preference_heatmap(context.comparison.matrix(method), order, method, out / f"{name}.png")
            written.append(path)
            images[f"heatmap:{method}"] = path.name
    for analysis, parts in context.analysis.items():
        for part, value in parts.items():
            if plots.is_figure(value):
                name = _unique(f"analysis_{slug(analysis)}_{slug(part)}", used)
                path = plots.save_figure(value, out / f"{name}.png")
                written.append(path)
                images[f"analysis:{analysis}:{part}"] = path.name
    return images


def _csv(frame: pd.DataFrame, path: Path, written: list[Path]) -> None:
    frame.to_csv(path, index=False)
    written.append(path)


def _write_csvs(context: PipelineContext, out: Path, written: list[Path], pairs: pd.DataFrame | None) -> None:
    if context.per_query is not None:
        _csv(context.per_query[["run", "query_id", "measure", "value"]], out / "per_query.csv", written)
    if context.means is not None:
        _csv(context.means[["run", "measure", "value"]], out / "means.csv", written)
    if context.versus_baseline is not None and not context.versus_baseline.empty:
        _csv(context.versus_baseline, out / "versus_baseline.csv", written)
    if context.comparison is not None:
        _csv(context.comparison.per_query[["method", "query_id", "run_a", "run_b", "value"]],
             out / "preferences.csv", written)
        _csv(pairs, out / "preference_summary.csv", written)
    if context.rankings:
        _csv(pd.concat([f.assign(ranking=label).reindex(columns=["ranking", "rank", "run", "level", "score"])
                        for label, f in context.rankings.items()], ignore_index=True), out / "rankings.csv", written)
    if context.kendall_tau is not None and not context.kendall_tau.empty:
        context.kendall_tau.rename_axis("ranking").to_csv(out / "kendall_tau.csv")
        written.append(out / "kendall_tau.csv")
    used: set[str] = set()
    for analysis, parts in context.analysis.items():
        for part, value in parts.items():
            if isinstance(value, pd.DataFrame):
                name = _unique(f"analysis_{slug(analysis)}_{slug(part)}", used)
                value.to_csv(out / f"{name}.csv", index=value.index.name is not None)
                written.append(out / f"{name}.csv")


def preference_summary(context: PipelineContext) -> pd.DataFrame:
    """Per method and pair: the comparison summary joined with the all-pairs significance columns, and the family
    the adjusted p-values were corrected over (``test``, ``correction``, ``family_size``: the defined tests)."""
    summary = context.comparison.summary()
    frames = []
    for method in context.methods:
        part = summary[summary["method"] == method] if "method" in summary.columns else summary
        sig = context.significance.get(method)
        if sig is not None and not sig.empty:
            extra = [c for c in sig.columns if c not in part.columns or c in ("run_a", "run_b")]
            family = {k: sig.attrs[k] for k in ("test", "correction", "family_size") if k in sig.attrs}
            part = part.merge(sig[extra], on=["run_a", "run_b"], how="left").assign(**family)
        frames.append(part)
    return pd.concat(frames, ignore_index=True) if frames else summary


# -- report.html ---------------------------------------------------------------------------------------------

def context_inputs(context: PipelineContext, blocks: list[Block], folder: Path, intervals: pd.DataFrame | None,
                   pairs: pd.DataFrame | None) -> html.HtmlInputs:
    """The :class:`~prefeval.report.html.HtmlInputs` of a pipeline run: the same frames the CSV files hold;
    ``intervals`` (:func:`~prefeval.pipeline.aggregate_step.means_ci`) and ``pairs`` (:func:`preference_summary`) as
    :func:`write_report` computed them once."""
    comparison = context.comparison
    preferences = None
    if comparison is not None and all(getattr(r, "kept", True) for r in comparison.results.values()):
        preferences = comparison.per_query[["method", "query_id", "run_a", "run_b", "value"]]
    return _html_inputs(
        runs=list(comparison.runs) if comparison is not None else list(context.runs), baseline=context.baseline,
        measures=list(context.measures), methods=list(context.methods),
        per_query=None if context.per_query is None else context.per_query[["run", "query_id", "measure", "value"]],
        means=None if context.means is None else context.means[["run", "measure", "value"]], intervals=intervals,
        preferences=preferences, pair_summary=pairs,
        orders={label: [str(r) for r in frame["run"]] for label, frame in context.rankings.items()},
        blocks=blocks, folder=folder)


def _html_inputs(runs: list[str], baseline: str | None, measures: list[str], methods: list[str],
                 per_query: pd.DataFrame | None, means: pd.DataFrame | None, intervals: pd.DataFrame | None,
                 preferences: pd.DataFrame | None, pair_summary: pd.DataFrame | None, orders: dict[str, list[str]],
                 blocks: list[Block], folder: Path) -> html.HtmlInputs:
    """One construction for both entry points (a pipeline run, ``prefeval report``), so they give one page."""
    pairs: dict[str, pd.DataFrame] = {}
    if pair_summary is not None:
        for method in methods:
            part = pair_summary[pair_summary["method"].astype(str) == method]
            pairs[method] = part.assign(run_a=part["run_a"].astype(str), run_b=part["run_b"].astype(str))
    method_orders = {}
    for method in methods:
        label = next((k for k in orders if k.startswith(f"{method} (")), None)
        method_orders[method] = orders[label] if label else list(runs)
    images = {}
    for block in blocks:
        if block.kind == "image" and block.key.startswith("analysis:") and block.label:
            path = folder / block.label
            if path.is_file():
                images[block.key] = path.read_bytes()
    order = document.order_by_first_mean(means, measures, runs) if means is not None else list(runs)
    return html.HtmlInputs(runs=runs, baseline=baseline, measures=measures, methods=methods, means_ci=intervals,
                      means_order=order, pairs=pairs, orders=method_orders, per_query_metrics=per_query,
                      per_query_preferences=preferences, images=images)


_TEXT_COLUMNS = ("run", "query_id", "measure", "method", "run_a", "run_b", "ranking", "kind", "test", "correction")


def _read_csv(path: Path) -> pd.DataFrame | None:
    """A CSV file prefeval wrote, read back exactly: names as text (a run called ``NA`` or ``007`` stays so),
    numbers with every digit (``round_trip``); None when the file is absent."""
    if not path.is_file():
        return None
    head = pd.read_csv(path, nrows=0).columns
    text = [c for c in head if c in _TEXT_COLUMNS]
    frame = pd.read_csv(path, dtype={c: str for c in text}, keep_default_na=False, na_values={
        c: ["", "NaN", "nan"] for c in head if c not in text}, float_precision="round_trip")
    return frame


def render_html_again(folder: Path) -> str:
    """report.html of an output folder, rendered from its files (summary.json, the CSV tables and the analysis
    PNGs) as the pipeline run rendered it: ``prefeval report OUTDIR``. The folder is checked first
    (:func:`prefeval.pipeline.verify.verify_folder`: the manifest's sizes and SHA-256, each file's shape)."""
    verify_folder(folder)
    path = folder / "summary.json"
    if not path.is_file():
        raise PrefevalError(f"{folder}: no summary.json: not a prefeval output folder, or written without the json "
                            "format (report.formats must include \"json\" and \"csv\" for prefeval report)")
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise PrefevalError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(summary, dict) or summary.get("format") != FORMAT:
        raise PrefevalError(f"{path}: not a prefeval pipeline summary (format {FORMAT!r} expected)")
    if not summary.get("document"):
        raise PrefevalError(f"{path}: has no report document (written by an older prefeval); run the pipeline again")
    blocks = [Block.from_json(b) for b in summary["document"]]
    data = summary.get("data", {})
    runs = [str(r) for r in data.get("runs", [])]
    measures = list(summary.get("settings", {}).get("evaluate", {}).get("computed") or summary.get("means", {}))
    methods = list(summary.get("preferences", {}))
    per_query = _read_csv(folder / "per_query.csv")
    means = _read_csv(folder / "means.csv")
    pair_summary = _read_csv(folder / "preference_summary.csv")
    missing = [name for name, frame, needed in (("per_query.csv", per_query, measures), ("means.csv", means, measures),
                                                 ("preference_summary.csv", pair_summary, methods))
               if needed and frame is None]
    if missing:
        raise PrefevalError(f"{folder}: {', '.join(missing)} missing (report.formats must include \"csv\" for "
                            "prefeval report)")
    rankings = _read_csv(folder / "rankings.csv")
    orders = ({} if rankings is None else
              {label: list(part.sort_values("rank", kind="stable")["run"]) for label, part in
               rankings.groupby("ranking", sort=False)})
    intervals = means_ci(per_query, measures, runs)
    return html.render(blocks, _html_inputs(
        runs=runs, baseline=summary.get("baseline"), measures=measures, methods=methods, per_query=per_query,
        means=means, intervals=intervals, preferences=_read_csv(folder / "preferences.csv"),
        pair_summary=pair_summary, orders=orders, blocks=blocks, folder=folder))
