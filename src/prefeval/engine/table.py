"""The table every paper needs: many runs x measures, with significance against a baseline or between all runs.

``table(qrels, runs, measures)`` evaluates every run with every measure in one pass (:func:`prefeval.compare`'s
engine: each run read and ranked once) and returns a :class:`RunTable`:

* a **metric** column (nDCG@10, AP(rel=2), RBU@20, any ir-measures measure) holds each run's mean over the queries
  of the qrels, and a column of one of trec_eval's counts (``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``) their
  sum, as ``trec_eval -c`` gives it (:func:`prefeval.engine.values.aggregate`): the value :func:`prefeval.evaluate`
  gives;
* a **preference** column (LexiRecall, LexiPrecision, RPP) holds, with a ``baseline``, each run's mean preference
  over the baseline (the entry of :meth:`prefeval.Comparison.matrix`; the baseline's own is 0) and, without, its
  mean preference over the other runs (the row mean of that matrix, :func:`prefeval.evaluate`'s value of a
  preference without baseline).

Significance comes from :meth:`prefeval.Comparison.tests` (tests and corrections of :mod:`prefeval.core.stats`;
default: the paired t-test for metrics, the sign test for preferences; Holm's correction). With a ``baseline``,
each other run is tested against it, per measure, corrected over those runs (``p_value``, ``p_adjusted``,
``significant``; marked ▲ better / ▼ worse). Without, every pair is tested per measure, corrected over all pairs,
and each mean is marked with the letters of the runs it is significantly better than (``better_than``; the
direction is the sign of the test statistic: wins minus losses for the sign test, the mean for the others; the
mean difference for the Wilcoxon test, whose statistic has no sign). A count column is neither tested nor compared
(its sums describe the inputs). This module holds the numbers; :mod:`prefeval.report.run_table` renders them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core import stats
from prefeval.core.lazy import lazy_module
from prefeval.data.inputs import run_name
from prefeval.engine import holes
from prefeval.engine import registry as engines
from prefeval.engine.compare import compare_methods
from prefeval.engine.comparison import Comparison
from prefeval.engine.methods import (
    JUDGED_DEPTH,
    Method,
    check_run_options,
    judged_depth,
    judged_method,
    method_list,
    parse_methods,
)
from prefeval.engine.significance import VALUE_TESTS
from prefeval.engine.values import aggregate, summed
from prefeval.errors import PrefevalError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
# the rendering of a RunTable lives in the report layer (results apart from their rendering); it loads when the table
# is rendered, never for the computation
_report = lazy_module("prefeval.report.run_table")

__all__ = ["RunTable", "BaselineTables", "table", "run_letters", "letter_marks", "FAMILIES", "judged_depth",
           "JUDGED_DEPTH"]

#: the correction families of a table: ``measure`` (default: per baseline and measure, the runs compared with the
#: baseline or the pairs of runs) or ``table`` (every test of the table at once)
FAMILIES = ("measure", "table")

#: the level of the confidence intervals (``ci=True``)
CI_LEVEL = 0.95


def run_letters(n: int) -> list[str]:
    """Letters naming ``n`` runs: ``a`` ... ``z``, then ``aa``, ``ab``, ... (spreadsheet columns in lower case)."""
    out = []
    for k in range(n):
        name, k = "", k + 1
        while k:
            k, rest = divmod(k - 1, 26)
            name = chr(ord("a") + rest) + name
        out.append(name)
    return out


def letter_marks(letters: list[str], n_runs: int) -> str:
    """The letters of the runs a run is significantly better than, as one mark: run letters joined as they are up
    to 26 runs (one letter each, ``abc``), separated by commas beyond (``a,bc``: ``abc`` would be ambiguous)."""
    return ("," if n_runs > 26 else "").join(letters)


def _run_names(runs: Any) -> list[str]:
    """The names :func:`prefeval.compare` gives ``runs`` (a mapping's keys, or file names), to check a baseline
    before any work."""
    if isinstance(runs, Mapping):
        return [str(k) for k in runs]
    if isinstance(runs, (list, tuple)) and all(isinstance(r, str) for r in runs):
        return [run_name(r) for r in runs]
    return []


def _intervals(values: np.ndarray, ci: str, **options: Any) -> tuple[np.ndarray, np.ndarray]:
    """The :data:`CI_LEVEL` confidence intervals of the mean of each row of ``values`` (rows, Q) by ``ci``:
    ``"t"`` (:func:`prefeval.core.stats.t_interval`, ``scipy.stats.t.interval``) or ``"bootstrap"`` (the percentile
    bootstrap over queries, :func:`prefeval.core.stats.bootstrap_interval`, ``n_resamples`` and ``seed`` of
    ``options``; all rows on the same resamples). NaN where undefined (fewer than two queries, no variation)."""
    if values.shape[1] == 0:
        return np.full(len(values), np.nan), np.full(len(values), np.nan)
    return stats.mean_interval(values, ci, CI_LEVEL, n_resamples=options.get("n_resamples", 10_000),
                               seed=options.get("seed", 0))


class RunTable:
    """The result of :func:`table`: one row per run and measure (:meth:`to_frame`; ``mean`` holds the run's value in
    the column: the mean over the queries, or the sum for a count column, :attr:`summed_columns`), the per-query values
    (:attr:`per_query`) and the renderings of :mod:`prefeval.report.run_table` (:meth:`to_string`,
    :meth:`to_markdown`, :meth:`to_latex`, :meth:`to_html`). ``comparison`` is the :class:`prefeval.Comparison` the
    numbers were taken from."""

    def __init__(self, comparison: Comparison, columns: list[tuple[str, Method]], baseline: str | None,
                 test: str | None, correction: str | None, alpha: float, ci: bool | str,
                 judged: Method | None = None, **options: Any) -> None:
        self.comparison = comparison
        self.runs = list(comparison.runs)
        self.measures = [label for label, _ in columns]
        #: ``ci``: None (no intervals), ``"t"`` or ``"bootstrap"`` (``True`` means ``"t"``)
        ci = "t" if ci is True else (ci or None)
        if ci is not None and ci not in stats.INTERVALS:
            raise PrefevalError(f"ci must be one of {', '.join(stats.INTERVALS)} (or True for t); got {ci!r}")
        self.baseline, self.alpha, self.ci = baseline, alpha, ci
        self.family = "measure"
        self._methods = dict(columns)
        S = len(self.runs)
        self.letters = run_letters(S) if baseline is None and S > 1 else []
        #: per measure label: the test and correction used (None without tests)
        self.tests: dict[str, tuple[str, str] | None] = {}
        #: per measure label: the number of defined tests its correction ran over, and of undefined ones
        self.family_sizes: dict[str, tuple[int, int]] = {}
        #: per (run, measure): the record of :meth:`to_frame`
        self._records: dict[tuple[str, str], dict[str, Any]] = {}
        self._values: dict[str, np.ndarray] = {}  # per measure: (Q, S) per-query values of the column
        self._raw: dict[str, tuple[list[tuple[str, str]], np.ndarray, np.ndarray]] = {}  # pairs, p-values, direction
        self.queries = 0
        #: the columns of trec_eval's counts (num_q, num_ret, num_rel, num_rel_ret): sums, neither tested nor compared
        self.summed_columns = [label for label, method in columns if method.kind == "metric" and summed(method.measure)]
        #: Judged@k of each run (mean over the queries; :func:`judged_depth`): the share of its top k documents the
        #: qrels judge, beside every mean (``judged_field`` in the rows); empty without ``judged``
        #: ``(rel, depth)`` of the filled reading when :meth:`set_robust` marked the cells, else None
        self.robust_fill: tuple[int, int] | None = None
        self.judged: dict[str, float] = {}
        self.judged_field = "" if judged is None else str(judged.measure)
        if judged is not None:
            values = aggregate(judged.measure, comparison.result(judged.label).values)
            self.judged = {run: float(v) for run, v in zip(self.runs, values)}
        view = comparison.against(baseline) if baseline is not None else comparison
        for label, method in columns:
            r = comparison.result(method.label)
            self.queries = len(r.query_ids)
            values = self._column_values(r, method)
            self._values[label] = values
            means = self._column_means(r, method)
            count = label in self.summed_columns
            for s, run in enumerate(self.runs):
                self._records[run, label] = {"run": run, "measure": label, "mean": float(means[s])}
                if self.judged:
                    self._records[run, label][self.judged_field] = self.judged[run]
            if ci is not None:
                self._add_intervals(label, values, view, count, **options)
            if S < 2:
                self.tests[label] = None
                continue
            if count:  # a sum over the queries describes the inputs: no test, no mark
                self.tests[label] = None
                for run in self.runs:
                    self._records[run, label].update(test=None, correction=None, **(
                        {"effect_size": math.nan, "p_value": math.nan, "p_adjusted": math.nan, "significant": None,
                         "direction": 0, "family_size": None}
                        if baseline is not None else {"better_than": [], "family_size": None}))
                continue
            _, test_used, correction_used, res = view.tests(method.label, test, correction, alpha, **options)
            self.tests[label] = (test_used, correction_used)
            sums = view.pair_sums(r)
            direction = np.sign(sums.mean if test_used == "wilcoxon" else res.statistic)
            self._raw[label] = (view.pairs, res.pvalue, direction)
            if baseline is not None:
                for p, (run, _) in enumerate(view.pairs):
                    self._records[run, label].update(effect_size=float(res.effect_size[p]))
                self._records[baseline, label].update(effect_size=math.nan)
            self._mark(label, res.adjusted, res.significant, res.family)
            for run in self.runs:
                self._records[run, label].update(test=test_used, correction=correction_used)

    def _add_intervals(self, label: str, values: np.ndarray | None, view: Comparison, count: bool,
                       **options: Any) -> None:
        """``ci_low``, ``ci_high`` of each run's mean in the column and, with a baseline, ``diff_ci_low``,
        ``diff_ci_high`` of its mean difference with the baseline (a preference column: the same interval); all on
        the same resamples for the bootstrap."""
        S = len(self.runs)
        b = self.runs.index(self.baseline) if self.baseline is not None else None
        if values is None or count:
            rows, n_diffs = None, 0
        else:
            rows = values.T
            if b is not None and self._methods[label].kind == "metric":
                diffs = (values - values[:, [b]]).T
                rows = np.vstack([rows, diffs])
        if rows is None:
            low = high = np.full(2 * S, np.nan)
        else:
            low, high = _intervals(rows, self.ci, **options)
        n_diffs = len(low) - S
        for s, run in enumerate(self.runs):
            record = self._records[run, label]
            record["ci_low"], record["ci_high"] = float(low[s]), float(high[s])
            if b is not None:
                diff = (low[S + s], high[S + s]) if n_diffs > 0 else (low[s], high[s])
                record["diff_ci_low"], record["diff_ci_high"] = (math.nan, math.nan) if s == b or count else \
                    (float(diff[0]), float(diff[1]))

    def _mark(self, label: str, adjusted: np.ndarray, significant: np.ndarray, family: int) -> None:
        """Write the adjusted p-values of the column's tests (:attr:`_raw`) into its records: with a baseline
        ``p_value``, ``p_adjusted``, ``significant`` and ``direction``; without, ``better_than``."""
        pairs, pvalue, direction = self._raw[label]
        self.family_sizes[label] = (family, int(np.isnan(pvalue).sum()))
        if self.baseline is not None:
            for p, (run, _) in enumerate(pairs):
                self._records[run, label].update(
                    p_value=float(pvalue[p]), p_adjusted=float(adjusted[p]), significant=bool(significant[p]),
                    direction=int(direction[p]) if significant[p] else 0, family_size=family)
            self._records[self.baseline, label].update(p_value=math.nan, p_adjusted=math.nan, significant=None,
                                                       direction=0, family_size=family)
            return
        beaten: dict[str, list[str]] = {run: [] for run in self.runs}
        for p, (a, b) in enumerate(pairs):
            if significant[p] and direction[p] > 0:
                beaten[a].append(b)
            elif significant[p] and direction[p] < 0:
                beaten[b].append(a)
        order = {run: k for k, run in enumerate(self.runs)}
        for run in self.runs:
            self._records[run, label].update(better_than=sorted(beaten[run], key=order.__getitem__), family_size=family)

    # -- numbers -------------------------------------------------------------------------------

    def _column_values(self, r: Any, method: Method) -> np.ndarray | None:
        """(Q, S) per-query values of a column: a metric's values, a run's preference over the baseline, or its mean
        preference over the other runs; None when the per-query preferences were not kept."""
        S = len(self.runs)
        if method.kind == "metric":
            return r.values
        if self.baseline is None:
            return r.win_rates / (S - 1)
        if not r.kept:
            return None
        b = self.runs.index(self.baseline)
        return r.prefs[:, :, b]

    def _column_means(self, r: Any, method: Method) -> np.ndarray:
        """Each run's value in a column (see the module docstring), from the comparison's own means."""
        if method.kind == "metric":
            return aggregate(method.measure, r.values)
        M = _mean_matrix(self.comparison, r)
        if self.baseline is None:
            return M.sum(axis=1) / (len(self.runs) - 1)
        return M[:, self.runs.index(self.baseline)]

    def significant_cells(self, label: str) -> int:
        """The number of significant differences in the column ``label``: runs significantly better or worse than the
        baseline, or pairs of runs one significantly better than the other."""
        if self.baseline is not None:
            return sum(bool(self._records[run, label].get("significant")) for run in self.runs)
        return sum(len(self._records[run, label].get("better_than", [])) for run in self.runs)

    def set_robust(self, readings: list[RunTable], rel: int, depth: int) -> None:
        """Mark each significant cell ``robust`` (True / False; None where it is not significant): significant in the
        same direction in each of ``readings`` too (the same table on condensed lists and on the qrels with the
        unjudged documents of the runs' top ``depth`` filled as relevant at grade ``rel``;
        :func:`prefeval.engine.holes.readings`; they need hold only the columns with a significant cell). Without a
        baseline a cell is robust when every run it is significantly better than stays so."""
        self.robust_fill = (rel, depth)
        for label in self.measures:
            for run in self.runs:
                record = self._records[run, label]
                if self.baseline is not None:
                    significant = bool(record.get("significant"))
                    same = significant and all(
                        other.record(run, label).get("significant")
                        and other.record(run, label)["direction"] == record["direction"] for other in readings)
                else:
                    significant = bool(record.get("better_than"))
                    kept = [b for b in record.get("better_than", [])
                            if all(b in other.record(run, label)["better_than"] for other in readings)]
                    record["robust_better_than"] = kept
                    same = len(kept) == len(record.get("better_than", []))
                record["robust"] = (significant and same) if significant else None

    def robust_counts(self) -> tuple[int, int]:
        """(robust significant differences, significant differences): cells against the baseline, or pairs (a run
        significantly better than another) without one."""
        robust = total = 0
        for record in self._records.values():
            if record.get("robust") is None:
                continue
            if self.baseline is not None:
                total, robust = total + 1, robust + bool(record["robust"])
            else:
                total, robust = total + len(record["better_than"]), robust + len(record["robust_better_than"])
        return robust, total

    @property
    def columns(self) -> list[str]:
        """The columns of :meth:`to_frame` (and of the csv/json rows)."""
        out = ["run", "measure", "mean"] + ([self.judged_field] if self.judged else [])
        if self.ci:
            out += ["ci_low", "ci_high"]
        if len(self.runs) > 1 and self.baseline is not None:
            out += ["baseline", "effect_size"] + (["diff_ci_low", "diff_ci_high"] if self.ci else [])
        if len(self.runs) > 1:
            out += ["test", "correction"]
            out += ["p_value", "p_adjusted", "significant"] if self.baseline is not None else ["better_than"]
            out += ["family", "family_size"]
            if self.robust_fill is not None:
                out.append("robust")
        return out

    def family_text(self, measure: str) -> str:
        """The family the adjusted p-values of the column ``measure`` were corrected over, in words."""
        if self.family == "table":
            return "table"
        return f"{self.baseline}/{measure}" if self.baseline is not None else measure

    def rows(self) -> tuple[list[str], list[list[Any]]]:
        """Header and long-form rows (one per run and measure, runs in the given order) as Python values."""
        header = self.columns
        extra = {"baseline": self.baseline}
        return header, [[self._records[run, m].get(h, extra.get(h)) if h != "family" else (
            self.family_text(m) if self.tests.get(m) else None)
                         for h in header] for run in self.runs for m in self.measures]

    def to_frame(self) -> pd.DataFrame:
        """The long-form table ``run, measure, mean[, ci_low, ci_high][, test, correction, p_value, p_adjusted,
        significant | better_than], family, family_size`` (with a baseline also ``baseline, effect_size[, diff_ci_low,
        diff_ci_high]``; ``family`` names the correction family, ``family_size`` counts its defined tests): one row per
        run and measure."""
        header, rows = self.rows()
        frame = pd.DataFrame(rows, columns=header)
        frame.attrs.update(baseline=self.baseline, alpha=self.alpha, queries=self.queries)
        return frame

    def record(self, run: str, measure: str) -> dict[str, Any]:
        """The record of ``run`` in the column ``measure`` (a row of :meth:`to_frame`, with ``direction``: 1 / -1
        significantly better / worse than the baseline, else 0)."""
        return self._records[run, measure]

    def value(self, run: str, measure: str) -> float:
        """The mean of ``run`` in the column ``measure``."""
        try:
            return self._records[run, measure]["mean"]
        except KeyError:
            raise PrefevalError(f"no value for run {run!r} and measure {measure!r}; runs: {', '.join(self.runs)}; "
                                f"measures: {', '.join(self.measures)}") from None

    @property
    def per_query(self) -> pd.DataFrame:
        """``run, query_id, measure, value``: the per-query values each mean is taken over (a metric's values; a
        preference over the baseline, or the mean preference over the other runs)."""
        frames = []
        for label in self.measures:
            values = self._values[label]
            if values is None:
                raise PrefevalError(f"the per-query preferences of {label} were not kept (too large); "
                                    "use prefeval.compare(..., per_query=True)")
            r = self.comparison.result(self._methods[label].label)
            Q, S = values.shape
            frames.append(pd.DataFrame({
                "run": np.repeat(np.asarray(self.runs, dtype=object), Q),
                "query_id": np.tile(r.query_ids.astype(str), S),
                "measure": label,
                "value": values.T.reshape(-1),
            }))
        return pd.concat(frames, ignore_index=True)

    def kind(self, measure: str) -> str:
        """``"preference"`` or ``"metric"``: what the column ``measure`` holds."""
        return self._methods[measure].kind

    # -- renderings (prefeval.report.run_table) ------------------------------------------------

    def note(self) -> str:
        """What the numbers and marks mean, from the results."""
        return _report.note(self)

    def grid(self, digits: int = 4) -> Any:
        """The wide table (a :class:`prefeval.report.tables.Grid`): one row per run, one column per measure."""
        return _report.grid(self, digits)

    def to_string(self, digits: int = 4) -> str:
        """Plain aligned text for a terminal (no Markdown escapes)."""
        return _report.to_text(self, "table", digits)

    def to_markdown(self, digits: int = 4) -> str:
        """A Markdown table (best in bold, letters as ``<sup>``)."""
        return _report.to_text(self, "markdown", digits)

    def to_latex(self, digits: int = 4, label: str | None = None) -> str:
        """A booktabs ``table`` (significance as superscripts, best in bold) that compiles as is with ``booktabs``."""
        return _report.latex_table(self, digits, label)

    def to_html(self, digits: int = 4) -> str:
        """An HTML table with a caption, every text escaped."""
        return _report.to_text(self, "html", digits)

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_text(self, fmt: str, digits: int = 4) -> str:
        """The table in ``fmt``: ``table`` (plain text), ``markdown``, ``latex``, ``html``, or the long-form rows as
        ``csv``, ``json`` (one document) or ``jsonl`` (one record per line)."""
        return _report.to_text(self, fmt, digits)

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return self.to_string()


def refamily(tables: list[RunTable], correction: str | None, alpha: float) -> None:
    """Correct every test of ``tables`` (one per baseline) as one family (``family="table"``): the raw p-values of
    all their columns, adjusted together by ``correction`` (default holm; undefined tests left out,
    :func:`prefeval.core.stats.adjust`), written back into each column's records."""
    parts = [(t, label) for t in tables for label in t._raw]
    if not parts:
        return
    pvalues = np.concatenate([t._raw[label][1] for t, label in parts])
    used = {t.tests[label][1] for t, label in parts}
    if len(used) > 1:
        raise PrefevalError(f"family='table' needs one correction for every column; got {', '.join(sorted(used))}")
    adjusted, significant = stats.adjust(pvalues, next(iter(used)), alpha)
    size = stats.family_size(pvalues)
    start = 0
    for t, label in parts:
        n = len(t._raw[label][1])
        t.family = "table"
        t._mark(label, adjusted[start:start + n], significant[start:start + n], size)
        start += n


class BaselineTables:
    """The run x measure table against several baselines (``table(..., baseline=[a, b])``): one :class:`RunTable`
    per baseline (:attr:`parts`, sharing one comparison); its rows are theirs, each carrying its ``baseline``, and
    its renderings one table per baseline."""

    def __init__(self, parts: list[RunTable]) -> None:
        self.parts = parts
        self.baselines = [t.baseline for t in parts]
        self.runs, self.measures = parts[0].runs, parts[0].measures

    def part(self, baseline: str) -> RunTable:
        """The table against ``baseline``."""
        return self.parts[self.baselines.index(baseline)]

    def rows(self) -> tuple[list[str], list[list[Any]]]:
        """Header and long-form rows of every baseline's table, one after the other."""
        header = self.parts[0].columns
        return header, [row for t in self.parts for row in t.rows()[1]]

    def to_frame(self) -> pd.DataFrame:
        header, rows = self.rows()
        return pd.DataFrame(rows, columns=header)

    def to_text(self, fmt: str, digits: int = 4) -> str:
        """Every baseline's table in ``fmt`` (the long-form formats: one set of rows)."""
        return _report.baseline_tables_text(self, fmt, digits)

    def to_string(self, digits: int = 4) -> str:
        return self.to_text("table", digits)

    def __str__(self) -> str:
        return self.to_string()

    __repr__ = __str__


def _mean_matrix(comparison: Comparison, r: Any) -> np.ndarray:
    """The S x S matrix of mean preferences of ``r`` (row over column) from the comparison's pair sums."""
    S = len(comparison.runs)
    M = np.zeros((S, S))
    if S > 1:
        i, j = np.triu_indices(S, 1)
        M[i, j], M[j, i] = r.sums.mean, -r.sums.mean
    return M


def table(qrels: Any, runs: Any, measures: Any, baseline: str | Any = None, test: str | None = None,
          correction: str | None = "holm", alpha: float = 0.05, rel: int | None = None, depth: int | None = None, *,
          ci: bool | str = False, family: str = "measure", progress: bool = False, engine: str = "inprocess",
          client: Any = None, scheduler: str | None = None, workers: int | None = None, robust: bool = False,
          **options: Any) -> RunTable | BaselineTables:
    """A run x measure table of means with significance (see the module docstring).

    ``qrels``, ``runs``: as :func:`prefeval.compare` (runs named by file name, or the keys of a dict).
    ``measures``: names (ir-measures syntax, trec_eval names, prefeval's preferences) or measure objects; each name
    is a column labelled as written (a trec_eval name standing for several measures gives one column each).
    ``baseline``: a run name; ``test``: ``t``, ``sign``, ``wilcoxon``, ``permutation`` or ``randomized_tukey_hsd``
    (default: t for metrics, sign for preferences); ``correction``: ``holm`` (default), ``bonferroni``,
    ``fdr_bh`` or ``none``; ``alpha``; ``rel``: minimum relevant grade for the measures that take one; ``depth``:
    truncate every run to its top ``depth`` documents; ``ci``: 95% confidence intervals of the means and, with a
    baseline, of the differences with it: ``"t"`` (or ``True``; ``scipy.stats.t.interval``) or ``"bootstrap"``
    (percentile bootstrap over queries, ``n_resamples`` and ``seed`` of ``options``); ``options``:
    ``n_resamples`` and ``seed`` of the randomised tests and the bootstrap; ``robust``: test every significant cell
    again under the other two readings of the unjudged documents (:func:`prefeval.engine.holes.readings`; the
    ``robust`` field).

    ``baseline`` may be a list of run names: a :class:`BaselineTables`, one table per baseline, each row carrying
    its ``baseline``. ``family``: ``"measure"`` (default) corrects the tests of each baseline and measure
    together; ``"table"`` corrects every test of the table (all measures and baselines) as one family.
    Undefined tests (fewer than two queries, every query tied, zero variance) have no p-value, are never
    significant and are left out of the family; ``family_size`` counts the defined tests corrected together.
    ``engine="dask"`` (with ``client``, ``scheduler`` or ``workers``, as :func:`prefeval.compare`) computes the
    per-query values on a Dask cluster: the same table.
    """
    other = engines.options(engine, client, scheduler, workers)
    measures = method_list(measures, "measures", "['nDCG@10', 'AP', 'RPP']")
    check_run_options(rel, depth)
    if not 0 < alpha < 1:
        raise PrefevalError(f"alpha must be between 0 and 1; got {alpha}")
    names = _run_names(runs)
    baselines = [baseline] if baseline is None or isinstance(baseline, str) else [str(b) for b in baseline]
    if not baselines:
        raise PrefevalError("baseline: give a run name or a non-empty list of run names")
    if len(set(baselines)) < len(baselines):
        raise PrefevalError(f"baseline: each run once; got {', '.join(map(str, baselines))}")
    if family not in FAMILIES:
        raise PrefevalError(f"family must be one of {', '.join(FAMILIES)}; got {family!r}")
    for b in baselines:
        if b is not None and names and b not in names:
            raise PrefevalError(f"baseline {b!r} is not one of the runs: {', '.join(names)}")
    columns: list[tuple[str, Method]] = []
    computed: dict[str, Method] = {}  # one computation per distinct measure, whatever it is called
    for item in measures:
        found = parse_methods([item], 1 if rel is None else rel, depth)
        for method in found:
            label = item.strip() if isinstance(item, str) and len(found) == 1 else method.label
            if all(existing != label for existing, _ in columns):
                columns.append((label, computed.setdefault(method.key, method)))
    judged = judged_method([m for _, m in columns], depth)
    judged = computed.setdefault(judged.key, judged)
    singles = len(names) == 1 if names else False
    if singles and any(m.kind == "preference" for _, m in columns):
        raise PrefevalError("a preference column compares runs: give at least two runs")
    # the tests and the bootstrap need every per-query value
    keep = True if test in VALUE_TESTS or ci == "bootstrap" else None

    def compute(qrels: Any, runs: Any, cols: list[tuple[str, Method]] = columns,
                judged: Method | None = judged) -> list[RunTable]:
        methods = [m for m in computed.values() if m is judged or any(m is c for _, c in cols)]
        if other is not None:
            if singles:
                raise PrefevalError("engine='dask' computes tables of two runs or more; a table of one run is "
                                    "computed in process (omit the engine)")
            result = other.compare(qrels, runs, methods, per_query=keep, client=client,
                                   scheduler=scheduler, workers=workers, partitions=None, progress=progress)
        else:
            result = compare_methods(qrels, runs, methods, progress=progress, per_query=keep,
                                     min_runs=1 if not any(m.kind == "preference" for m in methods) else 2,
                                     baseline=None)
        for b in baselines:
            if b is not None and b not in result.runs:
                raise PrefevalError(f"baseline {b!r} is not one of the runs: {', '.join(result.runs)}")
        parts = [RunTable(result, cols, b, test, correction, alpha, ci, judged, **options) for b in baselines]
        if family == "table":
            refamily(parts, correction, alpha)
        return parts

    if not robust:
        parts = compute(qrels, runs)
    else:
        fill_rel, fill_depth = 1 if rel is None else rel, FILL_DEPTH if depth is None else depth
        # each run read and ranked once, the other readings taken from that ranking (integer codes)
        collection, ranked, condensed, filled = holes.readings(qrels, runs, fill_rel, fill_depth, codes=other is None)
        coded = collection if other is None else collection.frame  # the qrels coded once for readings (a) and (b)
        parts = compute(coded, ranked)
        # only the columns with a significant cell are tested again, each on every run (its correction family);
        # with family="table" every tested column is one family
        retest = [(label, m) for label, m in columns
                  if any(p.tests.get(label) for p in parts)
                  and (family == "table" or any(p.significant_cells(label) for p in parts))]
        others: list[list[RunTable]] = [[], []]
        if any(p.significant_cells(label) for p in parts for label, _ in retest):
            with warnings.catch_warnings():  # the inputs' warnings were given by reading (a)
                warnings.simplefilter("ignore")
                others = [compute(coded, condensed, retest, None), compute(filled, ranked, retest, None)]
        for k, part in enumerate(parts):
            part.set_robust([other[k] for other in others if other], fill_rel, fill_depth)
    return parts[0] if len(parts) == 1 and (baseline is None or isinstance(baseline, str)) else BaselineTables(parts)


#: The depth within which ``table(robust=True)`` fills unjudged documents as relevant when the table has no ``depth``
FILL_DEPTH = 1000
