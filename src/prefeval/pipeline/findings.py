"""What a report leads with: its headline, and where the preferences and the metrics disagree.

* :func:`best_runs` -- for every measure and preference method, the best run and whether it is significantly
  better than every other run, each under a family that is named: for a metric the paired test of the best run
  against each other run (the ``S - 1`` comparisons with the best run, corrected together), for a preference the
  all-pairs test of the aggregate step (corrected over all pairs of runs, the family of
  ``context.significance``).
* :func:`order_disagreements` -- for each (preference, metric), the pairs of runs whose mean preference and
  mean metric difference have opposite signs (the two order the pair differently).
* :func:`disagreements` -- for each pair of runs and each (preference, metric), the queries where the
  per-query preference and the per-query metric difference have opposite signs (both beyond
  :data:`prefeval.core.stats.TIE_TOL`); summary.json stores them as ``"disagreements"``.
* :func:`headline_blocks` and :func:`disagreement_blocks` -- the report's blocks built from those numbers.

The numbers come from the pipeline context (per-query metric values, the comparison, the aggregate step's
settings); every sentence is generated from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from prefeval.core import stats
from prefeval.data.ranking import rank_run
from prefeval.engine.significance import FAMILY_WISE_TESTS, correction_for, pair_significance
from prefeval.pipeline.aggregate_step import metric_table
from prefeval.pipeline.context import PipelineContext
from prefeval.report.run_table import robust_sentence
from prefeval.report.text import fmt, fmt_p, plural

__all__ = ["TEST_NAMES", "CORRECTION_NAMES", "BestRun", "best_runs", "order_disagreements", "disagreements", "headline_blocks",
           "disagreement_blocks", "TOP_DOCUMENTS"]

#: the disagreement view shows each run's top this many documents for a query
TOP_DOCUMENTS = 10
#: the disagreements are listed up to this many (preference, metric, pair of runs, query) comparisons (beyond, the
#: lists would outgrow summary.json; the report says they were left out)
MAX_DISAGREEMENT_CELLS = 50_000_000
#: the headline names at most this many pairs of runs that a preference and a metric order differently
MAX_HEADLINE_PAIRS = 5
#: the disagreement view opens at most this many pairs of runs per (preference, metric), and this many queries each
VIEW_PAIRS = 3
VIEW_QUERIES = 3


@dataclass(frozen=True)
class BestRun:
    """The best run of one measure or method and the tests of it against every other run.

    ``value``: its mean (a metric) or its ranking score (a preference, ranked by ``ranking``); ``beaten``: the runs it is significantly
    better than; ``not_beaten``: the others with their adjusted p-values (NaN: the test is undefined); ``family``:
    the sentence naming the test, correction and family size."""

    measure: str
    kind: str
    run: str
    value: float
    beaten: list[str]
    not_beaten: list[tuple[str, float]]
    family: str
    ranking: str = "mean"

    @property
    def beats_all(self) -> bool:
        return not self.not_beaten


#: the tests and corrections by name, as the report names them
TEST_NAMES = {"sign": "sign test", "t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "permutation": "paired permutation test", "randomized_tukey_hsd": "randomised Tukey HSD"}
CORRECTION_NAMES = {"holm": "Holm correction", "bonferroni": "Bonferroni correction",
                    "fdr_bh": "Benjamini-Hochberg correction", "none": "no correction"}


def _block(kind: str, text: str = "", **fields: Any) -> dict[str, Any]:
    """A report block as plain values (:meth:`prefeval.report.document.Block.from_json` makes it a block)."""
    return {"kind": kind, "text": text, **fields}


def _family_text(test: str, correction: str, size: int, what: str, undefined: int) -> str:
    """``"paired t-test, Holm correction over the 11 comparisons of sim11 with the other runs"``; the family is the
    defined tests (``size``), and the undefined ones are said to be left out."""
    name = TEST_NAMES.get(test, test)
    if test in FAMILY_WISE_TESTS:
        return f"{name}, family-wise over all pairs of runs"
    over = what if not undefined else f"the {size} defined tests of {what}; {undefined} undefined, left out"
    return f"{name}, no correction" if correction == "none" else \
        f"{name}, {CORRECTION_NAMES.get(correction, correction)} over {over}"


def best_runs(context: PipelineContext) -> list[BestRun]:
    """The best run of every measure (highest mean) and preference method (first in its first ranking), with the
    runs it is significantly better than (module docstring)."""
    out: list[BestRun] = []
    agg = context.settings.get("aggregate", {})
    alpha = float(agg.get("alpha", 0.05))
    runs = list(context.runs)
    means = context.means_table()
    if context.per_query is not None and len(runs) > 1:
        test = agg.get("metric_test", "t")
        correction = correction_for(test, agg.get("correction", "holm"))
        for measure in context.measures:
            if measure not in means.columns:
                continue
            table = metric_table(context.per_query, measure, runs)
            if table.empty:
                continue
            column = means[measure]
            best = max(runs, key=lambda r: (column[r], -runs.index(r)))
            others = [r for r in runs if r != best]
            M = table.to_numpy()
            b, idx = runs.index(best), np.array([runs.index(r) for r in others])
            X = (M[:, [b]] - M[:, idx]).T  # (S - 1, Q): the best run over each other run
            res = pair_significance(test, X, M, (np.full(len(idx), b), idx), correction, alpha,
                                    family_statistic=X.mean(axis=1))
            beaten = [r for r, s, d in zip(others, res.significant, X.mean(axis=1)) if s and d > 0]
            not_beaten = [(r, float(p)) for r, s, d, p in zip(others, res.significant, X.mean(axis=1), res.adjusted)
                          if not (s and d > 0)]
            what = f"the {plural(len(others), 'comparison')} of {best} with the other runs"
            out.append(BestRun(measure, "metric", best, float(column[best]), beaten, not_beaten,
                               _family_text(test, correction, res.family, what, res.undefined)))
    for method in context.methods:
        label = context.ranking_label(method)
        sig = context.significance.get(method)
        if label is None or sig is None or len(runs) < 2:
            continue
        ranking = context.rankings[label]
        best = str(ranking["run"].iloc[0])
        rows = sig[(sig["run_a"] == best) | (sig["run_b"] == best)]
        beaten, not_beaten = [], []
        for row in rows.itertuples(index=False):
            other = str(row.run_b) if str(row.run_a) == best else str(row.run_a)
            favours_best = row.mean > 0 if str(row.run_a) == best else row.mean < 0
            if bool(row.significant) and favours_best:
                beaten.append(other)
            else:
                not_beaten.append((other, float(row.p_adjusted)))
        what = f"all {plural(len(sig), 'pair')} of runs"
        family = _family_text(sig.attrs.get("test", ""), sig.attrs.get("correction", ""),
                              int(sig.attrs.get("family_size", sig["p_value"].notna().sum())), what,
                              int(sig["p_value"].isna().sum()))
        out.append(BestRun(method, "preference", best, float(ranking["score"].iloc[0]), beaten, not_beaten,
                           family, label.rsplit("(", 1)[-1].rstrip(")")))
    return out


def order_disagreements(context: PipelineContext) -> list[dict[str, Any]]:
    """For each (preference, metric): ``pairs`` (the pairs of runs compared) and ``opposite`` (the ``(run_a,
    run_b)`` pairs whose mean preference of run_a over run_b and mean metric difference run_a - run_b have
    opposite signs, both beyond :data:`~prefeval.core.stats.TIE_TOL`; a run without a mean of the metric is in no
    such pair), in the comparison's pair order."""
    if context.comparison is None:
        return []
    means = context.means_table()
    comparison = context.comparison
    pairs = comparison.pairs
    i, j = comparison.pair_indices
    runs = list(comparison.runs)
    out = []
    for method in context.methods:
        pref = np.asarray(comparison.pair_sums(comparison.result(method)).mean, dtype=np.float64)
        for measure in context.measures:
            if measure not in means.columns:
                continue
            value = means[measure].reindex(runs).to_numpy(dtype=np.float64)
            diff = value[i] - value[j]
            opposite = ((pref > stats.TIE_TOL) & (diff < -stats.TIE_TOL)) | ((pref < -stats.TIE_TOL) & (diff > stats.TIE_TOL))
            out.append({"method": method, "metric": measure, "pairs": len(pairs),
                        "opposite": [pairs[k] for k in np.flatnonzero(opposite).tolist()]})
    return out


