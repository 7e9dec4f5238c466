"""The report's content as format-neutral blocks (:class:`prefeval.report.document.Block`: headings, paragraphs,
tables, figures), built from a pipeline's results; :mod:`prefeval.report` renders them to Markdown (report.md),
LaTeX (report.tex) and HTML (report.html).

Every sentence that states a count, a test or a convention is generated here from the objects holding the
numbers (:class:`QueryCounts` for the queries each figure is over; the aggregate step's settings for the tests),
and summary.json stores the same facts (:meth:`QueryCounts.as_json`), so the formats cannot disagree."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from prefeval.analysis.agreement import TAU_EXACT_SYSTEMS
from prefeval.engine.significance import FAMILY_WISE_TESTS
from prefeval.pipeline.aggregate_step import TRUTH, means_ci
from prefeval.pipeline.context import PipelineContext
from prefeval.pipeline.findings import (
    CORRECTION_NAMES,
    TEST_NAMES,
    disagreement_blocks,
    disagreements,
    headline_blocks,
    robustness_note,
)
from prefeval.report.check import runs_grid
from prefeval.report.document import Block
from prefeval.report.text import DOWN, UP, fmt, fmt_p, named_items, plural, undefined_interval

__all__ = ["Block", "QueryCounts", "build", "TEST_NAMES", "MAX_MATRIX_RUNS", "ANALYSIS_COLUMNS"]

#: Mean-preference matrices are printed as tables up to this many runs (always drawn as heatmaps).
MAX_MATRIX_RUNS = 8
#: The Kendall's tau table shows every ranking as a column up to this many rankings (else metrics and truth).
MAX_TAU_COLUMNS = 8


@dataclass(frozen=True)
class QueryCounts:
    """The queries behind the report's numbers, counted from the data themselves.

    ``judged``: queries with a judgment; ``relevant``: those with a document of grade >= ``rel``;
    ``measures``: for each measure, the queries its per-query values (and so its mean and wins/ties/losses)
    cover; ``methods``: the same for each preference method (the comparison's per-pair query count).
    """

    judged: int
    relevant: int
    rel: int
    measures: dict[str, int]
    methods: dict[str, int]

    @classmethod
    def of(cls, context: PipelineContext) -> QueryCounts:
        methods: dict[str, int] = {}
        if context.comparison is not None:
            summary = context.comparison.summary()
            for method in context.methods:
                rows = summary[summary["method"] == method]
                if len(rows):
                    methods[method] = int(rows["queries"].max())
        measures = {str(k): int(v) for k, v in context.metric_queries().items()}
        return cls(len(context.judged_queries()), len(context.evaluated_queries()), context.rel,
                   {m: measures[m] for m in context.measures if m in measures}, methods)

    def as_json(self) -> dict[str, Any]:
        return {"judged": self.judged, "with_relevant": self.relevant, "measures": dict(self.measures),
                "methods": dict(self.methods)}

    def _one(self, n: int) -> str:
        if n == self.judged:
            return "the judged query" if n == 1 else f"all {n} judged queries"
        if n == self.relevant:
            return f"the {plural(n, 'query', 'queries')} with a relevant document (grade ≥ {self.rel})"
        return plural(n, "query", "queries")

    def over(self, counts: dict[str, int]) -> str:
        """"all 50 judged queries", or per name when the counts differ ("nDCG@10: 50 queries; AP: 49 ...")."""
        values = sorted(set(counts.values()))
        if not values:
            return "no query"
        if len(values) == 1:
            return self._one(values[0])
        groups = [(n, [name for name, k in counts.items() if k == n]) for n in values]
        return "; ".join(f"{', '.join(names)}: {self._one(n)}" for n, names in groups)

    def overview(self) -> str:
        """The overview's "queries" line: how many were judged, how many have a relevant document, and which
        queries the means and the wins/ties/losses counts are over."""
        text = (f"{self.judged} judged, {self.relevant} of them with a relevant document (grade ≥ {self.rel})"
                if self.judged != 1 else
                f"1 judged, {self.relevant} with a relevant document (grade ≥ {self.rel})")
        counts = {**self.measures, **self.methods}
        if counts:
            text += "; every mean and every wins/ties/losses count is over " + self.over(counts)
            if self.judged > self.relevant and set(counts.values()) == {self.judged}:
                text += f" (the {plural(self.judged - self.relevant, 'query', 'queries')} without a relevant " \
                        "document included)"
        return text


def _p_text(p: float) -> str:
    text = fmt_p(p)
    if text == "–":
        return "p undefined"
    return f"p{text}" if text.startswith("<") else f"p={text}"


def _mark(row: Any) -> str:
    if not bool(row["significant"]):
        return ""
    return f" {UP}" if row["statistic"] > 0 else f" {DOWN}"


def simulated_notice(context: PipelineContext) -> str:
    sim = context.simulation
    return ("**Simulated data.** These results were computed on a simulated test collection generated by "
            "prefeval's built-in simulator (`prefeval.data.simulate`), not on real queries, documents or "
            f"relevance judgments: {sim.describe()}. Each run's true quality is known by construction and "
            "shown beside the results.")


def _files_note(formats: Sequence[str], csv: str, text: str) -> str:
    """``text`` naming the files (``csv`` and/or summary.json) that ``formats`` write; empty when none is."""
    files = [name for name, fmt in ((csv, "csv"), ("summary.json", "json")) if fmt in formats]
    return text.format(" and ".join(files)) if files else ""


def build(context: PipelineContext, digits: int = 4, images: dict[str, str] | None = None,
          title: str | None = None, formats: Sequence[str] = ("csv", "json"),
          intervals: pd.DataFrame | None = None) -> list[Block]:
    """All report blocks. ``images``: ``{"means": file, "heatmap:<method>": file, ...}`` of written plots;
    ``formats``: the formats written beside the report (the text names only files that exist); ``intervals``: the
    means' confidence intervals the plots draw (:func:`prefeval.pipeline.aggregate_step.means_ci`; computed here
    when not given)."""
    images = images or {}
    if intervals is None:
        intervals = means_ci(context.per_query, list(context.measures), list(context.runs))
    counts = QueryCounts.of(context)
    blocks = [Block("heading", title or f"prefeval report: {context.name}", level=1)]
    if context.simulated:
        blocks.append(Block("text", simulated_notice(context), key="simulated"))
    if context.description:
        blocks.append(Block("text", context.description))
    blocks += [Block.from_json(b) for b in headline_blocks(context, digits)]
    blocks += _overview(context, counts)
    blocks += _checks(context, formats)
    blocks += _effectiveness(context, digits, images, counts, intervals)
    blocks += _preferences(context, digits, images, formats, counts)
    blocks += _rankings(context, digits, formats)
    blocks += [Block.from_json(b) for b in disagreement_blocks(context, disagreements(context), formats)]
    blocks += _analysis(context, digits, images)
    return blocks


def _settings(context: PipelineContext) -> dict[str, Any]:
    return context.settings.get("aggregate", {})


def _overview(context: PipelineContext, counts: QueryCounts) -> list[Block]:
    agg = _settings(context)
    rows = [["pipeline", f"`{context.source}`" if context.source else context.name],
            ["qrels", context.qrels_label],
            ["relevant", f"grade ≥ {context.rel}"],
            ["queries", counts.overview()],
            ["runs", f"{len(context.runs)}: " + ", ".join(context.runs)]]
    if context.baseline:
        rows.append(["baseline", context.baseline])
    if context.measures:
        rows.append(["measures", ", ".join(context.measures)])
    if context.methods:
        rows.append(["preference methods", ", ".join(context.methods)])
    judged = _judged(context)
    if judged:
        rows.append([judged[0], ", ".join(f"{run} {value:.3f}" for run, value in judged[1].items())])
    if agg:
        rows.append(["tests", f"metrics: {TEST_NAMES[agg['metric_test']]}; preferences: {TEST_NAMES[agg['test']]}; "
                              f"{CORRECTION_NAMES[agg['correction']]}; α = {agg['alpha']}"])
    return [Block("heading", "Overview"), Block("table", header=["item", "value"], rows=rows,
                                                text="Pipeline overview", label="tab:overview", align="ll")]


def _judged(context: PipelineContext) -> tuple[str, dict[str, float]] | None:
    """(``"Judged@k"``, run -> value) from the check step (k: the deepest cutoff of the measures, else 10), or None."""
    found = context.check
    if not found or "judged_depth" not in found:
        return None
    k = str(found["judged_depth"])
    return f"Judged@{k}", {run["name"]: run["judged_at"][k] for run in found["runs"]}


def _checks(context: PipelineContext, formats: Sequence[str]) -> list[Block]:
    """The check step's findings (:mod:`prefeval.engine.check`): ``prefeval check``'s table of the runs
    (:func:`prefeval.report.check.runs_grid`) and the warnings."""
    found = context.check
    if not found or "runs" not in found:
        return []
    grid = runs_grid(found)
    blocks = [Block("heading", "Input checks"),
              Block("text", f"{grid.note} As `prefeval check` prints it"
                    + (" (summary.json: `check`)." if "json" in formats else ".")),
              Block.of_grid(grid, "Input checks of the runs", label="tab:checks")]
    if found["warnings"]:
        blocks.append(Block("items", items=list(found["warnings"])))
    else:
        blocks.append(Block("text", "No finding of the checks changes a number."))
    return blocks


def _versus(context: PipelineContext, kind: str) -> pd.DataFrame:
    """The rows of ``versus_baseline`` of ``kind`` against the report's baseline (the first one given)."""
    vs = context.versus_baseline
    if vs is None or vs.empty:
        return pd.DataFrame(columns=["method", "run"])
    if "baseline" in vs.columns:
        vs = vs[vs["baseline"] == context.baseline]
    return vs[vs["kind"] == kind]


