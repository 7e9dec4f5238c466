"""Recall-paired preference (RPP), binary, graded and subtopic (numpy only).

Diaz & Ferraro (2022) (Diaz & Ferraro 2022), Eq. 3-6 and §5.3. The i-th relevant document of one
ranking is paired with the i-th relevant document of the other (pairing by recall
level, not by document):

    RPP(a, b) = sum_{i=1..m} w_i * sgn(b_i - a_i)            (Eq. 4; positive: a preferred)

with ``+inf`` (unretrieved) losing to any position and ``inf`` vs ``inf`` a tie (no
``inf - inf`` is ever formed). Weightings ``w`` (normalised to sum 1 over the m
levels): ``uniform`` 1/m, ``inverse`` proportional to 1/i, ``dcg`` proportional to
1/log2(i+1). Uniform RPP is computed as an integer count divided by m, so equal
values are bit-identical and ties are exact; weighted sums are clamped to [-1, 1]
(the float weights may sum to 1 + 1 ulp).

Populations (graded Eq. 5, subtopic Eq. 6): for each population k (a subset of the
m relevant documents, e.g. "grade >= λ" or "covers subtopic t"), RPP_k is binary RPP
on that population's position vectors; the combination is ``sum_k m_k RPP_k / sum_k m_k``
(p(λ) ∝ m_λ, p(t) ∝ m_t, §5.3). Empty populations carry weight 0. With no relevant
document at all (m = 0, which callers exclude) the preference is defined as 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from prefeval.core.arrays import sorted_unique
from prefeval.errors import PrefevalError

__all__ = [
    "rpp_matrices",
    "WEIGHTINGS",
    "recall_level_weights",
    "rpp",
    "graded_populations",
    "subtopic_populations",
    "population_rpp",
    "rpp_matrix",
]

Weighting = Literal["uniform", "inverse", "dcg"]
WEIGHTINGS: tuple[str, ...] = ("uniform", "inverse", "dcg")

# Elements of one (rows, S) block of rpp_matrix: small enough to stay in cache (fastest at S = 1,000).
_BLOCK_ELEMENTS = 1 << 18


def _check_weighting(weighting: str) -> None:
    if weighting not in WEIGHTINGS:
        raise PrefevalError(f"RPP weighting must be one of {', '.join(WEIGHTINGS)}; got {weighting!r}")


def recall_level_weights(m: int, weighting: Weighting = "uniform") -> np.ndarray:
    """(m,) recall-level weights p(i), i = 1..m, summing to 1 (Diaz & Ferraro (2022) §5.3).

    ``uniform``: 1/m (RPP); ``inverse``: ∝ 1/i (invRPP); ``dcg``: ∝ 1/log2(i+1)
    (dcgRPP). ``m = 0`` gives an empty array.
    """
    _check_weighting(weighting)
    m = int(m)
    if m < 0:
        raise PrefevalError(f"number of recall levels must be >= 0, got {m}")
    if m == 0:
        return np.zeros(0, dtype=np.float64)
    i = np.arange(1, m + 1, dtype=np.float64)
    if weighting == "uniform":
        raw = np.ones(m)
    elif weighting == "inverse":
        raw = 1.0 / i
    else:
        raw = 1.0 / np.log2(i + 1.0)
    return raw / raw.sum()


def _clip(values: np.ndarray) -> np.ndarray:
    """Clamp weighted sums to [-1, 1]: the float weights may sum to 1 + 1 ulp."""
    return np.clip(values, -1.0, 1.0)


def _signs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """sgn(b - a) as int8 without forming inf - inf."""
    return (b > a).astype(np.int8) - (b < a).astype(np.int8)


def _combine(signs: np.ndarray, weighting: str) -> np.ndarray:
    """Weighted mean over the last axis; uniform = exact integer count / m."""
    m = signs.shape[-1]
    if m == 0:
        return np.zeros(signs.shape[:-1], dtype=np.float64)
    if weighting == "uniform":
        return signs.sum(axis=-1, dtype=np.int64) / m
    return _clip((signs * recall_level_weights(m, weighting)).sum(axis=-1))


def rpp(a: np.ndarray, b: np.ndarray, weighting: Weighting = "uniform") -> np.ndarray:
    """Binary RPP of ``a`` over ``b`` (Diaz & Ferraro (2022) Eq. 3-4), in [-1, 1].

    ``a`` and ``b`` are position vectors (..., m) (ascending, ``+inf`` last) and
    broadcast over the leading axes. ``sum_i w_i sgn(b_i - a_i)``.
    """
    _check_weighting(weighting)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape[-1:] != b.shape[-1:]:
        raise PrefevalError(
            f"position vectors must have the same number of recall levels, got {a.shape} and {b.shape}"
        )
    return _combine(_signs(a, b), weighting)


def graded_populations(grades: np.ndarray, rel: int = 1) -> np.ndarray:
    """(K, m) bool populations for graded RPP (Diaz & Ferraro (2022) Eq. 5, §5.3).

    One row per distinct grade λ >= ``rel`` present in ``grades`` (ascending λ),
    row = ``grades >= λ``. ``grades`` are the grades of the m columns of a
    ``doc_positions`` matrix (normally the relevant documents, all >= rel). With a
    single distinct grade this is the one binary population, so graded RPP = binary RPP.
    """
    g = np.asarray(grades)
    if g.ndim != 1:
        raise PrefevalError(f"grades must be one-dimensional, got shape {g.shape}")
    levels = sorted_unique(g[g >= rel])
    return g[None, :] >= levels[:, None]


def subtopic_populations(membership: np.ndarray, background: bool = True) -> np.ndarray:
    """(K, m) bool populations for subtopic RPP (Diaz & Ferraro (2022) Eq. 6, §5.3).

    ``membership[t, j]`` says relevant document j is relevant to subtopic t. The rows
    are returned as given (one per subtopic; a subtopic without relevant documents
    gets weight m_t = 0), followed, if ``background``, by the background population
    t* of all m relevant documents (p(t*) ∝ m).
    """
    mem = np.asarray(membership, dtype=bool)
    if mem.ndim != 2:
        raise PrefevalError(f"subtopic membership must be (subtopics, documents), got shape {mem.shape}")
    if background:
        mem = np.concatenate([mem, np.ones((1, mem.shape[1]), dtype=bool)], axis=0)
    return mem


def _check_populations(populations: np.ndarray | None, m: int) -> np.ndarray:
    if populations is None:
        return np.ones((1, m), dtype=bool)
    pops = np.asarray(populations, dtype=bool)
    if pops.ndim != 2 or pops.shape[1] != m:
        raise PrefevalError(f"populations must be (K, {m}) booleans, got shape {pops.shape}")
    return pops


def population_rpp(
    doc_pos_a: np.ndarray,
    doc_pos_b: np.ndarray,
    populations: np.ndarray | None,
    weighting: Weighting = "uniform",
) -> np.ndarray:
    """Population-weighted RPP of ``a`` over ``b``: ``sum_k m_k RPP_k / sum_k m_k``.

    ``doc_pos_*`` are (..., m) per-document positions (columns = relevant documents,
    unsorted, as from ``doc_positions``); RPP_k is binary RPP on
    ``position_vectors(doc_pos, populations[k])``. ``populations=None`` = all m
    documents (binary RPP). For ``uniform`` the result is the exact integer sum of
    signs over all (k, i) pairs divided by ``sum_k m_k``. All populations empty: 0.
    """
    _check_weighting(weighting)
    a = np.asarray(doc_pos_a, dtype=np.float64)
    b = np.asarray(doc_pos_b, dtype=np.float64)
    if a.shape[-1:] != b.shape[-1:]:
        raise PrefevalError(f"doc position arrays differ in their last axis: {a.shape} and {b.shape}")
    a, b = np.broadcast_arrays(a, b)
    pops = _check_populations(populations, a.shape[-1])
    sizes = pops.sum(axis=1)
    total = int(sizes.sum())
    shape = a.shape[:-1]
    if total == 0:
        return np.zeros(shape, dtype=np.float64)
    count = np.zeros(shape, dtype=np.int64)
    acc = np.zeros(shape, dtype=np.float64)
    for k in np.flatnonzero(sizes):  # loop over populations, not over pairs
        s = _signs(np.sort(a[..., pops[k]], axis=-1), np.sort(b[..., pops[k]], axis=-1))
        if weighting == "uniform":
            count += s.sum(axis=-1, dtype=np.int64)
        else:
            acc += (sizes[k] / total) * (s * recall_level_weights(int(sizes[k]), weighting)).sum(axis=-1)
    if weighting == "uniform":
        return count / total
    return _clip(acc)


def _int_type(bound: int) -> type:
    """The narrowest signed integer type holding every value in ``[-bound, bound]``."""
    for dtype in (np.int8, np.int16, np.int32):
        if bound <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def _level_codes(P: np.ndarray) -> np.ndarray:
    """(m, S) dense ranks of each column of ``P`` (S, m): same order and ties as the positions of one recall level
    (``inf`` = largest), in the narrowest integer type whose differences cannot overflow.

    Integer differences then give sgn(b - a) directly (no ``inf - inf``); one level's codes are a contiguous row.
    """
    T = np.ascontiguousarray(P.T)
    m, S = T.shape
    order = np.argsort(T, axis=1, kind="stable")
    ordered = np.take_along_axis(T, order, axis=1)
    ranks = np.zeros((m, S), dtype=np.int64)
    ranks[:, 1:] = np.cumsum(ordered[:, 1:] != ordered[:, :-1], axis=1)
    codes = np.empty_like(ranks)
    np.put_along_axis(codes, order, ranks, axis=1)
    return codes.astype(_int_type(int(ranks[:, -1].max()) if ranks.size else 0))


def _pairwise_sign_sums(levels: list[tuple[np.ndarray, float]], S: int, uniform: bool) -> np.ndarray:
    """(S, S) ``sum_l c_l sgn(C_l[j] - C_l[r])`` over recall levels ``l`` for all (r, j).

    ``levels`` holds one ``(codes, c_l)`` per recall level (codes: (S,) from :func:`_level_codes`). Uniform: the
    exact integer count (``c_l`` ignored), a few levels per step when S is small; otherwise the float sum, level by
    level in order (so the result does not depend on the blocking). Contiguous S x S integer comparisons
    accumulated in place, in row blocks of at most ``_BLOCK_ELEMENTS`` entries (memory bounded).
    """
    dtype = np.result_type(_int_type(len(levels)), *(codes.dtype for codes, _ in levels)) if uniform else np.float64
    out = np.zeros((S, S), dtype=dtype)
    if not levels or S == 0:
        return out
    codes = np.stack([c for c, _ in levels])  # (L, S)
    rows = max(1, min(S, _BLOCK_ELEMENTS // S))
    step = max(1, _BLOCK_ELEMENTS // (rows * S)) if uniform else 1  # levels per step
    signs = np.empty((min(step, len(levels)), rows, S), dtype=codes.dtype)
    weighted = None if uniform else np.empty((rows, S), dtype=np.float64)
    for start in range(0, S, rows):
        block = out[start:start + rows]
        for first in range(0, len(levels), step):
            C = codes[first:first + step]
            sign = signs[:len(C), :len(block)]
            np.subtract(C[:, None, :], C[:, start:start + len(block), None], out=sign)
            np.sign(sign, out=sign)
            if uniform:
                block += sign[0] if len(C) == 1 else sign.sum(axis=0, dtype=dtype)
            else:
                np.multiply(sign[0], levels[first][1], out=weighted[:len(block)])
                block += weighted[:len(block)]
    return out


def rpp_matrix(
    doc_pos: np.ndarray,
    populations: np.ndarray | None = None,
    weighting: Weighting = "uniform",
) -> np.ndarray:
    """(S, S) float64 RPP matrix: ``M[i, j] = population_rpp(doc_pos[i], doc_pos[j], populations)``.

    ``doc_pos`` is (S, m) per-document positions (sorted position vectors work too
    when ``populations`` is None, sorting being idempotent). Each recall level's positions
    become small integer ranks; the S x S signs of one level at a time are summed in place
    (row blocks bound the memory), no Python loop over pairs. Uniform: exact integer
    counts / sum_k m_k. Weighted: made exactly antisymmetric as ``(M - M.T) / 2`` (only
    rounding-level changes).
    """
    _check_weighting(weighting)
    D = np.asarray(doc_pos, dtype=np.float64)
    if D.ndim != 2:
        raise PrefevalError(f"doc_pos must be (runs, documents), got shape {D.shape}")
    S, m = D.shape
    pops = _check_populations(populations, m)
    sizes = pops.sum(axis=1)
    total = int(sizes.sum())
    if total == 0 or S == 0:
        return np.zeros((S, S), dtype=np.float64)
    uniform = weighting == "uniform"
    levels: list[tuple[np.ndarray, float]] = []
    for k in np.flatnonzero(sizes):
        codes = _level_codes(np.sort(D[:, pops[k]], axis=1))
        w = recall_level_weights(int(sizes[k]), weighting) * (sizes[k] / total)
        levels += [(codes[i], float(w[i])) for i in range(len(codes))]
    acc = _pairwise_sign_sums(levels, S, uniform)
    if uniform:
        return acc / total
    return _clip((acc - acc.T) / 2.0)


def uniform_rpp_matrices(doc_pos: list[np.ndarray], populations: list[np.ndarray | None]) -> np.ndarray:
    """(Q, S, S): ``rpp_matrix(doc_pos[q], populations[q])`` with uniform weights for many queries at once.

    ``doc_pos[q]`` (S, m_q) and ``populations[q]`` ((K_q, m_q) booleans, or None: all m_q documents) as for
    :func:`rpp_matrix`. Every (query, population) becomes a group of columns, sorted within each run by one sort
    (the position vectors, Diaz & Ferraro (2022) Eq. 3; :func:`_sorted_within`); then ``sgn(P[j, l] - P[i, l])`` is
    summed over the recall levels ``l`` of each query for all (i, j) at once, in blocks of whole queries (memory
    bounded). The same exact integer counts divided by ``sum_k m_k`` as :func:`rpp_matrix`, so the values are
    bit-identical (0 where the query has no relevant document)."""
    Q = len(doc_pos)
    S = doc_pos[0].shape[0] if Q else 0
    out = np.zeros((Q, S, S), dtype=np.float64)
    if not Q or not S:
        return out
    columns, groups, sizes, offset, n_groups = [], [], np.zeros(Q, dtype=np.int64), 0, 0
    for q, (D, pops) in enumerate(zip(doc_pos, populations)):
        m = D.shape[1]
        pops = _check_populations(pops, m)
        k, members = np.nonzero(pops)  # by population, then document
        columns.append(members + offset)
        groups.append(k + n_groups)
        sizes[q] = len(members)
        offset, n_groups = offset + m, n_groups + len(pops)
    X = np.hstack([np.asarray(D, dtype=np.float64) for D in doc_pos])[:, np.concatenate(columns)]  # (S, levels)
    P = _sorted_within(X, np.concatenate(groups), n_groups)
    queries = np.flatnonzero(sizes)  # each query's levels together, in order
    bounds = np.r_[0, np.cumsum(sizes[queries])]
    rows = max(1, _BLOCK_ELEMENTS // (S * S))  # levels per step
    first = 0
    while first < len(queries):
        last = min(len(queries), max(first + 1, int(np.searchsorted(bounds, bounds[first] + rows, side="right")) - 1))
        a, b = bounds[first], bounds[last]
        if b - a > rows:  # one query with more levels than a step: by rpp_matrix, in row blocks
            out[queries[first]] = rpp_matrix(doc_pos[queries[first]], populations[queries[first]])
            first = last
            continue
        C = P[:, a:b]
        # above[i, j, q] = #levels l of query q with P[j, l] > P[i, l]; sum of sgn(P[j, l] - P[i, l]) = above - above.T
        above = np.add.reduceat(C[None, :, :] > C[:, None, :], bounds[first:last] - a, axis=2, dtype=np.int32)
        counts = np.moveaxis(above - above.transpose(1, 0, 2), 2, 0)
        out[queries[first:last]] = counts / sizes[queries[first:last], None, None]
        first = last
    return out


def rpp_matrices(doc_pos: Sequence[np.ndarray], populations: Sequence[np.ndarray | None],
                 weighting: Weighting = "uniform") -> np.ndarray:
    """(Q, S, S): :func:`rpp_matrix` of each query (``doc_pos[q]``, ``populations[q]``): uniform weights by
    :func:`uniform_rpp_matrices` (many queries at once, bit-identical), other weightings query by query."""
    _check_weighting(weighting)
    if weighting == "uniform":
        return uniform_rpp_matrices(list(doc_pos), list(populations))
    S = np.shape(doc_pos[0])[0] if len(doc_pos) else 0
    out = np.zeros((len(doc_pos), S, S), dtype=np.float64)
    for q, (D, pops) in enumerate(zip(doc_pos, populations)):
        out[q] = rpp_matrix(D, pops, weighting)
    return out


def _sorted_within(X: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """(S, n): each row of ``X`` (S, n) sorted within each group of columns (``group``: non-decreasing), as values
    whose order and ties within a column are those of ``X`` (``+inf`` largest). Positions (integers in [0, 2^31) or
    ``+inf``) are sorted as one float key per entry, ``group * 2^32 + position`` (``+inf`` as 2^31; exact in float64);
    other values by a lexsort."""
    finite = X[np.isfinite(X)]
    if n_groups < 2**20 and np.all((finite >= 0) & (finite < 2**31) & (finite == np.floor(finite))):
        key = np.where(np.isinf(X), 2.0**31, X) + group * 2.0**32
        key.sort(axis=1)
        return key
    return np.take_along_axis(X, np.lexsort((X, np.broadcast_to(group, X.shape))), axis=1)
