"""Evaluation of a block of queries for every pair of runs under every method: :func:`evaluate_block`.

One pass over the runs: each run is ranked once on the collection (:meth:`prefeval.data.collection.Collection.rank`:
score descending, ties by doc_id descending, a repeated document at its best position) and truncated to each
method's depth, the relevant documents of the collection (:meth:`~prefeval.data.collection.Collection.table`) are
located in it for every preference, and each metric table gets the ranking
(:class:`~prefeval.engine.values.MeasureEvaluator`, once per run and depth). A run given as a TREC file path is read
when its turn comes, so one run file is in memory at a time. Then, query by query (or in batches of queries where
the kernel has a batched form), each preference's ``S x S`` matrix comes from its kernel in :mod:`prefeval.core`
(LexiRecall: Diaz & Mitra (2023) §5.2; LexiPrecision: Diaz (2023) §3; RPP: Diaz & Ferraro
(2022) Eq. 3-6), and a metric's from the differences ``mu(a) - mu(b)`` of its per-query values; each is folded into a
:class:`~prefeval.engine.results.MethodResult` (win rates, streamed pair sums, the tensor when kept).

Every query of the qrels is compared: one with a document at grade >= the method's ``rel`` gets the authors'
preference, a judged query without one a tie (0); a query missing from a run is a ranking that retrieved nothing.
The in-process engine evaluates all queries as one block; the Dask engine one block per partition
(:func:`~prefeval.engine.results.combine_results` joins them).

Runs of many small rankings are ranked together block of queries by block of queries
(:func:`prefeval.data.ranking.rank_query_blocks`) when no metric needs their full rankings.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import lazy_module
from prefeval.core.reduce import PairAccumulator
from prefeval.data.collection import Collection, coverage_note
from prefeval.data.inputs import run_frame
from prefeval.data.positions import condensed_run, judged_shares
from prefeval.data.ranking import (
    RankedRun,
    encoded_runs,
    query_block_runs,
    rank_query_blocks,
    warn_repeated,
)
from prefeval.data.trec import MIN_GRADE
from prefeval.engine.methods import Method
from prefeval.engine.results import MethodResult
from prefeval.engine.values import MeasureEvaluator
from prefeval.errors import PrefevalError
from prefeval.methods.registry import declaration_of, parameters

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
_tqdm = lazy_module("tqdm.auto")  # progress bars load on use

#: entries (queries x runs x runs) of the per-query matrices one call of a preference's kernel for many queries gives
BATCH_ENTRIES = 1 << 16


def _progress(iterable: Iterable, enabled: bool, desc: str, total: int | None = None) -> Iterable:
    if not enabled:
        return iterable

    return _tqdm.tqdm(iterable, desc=desc, total=total, leave=False)


class _MetricTable:
    """Per-query values of the metric methods sharing one run depth (:class:`~prefeval.engine.values.MeasureEvaluator`:
    the one evaluation of measures), one run at a time."""

    def __init__(self, methods: list[Method], collection: Collection, depth: int | None, n_runs: int) -> None:
        self.methods = methods
        self.evaluator = MeasureEvaluator([m.measure for m in methods], collection, depth=depth)
        self.values = np.zeros((len(self.evaluator.measures), len(self.evaluator.query_ids), n_runs))

    def fill(self, s: int, run: RankedRun) -> None:
        self.values[:, :, s] = self.evaluator.values(run)

    def results(self) -> list[MethodResult]:
        index = {m: k for k, m in enumerate(self.evaluator.measures)}
        return [MethodResult(m, self.evaluator.query_ids, None, self.values[index[m.measure]]) for m in self.methods]


class _PreferenceCollector:
    """Collects one preference's per-query matrices: win rates always, pair sums streamed, the tensor if kept."""

    def __init__(self, method: Method, n_queries: int, n_runs: int, keep: bool) -> None:
        self.method = method
        self.win_rates = np.zeros((n_queries, n_runs))
        self.prefs = np.zeros((n_queries, n_runs, n_runs)) if keep else None
        self.sums = PairAccumulator(n_runs)

    def add(self, row: int, P: np.ndarray) -> None:
        self.win_rates[row] = P.sum(axis=1)
        if self.prefs is not None:
            self.prefs[row] = P
        self.sums.add(P)

    def result(self, query_ids: np.ndarray) -> MethodResult:
        return MethodResult(self.method, query_ids, self.prefs, win_rates=self.win_rates,
                            sums=self.sums.sums(len(query_ids)))