def _explain(context: PipelineContext, kind: str) -> str:
    agg = _settings(context)
    test = agg.get("metric_test" if kind == "metric" else "test", "")
    correction = "" if test in FAMILY_WISE_TESTS else \
        f", {CORRECTION_NAMES[agg.get('correction', 'none')]} over the " \
        f"{plural(len(context.runs) - 1, 'comparison')} with the baseline"
    vs = _versus(context, kind)
    undefined = int(vs["p_value"].isna().sum()) if "p_value" in vs.columns else 0
    left_out = (f" {plural(undefined, 'test')} undefined (fewer than two queries, every query tied or zero "
                "variance): no p-value, never marked, left out of the correction." if undefined else "")
    return (f"{UP}/{DOWN}: significantly better/worse than the baseline `{context.baseline}` "
            f"({TEST_NAMES.get(test, test)}{correction}, per measure, α = {agg.get('alpha')}).{left_out}"
            + (f" {note}" if (note := robustness_note(context, kind)) else ""))


def _wtl_table(context: PipelineContext, vs: pd.DataFrame, names: list[str], label: str, caption: str) -> Block:
    rows = []
    for run in context.runs:
        if run == context.baseline:
            continue
        cells = [run]
        for name in names:
            hit = vs[(vs["method"] == name) & (vs["run"] == run)]
            cells.append("–" if hit.empty else
                         f"{hit.iloc[0]['wins']}/{hit.iloc[0]['ties']}/{hit.iloc[0]['losses']} "
                         f"({_p_text(hit.iloc[0]['p_adjusted'])})")
        rows.append(cells)
    return Block("table", header=["run", *names], rows=rows, text=caption, label=label)


