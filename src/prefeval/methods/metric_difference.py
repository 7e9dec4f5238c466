"""The metric-difference preference: a metric ``mu`` compares two runs by ``mu(a) - mu(b)`` per query.

This is how every metric (an ir-measures measure, or a prefeval metric such as RBU) takes part in pairwise
comparisons; two runs tie when their values are exactly equal (Diaz & Mitra (2023) §5.1).
"""

from __future__ import annotations

import numpy as np

__all__ = ["matrix", "ties"]


def matrix(values: np.ndarray) -> np.ndarray:
    """``(..., S, S)`` differences ``values[..., a] - values[..., b]`` of ``(..., S)`` per-run values."""
    values = np.asarray(values, dtype=np.float64)
    return values[..., :, None] - values[..., None, :]


def ties(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exactly equal values tie; two undefined (NaN) values tie too."""
    return (a == b) | (np.isnan(a) & np.isnan(b))
