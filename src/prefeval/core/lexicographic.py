"""LexiRecall and LexiPrecision on position vectors (numpy only).

Inputs are position vectors (see :mod:`prefeval.core.positions`): the last axis
holds the ``m`` recall levels, ascending 1-based positions of the retrieved relevant
documents followed by ``+inf`` for the unretrieved ones. Pairwise functions broadcast
over the leading axes; the ``*_matrix`` functions return the S x S matrix
``M[i, j]`` = preference of run ``i`` over run ``j`` (positive: ``i`` preferred),
antisymmetric with a zero diagonal, computed from one lexicographic sort of the S
runs (both preferences are total preorders) - no Python loop over pairs.

``+inf`` against ``+inf`` is a tie; comparisons never subtract two infinities.
With ``m = 0`` (no relevant documents; callers exclude such queries) every
preference is 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from prefeval.errors import PrefevalError

__all__ = [
    "lexirecall_matrices",
    "lexiprecision_matrices",
    "lexirecall",
    "lexiprecision",
    "lexirecall_keys",
    "lexiprecision_keys",
    "dense_ranks",
    "lexirecall_ranks",
    "lexiprecision_ranks",
    "lexirecall_matrix",
    "lexiprecision_matrix",
]

Magnitude = Literal["sgn", "rr"]


def _pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape[-1:] != b.shape[-1:]:
        raise PrefevalError(
            f"position vectors must have the same number of recall levels, got {a.shape} and {b.shape}"
        )
    return np.broadcast_arrays(a, b)


def _matrix_input(P: np.ndarray) -> np.ndarray:
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2:
        raise PrefevalError(f"position matrix must be (runs, recall levels), got shape {P.shape}")
    return P


def lexirecall(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """LexiRecall preference of ``a`` over ``b`` in {-1, 0, +1} (int8).

    Diaz & Mitra (2023) §5.2, Eq. 11 (leximin over all 2^m - 1 searchers, Eq. 10) with
    pessimistic imputation: the ranking that retrieves more relevant documents wins;
    with equal counts the retrieved positions are compared from the bottom up and the
    first difference decides (smaller position wins); identical vectors tie. Since
    equal counts put the ``+inf`` entries at the same levels, this is Eq. 11 on the
    full vectors: ``sgn(p'_i - p_i)`` at ``i = max{j : p_j != p'_j}``.
    """
    a, b = _pair(a, b)
    shape = a.shape[:-1]
    m = a.shape[-1]
    if m == 0:
        return np.zeros(shape, dtype=np.int8)
    ka = np.isfinite(a).sum(axis=-1)
    kb = np.isfinite(b).sum(axis=-1)
    diff = a != b
    last = m - 1 - np.argmax(diff[..., ::-1], axis=-1)
    ai = np.take_along_axis(a, last[..., None], axis=-1)[..., 0]
    bi = np.take_along_axis(b, last[..., None], axis=-1)[..., 0]
    bottom_up = np.where(diff.any(axis=-1), np.where(ai < bi, 1, -1), 0)
    out = np.where(ka != kb, np.sign(ka - kb), bottom_up)
    return out.astype(np.int8)


def lexiprecision(a: np.ndarray, b: np.ndarray, magnitude: Magnitude = "sgn") -> np.ndarray:
    """LexiPrecision preference of ``a`` over ``b`` (float64).

    Diaz (2023) §3.2 and §3.5: ``i* = min{j : p_j != p'_j}`` (top-down, the first
    differing recall level). ``magnitude="sgn"`` (Eq. 3) gives ``sgn(p'_{i*} - p_{i*})``
    in {-1, 0, +1}: the smaller position wins, ``+inf`` loses to any position.
    ``magnitude="rr"`` (Eq. 2) gives ``1/p_{i*} - 1/p'_{i*}`` with ``1/inf = 0``
    (so ``rrLP`` lies in [-1, 1] and has the sign of ``sgnLP``). No differing level:
    0 for both.
    """
    if magnitude not in ("sgn", "rr"):
        raise PrefevalError(f"LexiPrecision magnitude must be 'sgn' or 'rr', got {magnitude!r}")
    a, b = _pair(a, b)
    shape = a.shape[:-1]
    if a.shape[-1] == 0:
        return np.zeros(shape, dtype=np.float64)
    diff = a != b
    first = np.argmax(diff, axis=-1)[..., None]
    ai = np.take_along_axis(a, first, axis=-1)[..., 0]
    bi = np.take_along_axis(b, first, axis=-1)[..., 0]
    any_diff = diff.any(axis=-1)
    if magnitude == "sgn":
        val = np.where(ai < bi, 1.0, -1.0)
    else:
        val = 1.0 / ai - 1.0 / bi  # 1/inf = 0; ai != bi so never inf - inf
    return np.where(any_diff, val, 0.0)


def lexirecall_keys(P: np.ndarray) -> np.ndarray:
    """(S, m+1) sort keys for LexiRecall, best run first in ascending top-down order.

    Row ``s`` is ``(-m̃_s, p_m, p_{m-1}, ..., p_1)`` (m̃ = number retrieved), the exact
    tuple key of Diaz & Mitra (2023) §5.2 ``+inf`` entries coincide
    for runs with equal m̃, so they compare equal.
    """
    P = _matrix_input(P)
    k = np.isfinite(P).sum(axis=1, keepdims=True).astype(np.float64)
    return np.concatenate([-k, P[:, ::-1]], axis=1)


def lexiprecision_keys(P: np.ndarray) -> np.ndarray:
    """(S, m) sort keys for LexiPrecision: the position vectors themselves ``(p_1, ..., p_m)``."""
    return _matrix_input(P)


def dense_ranks(keys: np.ndarray) -> np.ndarray:
    """Dense ranks (0 = smallest) of the rows of ``keys`` in lexicographic (top-down) order.

    Equal rows share a rank; ranks are consecutive integers. One ``np.lexsort``.
    """
    keys = np.asarray(keys)
    S = keys.shape[0]
    if S == 0:
        return np.zeros(0, dtype=np.int64)
    if keys.shape[1] == 0:
        return np.zeros(S, dtype=np.int64)
    order = np.lexsort(keys.T[::-1])
    sk = keys[order]
    new = np.any(sk[1:] != sk[:-1], axis=1)
    ranks = np.empty(S, dtype=np.int64)
    ranks[order] = np.concatenate([[0], np.cumsum(new)])
    return ranks


def lexirecall_ranks(P: np.ndarray) -> np.ndarray:
    """Dense LexiRecall ranks of the S runs (0 = most preferred; ties share a rank)."""
    return dense_ranks(lexirecall_keys(P))


def lexiprecision_ranks(P: np.ndarray) -> np.ndarray:
    """Dense LexiPrecision ranks of the S runs (0 = most preferred; ties share a rank)."""
    return dense_ranks(lexiprecision_keys(P))


def _sign_matrix(ranks: np.ndarray, dtype: type = np.int8) -> np.ndarray:
    """(S, S) ``sgn(ranks[j] - ranks[i])`` written straight in ``dtype`` (int8 from two comparisons; a float
    dtype from the difference of the integer ranks clipped to [-1, 1])."""
    if np.issubdtype(dtype, np.floating):
        r = ranks.astype(dtype)
        out = np.subtract(r[None, :], r[:, None])
        return np.clip(out, -1, 1, out=out)
    r = ranks.astype(np.int32 if len(ranks) < 2**31 else np.int64)
    above = np.greater(r[None, :], r[:, None]).view(np.int8)
    below = np.less(r[None, :], r[:, None]).view(np.int8)
    return np.subtract(above, below).astype(dtype, copy=False)


def lexirecall_matrix(P: np.ndarray, dtype: type = np.int8) -> np.ndarray:
    """(S, S) LexiRecall matrix (int8 unless ``dtype`` says otherwise): ``M[i, j] = lexirecall(P[i], P[j])``.

    From one lexicographic sort of :func:`lexirecall_keys` (LexiRecall is a total
    preorder, Diaz & Mitra (2023) App. B): ``M[i, j] = sgn(rank_j - rank_i)``.
    """
    return _sign_matrix(lexirecall_ranks(P), dtype)


def _first_diff_levels(P: np.ndarray, order: np.ndarray) -> np.ndarray:
    """(S, S) first differing level of every pair, from the sorted rows' adjacent LCPs.

    For rows sorted lexicographically, the first differing level of sorted rows
    r < s is ``min(lcp[r:s])`` where ``lcp[t]`` is that of rows t and t+1 (``m`` if
    equal). Returned in the original row order; the diagonal is ``m``. O(S^2 + S m)
    time and memory, independent of S^2 m.
    """
    S, m = P.shape
    dtype = np.int16 if m < 2**15 else np.int64
    sk = P[order]
    diff = sk[1:] != sk[:-1]
    lcp = np.where(diff.any(axis=1), np.argmax(diff, axis=1), m).astype(dtype)
    L = np.full((S, S), m, dtype=dtype)
    if S > 1:
        # A[r, t] = lcp[t] for t >= r, m before: running min along t gives min(lcp[r..t]).
        upper = np.arange(S - 1)[None, :] >= np.arange(S - 1)[:, None]
        R = np.where(upper, lcp[None, :], dtype(m))
        np.minimum.accumulate(R, axis=1, out=R)
        L[:-1, 1:] = np.where(upper, R, dtype(m))
        L = np.minimum(L, L.T)
    inv = np.empty(S, dtype=np.int64)
    inv[order] = np.arange(S)
    return L[np.ix_(inv, inv)]


def lexiprecision_matrix(P: np.ndarray, magnitude: Magnitude = "sgn") -> np.ndarray:
    """(S, S) float64 LexiPrecision matrix: ``M[i, j] = lexiprecision(P[i], P[j], magnitude)``.

    ``sgn``: from one lexicographic sort (LexiPrecision is a total preorder, Diaz (2023)
    §3.2). ``rr``: the first differing level of every pair from the sorted runs'
    adjacent common prefixes, then ``1/P[i, i*] - 1/P[j, i*]``; no S*S*m array.
    """
    if magnitude not in ("sgn", "rr"):
        raise PrefevalError(f"LexiPrecision magnitude must be 'sgn' or 'rr', got {magnitude!r}")
    P = _matrix_input(P)
    S, m = P.shape
    if magnitude == "sgn":
        return _sign_matrix(lexiprecision_ranks(P), np.float64)
    if m == 0 or S == 0:
        return np.zeros((S, S), dtype=np.float64)
    L = _first_diff_levels(P, np.lexsort(P.T[::-1]))
    # a[i, j] = 1/P[i, i*] (1/inf = 0); L is symmetric, so 1/P[j, i*] = a[j, i]. Identical rows (L = m, read
    # at level m - 1) give a[i, j] = a[j, i]: exactly 0.
    a = np.take_along_axis(1.0 / P, np.minimum(L, m - 1), axis=1)
    return a - a.T


#: Entries (queries x runs x runs x recall levels) up to which :func:`lexirecall_matrices` and
#: :func:`lexiprecision_matrices` compare the pairs of equally shaped queries in one broadcast.
BROADCAST_ENTRIES = 1 << 22


def _matrices(pairwise: Callable[[np.ndarray, np.ndarray], np.ndarray], matrix: Callable[[np.ndarray], np.ndarray],
              doc_pos: Sequence[np.ndarray]) -> np.ndarray:
    """(Q, S, S) float64 matrices of many queries (``doc_pos[q]``: (S, m_q) positions of each relevant document):
    by broadcasting ``pairwise`` when every query has the same shape and the arrays are small (e.g. the two-run
    queries of a simulation), else by ``matrix`` query by query."""
    if not len(doc_pos):
        return np.zeros((0, 0, 0))
    shapes = {np.shape(d) for d in doc_pos}
    if len(shapes) == 1:
        (S, m), = shapes
        if len(doc_pos) * S * S * max(m, 1) <= BROADCAST_ENTRIES:
            P = np.sort(np.asarray(doc_pos, dtype=np.float64), axis=-1)
            return pairwise(P[:, :, None, :], P[:, None, :, :]).astype(np.float64)
    return np.stack([matrix(np.sort(np.asarray(d, dtype=np.float64), axis=-1)) for d in doc_pos]).astype(np.float64)


def lexirecall_matrices(doc_pos: Sequence[np.ndarray]) -> np.ndarray:
    """(Q, S, S) float64 :func:`lexirecall_matrix` of each query's ``doc_pos[q]`` (S runs x that query's relevant
    documents: per-document positions, sorted into position vectors here)."""
    return _matrices(lexirecall, lexirecall_matrix, doc_pos)


def lexiprecision_matrices(doc_pos: Sequence[np.ndarray], magnitude: Magnitude = "sgn") -> np.ndarray:
    """(Q, S, S) float64 :func:`lexiprecision_matrix` of each query's ``doc_pos[q]`` (as :func:`lexirecall_matrices`)."""
    if magnitude not in ("sgn", "rr"):
        raise PrefevalError(f"LexiPrecision magnitude must be 'sgn' or 'rr', got {magnitude!r}")
    return _matrices(lambda a, b: lexiprecision(a, b, magnitude), lambda P: lexiprecision_matrix(P, magnitude),
                     doc_pos)
