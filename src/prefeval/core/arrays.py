"""Small array helpers shared by the kernels and the ranking layer."""

from __future__ import annotations

import numpy as np


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-D array, sorted: ``np.unique(values)``, without the masked-array check by which
    ``np.unique`` imports :mod:`numpy.ma` on its first call (a noticeable part of a short command's start-up).
    Unlike ``np.unique``, NaNs are not merged."""
    ordered = np.sort(np.asarray(values), kind="stable")
    if len(ordered) < 2:
        return ordered
    return ordered[stretch_flags(ordered)]


def stretch_flags(values: np.ndarray) -> np.ndarray:
    """Whether each element of a 1-D array starts a stretch of equal consecutive values (the first one does)."""
    values = np.asarray(values)
    flags = np.empty(len(values), dtype=bool)
    if len(values):
        flags[0] = True
        np.not_equal(values[1:], values[:-1], out=flags[1:])
    return flags


def stretch_starts(values: np.ndarray) -> np.ndarray:
    """The index of the first element of each stretch of equal consecutive values of a 1-D array (empty for an empty
    array): where the query ids of rows grouped by query change."""
    return np.flatnonzero(stretch_flags(values))


def stretch_counts(codes: np.ndarray, size: int) -> np.ndarray:
    """``np.bincount(codes, minlength=size)`` of non-negative integer codes, counted per stretch of equal consecutive
    codes: one comparison of neighbours and a count of the stretches, not an increment per element (nor a copy of
    narrow codes widened to ``intp``). The same counts for codes in any order; fast where they stand in long
    stretches, as the query codes of rows grouped by query."""
    codes = np.asarray(codes)
    starts = stretch_starts(codes)
    lengths = np.diff(np.r_[starts, len(codes)])
    return np.bincount(codes[starts], weights=lengths, minlength=size).astype(np.intp)
