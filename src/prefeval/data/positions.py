"""The relevant documents of the qrels and where each run put them: per-query position arrays.

For a relevance threshold ``rel``, a document is relevant to a query when one of its judgments (over the subtopics)
has grade ``>= rel`` (:func:`relevant_documents`); a query is *evaluated* when it has one. :class:`PositionTable`
lays out the relevant documents of every evaluated query, :meth:`PositionTable.locate` finds them in a ranked run
(:class:`~prefeval.data.ranking.RankedRun`; ``+inf`` when not retrieved, within ``depth``) and
:meth:`PositionTable.positions` cuts the located positions of many runs into one :class:`QueryPositions` per
query: the input of the preference kernels of :mod:`prefeval.core`, which compare runs by the positions of the
relevant items (LexiRecall: Diaz & Mitra (2023) §5.2; LexiPrecision: Diaz (2023) §3; RPP: Diaz & Ferraro (2022)
Eq. 3-6). The tables of a collection, its queries and the candidates of its rankings are built once by
:class:`prefeval.data.collection.Collection`, which :func:`prefeval.data.collection.query_positions` uses for a
mapping of runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.arrays import sorted_unique, stretch_starts
from prefeval.core.lazy import lazy_module
from prefeval.core.positions import QueryPositions as QueryPositions
from prefeval.data.encoding import (
    Ids,
    as_ids,
    column_values,
    sorted_codes,
    take_rows,
    unique_values,
)
from prefeval.data.ranking import NO_SUBTOPIC, QueryBlock, RankedRun
from prefeval.data.trec import MIN_GRADE
from prefeval.errors import PrefevalError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


def relevant_documents(qrels: Any, rel: int = 1) -> pd.DataFrame:
    """Documents with grade ``>= rel`` per query (grade = max over subtopics), sorted by query and doc."""
    return pd.DataFrame(_relevant(qrels, rel))


def _relevant(qrels: Any, rel: int) -> dict[str, np.ndarray]:
    """The columns of :func:`relevant_documents` as numpy arrays, from qrels columns (a DataFrame, or the columns
    :func:`prefeval.data.trec.read_qrels_columns` gives)."""
    grades = column_values(qrels["relevance"], np.int64)
    # a document's grade is >= rel exactly when one of its judgments is: group just those (a few of all judgments)
    rows = np.flatnonzero(grades >= rel)
    grades = grades[rows]
    if not len(grades):
        empty = np.zeros(0, dtype=object)
        return {"query_id": empty, "doc_id": empty.copy(), "relevance": grades}
    qi, query_names = sorted_codes(take_rows(qrels["query_id"], rows))
    di, doc_names = sorted_codes(take_rows(qrels["doc_id"], rows))
    key = qi.astype(np.int64) * len(doc_names) + di
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = stretch_starts(key)
    best = np.maximum.reduceat(grades[order], starts)  # max over the subtopics of each (query, document)
    keep = best >= rel
    first = order[starts[keep]]
    return {"query_id": query_names[qi[first]], "doc_id": doc_names[di[first]], "relevance": best[keep]}


def _stretch_indexer(ids: Ids, values: np.ndarray) -> np.ndarray:
    """``ids.get_indexer(values)``, looking up only the first value of each stretch of equal values (such as the
    query ids of the relevant documents, sorted by query)."""
    if len(values) < 2:
        return ids.get_indexer(values)
    starts = stretch_starts(values)
    return np.repeat(ids.get_indexer(values[starts]), np.diff(np.r_[starts, len(values)]))


class PositionTable:
    """The relevant documents (grade >= ``rel``) of every evaluated query as columns, sorted by query then doc.

    ``relevant`` holds the columns (``query_id, doc_id, relevance``, numpy arrays); :meth:`locate` gives their
    positions in one ranked run, :meth:`positions` turns the positions of many runs into :class:`QueryPositions`.
    ``qrels``: a DataFrame or the columns :func:`prefeval.data.trec.read_qrels_columns` gives.
    """

    def __init__(self, qrels: Any, rel: int, queries: Any) -> None:
        self.qrels, self.rel = qrels, rel
        self.relevant = _relevant(qrels, rel)
        self.queries = as_ids(queries)
        self.docs = Ids(unique_values(self.relevant["doc_id"]))
        self.query_codes = _stretch_indexer(self.queries, self.relevant["query_id"])  # sorted by query
        if (self.query_codes < 0).any():
            missing = self.relevant["query_id"][self.query_codes < 0][0]
            raise PrefevalError(f"the queries given to PositionTable lack qrels query {missing!r}")
        keys = self._keys(self.query_codes, self.docs.get_indexer(self.relevant["doc_id"]))
        self.sorter = np.argsort(keys, kind="stable")
        self.sorted_keys = keys[self.sorter]
        self._maps: dict[str, tuple[object, np.ndarray | None]] = {}
        self._subtopics: tuple[list[str], np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.relevant["query_id"])

    def _keys(self, query_codes: np.ndarray, doc_columns: np.ndarray) -> np.ndarray:
        return query_codes.astype(np.int64) * len(self.docs) + doc_columns

    def _map(self, kind: str, source: object, build) -> np.ndarray | None:
        """Cached per source object (the runs of one evaluation share their ``queries`` and ``candidates``)."""
        cached = self._maps.get(kind)
        if cached is None or cached[0] is not source:
            cached = (source, build())
            self._maps[kind] = cached
        return cached[1]

    def _doc_columns(self, run: RankedRun) -> tuple[np.ndarray, np.ndarray]:
        """(rows of ``run`` whose document is relevant for some query, the column in ``docs`` of each): from the
        candidates' codes when every relevant document is a candidate (only those rows are touched), else by id."""
        def build() -> np.ndarray | None:
            column = self.docs.get_indexer(run.candidates)
            if sorted_unique(column[column >= 0]).size < len(self.docs):
                return None  # some relevant documents are not candidates: look the run's documents up directly
            return column

        column_of_code = self._map("candidates", run.candidates, build)
        if column_of_code is None:
            columns = self.docs.get_indexer(run.doc_ids)
            rows = np.flatnonzero(columns >= 0)
            return rows, columns[rows]
        rows = np.flatnonzero(run.doc_codes < len(column_of_code))
        columns = column_of_code[run.doc_codes[rows]]
        return rows[columns >= 0], columns[columns >= 0]

    def matched_rows(self, run: RankedRun) -> np.ndarray:
        """The rows of ``run`` (ascending) whose (query, document) is in the table, at any rank."""
        if not len(self.sorted_keys) or not len(run.rank):
            return np.zeros(0, dtype=np.intp)
        query_map = self._map("queries", run.queries, lambda: self.queries.get_indexer(run.queries))
        rows, dc = self._doc_columns(run)
        qc = run.query_codes[rows] if run.queries is self.queries else query_map[run.query_codes[rows]]
        hit, _ = self._find(qc, dc, run.rank[rows], None)
        return np.sort(rows[hit])

    def locate(self, run: RankedRun, depth: int | None = None) -> np.ndarray:
        """(len(self),) float64: the rank of each relevant document in ``run`` (ranks ``<= depth``), +inf if absent."""
        out = np.full(len(self), np.inf)
        if not len(self.sorted_keys) or not len(run.rank):
            return out
        query_map = self._map("queries", run.queries, lambda: self.queries.get_indexer(run.queries))
        rows, dc = self._doc_columns(run)
        qc = run.query_codes[rows] if run.queries is self.queries else query_map[run.query_codes[rows]]
        hit, index = self._find(qc, dc, run.rank[rows], depth)
        out[index] = run.rank[rows[hit]]
        return out

    def locate_block(self, block: QueryBlock, depth: int | None, out: np.ndarray, runs: np.ndarray) -> None:
        """Write the rank of each relevant document of the block's queries in each run of ``block`` (ranks ``<= depth``)
        into ``out[runs[k], i]`` (``out``: runs x len(self), +inf where absent; ``runs[k]``: the row of the block's
        ``k``-th run); other entries are left as they are."""
        ranked = block.ranked
        if not len(self.sorted_keys) or not len(ranked.rank):
            return
        rows, dc = self._doc_columns(ranked)
        group = ranked.query_codes[rows]
        qc = group % block.width + block.first  # codes in ``block.queries``
        span = None
        if block.queries is not self.queries:
            qc = self._map("queries", block.queries, lambda: self.queries.get_indexer(block.queries))[qc]
        else:  # the block's relevant documents: one stretch of the sorted keys
            span = np.searchsorted(self.sorted_keys, self._keys(np.array([block.first, block.first + block.width]), 0))
        hit, index = self._find(qc, dc, ranked.rank[rows], depth, span)
        out[runs[group[hit] // block.width], index] = ranked.rank[rows[hit]]

    def _find(self, qc: np.ndarray, dc: np.ndarray, rank: np.ndarray, depth: int | None,
              span: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(positions ``i`` in the given arrays whose (query code, doc column) is a relevant document (rank ``<= depth``),
        the index in the table of each); ``span``: the stretch of ``sorted_keys`` that holds every such key."""
        hit = np.flatnonzero(qc >= 0 if depth is None else (qc >= 0) & (rank <= depth))
        key = self._keys(qc[hit], dc[hit])
        a, b = (0, len(self.sorted_keys)) if span is None else (int(span[0]), int(span[1]))
        if a == b:
            return hit[:0], hit[:0]
        loc = np.minimum(np.searchsorted(self.sorted_keys[a:b], key) + a, b - 1)
        found = self.sorted_keys[loc] == key
        return hit[found], self.sorter[loc[found]]

    def query_sizes(self) -> tuple[list[str], np.ndarray]:
        """The evaluated queries (sorted by query id, the order of :meth:`positions`) and their numbers of relevant
        documents."""
        qc = self.query_codes
        bounds = np.r_[stretch_starts(qc), len(qc)]
        qids = self.relevant["query_id"]
        return [str(qids[a]) for a in bounds[:-1]], np.diff(bounds).astype(np.int64)

    def positions(self, doc_pos: np.ndarray, subtopics: bool = True) -> list[QueryPositions]:
        """One :class:`QueryPositions` per evaluated query (sorted by query id) from ``doc_pos`` (runs x len(self),
        rows from :meth:`locate`); ``subtopics=False`` skips the subtopic membership."""
        qc = self.query_codes
        bounds = np.r_[stretch_starts(qc), len(qc)]
        qids = self.relevant["query_id"]
        dids, grades = self.relevant["doc_id"], self.relevant["relevance"]
        ids, sub_col, sub_code = self._subtopic_rows() if subtopics else ([], np.zeros(0, np.intp), None)
        sub_bounds = np.searchsorted(sub_col, bounds)
        out = []
        for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
            names, membership = None, None
            s = slice(sub_bounds[k], sub_bounds[k + 1])
            if s.stop > s.start:
                codes, rows = np.unique(sub_code[s], return_inverse=True)
                names = tuple(ids[c] for c in codes)
                membership = np.zeros((len(codes), b - a), dtype=bool)
                membership[rows.reshape(-1), sub_col[s] - a] = True
            out.append(QueryPositions(str(qids[a]), dids[a:b], grades[a:b], doc_pos[:, a:b], names, membership))
        return out

    def _subtopic_rows(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(subtopic ids, numeric-looking ids in numeric order; column; subtopic code) of every judgment with grade
        >= rel for a subtopic, sorted by column."""
        if self._subtopics is None:
            qrels = self.qrels
            subtopic = column_values(qrels["iteration"], object)
            rows = ~np.isin(subtopic, list(NO_SUBTOPIC)) & (column_values(qrels["relevance"], np.int64) >= self.rel)
            subtopic = subtopic[rows]
            ids = sorted(set(subtopic.tolist()), key=lambda t: (len(t), t))  # "2" before "10"
            key = self._keys(self.queries.get_indexer(column_values(qrels["query_id"], object)[rows]),
                             self.docs.get_indexer(column_values(qrels["doc_id"], object)[rows]))
            column = self.sorter[np.searchsorted(self.sorted_keys, key)]  # such documents are relevant
            code = Ids(ids).get_indexer(subtopic)
            order = np.argsort(column, kind="stable")
            self._subtopics = (ids, column[order], code[order])
        return self._subtopics


def judged_table(qrels: Any, queries: Any) -> PositionTable:
    """Every judged (query, document) of the qrels, at any grade (a :class:`PositionTable` at the lowest grade the
    reader accepts): what :func:`condensed_run` keeps."""
    return PositionTable(qrels, MIN_GRADE, queries)


def condensed_run(run: RankedRun, judged: PositionTable, depth: int | None = None) -> RankedRun:
    """``run`` as a condensed list (Sakai (2007)): its top ``depth`` documents (all: ``None``) without those the qrels
    do not judge for their query (``judged``: :func:`judged_table`), ranked 1, 2, ... in their order. A measure on it
    equals the measure on the run stripped of its unjudged documents.

    The ranks of the judged documents must be exact: a run ranked with ``ties="all"``, or with ``ties="candidates"``
    and every judged document a candidate (``Collection.rank(run, rel=MIN_GRADE, query_candidates=True)``)."""
    rows = judged.matched_rows(run)
    if depth is not None:
        rows = rows[run.rank[rows] <= depth]
    if not run.full_order and (run.exact_depth is not None or np.any(run.doc_codes[rows] >= len(run.candidates))):
        raise ValueError("condensed_run needs the exact rank of every judged document: rank the run with "
                         "ties='all', or with every judged document a candidate")
    qc, rank = run.query_codes[rows], run.rank[rows]
    order = np.lexsort((rank, qc))
    rows, qc = rows[order], qc[order]
    starts = stretch_starts(qc)
    first = np.repeat(starts, np.diff(np.r_[starts, len(qc)]))
    new_rank = (np.arange(len(qc)) - first + 1).astype(run.rank.dtype, copy=False)
    return RankedRun(run.queries, qc, run.doc_names, run.doc_raw[rows], run.doc_codes[rows], new_rank,
                     run.candidates, True)


def judged_shares(judged: PositionTable, ranks: np.ndarray, ranked: np.ndarray, k: int) -> np.ndarray:
    """``(runs, len(judged.queries))``: Judged@k of several runs for each query of the qrels, as ir-measures'
    ``Judged@k`` defines it on prefeval's ranking (Buckley & Voorhees (2004)): the judged documents ranked within ``k``
    over ``min(k, documents ranked)``; 0 for a query a run lacks. ``ranks``: ``(runs, len(judged))``, the rank of each
    judged document of ``judged`` (:func:`judged_table`) in each run, +inf where absent (:meth:`PositionTable.locate`,
    the ranks of the judged documents exact); ``ranked``: ``(runs, len(judged.queries))``, the documents each run ranks
    per query (within the depth the run was cut to)."""
    Q = len(judged.queries)
    run, at = np.nonzero(ranks <= k)  # one count over every run: (run, query) cells
    hits = np.bincount(run * Q + judged.query_codes[at], minlength=len(ranks) * Q).reshape(len(ranks), Q)
    n = np.minimum(ranked, k)
    return np.divide(hits, n, out=np.zeros(hits.shape), where=n > 0)
