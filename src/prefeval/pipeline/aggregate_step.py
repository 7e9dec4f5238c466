"""The ``Aggregate`` step: system rankings, tests against a baseline run, Kendall's tau between rankings.

* **Against the baseline** (PyTerrier ``Experiment``/ranx ``Report`` style): for every metric and every
  preference method, each run is compared with the baseline over the evaluated queries: wins/ties/losses
  (|difference| <= 1e-12 is a tie), the mean (metric: the run's official mean; preference: the mean
  per-query preference of the run over the baseline), a paired test (``metric_test`` for metrics on the
  per-query differences over the queries the measure scores, ``test`` for preferences on the per-query
  preferences over the evaluated queries; see
  :mod:`prefeval.core.stats`) and a correction over the S - 1 comparisons of that metric or method.
  ``randomized_tukey_hsd`` is already family-wise over all pairs, so it is not corrected again.
* **Rankings**: metrics are ranked by their mean (ties broken by run name); preference methods by each
  aggregation in ``rankings`` (:meth:`prefeval.engine.comparison.Comparison.ranking`, with the tie rule ``ties`` and
  MC4's ``iterations``).
* **Kendall's tau-b** between every two rankings, on the values that rank the runs (tied values are ties:
  a metric's mean, Borda points, ...; for MC4 the pair (level, mass within the level)), plus the true order
  when the data are simulated (:func:`prefeval.analysis.agreement.kendall_tau_b`).
* **All pairs**: :meth:`prefeval.engine.comparison.Comparison.significance` for each method (the preference summary).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from prefeval.analysis.agreement import kendall_tau_b, ranking_values
from prefeval.core import stats
from prefeval.core.aggregate import AGGREGATES, TIES, check_iterations, shared_ranks
from prefeval.core.reduce import PairSums
from prefeval.core.stats import CORRECTIONS, TESTS
from prefeval.engine.significance import (
    VALUE_TESTS,
    PairTests,
    correction_for,
    pair_intervals,
    pair_significance,
)
from prefeval.engine.table import table
from prefeval.errors import PrefevalError
from prefeval.pipeline.base import Origin, Plan, Step
from prefeval.pipeline.context import PipelineContext
from prefeval.pipeline.progress import Progress
from prefeval.pipeline.schema import Key, Table

__all__ = ["Aggregate", "TRUTH"]

TRUTH = "true quality (simulation)"


def _choices(key: str) -> tuple[Any, ...]:
    return Aggregate.TABLE.keys[key].choices or ()


class Aggregate(Step):
    """Rankings (``mc4``, ``borda``, ``copeland``, ``win_rate``, ``mean``), tests against ``baseline``
    (default: the first run) with ``correction`` at ``alpha``, and Kendall's tau between rankings."""

    kind = "aggregate"
    TABLE = Table(doc="rankings, significance tests and the baseline", keys={
        "rankings": Key("str|list[str]", ["mc4", "borda"], "rank aggregations for the preference methods "
                        "(metrics are always ranked by their mean)", choices=AGGREGATES),
        "ties": Key("str", "shared", "tie rule inside one query: shared (tied runs do not vote and share Borda "
                    "points) or pref_aggregate (ties broken by run name, descending, as the authors' tool)",
                    choices=TIES),
        "iterations": Key("int|null", None, "MC4 power-iteration steps from the all-ones vector (the authors' "
                          "tool: 10); null = run to convergence", minimum=0),
        "test": Key("str", "sign", "significance test for preferences", choices=TESTS),
        "metric_test": Key("str", "t", "paired significance test for metrics", choices=TESTS),
        "correction": Key("str", "holm", "multiple-testing correction", choices=CORRECTIONS),
        "alpha": Key("float", 0.05, "significance level", minimum=0),
        "baseline": Key("str|list[str]", None, "the run others are tested against (default: the first run); a "
                        "list: versus_baseline has the rows of each, the report shows the first"),
        "robust": Key("bool", False, "test every comparison with the baseline again with unjudged documents removed "
                      "(condensed lists) and judged relevant (prefeval.table robust=True): column robust"),
    })
    NEEDS = frozenset({"per_query", "comparison"})
    PROVIDES = frozenset({"rankings", "significance"})

    def __init__(self, rankings: Sequence[str] | str = ("mc4", "borda"), test: str = "sign", metric_test: str = "t",
                 correction: str = "holm", alpha: float = 0.05, baseline: str | Sequence[str] | None = None,
                 ties: str = "shared", iterations: int | None = None, robust: bool = False,
                 origin: Origin | None = None) -> None:
        super().__init__(origin)
        self.robust = robust
        self.rankings = [rankings] if isinstance(rankings, str) else list(rankings)
        self.ties, self.iterations = ties, iterations
        self.test, self.metric_test, self.correction = test, metric_test, correction
        self.alpha, self.baseline = alpha, baseline

    def options(self) -> dict[str, Any]:
        return {"rankings": self.rankings, "test": self.test, "metric_test": self.metric_test,
                "correction": self.correction, "alpha": self.alpha, "baseline": self.baseline,
                "ties": self.ties, "iterations": self.iterations, "robust": self.robust}

    def validate(self, plan: Plan) -> None:
        for i, name in enumerate(self.rankings):
            if name not in _choices("rankings"):
                raise self.error(f"rankings[{i}]", f"{name!r} is not one of {list(_choices('rankings'))}")
        for key in ("test", "metric_test", "correction", "ties"):
            if getattr(self, key) not in _choices(key):
                raise self.error(key, f"{getattr(self, key)!r} is not one of {list(_choices(key))}")
        if self.iterations is not None and (not isinstance(self.iterations, int) or self.iterations < 0):
            raise self.error("iterations", f"must be a non-negative integer or absent, got {self.iterations!r}")
        try:  # MC4's fixed steps are bounded by the number of runs: checked before any step runs
            check_iterations(self.iterations, len(plan.run_names), name="it")
        except PrefevalError as exc:
            raise self.error("iterations", str(exc).removeprefix("it=").removeprefix("it ")) from None
        if not 0 < float(self.alpha) < 1:
            raise self.error("alpha", f"must be between 0 and 1, got {self.alpha!r}")
        for baseline in self.baselines:
            if baseline not in plan.run_names:
                close = difflib.get_close_matches(str(baseline), plan.run_names, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise self.error("baseline", f"no run is named {baseline!r}{hint}; runs: {', '.join(plan.run_names)}")

    @property
    def baselines(self) -> list[str]:
        """The baselines given (none: the first run is the baseline)."""
        if self.baseline is None:
            return []
        return [self.baseline] if isinstance(self.baseline, str) else [str(b) for b in self.baseline]

    def run(self, context: PipelineContext, progress: Progress) -> None:
        with progress.stage("aggregation"):
            runs = list(context.runs)
            baselines = self.baselines or runs[:1]
            context.baseline = baselines[0] if baselines else None
            frames = []
            for baseline in baselines:  # one family per baseline and measure
                rows: list[dict[str, Any]] = []
                if context.per_query is not None:
                    rows += _metrics_vs_baseline(context, self.metric_test, self.correction, self.alpha, baseline)
                if context.comparison is not None:
                    rows += _preferences_vs_baseline(context, self.test, self.correction, self.alpha, baseline)
                frames.append(pd.DataFrame(rows, columns=_VS_COLUMNS).assign(baseline=baseline))
            context.versus_baseline = pd.concat(frames, ignore_index=True) if frames else \
                pd.DataFrame(columns=_VS_COLUMNS)
            fill = None
            if self.robust and not context.versus_baseline.empty:
                context.versus_baseline["robust"], fill = self._robust(context, baselines)
            context.rankings = _rankings(context, self.rankings, self.ties, self.iterations)
            context.kendall_tau = kendall_tau_table(context.rankings, _truth(context))
            context.significance = {
                method: context.comparison.significance(
                    method, test=self.test, alpha=self.alpha, correction=correction_for(self.test, self.correction))
                for method in (context.methods if context.comparison is not None else [])
            }
        context.settings["aggregate"] = {**self.options(), "baseline": context.baseline,
                                         **({"robust_fill": list(fill)} if fill else {})}


    def _robust(self, context: PipelineContext, baselines: list[str]
                ) -> tuple[list[bool | None], tuple[int, int] | None]:
        """Each row's ``robust`` as :func:`prefeval.table` with ``robust=True`` finds it (the metrics with
        ``metric_test``, the preferences with ``test``): True / False for a comparison significant there, else None;
        and the ``(rel, depth)`` of the table's filled reading (:attr:`prefeval.engine.table.RunTable.robust_fill`)."""
        found: dict[tuple[str, str, str, str], Any] = {}
        fill = None
        for kind, names, test in (("metric", context.measures, self.metric_test),
                                  ("preference", context.methods, self.test)):
            for baseline in baselines if names else []:
                result = table(context.collection(), context.runs, names, baseline=baseline, test=test,
                               correction=self.correction, alpha=self.alpha, rel=context.rel, robust=True)
                fill = result.robust_fill
                for name in names:
                    for run in result.runs:
                        found[kind, name, run, baseline] = result.record(run, name).get("robust")
        vs = context.versus_baseline
        return [found.get(key) for key in zip(vs["kind"], vs["method"], vs["run"], vs["baseline"])], fill


_VS_COLUMNS = ["kind", "method", "run", "value", "wins", "ties", "losses", "queries", "test", "statistic",
               "p_value", "p_adjusted", "significant", "baseline", "difference", "effect_size", "ci_low", "ci_high",
               "correction", "family_size"]


def _family(kind: str, method: str, runs: list[str], values: list[float], X: np.ndarray, test: str,
            correction: str, alpha: float, scores: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]
            ) -> list[dict[str, Any]]:
    """One family of S - 1 comparisons with the baseline. ``X``: (S - 1, Q) per-query differences; ``scores``
    (Q, S) and ``pairs`` (run, baseline indices) as :func:`prefeval.engine.significance.pair_significance` takes them."""
    if not runs:
        return []
    wins, losses, ties = stats.wins_losses_ties(X)
    used = correction_for(test, correction)
    tests = pair_significance(test, X, scores, pairs, used, alpha, family_statistic=X.mean(axis=1))
    return _rows(kind, method, runs, values, wins, ties, losses, X.shape[1], test, tests, used,
                 X.mean(axis=1), pair_intervals("t", X))


