"""The ``prefeval`` ir-measures provider.

:func:`install` registers the measures of :mod:`prefeval.methods.measures`, registers this provider in
``ir_measures.providers.registry`` and inserts it into ``ir_measures.DefaultPipeline`` (idempotently), so
``ir_measures.calc_aggregate``, ``iter_calc``, ``calc`` and ``evaluator`` — and PyTerrier, which calls
them — evaluate prefeval's measures next to the standard ones. Standard measures keep their providers:
this one supports only prefeval's names.

Queries (the convention of trec_eval ``-c``, ir-measures and PyTerrier, shared by every prefeval entry point):
every query of the qrels gets a value for every measure, in a fixed order (measures sorted by name, queries by id),
so that ``pt.Experiment`` sees the same queries for every measure. A query with a relevant document (grade >=
``rel``) gets the authors' value; a judged query without one gets 0, as AP or nDCG do there; a query the run
lacks is an empty ranking (RBU 0, TSE 0, preferences the worst case against the baseline). Queries only in the
run are ignored. A run given here is ranked as :func:`prefeval.data.ranking.canonical_run` describes.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import replace
from itertools import chain
from typing import TYPE_CHECKING, Any

import ir_measures
import numpy as np
from ir_measures import Metric

from prefeval import methods
from prefeval.core.lazy import lazy_module
from prefeval.data.aspects import QrelsSide, qrels_side, run_graded_rankings
from prefeval.data.collection import Collection
from prefeval.data.inputs import nested_codes, qrels_frame, records_codes, run_frame
from prefeval.data.positions import condensed_run
from prefeval.data.ranking import RankedRun, rank_codes, rank_run, recode_run
from prefeval.data.runs import resolve_run
from prefeval.data.trec import MIN_GRADE
from prefeval.methods.measures import MEASURES, is_prefeval_measure
from prefeval.methods.registry import parameters

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


class PrefevalProvider(ir_measures.providers.Provider):
    """Evaluates prefeval's methods (RBU, TSE, LexiRecall, LexiPrecision, RPP, and any method registered
    later; see :mod:`prefeval.methods.measures`) with the kernels their declarations name."""

    NAME = "prefeval"
    SUPPORTED_MEASURES = list(MEASURES.values())

    def supports(self, measure) -> bool:
        if not is_prefeval_measure(measure):
            return False
        measure.validate_params()
        return True

    def _evaluator(self, measures, qrels) -> PrefevalEvaluator:
        return PrefevalEvaluator(list(measures), qrels)


class _Baselines:
    """The baselines of prefeval's preferences ranked on one :class:`~prefeval.data.collection.Collection` and located
    in its position tables, and the qrels side of graded rankings, each on first use; shared by the evaluators of one collection (:func:`_baselines`), so
    that runs evaluated one ``calc_aggregate`` call at a time rank a baseline once."""

    def __init__(self, collection: Collection) -> None:
        self.collection = collection
        # baseline name -> (the canonical frame it was ranked from, candidates' rel, ranked run)
        self._ranked: dict[str, tuple[pd.DataFrame, int, RankedRun]] = {}
        self._located: dict[tuple[str, int, int | None, bool], tuple[RankedRun, np.ndarray]] = {}
        self._sides: dict[tuple[int, tuple[str, ...]], QrelsSide] = {}

    def side(self, rel: int, queries: list[str]) -> QrelsSide:
        """:func:`prefeval.data.aspects.qrels_side` of ``queries`` at ``rel`` (shared by all runs)."""
        key = (rel, tuple(queries))
        if key not in self._sides:
            self._sides[key] = qrels_side(self.collection.frame, queries, rel)
        return self._sides[key]

    def ranked(self, name: str, frame: pd.DataFrame, rel: int) -> RankedRun:
        """The baseline ``frame`` (canonical, as :func:`prefeval.data.runs.resolve_run` gives it) ranked with the
        candidates at ``rel``; reused while ``name`` resolves to the same frame object (registering a run or
        changing a run file gives another one; a registered frame is prefeval's own copy)."""
        cached = self._ranked.get(name)
        if cached is None or cached[1] != rel or cached[0] is not frame:
            cached = (frame, rel, self.collection.rank(frame, name, rel=rel, ties="candidates"))
            self._ranked[name] = cached
        return cached[2]

    def located(self, name: str, frame: pd.DataFrame, rel: int, table_rel: int, cutoff: int | None,
                judged_only: bool = False) -> np.ndarray:
        """:meth:`PositionTable.locate` of the baseline :meth:`ranked` gives (its condensed list with
        ``judged_only``) in the table at ``table_rel``, kept while that ranking is (the runs evaluated against one
        baseline locate it once)."""
        ranked = self.ranked(name, frame, rel)
        key = (name, table_rel, cutoff, judged_only)
        cached = self._located.get(key)
        if cached is None or cached[0] is not ranked:
            located = condensed_run(ranked, self.collection.judged_documents) if judged_only else ranked
            cached = (ranked, self.collection.table(table_rel).locate(located, cutoff))
            self._located[key] = cached
        return cached[1]


_last_collection: list[Collection] = []
_last_baselines: list[_Baselines] = []
_last_records: list[tuple[list | _NestedItems, set, pd.DataFrame]] = []
_KEPT_RECORDS = 1_000_000  # judgments: larger qrels records are converted again for every evaluator


def _qrels_input(qrels) -> Collection:
    """The :class:`~prefeval.data.collection.Collection` of ``qrels`` (itself when given one, e.g. by
    :class:`prefeval.engine.values.MeasureEvaluator`), read by :func:`prefeval.data.inputs.qrels_frame`; for records (a list or an iterator of ``Qrel``-like
    namedtuples, read once) or a dict of dicts, the frame of the previous ones when these are equal, element by
    element, in the same order and of the same types (e.g. one ``calc_aggregate`` call per run with the same
    ``read_trec_qrels`` list or qrels dict); the collection of the last qrels when the frame is equal (the qrels
    are coded once for many evaluators)."""
    if isinstance(qrels, Collection):
        return qrels
    if isinstance(qrels, Mapping):
        rows = _NestedItems(qrels)
        kinds, size = {type(qrels)}, len(rows.docs)
    elif isinstance(qrels, (list, tuple, Iterator)):
        rows = list(qrels)
        kinds, size = set(map(type, rows)), len(rows)
    else:
        return _collection(qrels_frame(qrels))
    if _last_records and _last_records[0][1] == kinds and _last_records[0][0] == rows:
        return _collection(_last_records[0][2])
    frame = qrels_frame(qrels if isinstance(qrels, Mapping) else rows)
    # kept for the next call unless large (the copy of the records would stay in memory)
    if isinstance(rows, _NestedItems):
        rows = rows.copy()
    _last_records[:] = [(rows, kinds, frame)] if size <= _KEPT_RECORDS else []
    return _collection(frame)


class _NestedItems:
    """The items of a dict of dicts, equal to those of another exactly when the lists
    ``[(query, list(docs.items())), ...]`` of both are, without building them: the same queries in the same order,
    every document in the same order (``docs``) and equal dicts."""

    def __init__(self, nested: Mapping) -> None:
        self.nested, self.queries = nested, list(nested)
        self.docs = list(chain.from_iterable(nested.values()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _NestedItems) and self.queries == other.queries and self.docs == other.docs \
            and self.nested == other.nested

    def copy(self) -> _NestedItems:
        """These items with the dicts copied (later changes to the given dicts do not reach them)."""
        copied = _NestedItems({})
        copied.nested = {query: dict(docs) for query, docs in self.nested.items()}
        copied.queries, copied.docs = self.queries, self.docs
        return copied


def _collection(qrels: pd.DataFrame) -> Collection:
    """The collection of the last qrels when ``qrels`` has the same content (same canonical frame: values, dtypes and
    order), else a new one (which replaces it)."""
    if not _last_collection or not (_last_collection[0].qrels is qrels or _last_collection[0].frame.equals(qrels)):
        _last_collection[:] = [Collection(qrels)]
    return _last_collection[0]


def _baselines(collection: Collection) -> _Baselines:
    """The baselines ranked on ``collection`` (those of the last collection when it is the same object)."""
    if not _last_baselines or _last_baselines[0].collection is not collection:
        _last_baselines[:] = [_Baselines(collection)]
    return _last_baselines[0]


class PrefevalEvaluator(ir_measures.providers.Evaluator):
    """Holds the qrels, their position tables and the ranked baselines once; evaluates any number of runs.

    Runs are ranked with ``ties="candidates"`` (:func:`prefeval.data.ranking.rank_run`): every measure here reads only
    the ranks of documents with grade >= its ``rel`` (all candidates) and the length of each ranking."""

    def __init__(self, measures: list, qrels: Any) -> None:
        self.collection = collection = _qrels_input(qrels)  # a Collection, or qrels in any form ir-measures takes
        self.baselines_ranked = _baselines(collection)
        self.judged = collection.judged.tolist()
        # measures sharing (rel, cutoff, judged_only) share one position table, depth and ranking; sorted: the order
        # of yielded values (and of PyTerrier's columns) must not depend on the hash order of the set ir-measures passes
        self.groups: dict[tuple[int, int | None, bool], list] = defaultdict(list)
        self.params = {measure: parameters(measure) for measure in measures}
        for measure in sorted(measures, key=str):
            params = self.params[measure]
            self.groups[(params["rel"], measure.params.get("cutoff"), params["judged_only"])].append(measure)
        self.baselines = {m["baseline"]: resolve_run(m["baseline"]) for m in measures if _is_preference(m)}
        self.queries = collection.queries
        condensed = any(judged_only for _, _, judged_only in self.groups)
        # condensed lists need the exact rank of every judged document: all of them are candidates then
        self.rel = MIN_GRADE if condensed else min((rel for rel, _, _ in self.groups), default=1)
        self.candidates = collection.candidates(self.rel)
        self.tables = {rel: collection.table(rel) for rel, _, _ in self.groups}
        # every measure reads only ranks <= its cutoff (table.locate, run_graded_rankings): when each has one, a
        # dict run is read down to the largest (the ranks up to it exact, ties at the cut included); a cutoff on a
        # condensed list may reach deeper into the run
        cutoffs = [cutoff for _, cutoff, _ in self.groups]
        self.depth = max(cutoffs) if cutoffs and None not in cutoffs and not condensed else None
        super().__init__(measures, set(self.judged))

    def _side(self, rel: int, queries: list[str]) -> QrelsSide:
        """:func:`prefeval.data.aspects.qrels_side` of ``queries`` at ``rel``, built on first use (shared by all runs)."""
        return self.baselines_ranked.side(rel, queries)

    def _baseline_positions(self, name: str, rel: int, cutoff: int | None, judged_only: bool) -> np.ndarray:
        """The baseline run ``name`` (ranked on first use; its condensed list with ``judged_only``) located in the
        table at ``rel``."""
        return self.baselines_ranked.located(name, self.baselines[name], self.rel, rel, cutoff, judged_only)

    def _iter_calc(self, run) -> Iterator[Metric]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if isinstance(run, Iterator):
                run = list(run)  # read once, by records_codes or else run_frame
            # a dict of dicts or a list of records, read without a frame
            codes = nested_codes(run, self.queries, self.depth) or records_codes(run, self.queries, self.depth)
            if codes is None:
                ranked = rank_run(run_frame(run), self.queries, self.candidates, ties="candidates")
            else:
                qc, raw_docs, doc_names, scores = codes
                ranked = rank_codes(qc, self.queries, raw_docs, doc_names, scores, self.candidates, ties="candidates")
        for warning in caught:  # standard providers in the same ir-measures call read the run as given
            warnings.warn(f"{warning.message}; standard measures computed from this run by other providers keep "
                          "their own rule (pytrec_eval: the last occurrence) -- prefeval.evaluate gives every "
                          "measure the same ranking", warning.category, stacklevel=2)
        return self._values(ranked)

    def iter_calc_ranked(self, run: RankedRun) -> Iterator[Metric]:
        """:meth:`iter_calc` of a run already ranked by :func:`prefeval.data.ranking.rank_run` (``ties="all"``), e.g. by
        :func:`prefeval.engine.evaluate.ranked_runs`: the same values without ranking the run again."""
        # ir-measures' iter_calc adds DEFAULT values for the (measure, query) pairs a provider left out; _values
        # gives every measure a value for every judged query (= qrel_qids), so there are none to add
        return self._values(recode_run(run, self.queries, self.candidates))

    def _values(self, run: RankedRun) -> Iterator[Metric]:
        condensed = None
        for (rel, cutoff, judged_only), group in self.groups.items():
            if judged_only and condensed is None:
                condensed = condensed_run(run, self.collection.judged_documents)
            ranked = condensed if judged_only else run
            baselines = sorted({m["baseline"] for m in group if _is_preference(m)})
            table = self.tables[rel]
            queries, n_relevant = table.query_sizes()
            doc_pos = positions = None  # built only for the measures that read positions
            rankings = None
            for measure in group:
                declaration, params = methods.declaration_of(measure), self.params[measure]
                if declaration.kind == "metric":
                    if rankings is None:
                        rankings = run_graded_rankings(ranked, cutoff, self.collection.frame, queries, rel, n_relevant,
                                                       self._side(rel, queries))
                    values = declaration.values(rankings, params)
                    found = {query_id: float(value) for query_id, value in zip(queries, values)}
                    yield from self._judged_values(measure, found)
                    continue
                if doc_pos is None:
                    doc_pos = np.vstack([table.locate(ranked, cutoff),
                                         *(self._baseline_positions(name, rel, cutoff, judged_only) for name in baselines)])
                row = 1 + baselines.index(measure["baseline"])
                if positions is None:
                    positions = table.positions(doc_pos)
                pairs = [replace(q, doc_pos=q.doc_pos[[0, row]]) for q in positions]
                values = (matrix[0, 1] for matrix in declaration.matrices(pairs, params))
                found = {query_id: float(value) for query_id, value in zip(queries, values)}
                yield from self._judged_values(measure, found)

    def _judged_values(self, measure, found: dict[str, float]) -> Iterator[Metric]:
        for query_id in self.judged:  # judged queries without a relevant document at rel: 0
            yield Metric(query_id, measure, found.get(query_id, 0.0))


def _is_preference(measure) -> bool:
    return methods.declaration_of(measure).kind == "preference"


PROVIDER = PrefevalProvider()
"""The provider; prefeval evaluates its own measures with ``PROVIDER.evaluator(measures, qrels)``."""


def install() -> PrefevalProvider:
    """Put the provider into ``ir_measures.providers.registry`` and ``DefaultPipeline`` (idempotent; done when this
    module is imported)."""
    provider = ir_measures.providers.registry.setdefault(PrefevalProvider.NAME, PROVIDER)
    pipeline = ir_measures.DefaultPipeline.providers
    if not any(getattr(p, "NAME", None) == PrefevalProvider.NAME for p in pipeline):
        pipeline.insert(0, provider)
    return provider


install()