def _effectiveness(context: PipelineContext, digits: int, images: dict[str, str],
                   counts: QueryCounts, intervals: pd.DataFrame | None) -> list[Block]:
    if not context.measures:
        return []
    means = context.means_table()
    vs = _versus(context, "metric")
    quality = context.true_quality()
    judged = _judged(context)
    header = ["run"] + (["true quality"] if quality else []) + list(context.measures) + ([judged[0]] if judged else [])
    rows = []
    for run in context.runs:
        cells = [f"{run} (baseline)" if run == context.baseline else run]
        if quality:
            cells.append(fmt(quality[run], 3))
        for measure in context.measures:
            value = means.loc[run, measure] if run in means.index and measure in means.columns else None
            hit = vs[(vs["method"] == measure) & (vs["run"] == run)]
            cells.append(fmt(value, digits) + ("" if hit.empty else _mark(hit.iloc[0])))
        if judged:
            cells.append(fmt(judged[1].get(run), 3))
        rows.append(cells)
    blocks = [Block("heading", "Effectiveness"),
              Block("text", f"Mean of each measure over {counts.over(counts.measures)}. "
                    + (_explain(context, "metric") if context.baseline and not vs.empty else "")),
              Block("table", header=header, rows=rows, text="Mean effectiveness per run", label="tab:means")]
    if len(context.runs) > 1 and context.baseline and not vs.empty:
        blocks += [Block("text", f"Wins/ties/losses: the number of queries on which each run scores higher than, "
                                 f"the same as, or lower than the baseline `{context.baseline}`, out of "
                                 f"{counts.over(counts.measures)}; in parentheses the adjusted p-value of the test "
                                 "above."),
                   _wtl_table(context, vs, context.measures, "tab:means-wtl",
                              "Wins/ties/losses against the baseline per measure")]
    if context.per_query is not None:
        blocks.append(Block("image", text=means_caption(context, intervals), label=images.get("means", ""),
                            key="means"))
    if (context.comparison is None or not context.methods) and len(context.runs) > 1:
        blocks += per_query_view()
    return blocks


