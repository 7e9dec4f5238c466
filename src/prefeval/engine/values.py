"""The one evaluation function: per-query values of any list of measures for any number of runs.

:func:`measure_values` gives a :class:`MeasureValues` (one value per measure, judged query and run);
:func:`prefeval.evaluate`, ``prefeval eval``, :func:`prefeval.table`, the metric columns of :func:`prefeval.compare`,
pipelines and the Dask engine all take their numbers from it, through :class:`MeasureEvaluator` (the qrels processed
once, then one run at a time).

* The queries are the judged queries (every query of the qrels, at any grade; ``trec_eval -c``), sorted by id. A
  judged query a run does not retrieve for is an empty ranking: it scores the measure's ``DEFAULT`` (0).
* Every measure reads the same canonical ranking of a run (:func:`prefeval.data.ranking.rank_run`: score descending,
  ties by doc id descending, a repeated document at its first position).
* trec_eval's counts that depend on the qrels only, ``NumQ`` (``num_q``) and ``NumRel(rel=r)`` (``num_rel``: the
  documents of grade >= r; one judged for several subtopics counts once), are counted from the qrels for every judged
  query, also one the run lacks, as ``trec_eval -c`` counts them.
* Standard measures (any other ir-measures measure) are dispatched in :meth:`MeasureEvaluator.values`. trec_eval's
  common measures (P, R, Success, RR, AP, Rprec, nDCG and their cutoffs, Judged, NumRet / NumRelRet; not with
  ``judged_only`` or custom nDCG gains, nor on qrels with subtopics) are computed by the numpy kernels of
  :mod:`prefeval.core.trec_measures` from the grades of the ranking (:mod:`prefeval.data.grades`), equal to
  pytrec_eval's values; every other one reaches its ir-measures provider (pytrec_eval for the rest of trec_eval's
  measures, pyndeval, ...) through this module, by the public ``Evaluator.iter_calc``, unless ``provider`` names
  one provider for all. prefeval's own measures (RBU, TSE, a preference over a baseline) are computed by prefeval's
  provider from the ranking itself.
* How a measure aggregates over the queries is declared with the measure (its ir-measures ``aggregator()``): the mean,
  except trec_eval's counts ``num_q``, ``num_ret``, ``num_rel`` and ``num_rel_ret``, which are summed, as
  ``trec_eval -c`` does (:func:`summed`, :meth:`MeasureValues.aggregates`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import lazy_module
from prefeval.core.trec_measures import Measure as TrecMeasure
from prefeval.core.trec_measures import query_values
from prefeval.data.collection import Collection
from prefeval.data.ranking import RankedRun
from prefeval.data.runs import registered
from prefeval.data.trec import Columns
from prefeval.errors import PrefevalError
from prefeval.methods.registry import declaration_of

if TYPE_CHECKING:
    import ir_measures
    import pandas as pd
else:
    ir_measures = lazy_module("ir_measures")  # loads on first use, not with `import prefeval`
    pd = lazy_module("pandas")
_provider = lazy_module("prefeval.engine.provider")  # prefeval's own measures: loads (with ir-measures) on use
_tqdm = lazy_module("tqdm.auto")  # progress bars load on use

__all__ = ["MeasureEvaluator", "MeasureValues", "measure_values", "summed", "aggregate", "is_qrels_count"]

#: Counts that depend on the qrels only (trec_eval ``num_q``, ``num_rel``), computed from the qrels for every judged
#: query, as ``trec_eval -c`` does (a judged query missing from the run counts; its relevant documents too).
QRELS_COUNTS = frozenset({"NumQ", "NumRel"})


def is_qrels_count(measure: Any) -> bool:
    """Whether ``measure`` is ``NumQ`` or ``NumRel`` (counted from the qrels, :data:`QRELS_COUNTS`)."""
    return declaration_of(measure) is None and getattr(measure, "NAME", None) in QRELS_COUNTS


def summed(measure: Any) -> bool:
    """Whether ``measure`` aggregates over the queries by the sum, as its ir-measures ``aggregator()`` declares:
    trec_eval's counts ``NumQ``, ``NumRet``, ``NumRel`` (``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``), summed
    by ``trec_eval -c``. Every other measure (and a preference, which has no aggregator) is the mean."""
    aggregator = getattr(measure, "aggregator", None)
    return callable(aggregator) and isinstance(aggregator(), ir_measures.SumAgg)


def aggregate(measure: Any, values: np.ndarray) -> np.ndarray:
    """The aggregate over the queries (axis 0) of per-query ``values`` of ``measure``: the sum for the counts
    (:func:`summed`), else the mean; NaN without queries. Sums are correctly rounded (``math.fsum``), so a value does
    not depend on the order of the queries or on how many runs are evaluated together."""
    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        return np.full(values.shape[1:], np.nan)
    columns = values.reshape(len(values), -1)
    totals = np.array([math.fsum(columns[:, j]) for j in range(columns.shape[1])]).reshape(values.shape[1:])
    return totals if summed(measure) else totals / len(values)


#: ir-measures measures computed by :mod:`prefeval.core.trec_measures` (with trec_eval's definitions, as pytrec_eval
#: computes them), by name; ``NumRet(rel=r)`` is the kernels' ``NumRelRet``.
_KERNEL_NAMES = frozenset({"P", "R", "Success", "RR", "AP", "Rprec", "nDCG", "Judged", "NumRet"})


def kernel_measure(measure: Any) -> TrecMeasure | None:
    """The kernel of ``measure`` (:mod:`prefeval.core.trec_measures`), or None when it has none: a measure of another
    name, ``judged_only=True``, nDCG with custom ``gains`` or another ``dcg``, a parameter the kernels lack."""
    name = getattr(measure, "NAME", None)
    if name not in _KERNEL_NAMES or declaration_of(measure) is not None:
        return None
    params = dict(measure.params)
    if params.pop("judged_only", False) or (name == "nDCG" and (params.pop("dcg", "log2") != "log2"
                                                                 or "gains" in params)):
        return None
    cutoff, rel = params.pop("cutoff", None), params.pop("rel", None)
    if params or not isinstance(cutoff, (int, type(None))) or not isinstance(rel, (int, type(None))):
        return None
    try:
        if name == "NumRet":
            return TrecMeasure("NumRet") if rel is None else TrecMeasure("NumRelRet", rel=rel)
        return TrecMeasure(name, cutoff, 1 if rel is None else rel)
    except ValueError:  # parameters outside the kernels' domain (e.g. rel 0): left to the providers
        return None


#: Standard measures whose value at cutoff k reads only the top k documents of a ranking (the definition of a
#: measure at a rank cutoff, as trec_eval's ``ndcg_cut``, ``P``, ``recall``, ``map_cut``), with the parameters
#: besides ``cutoff`` that keep it so; ``judged_only=True`` drops unjudged documents before cutting: not listed.
_TOP_K_ONLY: dict[str, frozenset[str]] = {
    "nDCG": frozenset({"dcg", "gains"}), "P": frozenset({"rel"}), "R": frozenset({"rel"}),
    "AP": frozenset({"rel"}), "RR": frozenset({"rel"}), "Success": frozenset({"rel"}), "Judged": frozenset(),
}


def top_k_depth(measures: Iterable[Any]) -> int | None:
    """The largest cutoff of ``measures`` when each of them reads only the top ``cutoff`` documents of a ranking
    (then the rankings truncated at that depth give the same values), else None."""
    depth = 0
    for measure in measures:
        params = dict(measure.params)
        cutoff = params.pop("cutoff", None)
        if params.get("judged_only") is False:
            del params["judged_only"]
        allowed = _TOP_K_ONLY.get(getattr(measure, "NAME", None))
        if allowed is None or not isinstance(cutoff, int) or cutoff < 1 or not set(params) <= allowed:
            return None
        depth = max(depth, cutoff)
    return depth or None


class MeasureEvaluator:
    """``measures`` on a :class:`~prefeval.data.collection.Collection` (or qrels in any form it reads), processed
    once; :meth:`values` evaluates one ranked run. ``provider``: evaluate every measure that is not a qrels count with
    that ir-measures provider (default: prefeval's measures by prefeval's provider, the others by ir-measures' default
    pipeline). ``depth``: every run is truncated to its top ``depth`` documents first."""

    def __init__(self, measures: Sequence[Any], collection: Collection | pd.DataFrame | Columns, provider: Any = None,
                 depth: int | None = None) -> None:
        self.measures = list(dict.fromkeys(measures))
        if not self.measures:
            raise PrefevalError("no measures given; e.g. measures=['nDCG@10', 'RBU@20', 'LexiPrecision']")
        self.collection = collection = Collection.of(collection)
        self.depth = depth
        self.query_ids = collection.judged
        self._row = {q: i for i, q in enumerate(self.query_ids.tolist())}
        self._index = {m: k for k, m in enumerate(self.measures)}
        self._counts = {m: self._qrels_count(m) for m in self.measures if is_qrels_count(m)}
        rest = [m for m in self.measures if m not in self._counts]
        own = [m for m in rest if provider is None and declaration_of(m) is not None]
        standard = [m for m in rest if m not in own]
        self._kernels: tuple[list[TrecMeasure], list[int]] | None = None
        kernels = {m: kernel_measure(m) for m in standard} if provider is None and not collection.subtopics else {}
        kernels = {m: spec for m, spec in kernels.items() if spec is not None}
        if kernels:  # trec_eval's common measures: numpy kernels on the grades of the ranking
            self._kernels = (list(kernels.values()), [self._index[m] for m in kernels])
            standard = [m for m in standard if m not in kernels]
        self._groups: list[tuple[Any, bool, int | None]] = []  # (ir-measures evaluator, prefeval's provider, depth)
        try:
            if own:
                self._groups.append((_provider.PROVIDER.evaluator(own, collection), True, depth))
            if standard:
                cut = top_k_depth(standard)
                cut = depth if cut is None else cut if depth is None else min(cut, depth)
                if provider is not None and provider.NAME == "prefeval":
                    self._groups.append((provider.evaluator(standard, collection), True, depth))
                elif provider is not None:
                    self._groups.append((provider.evaluator(standard, collection.standard_qrels), False, cut))
                else:
                    self._groups.append((ir_measures.evaluator(standard, collection.standard_qrels), False, cut))
        except (ValueError, NameError) as exc:  # a measure no provider supports (with these parameters)
            raise PrefevalError(f"cannot evaluate {', '.join(map(str, rest))}: {exc}") from None

    def _qrels_count(self, measure: Any) -> np.ndarray:
        """``NumQ`` (1) or ``NumRel(rel=r)`` (the documents of grade >= r; a document judged for several subtopics
        counts once) of every judged query."""
        if measure.NAME == "NumQ":
            return np.ones(len(self.query_ids))
        return self.collection.relevant_counts(int(measure.params.get("rel", 1)))

    def values(self, run: RankedRun) -> np.ndarray:
        """(measures, queries) values of one ranked run: every measure on every judged query (:attr:`query_ids`);
        a query the run lacks scores the measure's ``DEFAULT``. The one place where measures are dispatched to
        their computation."""
        out = np.full((len(self.measures), len(self.query_ids)), np.nan)
        for measure, counts in self._counts.items():
            out[self._index[measure]] = counts
        if self._kernels is not None:
            specs, rows = self._kernels
            grades = self.collection.grades
            out[rows] = query_values(grades.judgments, grades.rankings(run, self.depth), specs)
        for evaluator, own, depth in self._groups:
            if own and depth is None and hasattr(evaluator, "iter_calc_ranked"):
                metrics = evaluator.iter_calc_ranked(run)  # prefeval's provider: no second ranking of the run
            else:
                ranking = run.to_dict(depth)
                metrics = evaluator.iter_calc(ranking) if ranking else ()
            index, row = self._index, self._row
            try:
                for metric in metrics:
                    r = row.get(str(metric.query_id))
                    if r is not None:
                        out[index[metric.measure], r] = metric.value
            except (AssertionError, RuntimeError) as exc:  # a provider's own failure (e.g. a tool it runs)
                raise PrefevalError(f"cannot evaluate {', '.join(map(str, evaluator.measures))}: {exc}") from exc
        missing = np.isnan(out)
        if missing.any():  # judged queries the run lacks: the measure's DEFAULT (ir-measures' rule)
            for k in np.flatnonzero(missing.any(axis=1)):
                out[k, missing[k]] = self.measures[k].DEFAULT
        return out


class MeasureValues:
    """Per-query values of measures for runs: ``values[k, q, s]`` is measure ``measures[k]`` on judged query
    ``query_ids[q]`` for run ``runs[s]``. :meth:`aggregates` gives each run's value per measure (the mean, or the sum
    for trec_eval's counts: :func:`summed`). ``max_grade``: the highest grade in the qrels (None without qrels lines),
    to tell a value that is 0 because no document is relevant."""

    def __init__(self, runs: Sequence[str], measures: Sequence[Any], query_ids: np.ndarray,
                 values: np.ndarray, max_grade: int | None = None) -> None:
        self.runs, self.measures = list(runs), list(measures)
        self.query_ids = np.asarray(query_ids, dtype=object)
        self.values = values
        self.max_grade = max_grade

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, measures: Sequence[Any], max_grade: int | None = None) -> MeasureValues:
        """The values of a per-query frame ``run, query_id, measure, value`` (:meth:`frame`, ``measure`` the
        ``str()`` of one of ``measures``; every run, query and measure once)."""
        measures = list(measures)
        runs = list(dict.fromkeys(frame["run"].tolist()))
        query_ids = np.array(sorted(set(frame["query_id"].astype(str).tolist())), dtype=object)
        values = np.full((len(measures), len(query_ids), len(runs)), np.nan)
        k = pd.Index([str(m) for m in measures]).get_indexer(frame["measure"].astype(str))
        q = pd.Index(query_ids).get_indexer(frame["query_id"].astype(str))
        s = pd.Index(runs).get_indexer(frame["run"])
        values[k, q, s] = frame["value"].to_numpy(dtype=np.float64)
        return cls(runs, measures, query_ids, values, max_grade)

    def of(self, measure: Any) -> np.ndarray:
        """(queries, runs) values of ``measure``."""
        return self.values[self.measures.index(measure)]

    def aggregates(self) -> np.ndarray:
        """(measures, runs): each run's value per measure over the judged queries (:func:`aggregate`)."""
        return np.stack([aggregate(m, self.values[k]) for k, m in enumerate(self.measures)]) \
            if self.measures else np.zeros((0, len(self.runs)))

    def frame(self, per_query: bool = False) -> pd.DataFrame:
        """``run, measure, value`` (runs, then measures in the given order) or, with ``per_query``, ``run,
        query_id, measure, value`` (runs, then queries, then measures); ``measure`` is ``str()`` of the measure."""
        labels = np.asarray([str(m) for m in self.measures], dtype=object)
        M, Q, S = len(self.measures), len(self.query_ids), len(self.runs)
        runs = np.asarray(self.runs, dtype=object)
        if not per_query:
            return pd.DataFrame({"run": np.repeat(runs, M), "measure": np.tile(labels, S),
                                 "value": self.aggregates().T.reshape(-1)})
        return pd.DataFrame({"run": np.repeat(runs, Q * M), "query_id": np.tile(np.repeat(self.query_ids, M), S),
                             "measure": np.tile(labels, Q * S),
                             "value": self.values.transpose(2, 1, 0).reshape(-1)})


