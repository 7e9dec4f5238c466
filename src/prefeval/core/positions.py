"""Rankings and relevant documents -> position vectors (numpy only).

Conventions (Diaz & Mitra (2023) §2.1-2.2; Diaz & Ferraro (2022) §3; trec_eval's ordering):

* a run is ordered by score descending, ties broken by doc_id descending in string
  (code point) order, as trec_eval does; the rank column of a TREC file is ignored;
* the *position* of a document is its 1-based rank in that order;
* the position vector of a ranking for a query lists the ascending positions of the
  retrieved relevant documents, followed by ``+inf`` for every relevant document the
  ranking does not retrieve (pessimistic imputation without a corpus size: an
  unretrieved relevant document is worse than any retrieved one, and two unretrieved
  ones tie).

The functions here are the only place where document ids are touched; everything
downstream (``lexicographic``, ``rpp``, ``metrics``) works on float position arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from prefeval.errors import PrefevalError

__all__ = [
    "rank_order",
    "rank_order_codes",
    "string_codes",
    "doc_positions",
    "position_vectors",
    "QueryPositions",
    "binary_queries",
    "over_leading_axes",
    "vectors_each",
]


def string_codes(doc_ids: np.ndarray) -> np.ndarray:
    """Integer codes of ``doc_ids`` that preserve their string order.

    ``codes[i] < codes[j]`` iff ``doc_ids[i] < doc_ids[j]`` (Python / code point
    order, which equals trec_eval's ``strcmp`` on UTF-8 bytes); equal ids share a code.
    Works for numpy ``str`` and ``object`` arrays (and for integer arrays, whose
    numeric order is kept).
    """
    ids = np.asarray(doc_ids)
    if ids.ndim != 1:
        raise PrefevalError(f"doc_ids must be one-dimensional, got shape {ids.shape}")
    _, codes = np.unique(ids, return_inverse=True)
    return codes.reshape(-1).astype(np.int64, copy=False)


def rank_order_codes(scores: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Indices that order documents by score descending, then by ``codes`` descending.

    ``codes`` are integer document codes whose numeric order is the doc_id string
    order (see :func:`string_codes`); use this when codes are already at hand (e.g.
    one code table shared by all runs of a collection). NaN scores sort last; callers
    are expected to reject them before ranking (never silently).
    """
    s = np.asarray(scores, dtype=np.float64)
    c = np.asarray(codes)
    if s.shape != c.shape or s.ndim != 1:
        raise PrefevalError(f"scores and doc codes must be 1-D of equal length, got {s.shape} and {c.shape}")
    # np.lexsort: last key is primary, ascending. Negate both keys for descending order
    # (NaN stays NaN and sorts last).
    return np.lexsort((-c.astype(np.int64, copy=False), -s))


def rank_order(scores: np.ndarray, doc_ids: np.ndarray) -> np.ndarray:
    """Argsort of one query's documents: score descending, ties by doc_id descending.

    This is trec_eval's order: ``doc_ids[rank_order(scores, doc_ids)]``
    lists the documents from rank 1 down. ``doc_ids`` may be a numpy ``str`` or
    ``object`` array (or integer codes). Identical (score, doc_id) rows keep no
    particular relative order; duplicates are the caller's business (keep the first
    occurrence of each doc_id in the returned order, which is its best position).
    """
    ids = np.asarray(doc_ids)
    if ids.shape != np.shape(scores):
        raise PrefevalError(
            f"scores and doc_ids must have the same shape, got {np.shape(scores)} and {ids.shape}"
        )
    if ids.size == 0:
        return np.zeros(0, dtype=np.intp)
    return rank_order_codes(scores, string_codes(ids))


def doc_positions(ranked: Sequence[np.ndarray], relevant: np.ndarray) -> np.ndarray:
    """(S, m) float64 matrix: 1-based position of relevant doc ``j`` in run ``s``.

    ``ranked[s]`` holds run ``s``'s doc ids in rank order (rank 1 first);
    ``relevant`` holds the ``m`` distinct relevant doc ids (column order of the
    result). Entries are ``+inf`` for relevant documents a run does not retrieve.
    A doc id repeated within ``ranked[s]`` keeps its first (best) position; the
    caller is expected to have removed (and warned about) duplicates already.
    Vectorised over all runs at once (one sorted lookup of all retrieved ids in the
    sorted relevant ids), no Python loop over documents. Ids may be numpy ``str``,
    ``object`` or integer arrays; integer doc codes (e.g. from ``pandas.factorize``
    over a collection) are about twice as fast as strings.
    """
    rel = np.asarray(relevant)
    if rel.ndim != 1:
        raise PrefevalError(f"relevant doc ids must be one-dimensional, got shape {rel.shape}")
    m = rel.shape[0]
    n_runs = len(ranked)
    out = np.full((n_runs, m), np.inf, dtype=np.float64)
    if m == 0 or n_runs == 0:
        return out
    order = np.argsort(rel, kind="stable")
    rel_sorted = rel[order]
    if m > 1 and np.any(rel_sorted[1:] == rel_sorted[:-1]):
        dup = rel_sorted[1:][rel_sorted[1:] == rel_sorted[:-1]][0]
        raise PrefevalError(f"relevant doc ids must be distinct; {dup!r} is repeated")

    arrays = [np.asarray(r).reshape(-1) for r in ranked]
    lengths = np.array([a.shape[0] for a in arrays], dtype=np.int64)
    if lengths.sum() == 0:
        return out
    # Empty rankings contribute nothing (and may carry a default float dtype).
    docs = np.concatenate([a for a in arrays if a.shape[0]])
    if docs.dtype != rel_sorted.dtype:
        if docs.dtype == object or rel_sorted.dtype == object:
            docs = docs.astype(object)
            rel_sorted = rel_sorted.astype(object)
        elif docs.dtype.kind != rel_sorted.dtype.kind and not {docs.dtype.kind, rel_sorted.dtype.kind} <= set("iu"):
            raise PrefevalError(
                f"ranked doc ids ({docs.dtype}) and relevant doc ids ({rel_sorted.dtype}) are of different kinds"
            )
    run_of = np.repeat(np.arange(n_runs), lengths)
    starts = np.cumsum(lengths) - lengths
    pos = np.arange(docs.shape[0], dtype=np.int64) - np.repeat(starts, lengths) + 1

    idx = np.searchsorted(rel_sorted, docs)
    idx_clipped = np.minimum(idx, m - 1)
    hit = (idx < m) & (rel_sorted[idx_clipped] == docs)
    if not np.any(hit):
        return out
    col = order[idx_clipped[hit]]
    rows = run_of[hit]
    # Hits are ordered by run, then position: the first hit of each (run, doc) cell is its
    # best position, which is what a run repeating a relevant doc keeps.
    _, first = np.unique(rows * m + col, return_index=True)
    out[rows[first], col[first]] = pos[hit][first]
    return out


def position_vectors(doc_pos: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Sorted position vectors ``np.sort(doc_pos[..., mask], axis=-1)``.

    ``doc_pos`` is (..., m) as returned by :func:`doc_positions` (columns =
    relevant documents); ``mask`` (m,) bool selects a sub-population (e.g. grade >= λ,
    or one subtopic). The result lists ascending positions, ``+inf`` (unretrieved)
    last: the vector ``p`` of Diaz & Mitra (2023) §2.1 / ``f`` of Diaz & Ferraro (2022) §3.
    """
    d = np.asarray(doc_pos, dtype=np.float64)
    if mask is not None:
        mk = np.asarray(mask, dtype=bool)
        if mk.shape != d.shape[-1:]:
            raise PrefevalError(f"mask shape {mk.shape} does not match the last axis of doc_pos {d.shape}")
        d = d[..., mk]
    return np.sort(d, axis=-1)


@dataclass(frozen=True)
class QueryPositions:
    """Where each run put each relevant document of one query.

    ``doc_pos[s, j]`` is the 1-based rank of relevant document ``doc_ids[j]`` in run ``s``
    (``+inf`` when not retrieved); ``grades[j]`` its grade (max over subtopics);
    ``subtopics[t, j]`` whether it has grade ``>= rel`` for subtopic ``subtopic_ids[t]``
    (``None`` for qrels without subtopics).
    """

    query_id: str
    doc_ids: np.ndarray
    grades: np.ndarray
    doc_pos: np.ndarray
    subtopic_ids: tuple[str, ...] | None = None
    subtopics: np.ndarray | None = None


def binary_queries(pairs: np.ndarray) -> list[QueryPositions]:
    """One two-run :class:`QueryPositions` per row of ``pairs`` (``(N, 2, m)`` positions of ``m`` relevant
    documents, grade 1): position vectors as the input of a preference kernel."""
    pairs = np.asarray(pairs, dtype=np.float64)
    m = pairs.shape[-1]
    doc_ids, grades = np.arange(m).astype(str), np.ones(m, dtype=np.int64)
    return [QueryPositions("", doc_ids, grades, pair) for pair in pairs]


def over_leading_axes(fn: Callable[..., np.ndarray], *vectors: np.ndarray) -> np.ndarray:
    """``fn`` of ``(N, m)`` arrays (one row per ranking) applied to ``(..., m)`` arrays: the leading axes are
    flattened into ``N`` and the ``(N,)`` result takes their shape again."""
    arrays = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in vectors))
    shape = arrays[0].shape
    flat = [a.reshape(-1, shape[-1]) for a in arrays]
    return np.asarray(fn(*flat)).reshape(shape[:-1])


def vectors_each(fn: Callable[[np.ndarray], np.ndarray], vectors: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
    """``fn`` (a function of position vectors ``(..., m)``) on each of ``vectors``: at once for an ``(N, m)`` array,
    one by one for a list of vectors of different lengths (one per query)."""
    if isinstance(vectors, np.ndarray):
        return np.asarray(fn(vectors), dtype=np.float64)
    return np.array([fn(v) for v in vectors], dtype=np.float64)