def disagreements(context: PipelineContext) -> list[dict[str, Any]]:
    """``[{method, metric, run_a, run_b, queries}]``: for each preference method, metric and pair of runs of the
    comparison (in its pair order, run_a before run_b), the queries (in the comparison's query order) where the
    per-query preference of run_a over run_b and the metric difference run_a - run_b have opposite signs. Over the
    queries both were computed on; a method whose per-query preferences were not kept is left out. Computed once
    and kept in ``context.disagreements``."""
    if context.disagreements is None:
        context.disagreements = _disagreements(context)
    return context.disagreements


def disagreement_cells(context: PipelineContext) -> int:
    """How many (preference, metric, pair of runs, query) comparisons :func:`disagreements` makes."""
    comparison = context.comparison
    if comparison is None or context.per_query is None:
        return 0
    queries = max((len(r.query_ids) for r in comparison.results.values()), default=0)
    return len(context.methods) * len(context.measures) * len(comparison.pairs) * queries


def _disagreements(context: PipelineContext) -> list[dict[str, Any]]:
    comparison = context.comparison
    if comparison is None or context.per_query is None or disagreement_cells(context) > MAX_DISAGREEMENT_CELLS:
        return []
    i, j = comparison.pair_indices
    names = comparison.runs
    out = []
    for method in context.methods:
        r = comparison.result(method)
        if not r.kept:
            continue
        X = r.pair_values(comparison.pair_indices).T  # (Q, pairs)
        queries = r.query_ids.astype(str)
        for measure in context.measures:
            table = metric_table(context.per_query, measure, names)
            if table.empty:
                continue
            table.index = table.index.astype(str)
            present = np.isin(queries, table.index.to_numpy())
            M = table.reindex(queries[present]).to_numpy()
            D = M[:, i] - M[:, j]
            P = X[present]
            opposite = ((P > stats.TIE_TOL) & (D < -stats.TIE_TOL)) | ((P < -stats.TIE_TOL) & (D > stats.TIE_TOL))
            kept = queries[present]
            for p in range(len(i)):
                out.append({"method": method, "metric": measure, "run_a": names[i[p]], "run_b": names[j[p]],
                            "queries": kept[opposite[:, p]].tolist()})
    return out