def _rows(kind: str, method: str, runs: list[str], values: Any, wins: Any, ties: Any, losses: Any, queries: int,
          test: str, tests: PairTests, correction: str, difference: Any,
          interval: tuple[np.ndarray, np.ndarray]) -> list[dict[str, Any]]:
    """The rows (:data:`_VS_COLUMNS`) of one family of comparisons with the baseline, one per run: ``difference``
    the mean per-query difference with the baseline (a preference: the mean preference), ``effect_size`` its
    paired d_z, ``ci_low``/``ci_high`` its 95% Student-t interval; ``family_size`` the defined tests corrected
    together (an undefined test: p-values NaN, never significant)."""
    return [{"kind": kind, "method": method, "run": run, "value": float(value), "wins": int(w), "ties": int(t),
             "losses": int(lo), "queries": int(queries), "test": test, "statistic": float(st),
             "p_value": float(p), "p_adjusted": float(a), "significant": bool(sig),
             "difference": float(d), "effect_size": float(e), "ci_low": float(lo_), "ci_high": float(hi),
             "correction": correction, "family_size": tests.family}
            for run, value, w, t, lo, st, p, a, sig, d, e, lo_, hi in zip(
                runs, values, wins, ties, losses, tests.statistic, tests.pvalue, tests.adjusted, tests.significant,
                difference, tests.effect_size, *interval)]


