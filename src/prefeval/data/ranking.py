"""From canonical run frames to ranked runs (the positions of the relevant documents: :mod:`prefeval.data.positions`).

Ordering follows trec_eval: score descending, ties broken by ``doc_id`` descending in string order; the rank
column of a TREC file is ignored. A document repeated within one query of a run keeps its first (best)
position, with one warning per run. A query is *evaluated* when the qrels give it at least one document with
grade ``>= rel``; a run lacking an evaluated query retrieved nothing for it (the worst case). Means run over
every *judged* query (:attr:`prefeval.data.collection.Collection.judged`, as trec_eval ``-c``, ir-measures and PyTerrier): a judged query
that is not evaluated scores 0. :func:`canonical_run` gives the ranking every provider is fed. Ranking works on
integer codes of the ids (:mod:`prefeval.data.encoding`).

The API, used by :mod:`prefeval.engine.provider`, :mod:`prefeval.compare` and :mod:`prefeval.analysis`:

* :func:`rank_run` ranks one run once (:class:`RankedRun`); the result serves every relevance threshold and
  depth (:meth:`RankedRun.rows` and :meth:`RankedRun.to_dict` give the ranked rows, optionally truncated);
  :func:`rank_codes` does the same from integer codes (e.g. a dict of dicts read without a frame);
  :func:`encoded_runs` encodes many runs in memory together (:class:`EncodedRun`, which :func:`rank_run` takes
  like a run); :func:`rank_query_blocks` ranks large runs in memory together, block of queries by block of
  queries (:class:`QueryBlock`, located by :meth:`prefeval.data.positions.PositionTable.locate_block`);
* where the runs put the relevant documents of the qrels (:class:`~prefeval.data.positions.PositionTable`,
  :class:`~prefeval.data.positions.QueryPositions`) is :mod:`prefeval.data.positions`.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.arrays import sorted_unique, stretch_counts, stretch_flags, stretch_starts
from prefeval.core.lazy import lazy_module
from prefeval.data.arrow import call, from_numpy, options, to_numpy
from prefeval.data.encoding import (
    Ids,
    as_ids,
    column_values,
    concat_ids,
    distinct,
    factorize,
    id_array,
    ids_to_pandas,
    take_ids,
    take_names,
    unique_values,
    value_stretches,
)
from prefeval.errors import PrefevalError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

NO_SUBTOPIC = frozenset({"0", "Q0", ""})


# ----------------------------------------------------------------------------------------------
# ranking one run


@dataclass(frozen=True)
class RankedRun:
    """One run ranked per query, restricted to ``queries``.

    Rows are grouped by query in the order of ``queries`` and ranked within each query: ``query_codes[i]``
    indexes ``queries``, ``rank[i]`` is 1-based, no document repeats within a query. ``doc_codes[i] < len(candidates)``
    exactly when ``doc_ids[i] == candidates[doc_codes[i]]`` (the candidate relevant documents given to
    :func:`rank_run`; with :class:`QueryCandidates`, at least where the row's query has that candidate); other
    documents have larger codes (unique within a query; the same id may have other codes in other queries, and
    ``doc_names`` may repeat). ``doc_ids[i] == doc_names[doc_raw[i]]``,
    built on first use. ``full_order`` is False when only the candidates' ranks are exact (``rank_run(..., ties="candidates")``)
    or, with ``exact_depth``, only the ranks up to that depth (``rank_run(..., depth=k)``), which are then the only rows
    held; ``retrieved`` then counts each query's documents, those below the depth included (:meth:`query_sizes`).
    """

    queries: Ids
    query_codes: np.ndarray
    doc_names: Any
    doc_raw: np.ndarray
    doc_codes: np.ndarray
    rank: np.ndarray
    candidates: np.ndarray
    full_order: bool = True
    exact_depth: int | None = None  # not full_order: the ranks <= exact_depth, exact, are the rows (rank_run's depth)
    retrieved: np.ndarray | None = None  # with exact_depth: each query's documents, those below it included

    def query_sizes(self) -> np.ndarray:
        """The number of distinct documents the run retrieves for each of :attr:`queries` (0: none), counted before a
        cut at :attr:`exact_depth`."""
        return stretch_counts(self.query_codes, len(self.queries)) if self.retrieved is None else self.retrieved

    @functools.cached_property
    def doc_ids(self) -> np.ndarray:
        """The document id of every row (Python objects)."""
        return take_names(self.doc_names, self.doc_raw)

    def _ids(self, keep: slice | np.ndarray) -> np.ndarray:
        """The document ids of the rows ``keep`` (Python objects), without those of the other rows."""
        if isinstance(keep, slice) or "doc_ids" in self.__dict__:
            return self.doc_ids[keep]
        return take_names(self.doc_names, self.doc_raw[keep])

    def _top(self, depth: int | None) -> slice | np.ndarray:
        if not self.full_order and (self.exact_depth is None or depth is None or depth > self.exact_depth):
            where = "around the candidate documents" if self.exact_depth is None else f"up to rank {self.exact_depth}"
            raise ValueError(f"this ranking orders tied scores only {where}; rank the run with ties='all' (and no "
                             "depth) for these rows")
        return slice(None) if depth is None else self.rank <= depth

    def rows(self, depth: int | None = None) -> pd.DataFrame:
        """Ranked rows ``query_id, doc_id, rank`` (ranks ``<= depth``), grouped by query, in rank order."""
        keep = self._top(depth)
        qc = self.query_codes[keep]
        return pd.DataFrame({"query_id": pd.Series(self.queries.to_numpy(dtype=object)[qc], dtype=object),
                             "doc_id": pd.Series(self._ids(keep), dtype=object), "rank": self.rank[keep]})

    def to_dict(self, depth: int | None = None) -> dict[str, dict[str, float]]:
        """``{query: {doc: -rank}}`` (ranks ``<= depth``) for ir-measures (its fastest input): the scores
        reproduce this order exactly, ties and repeated documents already resolved."""
        keep = self._top(depth)
        qc, docs, scores = self.query_codes[keep], self._ids(keep), -self.rank[keep].astype(np.float64)
        if not len(qc):
            return {}
        bounds = np.r_[stretch_starts(qc), len(qc)]
        names = self.queries.to_numpy(dtype=object)
        docs, scores = docs.tolist(), scores.tolist()
        return {str(names[qc[a]]): dict(zip(docs[a:b], scores[a:b])) for a, b in zip(bounds[:-1], bounds[1:])}

    def frame(self) -> pd.DataFrame:
        """The ranked rows as a canonical run ``query_id, doc_id, score`` with ``score = -rank``; Arrow-backed ids
        stay Arrow-backed (no Python string per row)."""
        self._top(None)  # every row's rank must be exact
        queries = self.queries.to_numpy(dtype=object)
        names = ids_to_pandas(call("take", id_array(queries), from_numpy(self.query_codes)))
        docs = ids_to_pandas(call("take", id_array(self.doc_names), from_numpy(self.doc_raw)))
        return pd.DataFrame({"query_id": names, "doc_id": docs, "score": -self.rank.astype(np.float64)})


def nested_dict(outer: Any, inner: Any, values: Any) -> dict[str, dict[str, Any]]:
    """``{outer[i]: {inner[i]: values[i]}}`` built group by group (ir-measures' dict-of-dicts input), outer keys
    in order of first appearance, inner ones in row order; a repeated ``(outer, inner)`` keeps its last value
    (for qrels; :meth:`RankedRun.to_dict` gives a ranked run). The columns may be numpy, pandas or Arrow (no pandas
    needed)."""
    if not len(outer):
        return {}
    codes, uniques = factorize(outer)
    keys = uniques.to_pylist()
    order = np.argsort(codes, kind="stable")
    codes, inner, values = codes[order], column_values(inner, object)[order], column_values(values)[order]
    bounds = np.r_[stretch_starts(codes), len(codes)]
    inner_list, value_list = inner.tolist(), values.tolist()
    return {keys[codes[a]]: dict(zip(inner_list[a:b], value_list[a:b])) for a, b in zip(bounds[:-1], bounds[1:])}


def canonical_run(frame: pd.DataFrame, name: str = "run") -> pd.DataFrame:
    """``frame`` (a canonical run) as prefeval ranks it, for every measure and provider: each query's documents in
    rank order (score descending, ties by doc_id descending), a repeated document only at its first (best) position
    (one warning naming the run ``name`` and the count), and ``score = -rank``, so that any tool that sorts by score
    (pytrec_eval, pyndeval, cwl_eval, ranx) or keeps the input order sees the same ranking."""
    return rank_run(frame, name=name).frame()


def run_queries(run: pd.DataFrame | RankedRun) -> np.ndarray:
    """The distinct query ids of a run frame or of the rows of a :class:`RankedRun` (from its integer codes)."""
    if isinstance(run, RankedRun):
        return run.queries.to_numpy(dtype=object)[run.query_sizes() > 0]
    return np.asarray(run["query_id"].unique(), dtype=object)


def _tie_order(order: np.ndarray, qc: np.ndarray, sc: np.ndarray, dcodes: np.ndarray, dnames,
               only: Any = None) -> np.ndarray:
    """``order`` with each stretch of equal (query, score) put in doc_id-descending string order.

    ``dcodes`` are the rows' document codes into ``dnames`` (the distinct ids); only the ids of tied rows are
    compared as strings. ``only(places)`` (optional): whether the rows at those places of ``order`` are rows whose
    stretch is to be ordered (the others keep their order: it moves no document of the flagged stretches)."""
    identity = len(order) and order[0] == 0 and order[-1] == len(order) - 1 and np.all(order[1:] > order[:-1])
    qs, ss = (qc, sc) if identity else (qc[order], sc[order])  # rows in order already: no copy
    same = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    if not same.any():
        return order
    at, source = _tie_moves(same, lambda rows: dcodes[order[rows]], dnames, only)
    order = order.copy()
    order[at] = order[source]
    return order


def _tie_moves(same: np.ndarray, docs_at: Any, dnames: Any, only_at: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Rows in query and score order, ``same[i]`` whether rows ``i`` and ``i + 1`` have the same query and score: the
    places ``at`` of the tied rows and the rows ``source`` to put there (``row[at] = row[source]``) so that each tied
    stretch is in doc_id-descending string order, equal ids in their order. ``docs_at(rows)``: the document codes
    into ``dnames`` of those rows; ``only_at(rows)`` (optional): whether each is a row whose stretch is to be ordered
    (the others keep their order)."""
    tied = np.zeros(len(same) + 1, dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    pos = np.flatnonzero(tied)
    segment = np.cumsum(np.r_[True, ~same[pos[1:] - 1]])  # a tied row starts a stretch unless tied to the one above
    if only_at is not None:
        flagged = np.zeros(segment[-1] + 1, dtype=bool)
        flagged[segment[only_at(pos)]] = True
        flagged = flagged[segment]
        pos, segment = pos[flagged], segment[flagged]
        if not len(pos):
            return pos, pos
    import pyarrow as pa  # deferred: a dependency, loaded with the ids

    # stably by stretch, then doc id descending (UTF-8 byte order is code point order, Python's): Arrow compares the
    # ids of one stretch only
    tied = pa.table({"stretch": from_numpy(segment), "doc": take_ids(id_array(dnames), docs_at(pos))})
    order = call("sort_indices", tied, options=options("SortOptions", sort_keys=[("stretch", "ascending"),
                                                                               ("doc", "descending")]))
    return pos, pos[to_numpy(order)]


def _query_score_order(qc: np.ndarray, sc: np.ndarray) -> np.ndarray:
    """``np.lexsort((-sc, qc))``: rows by query code, then score descending, stably; by Arrow's stable sort (several
    times faster)."""
    import pyarrow as pa  # deferred: a dependency, loaded with the ids

    table = pa.table({"q": from_numpy(qc), "s": from_numpy(sc)})
    order = call("sort_indices", table, options=options("SortOptions", sort_keys=[("q", "ascending"),
                                                                               ("s", "descending")]))
    return to_numpy(order).astype(np.intp)


def _query_stretches(column: Any, queries: Ids, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each stretch of rows of one query, its query code in ``queries``, -1: not there), without a code
    per row where the ids stand in long stretches (:func:`value_stretches`)."""
    column = id_array(column)
    stretches = value_stretches(column)
    if stretches is not None:
        return stretches[0], queries.get_indexer(stretches[1])
    qc = code_queries(column, queries, name)[0]
    starts = stretch_starts(qc)
    return starts, qc[starts]


def code_queries(column: Any, queries: Ids | None = None, name: str = "run") -> tuple[np.ndarray, Ids]:
    """(code of each row's query in ``queries`` (-1: not there), ``queries``; default: all queries in order of
    appearance) of a run's query id column, from one factorisation of the column (integer codes; the ids are looked
    up once each). A missing query id is an error naming the run ``name``."""
    small = _code_type(len(column))
    raw, uniques = factorize(column, grouped=True, dtype=small)
    if len(raw) and raw.min() < 0:
        raise PrefevalError(f"run {name!r} has a missing query id")
    uniques = Ids(uniques)
    if queries is None:
        return raw, uniques
    return queries.get_indexer(uniques).astype(small)[raw] if len(raw) else np.zeros(0, dtype=small), queries


def _code_type(rows: int) -> Any:
    """The integer type of codes and ranks of ``rows`` rows: 32 bits where they fit (half the memory of a large run)."""
    return np.int32 if rows < 2**31 - 1 else np.int64


_BLOCK_ROWS = 1 << 16


def _query_blocks(qc: np.ndarray) -> np.ndarray | None:
    """Boundaries ``cuts`` of blocks of whole queries of about ``_BLOCK_ROWS`` rows each (``cuts[k]:cuts[k + 1]``),
    for rows grouped by query; None when some query's rows are not contiguous (rows with a negative code, of queries
    dropped, not counted)."""
    n = len(qc)
    starts = stretch_starts(qc)
    kept = qc[starts] >= 0
    if sorted_unique(qc[starts][kept]).size < np.count_nonzero(kept):  # some query's rows are not contiguous
        return None
    return sorted_unique(np.r_[0, np.r_[starts, n][np.searchsorted(starts, np.arange(0, n, _BLOCK_ROWS))], n])


def _doc_codes(column: Any, qc: np.ndarray, by_block: bool, candidates: _Candidates | None = None,
               per_query: QueryCandidates | None = None, queries: Ids | None = None,
               names_too: bool = True, row_codes_too: bool = True) -> tuple[np.ndarray, Any, np.ndarray, bool,
                                                                              np.ndarray | None]:
    """(code of each row's document id in the returned names (``-1``: missing id), the names, the index of each name in
    ``candidates.unique`` (-1: not a candidate; None when there are no candidates), whether no two rows of one query
    have the same code (False: some may), with ``per_query`` and ``row_codes_too`` each row's code for
    :func:`rank_codes` (its index among the candidates, else ``len(candidates.unique)`` + its code in the names; else
    None)).

    Default: one factorisation of the column (every distinct id once in the names), the names then looked up among
    the candidates. ``by_block`` and rows grouped by query (each query's rows contiguous, as in TREC files): the
    column is factorised in blocks of whole queries of about ``_BLOCK_ROWS`` rows, each block's distinct ids appended
    to the names. A document then has one code within each query -- all :func:`rank_run` needs to tell documents
    apart and find repeats -- but may have another in another block (the names may repeat). Small hash tables stay
    in cache: the time is linear in the rows, where one table of every distinct id of a large run (ids distinct per
    query) grows slower than linearly. Arrow-backed ids are factorised by Arrow, others by pandas. The blocks go in
    contiguous parts, one per core (:func:`_block_parts`), each on a thread of this call (Arrow hashes without the
    GIL; the threads end before the call returns), and each part's codes are then shifted past the names of the parts
    before it.

    ``per_query`` (:class:`QueryCandidates`; ``queries``: the axis of the codes ``qc``): each block is factorised
    behind the candidates of its own queries, so that one pass finds both the codes and the candidates among them
    (a candidate of the block's queries is a name whose code one of those prefix rows has).

    ``names_too=False``: only the codes are wanted (the names and candidates come as None, not built). Whether no
    document repeats within a query is known from the blocks (counted in cache); after one factorisation of the
    column it is not examined (False)."""
    candidates = _Candidates(np.zeros(0, dtype=object)) if candidates is None else candidates
    n = len(qc)
    # (the codes of rows: up to the candidates and the names, which hold each block's candidates too)
    small = _code_type(n + len(candidates.unique) + (0 if per_query is None else len(per_query.pair_documents)))
    cuts = _query_blocks(qc) if by_block and n > 2 * _BLOCK_ROWS else None
    if cuts is None and per_query is None:
        raw, names = factorize(column, dtype=small)
        return raw, names, _candidate_of(names, candidates) if len(candidates.unique) else None, False, None
    values, prefix = _id_values(column, candidates)
    cuts = np.array([0, n]) if cuts is None else cuts
    raw = np.empty(n, dtype=small)
    row_codes = np.empty(n, dtype=small) if per_query is not None and row_codes_too else None
    if per_query is not None:
        per_query.of(queries, qc[:0])  # (its spans of the queries built once, before the threads)
    starts = stretch_starts(qc)

    def code(part: list[int]) -> tuple[bool, list[Any], list[np.ndarray]]:
        """(whether no document repeats within a query of the blocks ``part[k]:part[k + 1]``, each block's distinct
        ids, each block's index of its ids among the candidates (``per_query`` only)); the rows' codes are written
        into ``raw`` (and ``row_codes``) counted from the part's first name."""
        names, of_name = [], []
        offset = 0
        distinct = True
        for a, b in zip(part[:-1], part[1:]):
            block = values.slice(a, b - a)
            subset = np.zeros(0, dtype=np.intp)
            if per_query is not None:
                subset = per_query.of(queries, qc[starts[np.searchsorted(starts, a):np.searchsorted(starts, b)]])
                if len(subset):
                    block = concat_ids([take_ids(prefix, subset), block])
            codes, uniques = factorize(block, dtype=small)
            if per_query is not None:
                found = np.full(len(uniques), -1, dtype=small)
                found[codes[:len(subset)]] = subset
                of_name.append(found)
                codes = codes[len(subset):]
            if distinct:
                distinct = _distinct_in_queries(qc[a:b], codes, len(uniques))
            if block.null_count:
                raw[a:b] = np.where(codes >= 0, codes + offset, -1)
            else:
                np.add(codes, offset, out=raw[a:b])
            if row_codes is not None:  # (a missing id, -1, is an error of rank_codes before any code is read)
                first = offset + len(candidates.unique)  # each distinct id's code, then -1 (a missing id's) ...
                code_of = np.full(len(uniques) + 1, -1, dtype=small)
                code_of[:-1] = np.where(found >= 0, found, np.arange(first, first + len(uniques), dtype=small))
                np.take(code_of, codes, out=row_codes[a:b], mode="wrap")  # ... then each row's ("wrap": -1 is the
                # last; written into out, not through a buffer)
            offset += len(uniques)
            names.append(uniques)
        return distinct, names, of_name

    parts = _block_parts(cuts)
    if len(parts) > 1:  # Arrow hashes each part's blocks on a thread of this call, without the GIL
        with ThreadPoolExecutor(len(parts), thread_name_prefix="prefeval-rank") as pool:
            coded = list(pool.map(code, parts))
    else:
        coded = [code(parts[0])]
    offset = 0
    for part, (_, uniques, _) in zip(parts, coded):  # each part's codes follow the names of the parts before it
        if offset:
            a, b = part[0], part[-1]
            _shift(raw[a:b], 0, offset)  # (-1: a missing id)
            if row_codes is not None:
                _shift(row_codes[a:b], len(candidates.unique), offset)
        offset += sum(len(u) for u in uniques)
    distinct = all(part_distinct for part_distinct, _, _ in coded)
    if not names_too:
        return raw, None, None, distinct, row_codes
    names = concat_ids([u for _, uniques, _ in coded for u in uniques])
    if per_query is None:
        return raw, names, _candidate_of(names, candidates) if len(candidates.unique) else None, distinct, None
    return raw, names, np.concatenate([f for _, _, found in coded for f in found]), distinct, row_codes


def _shift(codes: np.ndarray, low: int, offset: int) -> None:
    """Add ``offset`` to the ``codes`` of at least ``low``, in place, a block of rows at a time: no temporary as
    large as the codes (freed, it would stay in the process's memory and raise the peak of later runs)."""
    for at in range(0, len(codes), _BLOCK_ROWS):
        block = codes[at:at + _BLOCK_ROWS]
        np.add(block, np.multiply(block >= low, offset, dtype=codes.dtype), out=block)


#: The fewest rows worth a thread of :func:`_doc_codes`.
_PART_ROWS = 1 << 18


def _block_parts(cuts: np.ndarray) -> list[list[int]]:
    """The block boundaries ``cuts`` in contiguous groups of about equal rows (each group's boundaries, its first
    and last the rows it spans): one per core, each of at least :data:`_PART_ROWS` rows where the rows allow."""
    n = int(cuts[-1])
    parts = max(1, min(os.cpu_count() or 1, n // _PART_ROWS, len(cuts) - 1))
    at = sorted_unique(np.r_[0, np.searchsorted(cuts, np.arange(1, parts) * n / parts), len(cuts) - 1])
    return [cuts[a:b + 1].tolist() for a, b in zip(at[:-1], at[1:])]


def _distinct_in_queries(qc: np.ndarray, codes: np.ndarray, size: int) -> bool:
    """Whether no two rows with the same query code have the same document code (``codes`` from 0 to ``size``;
    False also for a missing id, -1). Where the (query, code) pairs are few (documents shared by the queries), each
    is counted in a bin; else first whether any code repeats at all, then the (query, code) keys, sorted (32-bit
    where they fit: numpy's fastest sort)."""
    if not len(codes):
        return True
    if codes.min() < 0:
        return False
    low = int(qc.min())
    span = (int(qc.max()) - low + 1) * size  # the number of (query, code) keys
    if span <= 8 * len(codes) and span < 2**31:  # (the keys fit 32-bit codes)
        return bool(np.bincount((qc - low) * size + codes).max() <= 1)
    if np.bincount(codes, minlength=size).max() <= 1:
        return True
    key = (qc - low).astype(np.int32 if span < 2**31 else np.int64) * size + codes
    key.sort()
    return not np.any(key[1:] == key[:-1])


def _id_values(column: Any, candidates: _Candidates) -> tuple[Any, Any]:
    """(the ids of a column as a pyarrow array, the candidates as one of the same type)."""
    values = id_array(column)
    return values, candidates.arrow_set(values.type) if len(candidates.unique) else values.slice(0, 0)


def pair_codes(query_ids: Any, doc_ids: Any) -> tuple[np.ndarray, np.ndarray, bool]:
    """(query code, document code) of each row of two id columns (``-1``: a missing id), and whether no (query,
    document) occurs twice (True is certain; False: some may): two rows have the same query and document ids exactly
    when they have the same codes. Document codes tell apart the documents of one query only (the same id may have
    other codes in other queries); linear in the rows when each query's rows are contiguous (the documents are then
    factorised in blocks of whole queries, as :func:`rank_run` does, and whether one repeats is known from them)."""
    query_codes, _ = factorize(query_ids, grouped=True)
    if _increasing_within_queries(query_codes, doc_ids):  # every (query, document) once: any distinct codes do
        return query_codes, np.arange(len(query_codes)), True
    doc_codes, _, _, distinct, _ = _doc_codes(doc_ids, query_codes + 1, True, names_too=False)  # (a missing query
    return query_codes, doc_codes, distinct  # id counts as a query)


def _increasing_within_queries(query_codes: np.ndarray, doc_ids: Any) -> bool:
    """Whether each query's rows are contiguous (no missing query id) and their Arrow-backed document ids strictly
    increase (as in qrels sorted by query and document): then no (query, document) occurs twice. Neighbours are
    compared by Arrow (no hashing)."""
    docs = id_array(doc_ids) if len(query_codes) > 1 else None
    if docs is None or docs.null_count or query_codes.min() < 0:
        return False
    boundary = query_codes[1:] != query_codes[:-1]
    if np.count_nonzero(boundary) + 1 != query_codes.max() + 1:  # some query's rows are not contiguous
        return False
    n = len(docs)
    return bool(np.all(to_numpy(call("less", docs.slice(0, n - 1), docs.slice(1))) | boundary))


class _Candidates:
    """The last ``candidates`` given to :func:`rank_run`, deduplicated, with their lookup structures: the runs of
    one evaluation share them, so they are built once (reused while the array's content is unchanged)."""

    def __init__(self, candidates: np.ndarray) -> None:
        self.given = candidates.copy()
        self.unique = unique_values(candidates) if len(candidates) else candidates
        self.arrow: dict[object, object] = {}

    def same(self, candidates: np.ndarray) -> bool:
        return len(candidates) == len(self.given) and bool(np.all(candidates == self.given))

    def recode(self, names: Any) -> np.ndarray:
        """Per distinct id of ``names``: its index in ``unique`` if a candidate, else ``len(unique)`` + its index in
        ``names`` (:func:`rank_run`'s document codes); remembered for the last ``names`` object, which the runs
        encoded together share (:func:`encoded_runs`)."""
        cached = self.__dict__.get("_recoded")
        if cached is None or cached[0] is not names:
            cand_of_name = _candidate_of(names, self)
            cached = (names, np.where(cand_of_name >= 0, cand_of_name, len(self.unique) + np.arange(len(names))))
            self._recoded = cached
        return cached[1]

    def arrow_set(self, value_type):
        """The candidates as ids (:func:`~prefeval.data.encoding.id_array`) of the Arrow type ``value_type``."""
        if value_type not in self.arrow:
            values = id_array(self.unique)
            self.arrow[value_type] = values if values.type == value_type else values.cast(value_type)
        return self.arrow[value_type]


_last_candidates: list[_Candidates] = []


def _prepared(candidates: np.ndarray) -> _Candidates:
    if _last_candidates and _last_candidates[0].same(candidates):
        return _last_candidates[0]
    prepared = _Candidates(candidates)
    _last_candidates[:] = [prepared]
    return prepared


class QueryCandidates:
    """Candidate documents per query -- the pairs ``(query_ids[i], doc_ids[i])``, e.g. the documents with grade
    ``>= rel`` of each query (:meth:`prefeval.data.collection.Collection.query_candidates`) -- given to :func:`rank_run` instead of one set of documents
    for all queries.

    The ranked run's ``candidates`` are then the distinct documents of the pairs, and a row gets a candidate code
    (``doc_codes[i] < len(candidates)``) wherever its (query, document) is a pair -- and possibly elsewhere, when the
    document is a candidate of another query looked up with it. :func:`rank_run` looks the document ids of each block
    of whole queries of a run up among the candidates of that block's queries only (a few thousand ids), so the
    lookup is linear in the rows of the run: one lookup of every id of a large run among all the candidates of a
    large qrels grows faster. With ``query_codes`` (each pair's query as a code, e.g. the collection's codes of its
    queries: not factorised again), ``query_ids`` holds the distinct ids those codes index, not one id per pair.
    """

    def __init__(self, query_ids: Any, doc_ids: Any, query_codes: np.ndarray | None = None) -> None:
        if query_codes is None:
            query_codes, query_names = distinct(query_ids, grouped=True)
        else:
            query_names = query_ids
        doc_codes, doc_names = distinct(doc_ids)
        self.queries = Ids(query_names)
        self.documents = _Candidates(doc_names)  # distinct already: ``documents.unique`` is ``doc_names``
        self.pair_documents = doc_codes  # each pair's document, its index in ``documents.unique``
        order = np.argsort(query_codes, kind="stable")
        self._docs = doc_codes[order].astype(np.int64)  # the pairs' documents grouped by query
        self._bounds = np.searchsorted(query_codes[order], np.arange(len(query_names) + 1))
        self._spans: tuple[Ids, np.ndarray, np.ndarray] | None = None

    def of(self, queries: Ids, codes: np.ndarray) -> np.ndarray:
        """Indices in ``documents.unique`` of the candidates of the queries ``queries[codes]`` (negative codes: no
        query), possibly repeated."""
        if self._spans is None or self._spans[0] is not queries:
            at = self.queries.get_indexer(queries)
            self._spans = (queries, np.where(at >= 0, self._bounds[np.maximum(at, 0)], 0),
                           np.where(at >= 0, self._bounds[at + 1], 0))
        codes = codes[codes >= 0]
        start, stop = self._spans[1][codes], self._spans[2][codes]
        lengths = stop - start
        skip = np.repeat(start - (np.cumsum(lengths) - lengths), lengths)
        return self._docs[skip + np.arange(len(skip))]


def _candidate_of(names: Any, candidates: _Candidates) -> np.ndarray:
    """Index in ``candidates.unique`` of each of the distinct ids ``names`` (-1: not a candidate), looked up by Arrow
    (``pyarrow.compute.index_in``)."""
    if not len(candidates.unique) or not len(names):
        return np.full(len(names), -1, dtype=np.intp)
    values = id_array(names)
    found = call("index_in", values, options=options("SetLookupOptions", value_set=candidates.arrow_set(values.type)))
    return to_numpy(found, -1).astype(np.intp, copy=False)


@dataclass(frozen=True)
class EncodedRun:
    """A run's ids as integer codes, for :func:`rank_run` (which then skips factorising them): ``query_codes[i]``
    indexes ``queries`` (-1: a query not kept), ``doc_codes[i]`` indexes ``doc_names``, the distinct document ids
    of the runs encoded together (:func:`encoded_runs`); ``scores`` float64."""

    queries: Ids
    query_codes: np.ndarray
    doc_names: Any
    doc_codes: np.ndarray
    scores: np.ndarray


#: :func:`encoded_runs` encodes runs together in blocks of at most this many rows (a larger run alone)
ENCODE_ROWS = 1 << 18


def encoded_runs(runs: Mapping[str, Any], queries: Any) -> Iterator[tuple[str, Any]]:
    """``runs.items()`` with the runs in memory (DataFrames, :class:`~prefeval.data.trec.Columns`) as :class:`EncodedRun`
    for these ``queries``, encoded together in blocks of consecutive runs of at most :data:`ENCODE_ROWS` rows: one
    factorisation of the query ids and one of the doc ids per block instead of one per run, whose fixed cost
    dominates when runs are many and small (1,000 runs of 5,000 rows). A block with a missing id, and runs given
    as paths, come as they are (:func:`rank_run` then encodes them, and names the run lacking an id). The runs'
    rankings are those of the runs ranked one by one."""
    queries = as_ids(queries)
    block: list[tuple[str, Any, Any, Any]] = []
    rows = 0
    for name, run in runs.items():
        ids = _id_columns(run)
        if block and (ids is None or rows + len(run) > ENCODE_ROWS):
            yield from _encode_block(block, queries)
            block, rows = [], 0
        if ids is None:
            yield name, run
            continue
        block.append((name, run, *ids))
        rows += len(run)
    if block:
        yield from _encode_block(block, queries)


def _id_columns(run: Any) -> tuple[Any, Any] | None:
    """The query and doc id columns of a run in memory (a DataFrame or columns); None for other runs (paths)."""
    if not hasattr(run, "columns") and not isinstance(run, dict):
        return None
    try:
        return run["query_id"], run["doc_id"]
    except (KeyError, TypeError):
        return None


def _encode_block(block: list[tuple[str, Any, Any, Any]], queries: Ids) -> Iterator[tuple[str, Any]]:
    """The runs of ``block`` (name, run, query ids, doc ids) as :class:`EncodedRun` sharing one factorisation of
    their ids (joined in Arrow).
    As they are when one run alone, or with a missing id."""
    if len(block) == 1:
        yield block[0][:2]
        return
    columns = []
    for k in (2, 3):
        column = concat_ids([entry[k] for entry in block])
        if column.null_count:
            yield from (entry[:2] for entry in block)
            return
        columns.append(column)
    raw, uniques = factorize(columns[0], grouped=True)
    query_codes = queries.get_indexer(uniques)[raw]
    doc_codes, doc_names = factorize(columns[1])
    scores = np.concatenate([column_values(run["score"], np.float64) for _, run, _, _ in block])
    bounds = np.cumsum([0] + [len(run) for _, run, _, _ in block])
    for (name, *_), a, b in zip(block, bounds[:-1], bounds[1:]):
        yield name, EncodedRun(queries, query_codes[a:b], doc_names, doc_codes[a:b], scores[a:b])


@dataclass(frozen=True)
class QueryBlock:
    """Several runs ranked together on one block of consecutive queries, ``queries[first:first + width]``
    (:func:`rank_query_blocks`).

    ``ranked`` (ranked with ``ties="candidates"``; at least the rows of candidate documents, ranks exact) has one query
    per (run, query): the rows of the ``k``-th run on query code ``q`` have query code ``k * width + q - first``;
    ``covered[k, j]``: the ``k``-th run retrieved query
    ``first + j``; ``repeated[k]``: its rows dropped as repeated documents within a query."""

    queries: Ids
    first: int
    width: int
    ranked: RankedRun
    covered: np.ndarray
    repeated: np.ndarray


def query_block_runs(runs: Mapping[str, Any], candidates: QueryCandidates) -> list[str]:
    """The names of the runs :func:`rank_query_blocks` ranks: in memory, no document id missing, and more rows than
    one block of :data:`ENCODE_ROWS` (smaller runs are encoded together whole, :func:`encoded_runs`)."""
    names = []
    for name, run in runs.items():
        ids = _id_columns(run)
        docs = None if ids is None or len(run) <= ENCODE_ROWS else id_array(ids[1])
        if docs is not None and not docs.null_count:
            names.append(name)
    return names


def rank_query_blocks(runs: Mapping[str, Any], queries: Any, candidates: QueryCandidates) -> Iterator[QueryBlock]:
    """Large runs in memory (:func:`query_block_runs`) ranked with ``ties="candidates"`` as :func:`rank_run` ranks
    each, block of queries by block of queries: each block holds consecutive ``queries`` with about
    :data:`ENCODE_ROWS` rows of all the runs together, whose document ids are encoded together (one small hash table
    of the block's documents, shared by the runs, behind the candidates of the block's queries) and ranked in one
    call (:class:`QueryBlock`). Every array of a block stays in cache, so the time is linear in the rows: a large run
    ranked alone grows faster (its codes, counts and temporaries go to main memory)."""
    queries = as_ids(queries)
    R = len(runs)
    stretches, docs, scores = [], [], []  # per run: (first row, query code, length) of each stretch of one query
    for name, run in runs.items():
        starts, codes = _query_stretches(run["query_id"], queries, name)
        stretches.append((starts, codes, np.diff(np.r_[starts, len(run)])))
        docs.append(id_array(run["doc_id"]))
        scores.append(column_values(run["score"], np.float64))
    if len({d.type for d in docs}) > 1:
        import pyarrow as pa  # deferred: loaded already when ids are Arrow-backed

        docs = [d.cast(pa.large_string()) for d in docs]
    known = candidates.documents.arrow_set(docs[0].type)
    # blocks of consecutive queries holding about ENCODE_ROWS rows of all the runs
    rows = sum(np.bincount(codes[codes >= 0], weights=lengths[codes >= 0], minlength=len(queries))
               for _, codes, lengths in stretches).astype(np.int64)
    block = (np.cumsum(rows) - rows) // ENCODE_ROWS
    firsts = stretch_starts(block)
    bounds = np.r_[firsts, len(queries)]
    block_of = np.repeat(np.arange(len(firsts)), np.diff(bounds))
    layouts = []  # per run: its stretches in block order (None: in order already), where each block's start
    for _, codes, _ in stretches:
        of_stretch = np.where(codes >= 0, block_of[np.maximum(codes, 0)], len(firsts))  # dropped queries last
        order = None if np.all(of_stretch[1:] >= of_stretch[:-1]) else np.argsort(of_stretch, kind="stable")
        layouts.append((order, np.searchsorted(of_stretch if order is None else of_stretch[order],
                                               np.arange(len(bounds)))))
    for k, (first, stop) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist())):
        width = stop - first
        parts, groups, block_scores, counts = [], [], [], np.zeros(R, dtype=np.int64)
        for r, ((starts, codes, lengths), ids, sc, (order, cuts)) in enumerate(zip(stretches, docs, scores, layouts)):
            pick = slice(cuts[k], cuts[k + 1]) if order is None else order[cuts[k]:cuts[k + 1]]
            lengths_k = lengths[pick]
            groups.append(np.repeat(codes[pick] + (r * width - first), lengths_k))
            counts[r] = len(groups[-1])
            if order is None:  # the block's rows of this run are contiguous
                a = int(starts[cuts[k]]) if cuts[k] < len(starts) else 0
                parts.append(ids.slice(a, counts[r]))
                block_scores.append(sc[a:a + counts[r]])
            else:
                take = np.repeat(starts[pick] - (np.cumsum(lengths_k) - lengths_k), lengths_k) + np.arange(counts[r])
                parts.append(call("take", ids, from_numpy(take)))
                block_scores.append(sc[take])
        subset = candidates.of(queries, np.arange(first, stop))  # the candidates of the block's queries first
        codes, block_names = factorize(concat_ids([call("take", known, from_numpy(subset)), *parts]))
        cand_of_name = np.full(len(block_names), -1, dtype=np.intp)
        cand_of_name[codes[:len(subset)]] = subset
        raw, group = codes[len(subset):], np.concatenate(groups)
        distinct = False  # no document twice in a run's rows of the block: counted in cache when the bins are few
        if R * len(block_names) <= 4 * len(raw) + 1024:
            distinct = np.bincount(np.repeat(np.arange(R), counts) * len(block_names) + raw).max(initial=0) <= 1
        sc, groups_ids = np.concatenate(block_scores), Ids(np.arange(R * width))
        present = np.bincount(group, minlength=R * width).reshape(R, width)  # rows per (run, query)
        in_order = _ranks_in_order(group, sc, np.flatnonzero(cand_of_name[raw] >= 0)) if distinct else None
        if in_order is not None:  # each row's rank is its place in its (run, query): nothing to sort or drop
            rows, rank = in_order
            ranked = RankedRun(groups_ids, group[rows], block_names, raw[rows], cand_of_name[raw[rows]], rank,
                               candidates.documents.unique, False)
            yield QueryBlock(queries, first, width, ranked, present > 0, np.zeros(R, dtype=np.int64))
            continue
        ranked = rank_codes(group, groups_ids, raw, block_names, sc, candidates.documents, ties="candidates",
                            cand_of_name=cand_of_name, warn=False, distinct_docs=bool(distinct))
        kept = np.bincount(ranked.query_codes, minlength=R * width).reshape(R, width).sum(axis=1)
        yield QueryBlock(queries, first, width, ranked, present > 0, counts - kept)


def _ranks_in_order(group: np.ndarray, scores: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(``rows``, the rank of each) when each group's rows are contiguous with strictly decreasing scores (no tie to
    order, no document repeated: the caller knows): a row's rank is then 1 + its place in its group. None otherwise."""
    if not len(group):
        return None
    boundary = group[1:] != group[:-1]
    if not np.all(boundary | (scores[1:] < scores[:-1])):  # a tie, or rows not in score order
        return None
    starts = np.flatnonzero(np.r_[True, boundary])
    if len(starts) != np.count_nonzero(np.bincount(group)):  # a group in several stretches
        return None
    return rows, rows - starts[np.searchsorted(starts, rows, side="right") - 1] + 1


def rank_run(frame: Any, queries: Any = None, candidates: np.ndarray | QueryCandidates | None = None,
             name: str = "run", ties: str = "all", depth: int | None = None,
             coded_queries: tuple[np.ndarray, Ids] | None = None) -> RankedRun:
    """Rank one canonical run as trec_eval does: score descending, ties by doc_id descending, a repeated document keeps
    its first (best) position (one warning per run).

    ``queries``: the queries to keep (others are dropped; default: all, in order of appearance). ``candidates``:
    documents to pre-locate (e.g. those with grade >= rel), which makes :meth:`PositionTable.locate` a pure integer
    lookup; as :class:`QueryCandidates`, each query's own (:meth:`~prefeval.data.collection.Collection.query_candidates`: linear in the rows of a run
    grouped by query, however many queries the qrels judge). ``ties="candidates"`` orders tied scores by doc id only
    inside the tied stretches that contain a candidate: the rank of every candidate is then exact -- 1 + the number
    of distinct documents of its query ranked above it -- but the order of other tied documents is not
    (:meth:`RankedRun.rows` and :meth:`RankedRun.to_dict` refuse such a ranking). Vectorised on integer codes (query
    ids are factorised once per run, Arrow-backed strings without conversion; the document ids of a run grouped by
    query are factorised in blocks of whole queries, linear in the rows, so ``doc_names`` may repeat an id that
    occurs in several blocks); the sort is skipped when the rows are already grouped by query with non-increasing
    scores (as in TREC files). A missing query or doc id is an error
    naming the run. ``frame`` may be an :class:`EncodedRun` (ids encoded already, with other runs:
    :func:`encoded_runs`): the same ranking, without factorising the ids again.

    ``depth`` (with ``ties="all"``): order tied scores by doc id only inside the tied stretches that reach the first
    ``depth + r`` rows of their query in score order, ``r`` the number of its rows whose document code occurs more than
    once in the run (at least the rows deduplication can remove there): the top ``depth`` ranks are then those of the
    full ranking, and the only rows kept (:meth:`RankedRun.rows` and :meth:`RankedRun.to_dict` accept depths up to it;
    :meth:`RankedRun.query_sizes` still counts every document), e.g. for measures that read only the top k documents.

    ``coded_queries``: :func:`code_queries` of ``frame``'s query ids (with ``queries``), when the caller has them
    already: the ids are not factorised again.
    """
    _check_ties(ties, depth)
    per_query = candidates if isinstance(candidates, QueryCandidates) else None
    if per_query is not None:
        prepared = per_query.documents
    else:
        prepared = _prepared(np.zeros(0, dtype=object) if candidates is None else np.asarray(candidates, dtype=object))
    cand_of_name, distinct, row_codes = None, False, None
    if isinstance(frame, EncodedRun):  # ids encoded already, together with other runs
        qc, raw_docs, dnames, sc = frame.query_codes, frame.doc_codes, frame.doc_names, frame.scores
        if queries is None or as_ids(queries) is frame.queries:
            queries = frame.queries
        else:
            queries = as_ids(queries)
            qc = np.where(qc >= 0, np.r_[queries.get_indexer(frame.queries), -1][qc], -1) if len(qc) else qc
    else:
        if coded_queries is None:
            coded_queries = code_queries(frame["query_id"], None if queries is None else as_ids(queries), name)
        qc, queries = coded_queries
        # (ranked to a depth, only the rows kept need the codes of the candidates: found from the names at the end)
        raw_docs, dnames, cand_of_name, distinct, row_codes = _doc_codes(frame["doc_id"], qc, True, prepared, per_query,
                                                                         queries, row_codes_too=depth is None)
        sc = column_values(frame["score"], np.float64)
    return _rank_codes(qc, queries, raw_docs, dnames, sc, prepared, name, ties, depth, isinstance(frame, EncodedRun),
                       cand_of_name, row_codes, True, distinct, 3, owned=not isinstance(frame, EncodedRun))


def rank_codes(qc: np.ndarray, queries: Ids, raw_docs: np.ndarray, dnames: Any, sc: np.ndarray,
               candidates: Any = None, name: str = "run", ties: str = "all", depth: int | None = None,
               shared_names: bool = False, cand_of_name: np.ndarray | None = None, *, warn: bool = True,
               distinct_docs: bool = False) -> RankedRun:
    """:func:`rank_run` of a run given as codes: each row's query code in ``queries`` (-1: a query to drop), document
    code in ``dnames`` (the ids; -1: missing; equal codes within a query for equal ids, as :func:`factorize` gives)
    and score (float64); e.g. from a dict of dicts without a frame (:func:`prefeval.data.inputs.nested_codes`).
    ``candidates``: an array of ids, or their prepared lookups (from :func:`rank_run`). ``shared_names``: ``dnames``
    is shared by several runs (:func:`encoded_runs`), so the candidates among them are looked up once;
    ``cand_of_name``: the index of each name among the candidates (-1: none), when known already. ``warn=False``:
    repeated documents are dropped without the warning (the caller counts them). ``distinct_docs``: the caller knows
    that no document repeats within a query (the test for repeats is skipped)."""
    return _rank_codes(qc, queries, raw_docs, dnames, sc, candidates, name, ties, depth, shared_names, cand_of_name,
                       None, warn, distinct_docs, 4)


def _rank_codes(qc: np.ndarray, queries: Ids, raw_docs: np.ndarray, dnames: Any, sc: np.ndarray, candidates: Any,
                name: str, ties: str, depth: int | None, shared_names: bool, cand_of_name: np.ndarray | None,
                row_codes: np.ndarray | None, warn: bool, distinct_docs: bool, stacklevel: int, *,
                owned: bool = False) -> RankedRun:
    """:func:`rank_codes`; ``row_codes``: each row's code (its index in the candidates, else ``len(candidates)`` + its
    code in ``dnames``) when known already (:func:`_doc_codes` finds them block by block); ``stacklevel`` of the
    warning about repeated documents, counted from here; ``owned``: ``raw_docs`` and ``row_codes`` are this call's own
    (tied rows move within them, not within copies)."""
    _check_ties(ties, depth)
    if isinstance(candidates, _Candidates):
        prepared = candidates
    else:
        prepared = _prepared(np.zeros(0, dtype=object) if candidates is None else np.asarray(candidates, dtype=object))
    candidates = prepared.unique
    keep = qc >= 0
    if not keep.all():
        qc, raw_docs, sc = qc[keep], raw_docs[keep], sc[keep]
        row_codes = None if row_codes is None else row_codes[keep]
    n = len(qc)
    if n and raw_docs.min() < 0:
        raise PrefevalError(f"run {name!r} has a missing doc id (query {queries[qc[np.argmin(raw_docs)]]})")
    # 32-bit codes and ranks where they fit: half the memory of a large run
    small = _code_type(max(n, len(queries), len(candidates) + len(dnames)))
    qc, raw_docs = qc.astype(small, copy=False), raw_docs.astype(small, copy=False)
    # codes: a candidate's index in ``candidates``, other documents len(candidates) + their index in ``dnames``; given
    # per row (``row_codes``), else read from a table per name (``recode``): for every row, or with a depth only for
    # the rows kept (until then ``codes`` is ``raw_docs``, which tells the documents of a query apart as well)
    recode = None
    if not len(candidates) or not n:  # the codes are the indices in ``dnames``
        codes = raw_docs
    elif row_codes is not None:
        codes = row_codes.astype(small, copy=False)
    else:
        if shared_names:  # the runs encoded together share their names: looked up once
            recode = prepared.recode(dnames).astype(small)
        else:
            if cand_of_name is None:
                cand_of_name = _candidate_of(dnames, prepared)
            cand_of_name = cand_of_name.astype(small, copy=False)
            recode = np.where(cand_of_name >= 0, cand_of_name,
                              np.arange(len(candidates), len(candidates) + len(dnames), dtype=small))
        codes = raw_docs if depth is not None else recode[raw_docs]
    follows = codes is raw_docs  # (kept so through every move, sort and selection of rows below)
    only = codes < len(candidates) if ties == "candidates" else None
    starts = stretch_flags(qc)
    firsts = qc[starts]  # each stretch's query: grouped when no query has two stretches
    grouped = sorted_unique(firsts).size == firsts.size
    same = np.less_equal(sc[1:], sc[:-1]) if grouped else None  # (one buffer: scores descending, then ties)
    if grouped and np.logical_or(same, starts[1:], out=same).all():  # rank order up to ties and the order of queries
        order = None
        if n > 1 and np.any(firsts[1:] < firsts[:-1]):
            order = np.argsort(qc, kind="stable")  # whole blocks move: cheap on runs of equal keys
        np.equal(sc[1:], sc[:-1], out=same)  # row i + 1 ties row i in its query
        same[starts[1:]] = False
        if same.any():
            if order is None:  # rows in order but for ties: only the tied rows move
                if depth is not None:  # only the tied stretches that reach the top depth of their query are looked at
                    at, source = _top_tie_moves(same, qc, codes, len(queries), depth, distinct_docs,
                                                raw_docs.__getitem__, dnames)
                else:
                    at, source = _tie_moves(same, raw_docs.__getitem__, dnames,
                                            None if only is None else only.__getitem__)
                if len(at):
                    raw_docs = raw_docs if owned and raw_docs.flags.writeable else raw_docs.copy()
                    raw_docs[at] = raw_docs[source]
                    if follows:
                        codes = raw_docs
                    else:  # (codes from ``recode``, or ``row_codes`` when owned, are this call's own; others copied)
                        codes = codes if owned or codes is not row_codes else codes.copy()
                        codes[at] = codes[source]
            else:
                only = _only_places(only, order, qc, codes, len(queries), depth, distinct_docs)
                order = _tie_order(order, qc, sc, raw_docs, dnames, only)
    else:
        order = _query_score_order(qc, sc)
        only = _only_places(only, order, qc, codes, len(queries), depth, distinct_docs)
        order = _tie_order(order, qc, sc, raw_docs, dnames, only)
    if order is not None:
        qc, raw_docs = qc[order], raw_docs[order]
        codes = raw_docs if follows else codes[order]
        starts = None
    # within a query, equal documents have equal ``raw_docs`` (codes into ``dnames``, which follow the rows block by
    # block: counted in cache, where ``codes`` put the candidates of all blocks first)
    counts = np.bincount(raw_docs, minlength=len(dnames)) if n and not distinct_docs else np.zeros(1, dtype=np.intp)
    if counts.max() > 1:  # documents occurring more than once in the run (in one query, or in several)
        multi = counts[raw_docs] > 1
        repeated = np.zeros(n, dtype=bool)
        key = qc[multi].astype(np.int64) * len(dnames) + raw_docs[multi]
        key.sort()  # a cheap test first: usually no document repeats within a query
        if np.any(key[1:] == key[:-1]):
            multi = np.flatnonzero(multi)
            key = qc[multi].astype(np.int64) * len(dnames) + raw_docs[multi]
            _, first = np.unique(key, return_index=True)  # the first row of each (query, document)
            repeated[multi] = True
            repeated[multi[first]] = False
        if repeated.any():
            if warn:
                warn_repeated(name, int(repeated.sum()), stacklevel=stacklevel)
            qc, raw_docs = qc[~repeated], raw_docs[~repeated]
            codes = raw_docs if follows else codes[~repeated]
            n, starts = len(qc), None
    if starts is None:  # (else the rows of each query stand where they stood)
        starts = stretch_flags(qc)
    first = np.flatnonzero(starts)
    sizes = np.diff(np.r_[first, n])  # each query's documents
    kept = sizes if depth is None else np.minimum(sizes, depth)  # with a depth only its ranks, exact, are kept
    rank = np.ones(int(kept.sum()), dtype=small)  # 1 + the rows above in the query: ones summed, restarted at each
    rank[np.cumsum(kept[:-1])] = 1 - kept[:-1]  # query
    np.cumsum(rank, out=rank)
    if depth is None:
        return RankedRun(queries, qc, dnames, raw_docs, codes, rank, candidates, ties == "all")
    retrieved = np.zeros(len(queries), dtype=np.intp)
    retrieved[qc[first]] = sizes
    rows = np.repeat(first.astype(small) - 1, kept)  # (each kept row's index: its query's first + its rank - 1)
    rows += rank
    qc, raw_docs = qc[rows], raw_docs[rows]
    codes = recode[raw_docs] if recode is not None else raw_docs if follows else codes[rows]
    return RankedRun(queries, qc, dnames, raw_docs, codes, rank, candidates, False, depth, retrieved)


def warn_repeated(name: str, count: int, stacklevel: int = 2) -> None:
    """The warning for a run ``name`` with ``count`` repeated documents within a query (each keeps its first);
    ``stacklevel`` as ``warnings.warn`` counts it from the caller."""
    warnings.warn(f"run {name!r}: {count} repeated document(s) within a query; each keeps its first (best) position",
                  stacklevel=stacklevel + 1)


def _check_ties(ties: str, depth: int | None) -> None:
    if ties not in ("all", "candidates"):
        raise ValueError(f"ties must be 'all' or 'candidates'; got {ties!r}")
    if depth is not None and (ties != "all" or depth < 1):
        raise ValueError(f"depth needs ties='all' and a positive integer; got ties={ties!r}, depth={depth!r}")


def _only_places(candidate_rows: np.ndarray | None, order: np.ndarray, qc: np.ndarray, codes: np.ndarray,
                 queries: int, depth: int | None, distinct: bool) -> Any:
    """Which tied stretches :func:`_tie_order` orders, as a function of places in ``order`` (None: all of them):
    those reaching the top ``depth + r`` rows of their query (:func:`_query_limits`), or those holding a candidate
    (``candidate_rows``, per row: ``ties="candidates"``)."""
    if depth is not None:
        qs = qc[order]
        first, limit = _query_limits(qs, qc, codes, queries, depth, distinct)
        return lambda places: places - first[qs[places]] < limit[qs[places]]
    if candidate_rows is None:
        return None
    return lambda places: candidate_rows[order[places]]


def _query_limits(qs: np.ndarray, qc: np.ndarray, codes: np.ndarray, queries: int, depth: int,
                  distinct: bool) -> tuple[np.ndarray, np.ndarray]:
    """(each query's first place, ``depth + r``) for rows grouped by query in ascending code order (the query codes
    ``qs`` of the rows in that order; ``qc`` and ``codes``: of the rows in any order; equal documents of a query have
    equal codes), ``r`` the query's rows whose code occurs more than once in the run (at least its repeated documents;
    0 when the caller knows that none repeats: ``distinct``): the top ``depth`` distinct documents of a query are among
    its first ``depth + r`` rows."""
    first = np.searchsorted(qs, np.arange(queries, dtype=qs.dtype))
    if distinct:
        return first, np.full(queries, depth, dtype=np.int64)
    extra = np.bincount(qc, weights=np.bincount(codes)[codes] > 1, minlength=queries).astype(np.int64)
    return first, depth + extra


def _top_tie_moves(same: np.ndarray, qc: np.ndarray, codes: np.ndarray, queries: int, depth: int, distinct: bool,
                   docs_at: Any, dnames: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_tie_moves` of rows in order (grouped by query in ascending code order, scores non-increasing) for the
    tied stretches that reach the first ``depth + r`` rows of their query (:func:`_query_limits`) only: just the rows
    from each query's first to the end of the stretch holding its last such row are looked at."""
    n = len(qc)
    first, limit = _query_limits(qc, qc, codes, queries, depth, distinct)
    end = np.r_[first[1:], n]
    present = end > first
    first, end, limit = first[present], end[present], limit[present]
    stop = np.minimum(first + limit, end)  # each query's first row beyond the limit, moved to the end of the
    going = stop < end  # stretch holding the row before it (a new query's first row ties none, so it stays in)
    stop[going] = _stretch_ends(same, stop[going] - 1) + 1
    lengths = stop - first
    rows = np.arange(int(lengths.sum())) + np.repeat(first - (np.cumsum(lengths) - lengths), lengths)
    tied = same[rows[:-1]]  # neighbours in the run that tie (each window's last row ties no row after it: its query or
    # its tied stretch ends there)
    if not tied.any():
        return rows[:0], rows[:0]
    at, source = _tie_moves(tied, lambda places: docs_at(rows[places]), dnames)
    return rows[at], rows[source]


def _stretch_ends(same: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The last row of the stretch of tied rows holding each of ``rows`` (``same[i]``: row ``i + 1`` ties row ``i``;
    rows 0 to ``len(same)``), looked for in a window of the rows from each on, four times wider for those whose window
    ties throughout: the rows looked at are about those of the stretches, not every row."""
    last_row = len(same)
    ends = np.asarray(rows, dtype=np.intp).copy()
    todo = np.flatnonzero(ends < last_row)
    width = 16
    while len(todo):
        at = ends[todo, None] + np.arange(width)
        tied = same[np.minimum(at, last_row - 1)] & (at < last_row)  # row at + 1 ties row at
        stop = np.argmin(tied, axis=1)  # the first row of the window not tied to the next one, if any
        found = ~tied[np.arange(len(todo)), stop]
        ends[todo[found]] = at[found, stop[found]]
        ends[todo[~found]] += width
        todo = todo[~found]
        width *= 4
    return ends


def recode_run(run: RankedRun, queries: Any = None, candidates: np.ndarray | None = None) -> RankedRun:
    """``run`` (from :func:`rank_run` with ``ties="all"``) as :func:`rank_run` gives it for these ``queries`` and
    ``candidates``, from its integer codes: rows of other queries dropped, groups in the order of ``queries``, the
    candidates' codes looked up among the run's distinct document ids; no row is hashed or sorted by id again.
    (Document codes of non-candidates may differ from a fresh :func:`rank_run`; they only tell documents apart.)"""
    if not run.full_order:
        raise ValueError("recode_run needs a run ranked with ties='all'")
    prepared = _prepared(np.zeros(0, dtype=object) if candidates is None else np.asarray(candidates, dtype=object))
    if queries is None:
        queries, qc = run.queries, run.query_codes
    else:
        queries = as_ids(queries)
        qc = queries.get_indexer(run.queries)[run.query_codes] if len(run.query_codes) else run.query_codes
    keep = qc >= 0
    small = _code_type(max(len(qc), len(queries), len(prepared.unique) + len(run.doc_names)))
    qc, doc_raw, rank = qc[keep].astype(small, copy=False), run.doc_raw[keep], run.rank[keep]
    starts = stretch_flags(qc)
    if len(qc) > 1 and np.any(qc[starts][1:] < qc[starts][:-1]):  # query groups in the order of ``queries``
        order = np.argsort(qc, kind="stable")
        qc, doc_raw, rank = qc[order], doc_raw[order], rank[order]
    cand_of_name = _candidate_of(run.doc_names, prepared)
    recode = np.where(cand_of_name >= 0, cand_of_name, len(prepared.unique) + np.arange(len(run.doc_names)))
    codes = recode.astype(small)[doc_raw] if len(doc_raw) else np.zeros(0, dtype=small)
    return RankedRun(queries, qc, run.doc_names, doc_raw, codes, rank, prepared.unique, True)