def means_order(context: PipelineContext) -> list[str]:
    """One run order for every panel of the means plot (:func:`order_by_first_mean`)."""
    means = context.means if context.means is not None else pd.DataFrame(columns=["run", "measure", "value"])
    return order_by_first_mean(means, context.measures, list(context.runs))


def order_by_first_mean(means: pd.DataFrame, measures: Sequence[str], runs: Sequence[str]) -> list[str]:
    """``runs`` by their mean of the first measure (``means``: ``run, measure, value``), best first, ties and
    runs without a value by name."""
    if not measures:
        return list(runs)
    part = means[means["measure"].astype(str) == str(measures[0])]
    values = dict(zip(part["run"].astype(str), part["value"].astype(float)))
    return sorted(runs, key=lambda r: (-values[r] if pd.notna(values.get(r, float("nan"))) else float("inf"), r))


def means_caption(context: PipelineContext, intervals: pd.DataFrame | None = None) -> str:
    """The means figure's caption; with ``intervals`` (:func:`prefeval.pipeline.aggregate_step.means_ci`) it names
    the undefined intervals, drawn without a bar (:func:`undefined_intervals`)."""
    first = context.measures[0] if context.measures else ""
    return ("Per-run means with 95% confidence intervals (Student t over the per-query values); in every panel "
            f"the runs are in one order, by their mean {first}, best at the top"
            + (f"; the baseline {context.baseline} in red" if context.baseline else "")
            + ("" if intervals is None else undefined_intervals(intervals)))


def undefined_intervals(intervals: pd.DataFrame) -> str:
    """``"; no bar where the 95% interval is undefined: run (measure: undefined (fewer than 2 queries)), ..."``
    for the rows of ``intervals`` (``measure, run, mean, half, queries``) with a mean and no interval; empty when
    every interval is defined."""
    rows = intervals[intervals["mean"].notna() & intervals["half"].isna()]
    if rows.empty:
        return ""
    named = [f"{run} ({measure}: {undefined_interval(int(n))})"
             for run, measure, n in zip(rows["run"], rows["measure"], rows["queries"])]
    return "; no bar where the 95% interval is undefined: " + named_items(named)