def robust_counts(context: PipelineContext, kind: str | None = None) -> tuple[int, int] | None:
    """How many of the significant comparisons with the baseline (of ``kind``: "metric" or "preference"; None: both)
    are robust to the unjudged documents, and how many were tested (``[aggregate] robust = true``: column ``robust``
    of ``versus_baseline``, :func:`prefeval.engine.holes.readings`); None without that column."""
    vs = context.versus_baseline
    if vs is None or "robust" not in vs.columns:
        return None
    rows = vs[vs["robust"].notna() & (vs["baseline"] == context.baseline)]
    if kind is not None:
        rows = rows[rows["kind"] == kind]
    return int((rows["robust"] == True).sum()), len(rows)  # noqa: E712 (an object column of True / False / None)


def robustness_note(context: PipelineContext, kind: str | None = None) -> str | None:
    """The sentence on robustness to unjudged documents of the comparisons with the baseline of ``kind`` (None:
    metrics and preferences), from :func:`robust_counts` and the filled reading the aggregate step used
    (:func:`prefeval.report.run_table.robust_sentence`, the run table's sentence); None when the aggregate step did
    not test it."""
    counts = robust_counts(context, kind)
    fill = context.settings.get("aggregate", {}).get("robust_fill")
    if counts is None or not fill:
        return None
    return robust_sentence(*counts, *fill, against=f" with the baseline `{context.baseline}`") + "."


def headline_blocks(context: PipelineContext, digits: int = 4) -> list[dict[str, Any]]:
    """The headline section (blocks as plain values): the best run of each measure and method and whether it beats every other run
    significantly (the family named), and where the preferences and the metrics order runs differently."""
    agg = context.settings.get("aggregate", {})
    alpha = agg.get("alpha", 0.05)
    items = []
    for best in best_runs(context):
        value = f"mean {fmt(best.value, digits)}" if best.kind == "metric" else f"first by {best.ranking}"
        shown = ", ".join(f"{run} (adjusted p {fmt_p(p) if np.isfinite(p) else 'undefined'})"
                          for run, p in best.not_beaten[:3])
        more = f" and {len(best.not_beaten) - 3} more" if len(best.not_beaten) > 3 else ""
        if best.beats_all:
            verdict = f"significantly better than every other run at α = {alpha}"
        elif not best.beaten:
            verdict = f"not significantly better than any other run at α = {alpha}: {shown}{more}"
        else:
            verdict = (f"significantly better than {len(best.beaten)} of the {len(best.beaten) + len(best.not_beaten)} "
                       f"other runs at α = {alpha}; not than {shown}{more}")
        items.append(f"**{best.measure}**: best run `{best.run}` ({value}), {verdict} ({best.family}).")
    note = robustness_note(context)
    if note:
        items.append(note)
    order = order_disagreements(context)
    split = [d for d in order if d["opposite"]]
    if order and not split:
        items.append("Every preference method orders every pair of runs as every metric does (by the sign of the "
                     "mean preference and of the mean difference).")
    by_pair: dict[tuple[str, str], dict[str, list[str]]] = {}
    for d in split:
        for pair in d["opposite"]:
            by_pair.setdefault(pair, {}).setdefault(d["method"], []).append(d["metric"])
    for (a, b), methods in list(by_pair.items())[:MAX_HEADLINE_PAIRS]:
        which = "; ".join(f"by {method} than by {', '.join(metrics)}" for method, metrics in methods.items())
        items.append(f"`{a}` and `{b}` are ordered differently {which} (the sign of the mean preference against "
                     "that of the mean difference).")
    if len(by_pair) > MAX_HEADLINE_PAIRS:
        items.append(f"{len(by_pair) - MAX_HEADLINE_PAIRS} more pairs of runs are ordered differently by a "
                     "preference and a metric (the disagreement section below).")
    if not items:
        return []
    return [_block("heading", "Headline"),
            _block("text", "What the numbers below show, in brief. Each significance statement names its test and "
                          "the family its correction ran over."),
            _block("items", items=items)]


