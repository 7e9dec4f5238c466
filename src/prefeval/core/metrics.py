"""Scalar metrics on position vectors (numpy only).

Every function takes position vectors ``P`` (..., m): ascending 1-based positions of
the retrieved relevant documents, ``+inf`` for unretrieved ones (see
:mod:`prefeval.core.positions`), and returns one value per leading index.
Unretrieved documents contribute nothing (``1/inf = 0``), which is trec_eval's
convention (Diaz & Mitra (2023) §2.3.1, footnote 3) and needs no corpus size.

``m = 0`` (no relevant document; callers exclude such queries): every metric
returns NaN, since all of them are undefined (Diaz & Mitra (2023) §2.1 assumes m >= 1).

TSE is the measure the package exposes; the others are reference metrics for the
analyses (agreement, tie rates) and as brute-force cross-checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from fractions import Fraction

from prefeval.errors import PrefevalError

__all__ = [
    "n_retrieved",
    "tse",
    "rr",
    "ap",
    "ap_times_m",
    "recall_at_k",
    "precision_at_k",
    "rprec",
    "ndcg",
    "graded_ndcg",
]


def _positions(P: np.ndarray) -> np.ndarray:
    P = np.asarray(P, dtype=np.float64)
    if P.ndim == 0:
        raise PrefevalError("position vectors need at least one axis (the recall levels)")
    return P


def _nan(P: np.ndarray) -> np.ndarray:
    """The m = 0 result: NaN for every leading index."""
    return np.full(P.shape[:-1], np.nan)


def n_retrieved(P: np.ndarray) -> np.ndarray:
    """Number of retrieved relevant documents m̃ (finite entries), int64."""
    return np.isfinite(_positions(P)).sum(axis=-1)


def tse(P: np.ndarray) -> np.ndarray:
    """Total search efficiency with AP exposure (Diaz & Mitra (2023) §3.2, Eq. 3): ``1 / p_m``.

    0 when some relevant document is not retrieved (pessimistic imputation puts it at
    the corpus bottom, whose exposure is taken as 0, so no corpus size is needed).
    """
    P = _positions(P)
    if P.shape[-1] == 0:
        return _nan(P)
    return 1.0 / P[..., -1]


def rr(P: np.ndarray) -> np.ndarray:
    """Reciprocal rank ``1 / p_1`` (0 if no relevant document is retrieved; Diaz (2023) §2)."""
    P = _positions(P)
    if P.shape[-1] == 0:
        return _nan(P)
    return 1.0 / P[..., 0]


def ap_times_m(positions: Sequence[int]) -> Fraction:
    """``sum_i i / p_i`` over the ascending positions of the retrieved relevant documents, exactly: average
    precision times the number ``m`` of relevant documents (constant for a query, so it orders and ties
    rankings as AP does). For exact tie counts (Diaz & Mitra (2023) App. D) and balancing indices."""
    from fractions import Fraction  # deferred: exact counts only (2 ms at import)

    return sum((Fraction(i, int(p)) for i, p in enumerate(positions, start=1)), Fraction(0))


def ap(P: np.ndarray) -> np.ndarray:
    """Average precision as in trec_eval: ``(1/m) sum_i i / p_i`` (Diaz & Mitra (2023) Table in §2.3.1)."""
    P = _positions(P)
    if P.shape[-1] == 0:
        return _nan(P)
    i = np.arange(1, P.shape[-1] + 1, dtype=np.float64)
    return np.mean(i / P, axis=-1)


def recall_at_k(P: np.ndarray, k: int) -> np.ndarray:
    """Recall at cutoff k: ``#{i : p_i <= k} / m``."""
    P = _positions(P)
    if P.shape[-1] == 0:
        return _nan(P)
    return np.mean(P <= k, axis=-1)


def precision_at_k(P: np.ndarray, k: int) -> np.ndarray:
    """Precision at cutoff k: ``#{i : p_i <= k} / k`` (trec_eval P_k)."""
    if k <= 0:
        raise PrefevalError(f"precision cutoff k must be positive, got {k}")
    P = _positions(P)
    if P.shape[-1] == 0:
        return _nan(P)
    return (P <= k).sum(axis=-1) / k


def rprec(P: np.ndarray) -> np.ndarray:
    """R-precision: ``#{i : p_i <= m} / m``."""
    P = _positions(P)
    m = P.shape[-1]
    if m == 0:
        return _nan(P)
    return np.mean(P <= m, axis=-1)


def ndcg(P: np.ndarray, k: int | None = None) -> np.ndarray:
    """Binary nDCG (optionally @k): ``sum_{p_i <= k} 1/log2(p_i + 1) / sum_{i <= min(m, k)} 1/log2(i + 1)``."""
    P = _positions(P)
    m = P.shape[-1]
    if m == 0:
        return _nan(P)
    cut = np.inf if k is None else k
    gains = np.where(P <= cut, 1.0 / np.log2(P + 1.0), 0.0)
    ideal_levels = m if k is None else min(m, int(k))
    ideal = np.sum(1.0 / np.log2(np.arange(1, ideal_levels + 1) + 1.0))
    return gains.sum(axis=-1) / ideal


def graded_ndcg(doc_pos: np.ndarray, grades: np.ndarray, k: int | None = None) -> np.ndarray:
    """Graded nDCG (optionally @k) with the grade as gain and the ``log2(rank + 1)`` discount, as trec_eval:
    ``sum_j g_j / log2(p_j + 1)`` over the retrieved judged documents (``doc_pos (..., m)``: 1-based ranks,
    ``+inf`` when not retrieved, already cut at ``k``), divided by the DCG of the ideal ranking of the ``m``
    grades (its top ``k``); 0 when no grade is positive."""
    doc_pos = np.asarray(doc_pos, dtype=np.float64)
    grades = np.asarray(grades, dtype=np.float64)
    gains = np.where(np.isfinite(doc_pos), grades / np.log2(doc_pos + 1.0), 0.0)
    ideal_grades = np.sort(grades)[::-1]
    if k is not None:
        ideal_grades = ideal_grades[:k]
    ideal = (ideal_grades / np.log2(np.arange(2, len(ideal_grades) + 2))).sum()
    return gains.sum(axis=-1) / ideal if ideal > 0 else np.zeros(doc_pos.shape[:-1])
