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
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import lazy_module
from prefeval.data.inputs import run_name
from prefeval.engine import holes
from prefeval.engine.compare import compare_methods
from prefeval.engine.comparison import Comparison
from prefeval.engine.methods import Method, check_run_options, method_list, parse_methods
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

__all__ = ["RunTable", "table", "run_letters"]

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


def _run_names(runs: Any) -> list[str]:
    """The names :func:`prefeval.compare` gives ``runs`` (a mapping's keys, or file names), to check a baseline
    before any work."""
    if isinstance(runs, Mapping):
        return [str(k) for k in runs]
    if isinstance(runs, (list, tuple)) and all(isinstance(r, str) for r in runs):
        return [run_name(r) for r in runs]
    return []


def _interval(values: np.ndarray) -> tuple[float, float]:
    """The Student-t confidence interval at :data:`CI_LEVEL` of the mean of ``values`` (NaN for fewer than two;
    the mean itself when they do not vary)."""
    n = len(values)
    mean = float(np.mean(values)) if n else math.nan
    if n < 2:
        return math.nan, math.nan
    sd = float(np.std(values, ddof=1))
    if sd == 0:
        return mean, mean
    from scipy.stats import t as student_t  # deferred: scipy.stats is slow to import

    half = float(student_t.ppf(0.5 + CI_LEVEL / 2, n - 1)) * sd / math.sqrt(n)
    return mean - half, mean + half


