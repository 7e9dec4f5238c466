"""Robustness to missing labels and to fewer queries (Diaz & Mitra (2023) §6.2.4, Diaz (2023) §4.2, Diaz & Ferraro (2022) §6.2).

**Label degradation.** For each evaluated query, remove a fraction ``f`` of its relevant documents
(grade >= ``rel``), always keeping at least one: ``keep = max(floor(|R_q| (1 - f)), 1)`` documents stay
(the authors' code keeps ``max(int(|R_q| x fraction kept), 1)``). Removed documents become unjudged, i.e.
non-relevant, and keep their positions in the rankings. Which documents go (``policy``):

- ``"uniform"``: a uniformly random subset of ``R_q`` is removed (Diaz & Mitra (2023) §6.2.4 (a); Diaz (2023));
- ``"popularity-weighted"``: the paper's reading of Diaz & Mitra (2023) §6.2.4 (b), "by ranking frequency, …
  removing 'popular' items": documents are removed by weighted sampling without replacement, with
  weight = the number of rankings (runs) of the query that retrieved the document (Efraimidis–Spirakis
  keys ``log(U) / w``; documents no run retrieved have weight 0 and go only when nothing else is left);
- ``"keep-most-popular"``: the authors' code (``--label_fraction_policy pool``): deterministic, the
  ``keep`` most frequently retrieved documents stay (ties: smaller doc_id first) and the least popular
  are removed. Samples are identical, so it is run once.

Per degraded sample and method, the result reports the ties among ranking pairs under the degraded
labels (Fig. 12), the **agreement with the full-label preferences** (Fig. 13) — among ranking pairs
(query, run pair) that the method separates under the full labels, the fraction whose degraded-label
preference has the same sign; a degraded tie counts as a disagreement (the paper leaves the denominator
open) — and Kendall's tau-b between the system orderings under degraded and
full labels (Diaz & Ferraro (2022) Fig. 7; MC4 for preferences, mean for metrics).

**Query subsampling** (Diaz & Ferraro (2022) Fig. 6; Diaz (2023) Fig. 8): keep ``max(floor(|Q| (1 - f)), 1)`` random
queries; report Kendall's tau-b of the resulting system ordering with the full one, and the system-pair
sign agreement with the full query set (denominator: system pairs the full set separates).

All sampling uses ``numpy.random.default_rng([seed, policy, fraction, sample])``, so any cell is
reproducible on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from prefeval.analysis._frames import TIE_TOL
from prefeval.analysis.agreement import kendall_tau_b, ordering_key, sign_counts
from prefeval.analysis.position_engine import (
    PositionData,
    evaluate_positions,
    frequencies,
    load_positions,
    supported,
)
from prefeval.core.stats import check_seed
from prefeval.data.collection import Collection
from prefeval.data.positions import QueryPositions
from prefeval.engine.compare import compare
from prefeval.engine.comparison import Comparison
from prefeval.engine.methods import parse_method
from prefeval.engine.results import MethodResult
from prefeval.errors import PrefevalError

__all__ = ["POLICIES", "keep_count", "keep_mask", "label_degradation", "query_subsampling", "summarise"]

POLICIES = ("uniform", "popularity-weighted", "keep-most-popular")
#: At most this many random samples per fraction (each sample is one evaluation of every run).
MAX_SAMPLES = 10_000


def check_samples(samples: object, seed: object = 0, name: str = "samples") -> None:
    """``samples`` must be an integer in 1..:data:`MAX_SAMPLES` and ``seed`` a non-negative integer; else a
    :class:`PrefevalError` naming them, before any sample is drawn."""
    if isinstance(samples, (bool, np.bool_)) or not isinstance(samples, (int, np.integer)) \
            or not 1 <= samples <= MAX_SAMPLES:
        raise PrefevalError(f"{name} must be an integer between 1 and {MAX_SAMPLES:,}; got {samples!r}")
    check_seed(seed)
_EPS = 1e-9


def keep_count(total: int, fraction_removed: float) -> int:
    """``max(floor(total * (1 - f)), 1)``, guarded against float rounding (10 x 0.2 is 2, not 1.999…)."""
    if not 0 <= fraction_removed < 1:
        raise PrefevalError(f"the fraction removed must be in [0, 1), got {fraction_removed}")
    return max(int(np.floor(total * (1.0 - fraction_removed) + _EPS)), 1)


def keep_mask(query: QueryPositions, fraction_removed: float, policy: str, rng: np.random.Generator,
              rel: int = 1) -> np.ndarray:
    """Boolean mask over ``query.doc_ids``: the labels that stay (documents with grade < ``rel`` always stay)."""
    if policy not in POLICIES:
        raise PrefevalError(f"unknown label-removal policy {policy!r}; choose one of {', '.join(POLICIES)}")
    relevant = np.flatnonzero(query.grades >= rel)
    mask = np.ones(len(query.doc_ids), dtype=bool)
    if len(relevant) == 0:
        return mask
    n_remove = len(relevant) - keep_count(len(relevant), fraction_removed)
    if n_remove == 0:
        return mask
    freq = frequencies(query)[relevant].astype(np.float64)
    if policy == "uniform":
        removed = rng.permutation(relevant)[:n_remove]
    elif policy == "popularity-weighted":
        u = rng.random(len(relevant))
        with np.errstate(divide="ignore"):
            key = np.where(freq > 0, np.log(u) / np.where(freq > 0, freq, 1.0), -np.inf)
        order = np.lexsort((rng.random(len(relevant)), -key))  # largest key first, random among -inf
        removed = relevant[order[:n_remove]]
    else:
        doc_ids = np.asarray(query.doc_ids[relevant]).astype(str)
        order = np.lexsort((doc_ids, -freq))  # most popular first, then doc_id ascending
        removed = relevant[order[len(relevant) - n_remove:]]
    mask[removed] = False
    return mask


def _pair_values(comparison: Comparison, label: str) -> tuple[np.ndarray, np.ndarray]:
    r = comparison.results[label]
    i, j = np.triu_indices(len(comparison.runs), 1)
    return r.query_ids, r.prefs[:, i, j]


def _ordering_key(comparison: Comparison, label: str) -> np.ndarray:
    return ordering_key(comparison, label).reindex(comparison.runs).to_numpy()


def _compare_to_full(full: Comparison, degraded: Comparison, label: str, full_key: np.ndarray,
                     tol: float) -> dict[str, Any]:
    q_full, v_full = _pair_values(full, label)
    q_deg, v_deg = _pair_values(degraded, label)
    _, a, b = np.intersect1d(q_full.astype(str), q_deg.astype(str), return_indices=True)
    same = sign_counts(v_deg[b], v_full[a], "disagree", tol)
    tied = np.abs(v_deg) <= tol
    return {
        "queries": len(q_deg),
        "pairs": int(v_deg.size),
        "ties": int(tied.sum()),
        "fraction_tied": float(tied.mean()) if v_deg.size else np.nan,
        "full_strict": same["pairs"],
        "agreement": same["agreement"],
        "tau": kendall_tau_b(full_key, _ordering_key(degraded, label)),
    }


def label_degradation(qrels: Any, runs: Any, methods: Sequence[Any], *,
                      fractions: Sequence[float] = (0.2, 0.4, 0.6, 0.8),
                      policies: Sequence[str] = POLICIES, samples: int = 10, rel: int = 1,
                      depth: int | None = None, seed: int = 0, tol: float = TIE_TOL,
                      data: PositionData | None = None) -> pd.DataFrame:
    """Ties and agreement with the full labels after removing relevant labels (see module doc).

    ``qrels`` / ``runs`` / ``methods`` as for :func:`prefeval.engine.compare.compare`. Methods the position engine
    supports (LexiRecall, LexiPrecision, RPP, AP, RR, R@k, P@k, Rprec, TSE, nDCG) are evaluated from the
    position arrays; with any other method every sample runs :func:`~prefeval.engine.compare.compare` on the
    reduced qrels (same results, much slower). ``data`` may pass a
    :func:`~prefeval.analysis.position_engine.load_positions` result to skip ranking the runs again.
    Returns one row per ``policy, fraction_removed, sample, method`` with ``queries, pairs, ties,
    fraction_tied, full_strict, agreement, tau``.
    """
    check_samples(samples, seed)
    for policy in policies:
        if policy not in POLICIES:
            raise PrefevalError(f"unknown label-removal policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if data is None:
        data = load_positions(qrels, runs, depth)
    engine = all(supported(parse_method(m, rel, depth), data) for m in methods)
    if not engine and (qrels is None or runs is None):
        raise PrefevalError("label_degradation: methods outside the position engine need qrels and runs")
    qrels_df = None if engine else Collection.of(qrels).frame

    def evaluate_labels(keep: dict[str, np.ndarray] | None) -> Comparison:
        if engine:
            return evaluate_positions(data, methods, rel=rel, keep=keep)
        reduced = qrels_df if keep is None else _reduced_qrels(qrels_df, data, keep)
        return compare(reduced, runs, list(methods), rel=rel, depth=depth)

    full = evaluate_labels(None)
    full_keys = {label: _ordering_key(full, label) for label in full.methods}
    evaluated = [q for q in data.queries if (q.grades >= rel).any()]
    rows = []
    for p_index, policy in enumerate(policies):
        n_samples = 1 if policy == "keep-most-popular" else samples
        for f_index, fraction in enumerate(fractions):
            keep_count(1, fraction)  # validates the fraction
            for sample in range(n_samples):
                rng = np.random.default_rng([seed, p_index, f_index, sample])
                keep = {q.query_id: keep_mask(q, fraction, policy, rng, rel) for q in evaluated}
                degraded = evaluate_labels(keep)
                for label in full.methods:
                    rows.append({"policy": policy, "fraction_removed": float(fraction), "sample": sample,
                                 "method": label, **_compare_to_full(full, degraded, label, full_keys[label], tol)})
    return pd.DataFrame(rows)


def _reduced_qrels(qrels: pd.DataFrame, data: PositionData, keep: dict[str, np.ndarray]) -> pd.DataFrame:
    """``qrels`` without the rows of the documents ``keep`` drops (every subtopic row of such a document)."""
    removed = [pd.DataFrame({"query_id": q.query_id, "doc_id": q.doc_ids[~keep[q.query_id]]})
               for q in data.queries if q.query_id in keep]
    if not removed:
        return qrels
    gone = pd.concat(removed, ignore_index=True).assign(_gone=True)
    merged = qrels.merge(gone, on=["query_id", "doc_id"], how="left")
    return qrels[merged["_gone"].isna().to_numpy()].reset_index(drop=True)


def _subset(comparison: Comparison, query_ids: set[str]) -> Comparison:
    results = []
    for r in comparison.results.values():
        idx = np.flatnonzero(np.isin(r.query_ids.astype(str), list(query_ids)))
        values = None if r.values is None else r.values[idx]
        results.append(MethodResult(r.method, r.query_ids[idx], r.prefs[idx], values))
    return Comparison(comparison.runs, results)


def query_subsampling(comparison: Comparison, *, fractions: Sequence[float] = (0.2, 0.4, 0.6, 0.8),
                      samples: int = 10, seed: int = 0, tol: float = TIE_TOL) -> pd.DataFrame:
    """Stability of the system orderings when a fraction of the queries is removed (see module doc).

    Returns one row per ``fraction_removed, sample, method`` with ``queries, tau, system_pairs,
    system_agreement``.
    """
    if not isinstance(comparison, Comparison):
        raise PrefevalError("query_subsampling needs a prefeval Comparison")
    check_samples(samples, seed)
    all_queries = sorted({str(q) for r in comparison.results.values() for q in r.query_ids})
    full_keys = {label: _ordering_key(comparison, label) for label in comparison.methods}
    i, j = np.triu_indices(len(comparison.runs), 1)
    full_means = {label: r.prefs.mean(axis=0)[i, j] for label, r in comparison.results.items()}
    rows = []
    for f_index, fraction in enumerate(fractions):
        keep = keep_count(len(all_queries), fraction)
        for sample in range(samples):
            rng = np.random.default_rng([seed, f_index, sample])
            chosen = set(rng.choice(all_queries, size=keep, replace=False).tolist())
            sub = _subset(comparison, chosen)
            for label, r in sub.results.items():
                if len(r.query_ids) == 0:
                    rows.append({"fraction_removed": float(fraction), "sample": sample, "method": label,
                                 "queries": 0, "tau": np.nan, "system_pairs": 0, "system_agreement": np.nan})
                    continue
                same = sign_counts(r.prefs.mean(axis=0)[i, j], full_means[label], "disagree", tol)
                rows.append({"fraction_removed": float(fraction), "sample": sample, "method": label,
                             "queries": len(r.query_ids),
                             "tau": kendall_tau_b(full_keys[label], _ordering_key(sub, label)),
                             "system_pairs": same["pairs"], "system_agreement": same["agreement"]})
    return pd.DataFrame(rows)


def summarise(results: pd.DataFrame, values: Sequence[str] | None = None) -> pd.DataFrame:
    """Mean and standard deviation over samples of a :func:`label_degradation` or :func:`query_subsampling`
    result (columns ``<value>_mean``, ``<value>_std``; std is 0 for a single sample)."""
    keys = [c for c in ("policy", "fraction_removed", "method") if c in results.columns]
    if values is None:
        values = [c for c in ("fraction_tied", "agreement", "tau", "system_agreement") if c in results.columns]
    grouped = results.groupby(keys, sort=False)[list(values)]
    mean = grouped.mean().add_suffix("_mean")
    std = grouped.std(ddof=0).add_suffix("_std")
    out = pd.concat([mean, std], axis=1)
    out["samples"] = grouped.size()
    return out.reset_index()