def _metrics_vs_baseline(context: PipelineContext, test: str, correction: str, alpha: float,
                         baseline: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    means = context.means_table()
    others = [r for r in context.runs if r != baseline]
    for measure in context.measures:
        table = metric_table(context.per_query, measure, list(context.runs))
        if table.empty:
            continue
        X = (table[others].to_numpy() - table[[baseline]].to_numpy()).T
        values = [float(means.loc[r, measure]) if measure in means.columns else float(table[r].mean()) for r in others]
        rows += _family("metric", measure, others, values, X, test, correction, alpha, table.to_numpy(),
                        _baseline_pairs(list(table.columns), others, baseline))
    return rows


def _preferences_vs_baseline(context: PipelineContext, test: str, correction: str,
                             alpha: float, baseline: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    runs = context.comparison.runs
    others = [r for r in context.runs if r != baseline]
    pairs = _baseline_pairs(runs, others, baseline)
    for method in context.methods:
        result = context.comparison.result(method)
        if not result.kept and test not in VALUE_TESTS:  # not kept (e.g. the Dask engine): the pairs' sums
            rows += _family_of_sums(method, others, result.pair_sums(pairs), test,
                                    correction, alpha, result.scores(), pairs)
            continue
        X = result.pair_values(pairs)  # (S - 1, Q): preference of each run over the baseline
        rows += _family("preference", method, others, list(X.mean(axis=1)), X, test, correction, alpha,
                        result.scores(), pairs)
    return rows


def _family_of_sums(method: str, runs: list[str], sums: PairSums, test: str, correction: str, alpha: float,
                    scores: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]) -> list[dict[str, Any]]:
    """:func:`_family` of preferences from the pairs' sums (sign, t and randomized Tukey HSD tests)."""
    if not runs:
        return []
    used = correction_for(test, correction)
    tests = pair_significance(test, None, scores, pairs, used, alpha, family_statistic=sums.mean, sums=sums)
    return _rows("preference", method, runs, sums.mean, sums.wins, sums.ties, sums.losses, sums.n, test, tests,
                 used, sums.mean, pair_intervals("t", None, sums))


def _baseline_pairs(columns: list[str], others: list[str], baseline: str) -> tuple[np.ndarray, np.ndarray]:
    """(run, baseline) column indices of each run in ``others``."""
    return np.array([columns.index(r) for r in others]), np.full(len(others), columns.index(baseline))


def metric_table(per_query: pd.DataFrame, measure: str, runs: list[str]) -> pd.DataFrame:
    """Per-query values of one measure as a query x run frame over the queries the measure scored for any run
    (ir-measures/trec_eval conventions); a query missing for one run counts 0 (trec_eval ``-c``)."""
    data = per_query[per_query["measure"] == measure]
    table = data.pivot_table(index="query_id", columns="run", values="value", aggfunc="first")
    return table.reindex(columns=runs).fillna(0.0)


def means_ci(per_query: pd.DataFrame | None, measures: list[str], runs: list[str]) -> pd.DataFrame | None:
    """``measure, run, mean, half, queries`` (None without per-query values or measures): each run's mean of the
    per-query values of each measure (over the queries of :func:`metric_table`) and the half-width of its 95% Student-t
    confidence interval, the one interval of the mean of the project (:func:`prefeval.core.stats.mean_interval`,
    ``scipy.stats.t.interval``): NaN -- undefined, never 0 -- with fewer than two queries or when the values do not vary
    (:func:`prefeval.report.text.undefined_interval` says which). What :func:`prefeval.report.plots.means_with_ci` and
    report.html draw."""
    if per_query is None or not measures:
        return None
    rows = []
    for measure in measures:
        table = metric_table(per_query, measure, runs)
        values = table.to_numpy(dtype=np.float64).T  # (runs, queries)
        means = values.mean(axis=1) if values.shape[1] else np.full(len(runs), np.nan)
        low, high = stats.mean_interval(values, "t") if values.shape[1] else (means, means)
        half = (high - low) / 2  # NaN where undefined
        rows += [(measure, run, float(m), float(h), values.shape[1]) for run, m, h in zip(runs, means, half)]
    return pd.DataFrame(rows, columns=["measure", "run", "mean", "half", "queries"])


def ranking_frame(obj: Any) -> pd.DataFrame:
    """Normalise a ranking (DataFrame with ``run``/``score`` columns or run index, or a Series run -> score)
    to ``rank, run, score`` in ranked order (plus MC4's ``level`` column when present). A given ``rank`` is kept
    (tied runs share one); without one, the rank is computed from ``score`` (and ``level``), equal values sharing
    one (:func:`prefeval.core.aggregate.shared_ranks`)."""
    if isinstance(obj, pd.Series):
        frame = obj.rename("score").rename_axis("run").reset_index()
    else:
        frame = obj.copy()
        if "run" not in frame.columns:
            frame = frame.rename_axis("run").reset_index()
        if "score" not in frame.columns:
            numeric = [c for c in frame.columns if c not in ("run", "rank") and pd.api.types.is_numeric_dtype(frame[c])]
            frame["score"] = frame[numeric[0]] if numeric else np.nan
    if "rank" in frame.columns:
        frame = frame.sort_values("rank", kind="stable").reset_index(drop=True)
    else:
        frame = frame.reset_index(drop=True)
        keys = ([-frame["level"].to_numpy(dtype=np.float64)] if "level" in frame.columns else []) + \
            [frame["score"].to_numpy(dtype=np.float64)]
        frame["rank"] = shared_ranks(*keys)
        frame = frame.sort_values("rank", kind="stable").reset_index(drop=True)
    return frame[["rank", "run", *(["level"] if "level" in frame.columns else []), "score"]]


def _rankings(context: PipelineContext, aggregates: list[str], ties: str = "shared",
              iterations: int | None = None) -> dict[str, pd.DataFrame]:
    out: dict[str, pd.DataFrame] = {}
    means = context.means_table()
    for measure in context.measures:
        if measure in means.columns:
            col = means[measure]
            order = sorted(col.index, key=lambda r: (-col[r], r))
            scores = np.array([float(col[r]) for r in order])
            out[f"{measure} (mean)"] = pd.DataFrame({"rank": shared_ranks(scores), "run": order, "score": scores})
    if context.comparison is not None:
        for method in context.methods:
            for aggregate in aggregates:
                options = {"iterations": iterations} if aggregate == "mc4" and iterations is not None else {}
                out[f"{method} ({aggregate})"] = ranking_frame(
                    context.comparison.ranking(method, aggregate=aggregate, ties=ties, **options))
    return out


def _truth(context: PipelineContext) -> pd.DataFrame | None:
    quality = context.true_quality()
    if quality is None:
        return None
    order = [r for r in context.simulation.true_order if r in context.runs]
    return pd.DataFrame({"rank": np.arange(1, len(order) + 1), "run": order, "score": [quality[r] for r in order]})


def kendall_tau_table(rankings: dict[str, pd.DataFrame], truth: pd.DataFrame | None = None) -> pd.DataFrame:
    """Kendall's tau-b between every two rankings, on the values that order the runs
    (:func:`prefeval.analysis.agreement.ranking_values`), so tied values (e.g. re-rankers of one first stage
    sharing R@1000) count as ties."""

    items = dict(rankings)
    if truth is not None:
        items[TRUTH] = truth
    labels = list(items)
    if not labels:
        return pd.DataFrame()
    runs = sorted(set(items[labels[0]]["run"]))
    keys = {label: ranking_values(frame, runs).to_numpy(dtype=float) for label, frame in items.items()}
    table = pd.DataFrame(np.eye(len(labels)), index=labels, columns=labels)
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            tau = kendall_tau_b(keys[a], keys[b]) if len(runs) > 1 else np.nan
            table.loc[a, b] = table.loc[b, a] = tau
    return table