def check_relevant(methods: list[Method], collection: Collection) -> None:
    """An error when no query has a relevant document at a method's ``rel``: there is nothing to compare."""
    for rel in dict.fromkeys(m.rel for m in methods):
        if not collection.evaluated(rel).any():
            labels = ", ".join(m.label for m in methods if m.rel == rel)
            raise PrefevalError(f"no query has a relevant document (grade >= {rel}) in the qrels; nothing to "
                                f"compare for {labels}")


def evaluate_block(methods: list[Method], run_frames: dict[str, Any], collection: Collection, *,
                   keep: bool, progress: bool = False, warn: bool = True) -> list[MethodResult]:
    """Every method on the judged queries of ``collection``: one pass over the runs (rank each once, locate its documents for
    every position and metric table), then the per-query kernels, folded into :class:`MethodResult` (pair sums
    streamed; per-query preferences kept only with ``keep``).

    Runs are DataFrames or :class:`~prefeval.data.trec.Columns` (pandas is then needed only by metric methods); a
    run may also be a TREC file path, read when its turn comes (one run in memory at a time). Every judged query
    counts (one without a document at a method's ``rel`` is a tie). The engines call
    this on blocks of queries and combine the results (:func:`combine_results`); ``warn=False`` leaves the
    coverage warnings to the caller.
    """
    names = list(run_frames)
    S = len(names)
    queries, qids = collection.queries, collection.judged
    pref_groups: dict[tuple[int, int | None, bool], list[Method]] = {}
    metric_groups: dict[int | None, list[Method]] = {}
    judged_groups: dict[int | None, list[Method]] = {}  # Judged@k: counted from the judged documents' positions
    for m in methods:
        if m.kind == "preference":
            pref_groups.setdefault((m.rel, m.depth, _judged_only(m)), []).append(m)
        elif _judged_share(m):
            judged_groups.setdefault(m.depth, []).append(m)
        else:
            metric_groups.setdefault(m.depth, []).append(m)
    min_rel = min((m.rel for m in methods if not _judged_share(m)), default=1)
    condensed = any(judged_only for _, _, judged_only in pref_groups)
    # condensed lists and Judged@k need every judged rank exact: every judged document a candidate (each query's own);
    # the metrics then take their grades by candidate code (Collection.grades)
    candidate_rel = MIN_GRADE if condensed or judged_groups or metric_groups else min_rel
    candidates = collection.query_candidates(candidate_rel)
    tables = {rel: collection.table(rel) for rel in dict.fromkeys(rel for rel, _, _ in pref_groups)}
    doc_pos = {key: np.full((S, len(tables[key[0]])), np.inf) for key in pref_groups}
    if judged_groups:  # the judged documents located as the relevant ones of a preference (key: not a preference's)
        tables[MIN_GRADE] = collection.judged_documents
        doc_pos.update({(MIN_GRADE, depth, False): np.full((S, len(tables[MIN_GRADE])), np.inf)
                        for depth in judged_groups})
    ranked_docs = np.zeros((S, len(queries)), dtype=np.int64)  # documents each run ranks per query (Judged@k)
    metric_tables = [_MetricTable(group, collection, depth, S) for depth, group in metric_groups.items()]
    evaluated = collection.evaluated(min_rel)  # per query (of ``queries``): has a document at grade >= min_rel
    ties = "all" if metric_tables else "candidates"  # metrics read full rankings; preferences only positions
    # large runs in memory
    blocked = query_block_runs(run_frames, candidates) if ties == "candidates" and not condensed else []
    row = {name: s for s, name in enumerate(names)}
    streamed = read_ahead({name: run for name, run in run_frames.items() if name not in set(blocked)})
    for name, frame in _progress(_read_in_turn(encoded_runs(streamed, queries)), progress, "ranking runs",
                                 len(streamed)):
        s = row[name]
        run = collection.rank(frame, name, rel=candidate_rel, query_candidates=True, ties=ties)
        del frame  # the ranking keeps integer codes; the columns of a file go
        if warn:
            _warn_coverage(collection, name, _covered(run), evaluated)
        if judged_groups:
            ranked_docs[s] = run.query_sizes()
        # condensed lists by the comparison's depth, which cuts the run first; Method.depth (the smaller of it and the
        # preference's @k) then cuts the condensed list (no further than the comparison's depth did)
        lists: dict[int | None, RankedRun] = {}
        for (rel, depth, judged_only), pos in doc_pos.items():
            if judged_only:
                first = pref_groups[rel, depth, judged_only][0].run_depth  # the same for every method
                if first not in lists:
                    lists[first] = condensed_run(run, collection.judged_documents, first)
                pos[s] = tables[rel].locate(lists[first], depth)
            else:
                pos[s] = tables[rel].locate(run, depth)
        for mt in metric_tables:
            mt.fill(s, run)
    if blocked:
        _locate_blocked({name: run_frames[name] for name in blocked}, [row[name] for name in blocked], collection,
                        candidates, tables, doc_pos, evaluated if warn else None, progress, ranked_docs)
    results = []
    for depth, group in judged_groups.items():
        results += [_judged_result(m, collection, doc_pos[MIN_GRADE, depth, False], ranked_docs) for m in group]
    for (rel, depth, judged_only), group in pref_groups.items():
        kernels = [(m, declaration_of(m.measure), parameters(m.measure)) for m in group]
        subtopics = any(decl.reads_subtopics(params) for _, decl, params in kernels)
        positions = tables[rel].positions(doc_pos[rel, depth, judged_only], subtopics=subtopics)
        rows = np.searchsorted(qids, np.array([p.query_id for p in positions], dtype=object))
        collectors = [_PreferenceCollector(m, len(qids), S, keep) for m in group]
        for collector, (m, decl, params) in zip(collectors, kernels):
            matrices = _query_matrices(decl, params, positions)
            for q, P in enumerate(_progress(matrices, progress, f"{m.label} (rel={rel})", len(positions))):
                collector.add(rows[q], P)
        results += [collector.result(qids) for collector in collectors]
    for mt in metric_tables:
        results += mt.results()
    return results