class RunTable:
    """The result of :func:`table`: one row per run and measure (:meth:`to_frame`; ``mean`` holds the run's value in
    the column: the mean over the queries, or the sum for a count column, :attr:`summed_columns`), the per-query values
    (:attr:`per_query`) and the renderings of :mod:`prefeval.report.run_table` (:meth:`to_string`,
    :meth:`to_markdown`, :meth:`to_latex`, :meth:`to_html`). ``comparison`` is the :class:`prefeval.Comparison` the
    numbers were taken from."""

    def __init__(self, comparison: Comparison, columns: list[tuple[str, Method]], baseline: str | None,
                 test: str | None, correction: str | None, alpha: float, ci: bool,
                 judged: Method | None = None, **options: Any) -> None:
        self.comparison = comparison
        self.runs = list(comparison.runs)
        self.measures = [label for label, _ in columns]
        self.baseline, self.alpha, self.ci = baseline, alpha, ci
        self._methods = dict(columns)
        S = len(self.runs)
        self.letters = run_letters(S) if baseline is None and S > 1 else []
        #: per measure label: the test and correction used (None without tests)
        self.tests: dict[str, tuple[str, str] | None] = {}
        #: per (run, measure): the record of :meth:`to_frame`
        self._records: dict[tuple[str, str], dict[str, Any]] = {}
        self._values: dict[str, np.ndarray] = {}  # per measure: (Q, S) per-query values of the column
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
                record: dict[str, Any] = {"run": run, "measure": label, "mean": float(means[s])}
                if self.judged:
                    record[self.judged_field] = self.judged[run]
                if ci:
                    record["ci_low"], record["ci_high"] = _interval(values[:, s]) if values is not None and not count \
                        else (math.nan, math.nan)
                self._records[run, label] = record
            if S < 2:
                self.tests[label] = None
                continue
            if count:  # a sum over the queries describes the inputs: no test, no mark
                self.tests[label] = None
                for run in self.runs:
                    self._records[run, label].update(test=None, correction=None, **(
                        {"p_value": math.nan, "p_adjusted": math.nan, "significant": None, "direction": 0}
                        if baseline is not None else {"better_than": []}))
                continue
            _, test_used, correction_used, res = view.tests(method.label, test, correction, alpha, **options)
            self.tests[label] = (test_used, correction_used)
            sums = view.pair_sums(r)
            direction = np.sign(sums.mean if test_used == "wilcoxon" else res.statistic)
            if baseline is not None:
                for p, (run, _) in enumerate(view.pairs):
                    record = self._records[run, label]
                    record.update(p_value=float(res.pvalue[p]), p_adjusted=float(res.adjusted[p]),
                                  significant=bool(res.significant[p]),
                                  direction=int(direction[p]) if res.significant[p] else 0)
                record = self._records[baseline, label]
                record.update(p_value=math.nan, p_adjusted=math.nan, significant=None, direction=0)
            else:
                beaten: dict[str, list[str]] = {run: [] for run in self.runs}
                for p, (a, b) in enumerate(view.pairs):
                    if res.significant[p] and direction[p] > 0:
                        beaten[a].append(b)
                    elif res.significant[p] and direction[p] < 0:
                        beaten[b].append(a)
                order = {run: k for k, run in enumerate(self.runs)}
                for run in self.runs:
                    self._records[run, label]["better_than"] = sorted(beaten[run], key=order.__getitem__)
            for run in self.runs:
                self._records[run, label].update(test=test_used, correction=correction_used)

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

    def set_robust(self, readings: list[RunTable], rel: int, depth: int) -> None:
        """Mark each significant cell ``robust`` (True / False; None where it is not significant): significant in the
        same direction in each of ``readings`` too (the same table on condensed lists and on the qrels with the
        unjudged documents of the runs' top ``depth`` filled as relevant at grade ``rel``;
        :func:`prefeval.engine.holes.readings`). Without a baseline a cell is robust when every run it is
        significantly better than stays so."""
        self.robust_fill = (rel, depth)
        for label in self.measures:
            for run in self.runs:
                record = self._records[run, label]
                if self.baseline is not None:
                    significant = bool(record.get("significant"))
                    same = all(other.record(run, label).get("significant")
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
        if len(self.runs) > 1:
            out += ["test", "correction"]
            out += ["p_value", "p_adjusted", "significant"] if self.baseline is not None else ["better_than"]
            if self.robust_fill is not None:
                out.append("robust")
        return out

    def rows(self) -> tuple[list[str], list[list[Any]]]:
        """Header and long-form rows (one per run and measure, runs in the given order) as Python values."""
        header = self.columns
        return header, [[self._records[run, m].get(h) for h in header] for run in self.runs for m in self.measures]

    def to_frame(self) -> pd.DataFrame:
        """The long-form table ``run, measure, mean[, ci_low, ci_high][, test, correction, p_value, p_adjusted,
        significant | better_than]``: one row per run and measure."""
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
        """An HTML ``<table>`` with a caption, every text escaped."""
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


def _mean_matrix(comparison: Comparison, r: Any) -> np.ndarray:
    """The S x S matrix of mean preferences of ``r`` (row over column) from the comparison's pair sums."""
    S = len(comparison.runs)
    M = np.zeros((S, S))
    if S > 1:
        i, j = np.triu_indices(S, 1)
        M[i, j], M[j, i] = r.sums.mean, -r.sums.mean
    return M


def table(qrels: Any, runs: Any, measures: Any, baseline: str | None = None, test: str | None = None,
          correction: str | None = "holm", alpha: float = 0.05, rel: int | None = None, depth: int | None = None, *,
          ci: bool = False, progress: bool = False, robust: bool = False, **options: Any) -> RunTable:
    """A run x measure table of means with significance (see the module docstring).

    ``qrels``, ``runs``: as :func:`prefeval.compare` (runs named by file name, or the keys of a dict).
    ``measures``: names (ir-measures syntax, trec_eval names, prefeval's preferences) or measure objects; each name
    is a column labelled as written (a trec_eval name standing for several measures gives one column each).
    ``baseline``: a run name; ``test``: ``t``, ``sign``, ``wilcoxon``, ``permutation`` or ``randomized_tukey_hsd``
    (default: t for metrics, sign for preferences); ``correction``: ``holm`` (default), ``bonferroni``,
    ``fdr_bh`` or ``none``; ``alpha``; ``rel``: minimum relevant grade for the measures that take one; ``depth``:
    truncate every run to its top ``depth`` documents; ``ci``: 95% confidence intervals of the means;
    ``robust``: test every significant cell again under the other two readings of the unjudged documents
    (:func:`prefeval.engine.holes.readings`; the ``robust`` field); ``options``: ``n_resamples`` and ``seed`` of
    the randomised tests.
    """
    measures = method_list(measures, "measures", "['nDCG@10', 'AP', 'RPP']")
    check_run_options(rel, depth)
    if not 0 < alpha < 1:
        raise PrefevalError(f"alpha must be between 0 and 1; got {alpha}")
    names = _run_names(runs)
    if baseline is not None and names and baseline not in names:
        raise PrefevalError(f"baseline {baseline!r} is not one of the runs: {', '.join(names)}")
    columns: list[tuple[str, Method]] = []
    computed: dict[str, Method] = {}  # one computation per distinct measure, whatever it is called
    for item in measures:
        found = parse_methods([item], 1 if rel is None else rel, depth)
        for method in found:
            key = f"{method.measure!r}|rel={method.rel}|depth={method.depth}"
            label = item.strip() if isinstance(item, str) and len(found) == 1 else method.label
            if all(existing != label for existing, _ in columns):
                columns.append((label, computed.setdefault(key, method)))
    judged = parse_methods([f"Judged@{judged_depth([m for _, m in columns])}"], 1, depth)[0]
    judged = computed.setdefault(f"{judged.measure!r}|rel={judged.rel}|depth={judged.depth}", judged)
    singles = len(names) == 1 if names else False
    if singles and any(m.kind == "preference" for _, m in columns):
        raise PrefevalError("a preference column compares runs: give at least two runs")
    keep = True if test in VALUE_TESTS else None  # the tests that need every per-query value

    def compute(qrels: Any, runs: Any) -> RunTable:
        result = compare_methods(qrels, runs, list(computed.values()), progress=progress, per_query=keep,
                                 min_runs=1 if not any(m.kind == "preference" for m in computed.values()) else 2,
                                 baseline=None)
        if baseline is not None and baseline not in result.runs:
            raise PrefevalError(f"baseline {baseline!r} is not one of the runs: {', '.join(result.runs)}")
        return RunTable(result, columns, baseline, test, correction, alpha, ci, judged, **options)

    if not robust:
        return compute(qrels, runs)
    fill_rel, fill_depth = 1 if rel is None else rel, FILL_DEPTH if depth is None else depth
    qrels_df, frames, condensed, filled = holes.readings(qrels, runs, fill_rel, fill_depth)
    out = compute(qrels_df, frames)
    out.set_robust([compute(qrels_df, condensed), compute(filled, frames)], fill_rel, fill_depth)
    return out


#: The depth within which ``table(robust=True)`` fills unjudged documents as relevant when the table has no ``depth``
FILL_DEPTH = 1000

#: Judged@k's depth when no measure of a table has a cutoff
JUDGED_DEPTH = 10


def judged_depth(methods: list[Method]) -> int:
    """The k of a table's Judged@k: the deepest cutoff among its measures, else :data:`JUDGED_DEPTH`."""
    cutoffs = [m.measure.params.get("cutoff") for m in methods]
    return max((c for c in cutoffs if isinstance(c, int)), default=JUDGED_DEPTH)

