"""Shared helpers: accept a :class:`prefeval.engine.comparison.Comparison` or its ``per_query`` DataFrame."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from prefeval.core.stats import TIE_TOL
from prefeval.errors import PrefevalError

PER_QUERY_COLUMNS = ("method", "query_id", "run_a", "run_b", "value")

# TIE_TOL: |value| <= TIE_TOL is a tie (the convention of prefeval.core.stats: floating-point noise in
# weighted preferences or metric differences must not count as a preference).
__all__ = ["TIE_TOL", "per_query_frame", "select_methods"]


def per_query_frame(data: Any) -> pd.DataFrame:
    """The tidy per-query preferences ``method, query_id, run_a, run_b, value`` of a Comparison or frame."""
    frame = getattr(data, "per_query", data)
    if not isinstance(frame, pd.DataFrame):
        raise PrefevalError(
            f"expected a prefeval Comparison or its per_query DataFrame, got {type(data).__name__}"
        )
    missing = [c for c in PER_QUERY_COLUMNS if c not in frame.columns]
    if missing:
        raise PrefevalError(f"per-query preferences lack column(s) {missing}; expected {list(PER_QUERY_COLUMNS)}")
    return frame


def select_methods(frame: pd.DataFrame, methods: str | Sequence[str] | None) -> list[str]:
    """The requested methods (default: all, in order of appearance), checked against the frame."""
    present = list(dict.fromkeys(frame["method"].astype(str)))
    if methods is None:
        return present
    wanted = [methods] if isinstance(methods, str) else [str(m) for m in methods]
    unknown = [m for m in wanted if m not in present]
    if unknown:
        raise PrefevalError(f"method(s) {unknown} not in the comparison; present: {present}")
    return wanted
