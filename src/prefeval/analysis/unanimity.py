"""Metric unanimity (MU), Amigó et al. (2018) §6.1 (Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018).

For a metric ``m``, the set ``ℳ`` of the other metrics and a set of system outputs, over ordered
pairs ``(i, j)``, ``i != j``:

- ``Δm_ij``: ``m(i) > m(j)``; a tie ``m(i) = m(j)`` counts 0.5 (footnote 9: "we add 0.5 to the
  statistical count", so ``P(Δm) = 1/2`` exactly);
- ``Δℳ_ij``: ``m'(i) >= m'(j)`` for **every** ``m' ∈ ℳ`` (note ``>=``);
- ``MU(m) = PMI(Δm, Δℳ) = log2( P(Δm, Δℳ) / (P(Δm) P(Δℳ)) )``.

Base-2 logarithm, as it reproduces the paper's worked value ``log2(4/3) = 0.415``. MU is 1 when
``m`` agrees with every unanimous pair, 0 for a constant or random metric, ``-inf`` when it agrees
with none; NaN when no pair is unanimous (``P(Δℳ) = 0``).

Which outputs are paired is not stated in the paper; the natural reading, used here
when ``by`` is given (e.g. ``by="query_id"``), pairs the outputs of different systems **for the same
topic** and pools the pairs over topics. Metrics must be oriented "higher is better".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from prefeval.errors import PrefevalError

__all__ = ["unanimity_counts", "metric_unanimity"]


def unanimity_counts(values: np.ndarray, target: int,
                     groups: np.ndarray | None = None) -> tuple[float, float, float, int]:
    """Counts behind MU for column ``target`` of ``values`` (outputs x metrics), pairs within ``groups``.

    Returns ``(sum δm, sum δℳ, sum δm·δℳ, number of ordered pairs)``. Vectorised per group.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] < 2:
        raise PrefevalError(f"metric unanimity needs a (outputs, metrics >= 2) table, got shape {values.shape}")
    if np.isnan(values).any():
        raise PrefevalError("metric unanimity: the score table contains NaN (a metric undefined for some output)")
    if groups is None:
        groups = np.zeros(len(values), dtype=np.int64)
    others = [c for c in range(values.shape[1]) if c != target]
    dm_sum = dM_sum = joint_sum = 0.0
    pairs = 0
    _, codes = np.unique(np.asarray(groups), return_inverse=True)
    for g in range(codes.max() + 1 if len(codes) else 0):
        block = values[codes == g]
        s = len(block)
        if s < 2:
            continue
        off = ~np.eye(s, dtype=bool)
        t = block[:, target]
        dm = np.where(t[:, None] > t[None, :], 1.0, np.where(t[:, None] == t[None, :], 0.5, 0.0))
        o = block[:, others]
        dM = (o[:, None, :] >= o[None, :, :]).all(axis=2).astype(np.float64)
        dm_sum += dm[off].sum()
        dM_sum += dM[off].sum()
        joint_sum += (dm * dM)[off].sum()
        pairs += s * (s - 1)
    return dm_sum, dM_sum, joint_sum, pairs


def _mu(dm: float, dM: float, joint: float, pairs: int) -> float:
    if pairs == 0 or dM == 0:
        return float("nan")
    p_joint, p_m, p_M = joint / pairs, dm / pairs, dM / pairs
    if p_joint == 0:
        return float("-inf")
    return float(np.log2(p_joint / (p_m * p_M)))


def _wide(scores: pd.DataFrame, by: str | Sequence[str] | None) -> tuple[pd.DataFrame, list[str] | None]:
    """Accept a wide table (one column per metric) or a tidy one (``measure, value`` columns)."""
    by_cols = [by] if isinstance(by, str) else (list(by) if by is not None else None)
    if {"measure", "value"} <= set(scores.columns):
        index = [c for c in scores.columns if c not in ("measure", "value")]
        if not index:
            raise PrefevalError("tidy scores need identifying columns (e.g. run, query_id) beside measure, value")
        dup = scores.duplicated(subset=index + ["measure"])
        if dup.any():
            row = scores[dup].iloc[0].to_dict()
            raise PrefevalError(f"metric unanimity: duplicate score for {row}")
        wide = scores.pivot(index=index, columns="measure", values="value").reset_index()
        wide.columns.name = None
        return wide, by_cols
    return scores, by_cols


def metric_unanimity(scores: pd.DataFrame, measure: str | None = None, *, others: Sequence[str] | None = None,
                     by: str | Sequence[str] | None = None) -> float | pd.DataFrame:
    """Metric unanimity of ``measure`` against ``others`` (default: every other metric column).

    ``scores``: either wide (one row per system output, one numeric column per metric, plus any
    identifying columns such as ``run`` / ``query_id``) or tidy with columns ``measure, value`` and
    identifying columns (the per-query output of :func:`prefeval.evaluate` with ``per_query=True``).
    ``by``: column(s) within which outputs are paired (e.g. ``"query_id"``); default: all rows form one
    set. With ``measure=None`` returns a DataFrame ``measure, mu, pairs`` for every metric (the others
    being all remaining metrics), sorted by MU descending.

    >>> table = pd.DataFrame({"m1": [1, .5, .2], "m2": [.8, .3, .4], "m3": [1, .2, .5]})
    >>> round(metric_unanimity(table, "m1"), 3)
    0.415
    """
    wide, by_cols = _wide(scores, by)
    id_cols = set(by_cols or []) | {"run", "query_id", "system", "topic"}
    metric_cols = [c for c in wide.columns if c not in id_cols and pd.api.types.is_numeric_dtype(wide[c])]
    for col in [measure, *(others or [])]:
        if col is not None and col not in wide.columns:
            raise PrefevalError(f"metric unanimity: no column {col!r}; metrics present: {metric_cols}")
    if by_cols:
        missing = [c for c in by_cols if c not in wide.columns]
        if missing:
            raise PrefevalError(f"metric unanimity: grouping column(s) {missing} not in the score table")
        groups = wide[by_cols].astype(str).agg("\x1f".join, axis=1).to_numpy()
    else:
        groups = None

    def one(target: str) -> tuple[float, int]:
        rest = list(others) if others is not None else [c for c in metric_cols if c != target]
        rest = [c for c in rest if c != target]
        if not rest:
            raise PrefevalError(f"metric unanimity of {target!r} needs at least one other metric")
        table = wide[[target, *rest]].to_numpy(dtype=np.float64)
        dm, dM, joint, pairs = unanimity_counts(table, 0, groups)
        return _mu(dm, dM, joint, pairs), pairs

    if measure is not None:
        return one(measure)[0]
    rows = [{"measure": col, "mu": value, "pairs": pairs} for col in metric_cols for value, pairs in [one(col)]]
    return pd.DataFrame(rows).sort_values("mu", ascending=False, kind="stable").reset_index(drop=True)
