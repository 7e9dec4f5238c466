"""The result of :func:`prefeval.compare`: :class:`Comparison`, the per-method results of every pair of runs and the
tables, rankings and significance tests computed from them.

For each method (a :class:`~prefeval.engine.results.MethodResult`), the system-level preference of a pair is the mean
of its per-query preferences (Diaz & Mitra (2023) §5.2, Diaz (2023) §4.2); positive values
mean ``run_a`` is preferred. The pairs are every unordered pair, ``run_a`` before ``run_b`` in the input order of the
runs, or, with a baseline, each other run against the baseline. From the results a :class:`Comparison` gives

* :meth:`~Comparison.summary`, :meth:`~Comparison.matrix` and :attr:`~Comparison.per_query` -- mean preference,
  wins, losses and ties of every pair; the mean-preference matrix; the per-query values;
* :meth:`~Comparison.ranking` -- the system ordering by MC4 (Dwork et al. (2001), as used by Diaz & Mitra (2023)
  §6.2.1 and Diaz & Ferraro (2022) §5.4), Borda, Copeland, win rate or mean (:mod:`prefeval.core.aggregate`);
* :meth:`~Comparison.significance` -- a test per pair, corrected over the family of pairs
  (:mod:`prefeval.engine.significance`).

It holds results only: its Markdown, LaTeX, text and HTML tables are rendered by :mod:`prefeval.report.comparison`,
loaded when a table is rendered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core import aggregate as agg
from prefeval.core import stats
from prefeval.core.lazy import lazy_module
from prefeval.core.reduce import PairSums
from prefeval.engine.results import MethodResult
from prefeval.engine.significance import (
    VALUE_TESTS,
    PairTests,
    correction_for,
    pair_intervals,
    pair_significance,
)
from prefeval.errors import PrefevalError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
# the rendering of a Comparison lives in the report layer (results apart from their rendering); it loads when a
# table is rendered, never for the computation
_report = lazy_module("prefeval.report.comparison")

#: bytes per row of ``Comparison.per_query`` (four categorical codes and a float64 value)
PER_QUERY_ROW_BYTES = 24


class Comparison:
    """The result of :func:`compare`: per-query preferences of every pair of runs under several methods."""

    def __init__(self, runs: Sequence[str], results: Sequence[MethodResult],
                 query_order: Sequence[str] | None = None, baseline: str | None = None,
                 judged: Mapping[str, float] | None = None, judged_field: str = "") -> None:
        self.runs = list(runs)
        #: Judged@k of each run (``judged_field``, e.g. ``"Judged@10"``): the mean over the queries of the share of
        #: its top k documents the qrels judge (ir-measures' ``Judged@k``; Buckley & Voorhees (2004)), k the deepest
        #: cutoff among the methods, else 10 (:func:`prefeval.engine.methods.judged_depth`); empty when not computed
        self.judged = {run: float(judged[run]) for run in self.runs} if judged else {}
        self.judged_field = judged_field if self.judged else ""
        #: query ids in the order of the qrels (first appearance); the authors' tool takes its first query from it
        self.query_order = None if query_order is None else [str(q) for q in query_order]
        self.results = {r.method.label: r for r in results}
        self._aliases: dict[str, str] = {}
        for r in results:
            self._aliases[r.method.label] = r.method.label
            self._aliases.setdefault(str(r.method.measure), r.method.label)
        self._per_query: pd.DataFrame | None = None
        S = len(self.runs)
        #: with a baseline, only the pairs (run, baseline) of every other run, in input order: the summary,
        #: tests (and their correction) and reports cover those; matrices and rankings still cover all runs
        self.baseline = baseline
        if baseline is None:
            self._pairs = np.triu_indices(S, 1)
        else:
            if baseline not in self.runs:
                raise PrefevalError(f"baseline {baseline!r} is not one of the runs: {', '.join(self.runs)}")
            b = self.runs.index(baseline)
            others = np.array([s for s in range(S) if s != b], dtype=np.intp)
            self._pairs = (others, np.full(len(others), b, dtype=np.intp))

    def against(self, baseline: str | None) -> Comparison:
        """The same results with only the pairs of each run with ``baseline`` (a run name; ``run_a`` the run,
        ``run_b`` the baseline, positive values: the run is preferred), whose tests are corrected over those
        pairs only; ``None``: every pair."""
        view = Comparison(self.runs, list(self.results.values()), self.query_order, baseline, self.judged,
                          self.judged_field)
        view._aliases = dict(self._aliases)
        return view

    def pair_sums(self, r: MethodResult) -> PairSums:
        """The :class:`~prefeval.core.reduce.PairSums` of ``r`` for this comparison's pairs, oriented ``run_a`` over
        ``run_b`` (:meth:`prefeval.engine.results.MethodResult.pair_sums`)."""
        return r.sums if self.baseline is None else r.pair_sums(self._pairs)

    @property
    def pair_indices(self) -> tuple[np.ndarray, np.ndarray]:
        """The ``(run_a, run_b)`` indices into :attr:`runs` of :attr:`pairs` (arrays)."""
        return self._pairs

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """The ``(run_a, run_b)`` pairs of :meth:`summary` and the tests, in their order."""
        return [(self.runs[i], self.runs[j]) for i, j in zip(*(k.tolist() for k in self._pairs))]

    # -- access ------------------------------------------------------------------------------

    @property
    def methods(self) -> list[str]:
        """Method labels, in the order given."""
        return list(self.results)

    def result(self, method: Any = None) -> MethodResult:
        """The :class:`MethodResult` of ``method`` (a label, a measure name or object; optional with one method)."""
        if method is None:
            if len(self.results) == 1:
                return next(iter(self.results.values()))
            raise PrefevalError(f"several methods were compared; name one of {self.methods}")
        key = method if isinstance(method, str) else str(method)
        label = self._aliases.get(key.strip())
        if label is None:
            raise PrefevalError(f"method {key!r} was not compared; compared: {self.methods}")
        return self.results[label]

    def __repr__(self) -> str:
        queries = self._queries_note()
        versus = f", each against {self.baseline!r}" if self.baseline is not None else ""
        lines = [f"Comparison of {len(self.runs)} runs on {queries} by {len(self.results)} method(s){versus}",
                 f"  runs:    {', '.join(self.runs)}", f"  methods: {', '.join(self.methods)}"]
        if self.judged:
            lines.append(f"  {self.judged_field}: " + ", ".join(f"{run} {v:.3f}" for run, v in self.judged.items()))
        for label, r in self.results.items():
            sums = self.pair_sums(r)
            if len(sums.mean):
                best = int(np.argmax(np.abs(sums.mean)))
                a, b = self.pairs[best]
                lines.append(f"  {label}: largest mean preference {sums.mean[best]:+.4f} ({a} over {b})")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The summary table as HTML (Jupyter shows it): :func:`prefeval.report.comparison.comparison_html`."""
        return _report.comparison_html(self)

    def to_html(self, test: str | None = None, correction: str | None = None, alpha: float = 0.05,
                digits: int = 3, max_rows: int | None = None, **options: Any) -> str:
        """An HTML table: one row per pair (at most ``max_rows``), one column per method, ``*`` marks
        significant differences."""
        return _report.comparison_html(self, test, correction, alpha, digits, max_rows, **options)

    def _pair_frame(self, label: str) -> pd.DataFrame:
        """``method, run_a, run_b`` of every pair; the run columns are categoricals over the runs (compact)."""
        i, j = self._pairs
        runs = pd.CategoricalDtype(self.runs)
        return pd.DataFrame({"method": label, "run_a": pd.Categorical.from_codes(i, dtype=runs),
                             "run_b": pd.Categorical.from_codes(j, dtype=runs)})

    # -- tables ------------------------------------------------------------------------------

    @property
    def per_query(self) -> pd.DataFrame:
        """Tidy frame ``method, query_id, run_a, run_b, value`` (value > 0: run_a preferred), one row per method,
        query and pair; ``method``, ``query_id``, ``run_a`` and ``run_b`` are categoricals (compact).

        Available when the per-query values were kept (``compare(..., per_query=True)``, the default for
        comparisons small enough); otherwise an error says how to keep them.
        """
        if self._per_query is None:
            i, j = self._pairs
            runs = pd.Categorical.from_codes(np.arange(len(self.runs)), dtype=pd.CategoricalDtype(self.runs))
            methods = list(self.results)
            frames = []
            for k, r in enumerate(self.results.values()):
                X = r.pair_values(self._pairs)  # (pairs, Q)
                Q, n = X.shape[1], len(i)
                queries = pd.Categorical(r.query_ids.astype(str))
                frames.append(pd.DataFrame({
                    "method": pd.Categorical.from_codes(np.full(Q * n, k), categories=methods),
                    "query_id": queries.take(np.repeat(np.arange(Q), n)) if Q else queries,
                    "run_a": runs.take(np.tile(i, Q)),
                    "run_b": runs.take(np.tile(j, Q)),
                    "value": X.T.reshape(-1),
                }))
            frame = pd.concat(frames, ignore_index=True)
            self._per_query = frame.astype({"query_id": "category"})
        return self._per_query

    def per_query_size(self) -> int:
        """Estimated bytes of :attr:`per_query` (about 24 bytes per row: four categorical codes and a float)."""
        return sum(len(r.query_ids) * len(self._pairs[0]) for r in self.results.values()) * PER_QUERY_ROW_BYTES

    def summary(self) -> pd.DataFrame:
        """Per method and pair: ``mean`` preference, ``effect_size`` (mean / sd of the per-query values, ``ddof = 1``:
        the paired d_z for a metric; NaN with fewer than two queries or no variation), ``wins``, ``losses``, ``ties``
        (|value| <= 1e-12), ``queries``, and the Judged@k of both runs (``Judged@10_a``, ``Judged@10_b``:
        :attr:`judged`).

        Built from the pair sums in compact columns (categorical ``method``, ``run_a``, ``run_b``; int32 counts), so
        it fits in memory for thousands of runs.
        """
        return self._frame(self._summary_columns())

    def _summary_columns(self) -> dict[str, Any]:
        """The columns of :meth:`summary` as arrays; ``method``, ``run_a`` and ``run_b`` as codes into
        :attr:`methods` and :attr:`runs`."""
        sums = [self.pair_sums(r) for r in self.results.values()]
        i, j = self._pairs
        k, n_pairs = len(sums), len(i)
        return {
            "method": np.repeat(np.arange(k, dtype=np.int32), n_pairs),
            "run_a": np.tile(i, k),
            "run_b": np.tile(j, k),
            "mean": np.concatenate([x.mean for x in sums]),
            "effect_size": np.concatenate([stats.effect_size_moments(x.n, x.mean, x.m2) for x in sums]),
            "wins": np.concatenate([x.wins for x in sums]).astype(np.int32, copy=False),
            "losses": np.concatenate([x.losses for x in sums]).astype(np.int32, copy=False),
            "ties": np.concatenate([x.ties for x in sums]).astype(np.int32, copy=False),
            "queries": np.repeat(np.array([x.n for x in sums], dtype=np.int32), n_pairs),
            **self._judged_columns(k),
        }

    def _judged_columns(self, repeat: int) -> dict[str, np.ndarray]:
        """``<judged_field>_a`` and ``<judged_field>_b``: the Judged@k of ``run_a`` and ``run_b`` of every pair, the
        pairs repeated ``repeat`` times (once per method); none without :attr:`judged`."""
        if not self.judged:
            return {}
        values = np.array([self.judged[run] for run in self.runs])
        i, j = self._pairs
        return {f"{self.judged_field}_a": np.tile(values[i], repeat), f"{self.judged_field}_b": np.tile(values[j], repeat)}

    def _report_columns(self, test: str | None, correction: str | None, alpha: float, ci: str | None = None,
                        **options: Any) -> dict[str, Any]:
        """The columns of :meth:`to_frame` (:meth:`_summary_columns` and the tests' columns) as arrays and lists;
        ``ci=None``: without ``ci_low``, ``ci_high``."""
        columns = self._summary_columns()
        tests = [self.tests(label, test, correction, alpha, **options) for label in self.results]
        n_pairs = len(self._pairs[0])
        if ci is not None:
            intervals = [self.intervals(label, ci, **options) for label in self.results]
            columns["ci_low"] = np.concatenate([low for low, _ in intervals])
            columns["ci_high"] = np.concatenate([high for _, high in intervals])
        columns["p_value"] = np.concatenate([res.pvalue for *_, res in tests])
        columns["p_adjusted"] = np.concatenate([res.adjusted for *_, res in tests])
        columns["significant"] = np.concatenate([res.significant for *_, res in tests]).astype(bool, copy=False)
        columns["test"] = [used for _, used, _, _ in tests for _ in range(n_pairs)]
        columns["correction"] = [used for _, _, used, _ in tests for _ in range(n_pairs)]
        columns["family_size"] = np.repeat(np.array([res.family for *_, res in tests], dtype=np.int32), n_pairs)
        return columns

    def intervals(self, method: Any = None, ci: str = "t", level: float = 0.95, n_resamples: int = 10_000,
                  seed: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
        """The confidence interval (``low``, ``high`` arrays over :attr:`pairs`) of each pair's mean per-query
        value at ``level``: ``ci="t"``, Student's t (``scipy.stats.t.interval(level, n - 1, mean, sem)``, from the
        pair sums), or ``"bootstrap"``, the percentile bootstrap over queries (``n_resamples``, ``seed``; needs the
        per-query values) (:func:`prefeval.engine.significance.pair_intervals`)."""
        r = self.result(method)
        if ci not in stats.INTERVALS:
            raise PrefevalError(f"unknown interval {ci!r}; choose one of {', '.join(stats.INTERVALS)}")
        if ci == "bootstrap" and not r.kept:
            raise PrefevalError(f"the bootstrap interval of {r.method.label} needs the per-query preferences; "
                                "use prefeval.compare(..., per_query=True)")
        X = r.pair_values(self._pairs) if ci == "bootstrap" else None
        return pair_intervals(ci, X, self.pair_sums(r), level, n_resamples, seed)

    def _frame(self, columns: dict[str, Any]) -> pd.DataFrame:
        """A frame of columns from :meth:`_summary_columns` or :meth:`_report_columns`, the codes as categoricals."""
        runs = pd.CategoricalDtype(self.runs)
        frame = dict(columns, method=pd.Categorical.from_codes(columns["method"], dtype=pd.CategoricalDtype(self.methods)),
                     run_a=pd.Categorical.from_codes(columns["run_a"], dtype=runs),
                     run_b=pd.Categorical.from_codes(columns["run_b"], dtype=runs))
        return pd.DataFrame(frame, copy=False)

    def report_rows(self, test: str | None = None, correction: str | None = None, alpha: float = 0.05,
                    **options: Any) -> tuple[list[str], list[list]]:
        """The header and rows (lists) of :meth:`to_frame` as Python values (``str``, ``int``, ``float``, ``bool``),
        computed without pandas: what ``prefeval compare --format csv|json|jsonl`` writes."""
        columns = self._report_columns(test, correction, alpha, **options)
        labels = {"method": self.methods, "run_a": self.runs, "run_b": self.runs}
        values = [[labels[name][c] for c in column.tolist()] if name in labels
                  else column.tolist() if hasattr(column, "tolist") else column
                  for name, column in columns.items()]
        return list(columns), [list(row) for row in zip(*values)]

    def matrix(self, method: Any = None) -> pd.DataFrame:
        """S x S frame of mean preferences: row ``run_a``, column ``run_b`` (antisymmetric, zero diagonal)."""
        M = self._mean_matrix(self.result(method))
        return pd.DataFrame(M, index=pd.Index(self.runs, name="run_a"), columns=pd.Index(self.runs, name="run_b"))

    def _mean_matrix(self, r: MethodResult) -> np.ndarray:
        """The array of :meth:`matrix`."""
        M = np.zeros((len(self.runs), len(self.runs)))
        i, j = self._pairs
        M[i, j], M[j, i] = r.sums.mean, -r.sums.mean
        return M

    def ranking(self, method: Any = None, aggregate: str | None = None, ties: str = "shared",
                **options: Any) -> pd.DataFrame:
        """System ordering: columns ``rank, run, score`` (best first), plus ``level`` for MC4. Runs with equal
        scores (for MC4: the same level and the same mass within it) share one ``rank``, the best of them
        (competition ranking, :func:`prefeval.core.aggregate.shared_ranks`); the order lists them by the tie rule.

        ``aggregate`` (default ``mc4`` for preferences, ``mean`` for metrics):

        * ``mc4`` -- :func:`prefeval.core.aggregate.mc4` on the per-query orderings given by per-query win rates
          (metric values for a metric). Converged chain, applied recursively: ``level`` = the round in which
          the run was ranked (1 = holds stationary mass among all runs), ``score`` = its stationary mass
          within that level (each level sums to 1). ``iterations=k``: the authors' fixed-step variant
          (``1 T^k`` from the all-ones vector), one level, ``score`` = that vector / S (sums to 1);
        * ``borda`` -- mean Borda points per query;
        * ``copeland`` -- pairwise contests won minus lost on the mean-preference matrix;
        * ``win_rate`` -- mean preference over all other systems, i.e. the row mean of :meth:`matrix`
          (= the mean per-query win rate / (S - 1)), in [-1, 1];
        * ``mean`` -- a metric's mean value; for a preference the same as ``win_rate``.

        ``ties`` -- the rule for runs tied on one query (:data:`prefeval.core.aggregate.TIES`):
        ``"shared"`` (default): tied runs do not vote on each other in MC4 and share Borda points; ties in
        ``score`` are broken by the mean win rate, then by input order. ``"pref_aggregate"``: the authors'
        ``pref_aggregate`` rule -- each query's ties are broken by run name, descending, so a tied run still
        votes and earns Borda points, and ties in ``score`` are broken by run name, descending.
        ``ranking(m, "mc4", ties="pref_aggregate", iterations=10)`` and
        ``ranking(m, "borda", ties="pref_aggregate")`` reproduce the tool's MC4 and Borda orders (give the
        runs the tool's run ids, the file names without ``.gz``, for the same name tie-breaks; the tool's
        10-step MC4 vector is computed in its own float arithmetic, whose state order is the ranking of the
        first evaluated query of the qrels file).
        """
        r, aggregate, result = self._aggregation(method, aggregate, ties, **options)
        order = result.order
        frame = pd.DataFrame({"rank": _shared_ranks(result)[order], "run": np.asarray(self.runs, dtype=object)[order],
                              "score": result.score[order]})
        if result.level is not None:
            frame.insert(2, "level", result.level[order])
        frame.attrs.update(method=r.method.label, aggregate=aggregate, ties=ties)
        return frame

    def ranking_rows(self, method: Any = None, aggregate: str | None = None, ties: str = "shared",
                     **options: Any) -> tuple[list[str], list[tuple]]:
        """The header and rows of :meth:`ranking` as Python values, computed without pandas: what ``prefeval compare
        --aggregate`` writes."""
        _, _, result = self._aggregation(method, aggregate, ties, **options)
        order = result.order.tolist()
        columns = {"rank": _shared_ranks(result)[order].tolist(), "run": [self.runs[k] for k in order]}
        if result.level is not None:
            columns["level"] = result.level[order].tolist()
        columns["score"] = result.score[order].tolist()
        return list(columns), list(zip(*columns.values()))

    def _aggregation(self, method: Any, aggregate: str | None, ties: str,
                     **options: Any) -> tuple[MethodResult, str, agg.Aggregation]:
        """The method's result, the aggregate used and the :class:`~prefeval.core.aggregate.Aggregation` of
        :meth:`ranking`."""
        r = self.result(method)
        if aggregate is None:
            aggregate = "mean" if r.method.kind == "metric" else "mc4"
        if aggregate not in agg.AGGREGATES:
            raise PrefevalError(f"unknown aggregate {aggregate!r}; choose one of {', '.join(agg.AGGREGATES)}")
        if ties not in agg.TIES:
            raise PrefevalError(f"unknown tie rule {ties!r}; choose one of {', '.join(agg.TIES)}")
        allowed = {"iterations"} if aggregate == "mc4" else set()
        if set(options) - allowed:
            raise PrefevalError(f"aggregate {aggregate!r} takes {'only iterations=' if allowed else 'no options'}; "
                                f"got {sorted(options)}")
        W = r.scores()
        S = len(self.runs)
        win_rate = r.win_rates.mean(axis=0) / (S - 1)
        names = self.runs if ties == "pref_aggregate" else None
        last = agg.name_key(self.runs) if ties == "pref_aggregate" else win_rate
        if aggregate == "mc4":
            result = agg.mc4(W, ties=ties, names=names, first_query=self._first_query(r), **options)
        else:
            if aggregate == "borda":
                score = agg.borda(W, ties=ties, names=names)
            elif aggregate == "copeland":
                score = agg.copeland(self._mean_matrix(r), tol=stats.TIE_TOL)
            elif aggregate == "mean" and r.values is not None:
                score = agg.mean_score(r.values)
            else:
                score = win_rate
            result = agg.Aggregation(agg.order(score, last), score)
        return r, aggregate, result

    def _first_query(self, r: MethodResult) -> int:
        """Index (in ``r.query_ids``) of the first evaluated query in qrels order: the authors' tool indexes the
        runs in the order of that query's ranking (:func:`prefeval.core.aggregate.fixed_steps_as_tool`)."""
        if self.query_order is not None:
            position = {q: i for i, q in enumerate(r.query_ids)}
            for q in self.query_order:
                if q in position:
                    return position[q]
        return 0

    def significance(self, method: Any = None, test: str | None = None, correction: str | None = None,
                     alpha: float = 0.05, n_resamples: int = 10_000, seed: int | None = 0,
                     ci: str = "t") -> pd.DataFrame:
        """Per pair: ``mean``, ``effect_size``, ``ci_low``, ``ci_high``, ``statistic``, ``p_value``, ``p_adjusted``,
        ``significant`` (``p_adjusted <= alpha``).

        ``effect_size``: mean / sd (``ddof = 1``) of the per-query values, the paired d_z on metric differences
        (Sakai 2014 §5); ``ci_low``, ``ci_high``: the 95% interval of ``mean`` by ``ci`` (:meth:`intervals`).
        An undefined test (fewer than two queries, every query tied, zero variance for the t test) has
        ``p_value`` NaN, is never significant and is left out of the correction family; the frame's
        ``attrs["family_size"]`` is the number of defined tests the correction ran over.

        ``test`` (default ``sign`` for preferences, ``t`` for metrics; all two-sided):

        * ``sign`` -- exact binomial test of wins vs losses (``scipy.stats.binomtest``); ties are dropped;
          statistic = wins - losses;
        * ``t`` -- Student's t: for a metric the paired t-test on the two runs' per-query values, for a preference
          the one-sample t-test of the per-query preferences against 0 (identical formulas); statistic = t;
        * ``wilcoxon`` -- Wilcoxon signed-rank test on the per-query values (zeros dropped); statistic = W;
        * ``permutation`` -- paired randomisation test (random sign flips per query, ``n_resamples``,
          ``seed``); statistic = mean;
        * ``randomized_tukey_hsd`` -- Carterette (2012) on per-query metric values, or on per-query win rates
          for a preference; statistic = difference of the two runs' mean scores. It already controls the
          family-wise error over all pairs.

        ``correction`` over the family of the pairs of this method (all pairs; with a baseline, the pairs with the
        baseline): ``holm`` (default), ``bonferroni``,
        ``fdr_bh`` or ``none`` (:func:`prefeval.core.stats.adjust`); ``randomized_tukey_hsd`` accepts only ``none``.
        """
        r, test, correction, res = self.tests(method, test, correction, alpha, n_resamples, seed)
        low, high = self.intervals(r.method.label, ci, n_resamples=n_resamples, seed=seed)
        frame = self._pair_frame(r.method.label)
        frame["mean"] = self.pair_sums(r).mean
        frame["effect_size"] = res.effect_size
        frame["ci_low"], frame["ci_high"] = low, high
        frame["statistic"] = res.statistic
        frame["p_value"] = res.pvalue
        frame["p_adjusted"] = res.adjusted
        frame["significant"] = res.significant
        frame.attrs.update(method=r.method.label, test=test, correction=correction, alpha=alpha, ci=ci,
                           family_size=res.family, undefined=res.undefined)
        return frame

    def tests(self, method: Any = None, test: str | None = None, correction: str | None = None, alpha: float = 0.05,
              n_resamples: int = 10_000, seed: int | None = 0) -> tuple[MethodResult, str, str, PairTests]:
        """The method's result, the test and correction used, and the :class:`PairTests` of :meth:`significance`
        (arrays over :attr:`pairs`, no frame)."""
        r = self.result(method)
        if test is None:
            test = "t" if r.method.kind == "metric" else "sign"
        if test not in stats.TESTS:
            raise PrefevalError(f"unknown test {test!r}; choose one of {', '.join(stats.TESTS)}")
        if correction is None:
            correction = correction_for(test, None)
        if correction not in stats.CORRECTIONS:
            raise PrefevalError(f"unknown correction {correction!r}; choose one of {', '.join(stats.CORRECTIONS)}")
        if not 0 < alpha < 1:
            raise PrefevalError(f"alpha must be between 0 and 1; got {alpha}")
        X = r.pair_values(self._pairs) if test in VALUE_TESTS else None
        res = pair_significance(test, X, r.scores(), self._pairs, correction, alpha, n_resamples, seed,
                                sums=self.pair_sums(r))
        return r, test, correction, res

    # -- reports -----------------------------------------------------------------------------

    def to_frame(self, test: str | None = None, correction: str | None = None, alpha: float = 0.05,
                 **options: Any) -> pd.DataFrame:
        """:meth:`summary` with the columns of :meth:`significance` for every method: ``effect_size``, ``ci_low`` and
        ``ci_high`` (with ``ci="t"`` or ``"bootstrap"``; none by default, as ``compare`` without ``--ci``),
        ``p_value``, ``p_adjusted``, ``significant``, ``test``, ``correction``, and ``family_size``, the number of
        defined tests of the method's correction family (each method is its own family)."""
        frame = self._frame(self._report_columns(test, correction, alpha, **options))
        frame.attrs.update(alpha=alpha)
        return frame

    def _queries_note(self) -> str:
        counts = sorted({len(r.query_ids) for r in self.results.values()})
        return "/".join(str(c) for c in counts) + (" query" if counts == [1] else " queries")

    def to_markdown(self, test: str | None = None, correction: str | None = None, alpha: float = 0.05,
                    digits: int = 3, **options: Any) -> str:
        """Markdown table: one row per pair, one column per method, ``*`` marks significant differences
        (:mod:`prefeval.report.comparison`)."""
        return _report.comparison_text(self, "markdown", test, correction, alpha, digits, **options)

    def to_latex(self, test: str | None = None, correction: str | None = None, alpha: float = 0.05,
                 digits: int = 3, **options: Any) -> str:
        """LaTeX booktabs table: one row per pair, one column per method, ``$^*$`` marks significance
        (:mod:`prefeval.report.comparison`)."""
        return _report.comparison_text(self, "latex", test, correction, alpha, digits, **options)

    def to_string(self, test: str | None = None, correction: str | None = None, alpha: float = 0.05,
                  digits: int = 3, **options: Any) -> str:
        """Plain aligned text: one row per pair, one column per method, ``*`` marks significant differences."""
        return _report.comparison_text(self, "table", test, correction, alpha, digits, **options)


def _shared_ranks(result: agg.Aggregation) -> np.ndarray:
    """The rank of each run (input order) of an aggregation, equal scores sharing one: by (level, score) for MC4,
    else by score (:func:`prefeval.core.aggregate.shared_ranks`)."""
    if result.level is not None:
        return agg.shared_ranks(-np.asarray(result.level, dtype=np.float64), result.score)
    return agg.shared_ranks(result.score)