def _judged_only(method: Method) -> bool:
    """Whether ``method`` is one of prefeval's methods with ``judged_only=True`` (condensed lists)."""
    return bool(declaration_of(method.measure) is not None and parameters(method.measure)["judged_only"])


def _judged_share(method: Method) -> bool:
    """Whether ``method`` is ir-measures' ``Judged@k`` (the share of the top k documents the qrels judge), which
    :func:`evaluate_block` counts from the positions of the judged documents, as the preferences read theirs."""
    params = getattr(method.measure, "params", None)
    return (method.kind == "metric" and getattr(method.measure, "NAME", None) == "Judged" and params is not None
            and set(params) <= {"cutoff"} and isinstance(params.get("cutoff"), int))


def _judged_result(method: Method, collection: Collection, ranks: np.ndarray, ranked_docs: np.ndarray) -> MethodResult:
    """Judged@k of every run on every judged query (:func:`prefeval.data.positions.judged_shares`): ``ranks``, the rank
    of each judged document of the collection in each run (within the method's depth, +inf elsewhere);
    ``ranked_docs``, the documents each run ranks per query."""
    ranked = ranked_docs if method.depth is None else np.minimum(ranked_docs, method.depth)
    shares = judged_shares(collection.judged_documents, ranks, ranked, method.measure.params["cutoff"])
    values = np.empty((len(collection.judged), len(shares)))
    values[collection.judged_rows] = shares.T  # from the order of the qrels to that of the judged queries
    return MethodResult(method, collection.judged, None, values)


