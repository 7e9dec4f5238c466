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

from prefeval.core import diversity
from prefeval.data.aspects import aspect_arrays, single_aspect
from prefeval.data.collection import Collection
from prefeval.data.inputs import runs_dict
from prefeval.errors import PrefevalError

__all__ = ["PAPER_GRID", "diversity_scores", "metric_unanimity", "mu_table", "unanimity_counts"]


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


# ------------------------------------------------------------------------ the RBU paper's metric set (§6, Table 2)

_CUTOFFS = (10, 20, 50, 100, 1000)
_P = (0.8, 0.9, 0.99)
_ALPHA = (0.1, 0.25, 0.5, 0.75)
_E = (0.001, 0.05, 0.1, 0.5)


def _grid() -> list[tuple[str, str, str, bool, dict]]:
    """(label, family, kernel, single_aspect, params) of every metric variant of :data:`PAPER_GRID`."""
    grid: list[tuple[str, str, str, bool, dict]] = [
        ("AP", "AP", "AP_IA", True, {}), ("RR", "RR", "RR_IA", True, {}),
        ("AP-IA", "AP-IA", "AP_IA", False, {}), ("RR-IA", "RR-IA", "RR_IA", False, {}),
        ("S-RR@100%", "S-RR@100%", "S_RR", False, {}),
    ]
    for k in _CUTOFFS:
        grid += [
            (f"P@{k}", "P@k", "P_IA", True, {"k": k}), (f"P-IA@{k}", "P-IA@k", "P_IA", False, {"k": k}),
            (f"ERR@{k}", "ERR@k", "ERR_IA", True, {"k": k}), (f"ERR-IA@{k}", "ERR-IA@k", "ERR_IA", False, {"k": k}),
            (f"DCG@{k}", "DCG@k", "nDCG_IA", True, {"k": k, "normalise": False}),
            (f"DCG-IA@{k}", "DCG-IA@k", "nDCG_IA", False, {"k": k, "normalise": False}),
            (f"S-Recall@{k}", "S-Recall@k", "S_Recall", False, {"k": k}),
            (f"D#-nDCG@{k}", "D#-nDCG@k", "D_sharp_nDCG", False, {"k": k}),
            (f"CT@{k}", "CT@k", "CT", False, {"k": k}),
        ]
        grid += [(f"α-DCG(α={a})@{k}", "α-DCG@k", "alpha_nDCG", False, {"k": k, "alpha": a}) for a in _ALPHA]
    for p in _P:
        grid.append((f"RBP(p={p})", "RBP", "RBP_IA", True, {"p": p}))
        grid += [(f"NRBP(p={p},α={a})", "NRBP", "NRBP", False, {"p": p, "alpha": a}) for a in _ALPHA]
        grid += [(f"RBU(p={p},e={e})", "RBU", "RBU", False, {"p": p, "e": e}) for e in _E]
    grid += [(f"EU(α={a},e={e})", "EU", "EU", False, {"alpha": a, "e": e}) for a in _ALPHA for e in _E]
    return grid


PAPER_GRID = _grid()
"""The metrics of Amigó et al. (2018) §6 (Experiment 1) at its parameter grid — k in {10, 20, 50, 100, 1000},
p in {0.8, 0.9, 0.99}, alpha in {0.1, 0.25, 0.5, 0.75}, e in {0.001, 0.05, 0.1, 0.5} — plus S-RR@100%, D#-nDCG@k
and CT@k: ``(label, family, kernel, single_aspect, params)``. Single-aspect metrics score r(d) = max_t r(d,t)
(the paper's §6.2); unnormalised forms (DCG, alpha-DCG) since normalisation cannot change MU (Table 2 caption)."""


def diversity_scores(qrels, runs, grid: Sequence[tuple[str, str, str, bool, dict]] | None = None,
                     rel: int = 1) -> pd.DataFrame:
    """Per-query scores of every metric of ``grid`` (default :data:`PAPER_GRID`) for every run.

    ``qrels``: diversity qrels (subtopics in ``iteration``); ``runs``: anything
    :func:`prefeval.data.inputs.runs_dict` accepts (e.g. ``{name: path}``). Relevance r(d,t) is the ERR mapping of RBU
    (:mod:`prefeval.data.aspects`). Returns a tidy frame ``run, query_id, measure, family, value``, ready for
    :func:`metric_unanimity` (``by="query_id"``).
    """
    grid = PAPER_GRID if grid is None else list(grid)
    qrels = Collection.of(qrels).frame
    frames = []
    for name, run in runs_dict(runs).items():
        for a in aspect_arrays(qrels, run, rel, bucket=False):
            one = single_aspect(a)
            for label, family, kernel, single, params in grid:
                b = one if single else a
                values = diversity.evaluate(kernel, b.r, b.weights, length=b.length, pool=b.pool, **params)
                frames.append(pd.DataFrame({"run": name, "query_id": a.query_ids, "measure": label,
                                            "family": family, "value": values}))
    return pd.concat(frames, ignore_index=True)


def mu_table(scores: pd.DataFrame, by: str | Sequence[str] | None = "query_id") -> pd.DataFrame:
    """The MU table of Amigó et al. (2018) Table 2: MU of every metric of a tidy score table (e.g.
    :func:`diversity_scores`) against all the others, outputs paired within ``by`` (default: per topic).

    Returns ``measure, family, mu, pairs``, sorted by MU descending (``family`` if the scores have one).
    """
    table = metric_unanimity(scores.drop(columns=["family"], errors="ignore"), by=by)
    if "family" in scores.columns:
        families = scores.drop_duplicates("measure").set_index("measure")["family"]
        table.insert(1, "family", table["measure"].map(families))
    return table