def _preferences(context: PipelineContext, digits: int, images: dict[str, str],
                 formats: Sequence[str], counts: QueryCounts) -> list[Block]:
    if context.comparison is None or not context.methods:
        return []
    vs = _versus(context, "preference")
    blocks = [Block("heading", "Preferences"),
              Block("text", f"Mean per-query preference of each run over the baseline `{context.baseline}`, over "
                            f"{counts.over(counts.methods)} (positive: the run is preferred; each value is in "
                            "[-1, 1] for sign-valued methods). " + _explain(context, "preference"))]
    rows = []
    for run in context.runs:
        if run == context.baseline:
            continue
        cells = [run]
        for method in context.methods:
            hit = vs[(vs["method"] == method) & (vs["run"] == run)]
            cells.append("–" if hit.empty else fmt(hit.iloc[0]["value"], digits, signed=True) + _mark(hit.iloc[0]))
        rows.append(cells)
    blocks.append(Block("table", header=["run", *context.methods], rows=rows,
                        text="Mean preference over the baseline", label="tab:pref-baseline"))
    blocks.append(Block("text", f"Wins/ties/losses: the number of queries on which each run is preferred to, "
                                f"tied with, or less preferred than the baseline `{context.baseline}`, out of "
                                f"{counts.over(counts.methods)}; in parentheses the adjusted p-value of the test "
                                "above."))
    blocks.append(_wtl_table(context, vs, context.methods, "tab:pref-wtl",
                             "Wins/ties/losses against the baseline per preference method"))
    agg = _settings(context)
    pairs = context.run_pairs
    summary_rows = []
    for method in context.methods:
        matrix = context.comparison.matrix(method)
        summary_rows.append([method, f"{context.significant_pairs(method) or 0} of {pairs}",
                             fmt(context.tie_share(method), 3),
                             fmt(float(abs(matrix.to_numpy()).max()) if matrix.size else float("nan"), digits)])
    correction = CORRECTION_NAMES[agg.get("correction", "none")]
    blocks += [Block("heading", "All pairs", level=3),
               Block("text", f"Significant pairs: pairs of runs whose preference differs significantly from 0 "
                             f"({TEST_NAMES.get(agg.get('test'), '')}, {correction} over all "
                             f"{plural(pairs, 'pair')}, α = {agg.get('alpha')}).{_undefined_note(context)} "
                             "Ties: share of (query, pair) "
                             "comparisons that are tied. Max |mean preference|: the largest mean preference of one "
                             "run over another, in absolute value."
                             + _files_note(formats, "preferences.csv", " Per-pair figures are in {}.")),
               Block("table", header=["method", "significant pairs", "ties", "max |mean preference|"],
                     rows=summary_rows, text="Preference summary over all pairs", label="tab:pref-summary")]
    for method in context.methods:
        matrix = context.comparison.matrix(method)
        blocks.append(Block("heading", f"{method}: mean-preference matrix", level=3))
        if len(matrix) <= MAX_MATRIX_RUNS:
            rows = [[str(a)] + [("" if a == b else fmt(matrix.loc[a, b], 2, signed=True)) for b in matrix.columns]
                    for a in matrix.index]
            blocks.append(Block("table", header=["row over column", *map(str, matrix.columns)], rows=rows,
                                text=f"{method}: mean preference of the row run over the column run",
                                label=f"tab:matrix-{len(blocks)}"))
        key = f"heatmap:{method}"
        blocks.append(Block("image", text=f"{method}: mean preference of the row run over the column run, runs in "
                                          "the order of the method's ranking", label=images.get(key, ""), key=key))
    return blocks + per_query_view()


def per_query_view() -> list[Block]:
    """The HTML report's per-query view (after the preferences, or after the means without a comparison); the
    other formats leave it out, heading included."""
    return [Block("view", key="per-query",
                  text="The distribution over the queries of one pair's per-query preferences (a preference "
                       "method) or per-query differences (a measure). With scripts enabled, choose the method or "
                       "measure and the two runs, or click a heatmap cell.")]


#: How to read MC4 scores (in the report, rankings.csv and summary.json).
MC4_NOTE = (" MC4 scores are a level and a mass: the level is the round of "
            "recursive MC4 in which the run was ranked (1 = it holds stationary mass among all runs, 2 = among "
            "the runs left, ...), the score its share of the stationary mass within that level (each level's "
            "scores sum to 1; with a fixed number of iterations all runs are on level 1).")