def measure_values(collection: Collection | pd.DataFrame | Columns, runs: Mapping[str, RankedRun] | Iterable[tuple[str, RankedRun]],
                   measures: Sequence[Any], *, provider: Any = None, depth: int | None = None,
                   progress: bool = False) -> MeasureValues:
    """Per-query values of ``measures`` (parsed measure objects) for ranked ``runs`` (name -> :class:`RankedRun`, or
    ``(name, RankedRun)`` pairs, ranked one at a time when given lazily) on a ``collection``: see the module
    docstring. ``provider`` and ``depth``: as :class:`MeasureEvaluator`. A preference's ``baseline`` may name one of
    ``runs`` (given as a mapping): that run's ranking is the baseline."""
    named = {m.params.get("baseline") for m in measures if declaration_of(m) is not None} & set(runs) \
        if isinstance(runs, Mapping) else set()
    with registered({name: runs[name].frame() for name in named}):
        evaluator = MeasureEvaluator(measures, collection, provider, depth)
    items = runs.items() if isinstance(runs, Mapping) else runs
    total = len(runs) if isinstance(runs, Mapping) else None
    if progress:
        items = _tqdm.tqdm(items, desc="evaluation", unit="run", total=total, leave=False)
    names, columns = [], []
    for name, run in items:
        names.append(name)
        columns.append(evaluator.values(run))
        del run  # a run given lazily goes before the next is ranked
    values = np.stack(columns, axis=2) if columns else np.zeros((len(evaluator.measures), len(evaluator.query_ids), 0))
    return MeasureValues(names, evaluator.measures, evaluator.query_ids, values, evaluator.collection.max_grade)
