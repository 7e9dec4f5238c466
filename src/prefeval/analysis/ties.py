"""Tie rates: how often a method fails to separate two rankings of the same query.

Diaz & Mitra (2023) §6.2.2 (Fig. 10) and Diaz (2023) §4.2 (Table 3): over all pairs of rankings from two
different systems for the same request, the fraction whose comparison is a tie. A preference ties
when its value is 0; a metric ties when the two rankings get equal values, i.e. the per-query
metric difference is 0. Values with ``|value| <= tol`` count as ties (default
``prefeval.core.stats.TIE_TOL`` = 1e-12, the tolerance of the significance tests, so that
floating-point noise in weighted preferences is not a preference).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from prefeval.analysis._frames import TIE_TOL, per_query_frame, select_methods

__all__ = ["tie_rates"]


def tie_rates(comparison: Any, methods: str | Sequence[str] | None = None, *, by_query: bool = False,
              tol: float = TIE_TOL) -> pd.DataFrame:
    """Fraction of tied ranking pairs per method.

    ``comparison``: a :class:`prefeval.engine.comparison.Comparison` or its ``per_query`` DataFrame (one row per
    query and unordered pair of runs). Returns ``method, pairs, ties, fraction_tied`` (with ``query_id``
    first when ``by_query=True``), one row per method in the requested order.
    """
    frame = per_query_frame(comparison)
    chosen = select_methods(frame, methods)
    sub = frame[frame["method"].astype(str).isin(chosen)]
    tied = pd.Series(np.abs(sub["value"].to_numpy(dtype=np.float64)) <= tol, index=sub.index)
    keys = ["query_id", "method"] if by_query else ["method"]
    grouped = tied.groupby([sub[k].astype(str) for k in keys], sort=False)
    out = pd.DataFrame({"pairs": grouped.size(), "ties": grouped.sum().astype(np.int64)}).reset_index()
    out["fraction_tied"] = out["ties"] / out["pairs"]
    order = {m: i for i, m in enumerate(chosen)}
    sort_keys = (["query_id"] if by_query else []) + ["_order"]
    out["_order"] = out["method"].map(order)
    return out.sort_values(sort_keys, kind="stable").drop(columns="_order").reset_index(drop=True)