def _undefined_note(context: PipelineContext) -> str:
    """The sentence on the all-pairs tests that are undefined (left out of their family), empty when none is."""
    undefined = {m: int(sig["p_value"].isna().sum()) for m, sig in context.significance.items() if "p_value" in sig}
    if not any(undefined.values()):
        return ""
    parts = ", ".join(f"{m}: {n}" for m, n in undefined.items() if n)
    return (f" Undefined tests (too few queries, every query tied or zero variance; no p-value, never significant, "
            f"left out of the family): {parts}.")


def _ranked_run(frame: pd.DataFrame, i: int) -> str:
    """Row ``i`` of a ranking: the run, and "(tied at k)" when another run shares its rank ``k``."""
    run, rank = str(frame["run"].iloc[i]), int(frame["rank"].iloc[i])
    shared = int((frame["rank"] == rank).sum()) > 1
    return f"{run} (tied at {rank})" if shared else run


def _rankings(context: PipelineContext, digits: int, formats: Sequence[str]) -> list[Block]:
    if not context.rankings:
        return []
    labels = list(context.rankings)
    quality = context.true_quality()
    truth_order = context.simulation.true_order if quality else None
    header = ["rank", *labels] + ([TRUTH] if truth_order else [])
    n = max(len(f) for f in context.rankings.values())
    rows = []
    for i in range(n):
        cells = [str(i + 1)]
        for label in labels:
            frame = context.rankings[label]
            cells.append(_ranked_run(frame, i) if i < len(frame) else "")
        if truth_order:
            ordered = [r for r in truth_order if r in context.runs]
            cells.append(ordered[i] if i < len(ordered) else "")
        rows.append(cells)
    blocks = [Block("heading", "System rankings"),
              Block("text", "Runs ordered by every method side by side: metrics by their mean, preference "
                            "methods by each rank aggregation (in parentheses)."
                            + (" The last column is the true order of the simulation." if truth_order else "")
                            + " Runs with equal scores (for MC4: the same level and mass) share one rank, shown as "
                              "\"(tied at k)\""
                            + _files_note(formats, "rankings.csv", "; {} give every run its rank") + "."
                            + (MC4_NOTE if any("level" in f.columns for f in context.rankings.values()) else "")),
              Block("table", header=header, rows=rows, text="System rankings", label="tab:rankings",
                    align="r" + "l" * (len(header) - 1))]
    tau = context.kendall_tau
    if tau is not None and not tau.empty and len(tau) > 1:
        columns = list(tau.columns)
        note = ""
        if len(columns) > MAX_TAU_COLUMNS:
            columns = [c for c in tau.columns if c.endswith("(mean)") or c == TRUTH] or columns[:MAX_TAU_COLUMNS]
            note = " Columns: the metric rankings" + (" and the true order" if TRUTH in columns else "") + \
                _files_note(formats, "kendall_tau.csv", "; the full matrix is in {}") + "."
        tau_rows = [[a] + [fmt(tau.loc[a, b], 3) for b in columns] for a in tau.index]
        blocks += [Block("heading", "Kendall's τ between rankings", level=3),
                   Block("text", "Kendall's τ-b between the system orderings (1: identical, -1: reversed)." + note),
                   Block("table", header=["", *columns], rows=tau_rows, text="Kendall's tau between rankings",
                         label="tab:tau")]
    return blocks