def _query_matrices(decl: Any, params: dict, positions: list) -> Iterator[np.ndarray]:
    """The (S, S) matrix of one preference on each of ``positions`` (one :class:`~prefeval.data.positions.QueryPositions`
    per query): from its kernel, in blocks of at most :data:`BATCH_ENTRIES` matrix entries."""
    S = positions[0].doc_pos.shape[0] if positions else 0
    step = max(1, BATCH_ENTRIES // max(1, S * S))
    for start in range(0, len(positions), step):
        yield from decl.matrices(positions[start:start + step], params)


def _locate_blocked(runs: dict[str, Any], rows: list[int], collection: Collection, candidates: Any, tables: dict,
                    doc_pos: dict, evaluated: np.ndarray | None, progress: bool,
                    ranked_docs: np.ndarray | None = None) -> None:
    """:func:`evaluate_block`'s positions of large runs in memory, ranked together block of queries by block of
    queries (:func:`prefeval.data.ranking.rank_query_blocks`): ``doc_pos[rel, depth, False][rows[k]]`` for the ``k``-th run;
    the warnings of each run (repeated documents; coverage unless ``evaluated`` is None) after the last block;
    ``ranked_docs[rows[k]]``: the documents the ``k``-th run ranks per query."""
    queries = collection.queries
    covered = np.zeros((len(runs), len(queries)), dtype=bool)
    repeated = np.zeros(len(runs), dtype=np.int64)
    at = np.asarray(rows, dtype=np.intp)
    for block in _progress(rank_query_blocks(runs, queries, candidates), progress, "ranking runs by query blocks"):
        for (rel, depth, _), pos in doc_pos.items():  # (no condensed lists: evaluate_block ranks those runs alone)
            tables[rel].locate_block(block, depth, pos, at)
        covered[:, block.first:block.first + block.width] = block.covered
        if ranked_docs is not None:  # the block's query codes: k * width + the query's place in the block
            counts = np.bincount(block.ranked.query_codes, minlength=len(runs) * block.width)
            ranked_docs[at, block.first:block.first + block.width] = counts.reshape(len(runs), block.width)
        repeated += block.repeated
    for k, name in enumerate(runs):
        if repeated[k]:
            warn_repeated(name, int(repeated[k]), stacklevel=2)  # as from rank_run
        if evaluated is not None:
            _warn_coverage(collection, name, np.flatnonzero(covered[k]), evaluated, stacklevel=6)


def _covered(run: RankedRun) -> np.ndarray:
    """The codes of the queries ``run`` retrieved something for (linear, no sort)."""
    return np.flatnonzero(run.query_sizes())


#: Bytes of run files :func:`read_ahead` reads and keeps before any work (beyond them, files are checked and read
#: again in their turn).
READ_AHEAD_BYTES = 256 << 20


def read_ahead(runs: dict[str, Any], budget: int | None = None) -> dict[str, Any]:
    """``runs`` with every run given as a TREC file read (:func:`run_frame`) before any work, so that a bad line in
    the last file is reported before the first run is evaluated: files are kept in memory, in order, while their
    sizes fit in ``budget`` bytes (:data:`READ_AHEAD_BYTES`); a file beyond is parsed once to check it and again in
    its turn (:func:`_read_in_turn`): the second parse is the price of one such file in memory at a time. The files
    not kept are checked first, so that none is parsed while the kept ones are held."""
    budget = READ_AHEAD_BYTES if budget is None else budget
    kept = set()
    for name, run in runs.items():
        if isinstance(run, (str, os.PathLike)):
            try:
                size = os.path.getsize(run)
            except OSError:
                size = 0  # the reader names the problem
            if size <= budget:
                budget -= size
                kept.add(name)
    for name, run in runs.items():  # checked and dropped
        if isinstance(run, (str, os.PathLike)) and name not in kept:
            run_frame(run, name, columns=True)  # the parse is the check; the columns are dropped at once
    return {name: run_frame(run, name, columns=True) if name in kept else run for name, run in runs.items()}


def _read_in_turn(items: Iterable[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """``items`` (name, run) in order, a run given as a TREC file path read into columns (:func:`run_frame`) when its
    turn comes: one run file in memory at a time; an error reading a file is raised in its turn."""
    for name, source in items:
        yield name, run_frame(source, name, columns=True) if isinstance(source, (str, os.PathLike)) else source


def _warn_coverage(collection: Collection, name: str, covered: np.ndarray, evaluated: np.ndarray,
                   stacklevel: int = 5) -> None:
    """Warn when the run ``name``, which retrieved for the queries ``covered`` (codes in the collection's queries),
    has none of the ``evaluated`` queries or lacks some judged ones (:func:`~prefeval.data.collection.coverage_note`)."""
    if not evaluated[covered].any():
        warnings.warn(f"run {name!r} has none of the {int(evaluated.sum())} evaluated queries of the qrels; "
                      "it counts as retrieving nothing for every query", stacklevel=stacklevel)
    elif note := coverage_note(name, len(covered), len(collection.judged), len(covered)):
        warnings.warn(note, stacklevel=stacklevel)