def _top_documents(context: PipelineContext, runs: set[str], queries: set[str]) -> dict[tuple[str, str], list]:
    """``{(run, query): [[doc_id, grade or None], ...]}``: each run's top :data:`TOP_DOCUMENTS` documents of the
    queries (as every measure ranks them, :func:`prefeval.data.ranking.rank_run`), with the judged grade or None."""
    grades: dict[tuple[str, str], int] = {}
    if context.qrels is not None:
        q = context.qrels[context.qrels["query_id"].astype(str).isin(queries)]
        grades = {(str(a), str(b)): int(g) for a, b, g in zip(q["query_id"], q["doc_id"], q["relevance"])}
    out: dict[tuple[str, str], list] = {}
    for run in runs:
        frame = context.runs.get(run)
        if frame is None:
            continue
        rows = rank_run(frame, name=run).rows(TOP_DOCUMENTS)
        rows = rows[rows["query_id"].astype(str).isin(queries)]
        for query, doc in zip(rows["query_id"].astype(str), rows["doc_id"].astype(str)):
            out.setdefault((run, query), []).append([doc, grades.get((query, doc))])
    return out


def disagreement_blocks(context: PipelineContext, found: list[dict[str, Any]],
                        formats: Sequence[str] = ("csv", "json")) -> list[dict[str, Any]]:
    """The disagreement section (blocks as plain values): per (preference, metric) the pairs of runs and queries where the two disagree
    (a table for every format), and the view (report.html, ``id="disagreement"``) that opens the pairs with the
    most disagreeing queries to both runs' top documents, grades shown and unjudged documents marked. ``formats``:
    the formats written beside the report (the text names only files that exist)."""
    if not found:
        cells = disagreement_cells(context)
        if cells <= MAX_DISAGREEMENT_CELLS:
            return []
        return [_block("heading", "Disagreement between preferences and metrics"),
                _block("text", f"Not listed: {cells:,} (preference, metric, pair of runs, query) comparisons are more "
                               f"than the {MAX_DISAGREEMENT_CELLS:,} the report lists"
                               + ("; preferences.csv and per_query.csv hold the values to compare" if "csv" in formats
                                  else "") + ".")]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for d in found:
        groups.setdefault((d["method"], d["metric"]), []).append(d)
    rows, view = [], []
    for (method, metric), entries in groups.items():
        counts = sorted(((len(d["queries"]), k) for k, d in enumerate(entries)), key=lambda c: (-c[0], c[1]))
        total = sum(c for c, _ in counts)
        with_any = sum(1 for c, _ in counts if c)
        top = entries[counts[0][1]] if counts and counts[0][0] else None
        rows.append([method, metric, f"{with_any} of {len(entries)}", str(total),
                     f"{top['run_a']}/{top['run_b']} ({counts[0][0]})" if top else "none"])
        for count, k in counts[:VIEW_PAIRS]:
            if count:
                d = entries[k]
                view.append([method, metric, d["run_a"], d["run_b"], count, d["queries"][:VIEW_QUERIES]])
    runs = {v[2] for v in view} | {v[3] for v in view}
    queries = {q for v in view for q in v[5]}
    top = _top_documents(context, runs, queries)
    payload = [[method, metric, a, b, count, [[q, top.get((a, q), []), top.get((b, q), [])] for q in shown]]
               for method, metric, a, b, count, shown in view]
    return [
        _block("heading", "Disagreement between preferences and metrics"),
        _block("text", "Where a preference method and a metric disagree on a query: the per-query preference of "
                      "run_a over run_b and the metric difference run_a − run_b have opposite signs (ties, "
                      f"|value| ≤ {stats.TIE_TOL:g}, disagree with nothing)."
                      + (" The full lists, for every pair of runs, are summary.json's \"disagreements\"."
                         if "json" in formats else "")),
        _block("table", header=["preference", "metric", "pairs with a disagreeing query", "disagreeing queries",
                               "pair with the most (queries)"], rows=rows,
              text="Queries where a preference and a metric difference have opposite signs, per (preference, "
                   "metric), summed over the pairs of runs", label="tab:disagreement", align="llrrl"),
        _block("view", f"For each (preference, metric), the {VIEW_PAIRS} pairs of runs with the most disagreeing "
                      f"queries and their first {VIEW_QUERIES} such queries; open one to see both runs' top "
                      f"{TOP_DOCUMENTS} documents side by side (judged grade shown, unjudged documents marked).",
              key="disagreement", rows=payload),
    ]