#: What the columns of the tables of prefeval's analyses (:data:`prefeval.analysis.PIPELINE_ANALYSES`) mean,
#: by (analysis, table); the sentence under each table is built from it and names only the columns present.
ANALYSIS_COLUMNS: dict[tuple[str, str], dict[str, str]] = {
    ("ties", "ties"): {
        "method": "the preference method or metric",
        "pairs": "the (query, pair of runs) comparisons made",
        "ties": "how many of them are tied",
        "fraction_tied": "ties / pairs"},
    ("agreement", "sign_agreement"): {
        "method": "the preference method",
        "reference": "the metric it is compared with",
        "pairs": "the (query, pair of runs) comparisons the reference does not tie",
        "agree": "those the method orders as the reference does",
        "disagree": "those it orders the other way",
        "method_ties": "those the method ties",
        "agreement": "agree / pairs, the method's ties counted as the method_ties option says (default: as "
                     "disagreeing; \"exclude\" drops them, \"half\" counts them as half agreeing)"},
    ("agreement", "system_agreement"): {
        "method": "the preference method",
        "reference": "the metric it is compared with",
        "pairs": "the pairs of runs whose reference means differ",
        "agree": "those whose mean preference has the sign of the reference's difference",
        "disagree": "those with the other sign",
        "method_ties": "those the method's mean ties",
        "agreement": "agree / pairs, the method's ties counted as the method_ties option says (default: as "
                     "disagreeing; \"exclude\" drops them, \"half\" counts them as half agreeing)"},
    ("agreement", "kendall_tau"): {
        "method": "the preference method",
        "reference": "the metric it is compared with",
        "systems": "the runs ranked",
        "tau": "Kendall's τ-b between the two system rankings",
        "p_value": "its two-sided p-value",
        "p_method": f"scipy's choice: exact (no ties, at most {TAU_EXACT_SYSTEMS} systems or at most one discordant "
                    "or one concordant pair), else its normal approximation (always with ties: then p need not follow τ's order)"},
    ("power", "discriminative_power"): {
        "method": "the preference method or metric",
        "kind": "preference or metric",
        "test": "the significance test",
        "correction": "the multiple-comparison correction",
        "alpha": "the significance level",
        "pairs": "the pairs of runs tested",
        "undefined": "pairs whose test is undefined (too few queries, every query tied, zero variance)",
        "significant": "those found significantly different",
        "fraction": "significant / defined pairs (pairs - undefined)"},
    ("robustness", "label_degradation"): {
        "policy": "how relevance labels are removed",
        "fraction_removed": "the share of relevant labels removed",
        "method": "the preference method or metric",
        "fraction_tied_mean": "mean share of tied (query, pair) comparisons",
        "agreement_mean": "mean sign agreement with the preferences on all labels",
        "tau_mean": "mean Kendall's τ with the ranking on all labels",
        "fraction_tied_std": "its standard deviation over the samples",
        "agreement_std": "its standard deviation",
        "tau_std": "its standard deviation",
        "samples": "the number of random samples"},
    ("robustness", "query_subsampling"): {
        "fraction_removed": "the share of queries removed",
        "method": "the preference method or metric",
        "tau_mean": "mean Kendall's τ with the ranking on all queries",
        "system_agreement_mean": "mean system-pair agreement with all queries",
        "tau_std": "its standard deviation over the samples",
        "system_agreement_std": "its standard deviation",
        "samples": "the number of random samples"},
    ("tie_probability", "by_corpus_size"): {
        "n": "the number of items ranked",
        "m": "the number of relevant items",
        "*": "the probability that two uniformly random rankings tie under that measure"},
    ("tie_probability", "by_relevant_count"): {
        "n": "the number of items ranked",
        "m": "the number of relevant items",
        "*": "the probability that two uniformly random rankings tie under that measure"},
    ("worst_case", "worst_case_agreement"): {
        "n": "the number of items ranked",
        "tied": "the share of random ranking pairs tied in the worst case",
        "*": "among the others, the share the metric orders as the worst case does (a metric tie disagrees)"},
    ("unanimity", "metric_unanimity"): {
        "measure": "the metric",
        "mu": "its metric unanimity against all the other metrics",
        "pairs": "the ordered pairs of runs (i, j), i ≠ j, compared within each query, summed over the queries"},
    ("unanimity_grid", "metric_unanimity_grid"): {
        "*": "metric unanimity at the parameter grid of Amigó et al. (2018)"},
    ("balancing", "balancing_index"): {
        "measure": "the metric",
        "*": "the balancing index B(n) for runs of length n (None: no balance point)"},
}


#: What each table of the built-in analyses shows (its caption); a table not listed is captioned by its analysis and
#: part names (:func:`analysis_caption`).
ANALYSIS_CAPTIONS: dict[tuple[str, str], str] = {
    ("ties", "ties"): "Tied per-query comparisons of the pairs of runs, per preference method and metric",
    ("agreement", "sign_agreement"): "Per-query sign agreement of each preference method with each metric's "
                                     "difference, over the pairs of runs",
    ("agreement", "system_agreement"): "Pairs of runs each preference method orders as each metric does "
                                       "(mean preference against mean difference)",
    ("agreement", "kendall_tau"): "Kendall's τ between each preference method's and each metric's ranking of the runs",
    ("power", "discriminative_power"): "Discriminative power: the share of pairs of runs each method separates "
                                       "significantly, over the defined tests",
    ("robustness", "label_degradation"): "Ties, agreement and ranking stability as relevance labels are removed",
    ("robustness", "query_subsampling"): "Ranking stability as queries are removed",
    ("tie_probability", "by_corpus_size"): "Probability that two random rankings tie, by the number of items ranked",
    ("tie_probability", "by_relevant_count"): "Probability that two random rankings tie, by the number of relevant "
                                              "items",
    ("worst_case", "worst_case_agreement"): "How often each metric orders random ranking pairs as the worst case does",
    ("unanimity", "metric_unanimity"): "Metric unanimity of each metric against the others",
    ("unanimity_grid", "metric_unanimity_grid"): "Metric unanimity over the parameter grid of Amigó et al. (2018)",
    ("balancing", "balancing_index"): "Balancing index of each metric by run length",
}


def analysis_caption(analysis: str, part: str) -> str:
    """The caption of an analysis table or figure: what it shows (:data:`ANALYSIS_CAPTIONS`), else the analysis
    and part names (once when they are equal)."""
    known = ANALYSIS_CAPTIONS.get((analysis, part))
    if known is not None:
        return known
    return analysis if analysis == part else f"{analysis}: {part}"


def column_note(analysis: str, part: str, columns: Sequence[str]) -> str:
    """The sentence under an analysis table: what each of its columns means (from :data:`ANALYSIS_COLUMNS`);
    a table prefeval does not know (a user's callable) is named as the analysis returned it."""
    notes = ANALYSIS_COLUMNS.get((analysis, part))
    if notes is None:
        return f"Columns as the analysis {analysis!r} returned them: {', '.join(columns)}."
    described, rest = [], []
    for column in columns:
        if column in notes:
            described.append(f"{column}: {notes[column]}")
        else:
            rest.append(column)
    if rest and "*" in notes:
        described.append(f"{', '.join(rest)}: {notes['*']}")
    elif rest:
        described.append(f"{', '.join(rest)}: as the analysis returned them")
    return "Columns. " + "; ".join(described) + "."


def _cell(value: Any, digits: int) -> str:
    """A table cell of an analysis: floats with ``digits`` decimals, or 3 significant digits when the decimals
    would show a non-zero number as 0."""
    if isinstance(value, float):
        if value != 0 and abs(value) < 0.5 * 10 ** -digits:
            return f"{value:.3g}"
        return fmt(value, digits)
    return str(value)


def _analysis(context: PipelineContext, digits: int, images: dict[str, str]) -> list[Block]:
    if not context.analysis:
        return []
    blocks = [Block("heading", "Analyses")]
    for name, parts in context.analysis.items():
        blocks.append(Block("heading", name, level=3))
        tables = sum(isinstance(v, pd.DataFrame) for v in parts.values())
        for part, value in parts.items():
            if isinstance(value, pd.DataFrame):
                frame = value.reset_index() if value.index.name is not None else value
                rows = [[_cell(x, digits) for x in row] for row in frame.itertuples(index=False)]
                align = "".join("r" if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
                                else "l" for c in frame.columns)
                if tables > 1:
                    blocks.append(Block("text", f"**{part}**"))
                columns = [str(c) for c in frame.columns]
                blocks.append(Block("table", header=columns, rows=rows,
                                    text=analysis_caption(name, part), label=f"tab:analysis-{len(blocks)}", align=align))
                blocks.append(Block("text", column_note(name, part, columns)))
            elif f"analysis:{name}:{part}" in images:
                blocks.append(Block("image", text=analysis_caption(name, part), label=images[f"analysis:{name}:{part}"],
                                    key=f"analysis:{name}:{part}"))
            elif isinstance(value, (str, int, float, bool)):
                blocks.append(Block("text", f"{part}: {fmt(value, digits) if isinstance(value, float) else value}"))
    return blocks
