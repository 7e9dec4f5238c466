"""Diversity metrics of Table 1 of Amigó, Spina & Carrillo-de-Albornoz (SIGIR 2018), as numpy kernels.

Every kernel takes the inputs of :func:`prefeval.core.rbu.rbu`:

- ``r``: ``(..., n, T)`` satisfaction probabilities r(d_i, t) in [0, 1] of the document at each position for
  each aspect (from integer grades: :func:`prefeval.core.rbu.relevance_probabilities`, the ERR mapping of the
  RBU authors' tool). Leading axes are independent rankings (queries, runs); positions past a ranking's
  ``length`` are padding (r = 0).
- ``weights``: aspect weights w(t) (Amigó et al. (2018) §3.1), broadcastable to ``r.shape[:-2] + (T,)``. An
  aspect of weight 0 is not an aspect of the query (padding, or no relevant document): it counts neither in
  S-Recall's denominator nor in alpha-nDCG's and NRBP's unweighted sums.
- ``length`` (documents per ranking, default n) and ``k`` (cutoff, default: the whole ranking).
- ``pool``: ``(..., m, T)`` r of every judged document of the query (padding rows 0), for the metrics that
  need the recall base or an ideal ranking (AP-IA, nDCG-IA, D#-nDCG, normalised alpha-nDCG and NRBP).

A document is *relevant* to t when r(d, t) > 0; the count-based metrics (P-IA, AP-IA, RR-IA, S-Recall,
S-RR and the novelty discount ``(1 - alpha)^c(i,t)``) use only that. c(i, t) = |{j < i : r(d_j, t) > 0}|
(Amigó et al. (2018) §4.3). Every kernel returns a float64 array of shape ``r.shape[:-2]``.

:func:`evaluate` is the common entry point: ``evaluate("EU", r, weights, length=..., e=0.05)``;
:data:`KERNELS` lists the names. Choices the papers leave open are parameters with their authors' default
where one exists; each kernel's docstring names the source.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from prefeval.core.rbu import prepare_inputs, rbu
from prefeval.errors import PrefevalError

__all__ = [
    "KERNELS", "act", "alpha_ndcg", "ap_ia", "ct", "d_sharp_ndcg", "err_ia", "eu", "evaluate", "greedy_ideal_gains",
    "ndcg_ia", "nrbp", "precision_ia", "rbp_ia", "rbu_kernel", "rr_ia", "s_recall", "s_rr",
]

# ----------------------------------------------------------------------------------------------------- helpers


def _check_unit(name: str, label: str, value: float, low_open: bool = False, high_open: bool = False) -> float:
    """``value`` as a float in [0, 1] (open ends as requested), else a PrefevalError naming the measure."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise PrefevalError(f"{name}: {label} must be a number, got {label}={value!r}")
    v = float(value)
    ok = (v > 0.0 if low_open else v >= 0.0) and (v < 1.0 if high_open else v <= 1.0)
    if not ok:
        interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
        raise PrefevalError(f"{name}: {label} must lie in {interval}, got {label}={value!r}")
    return v


def _check_nonnegative(name: str, label: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (float(value) >= 0.0) \
            or not np.isfinite(float(value)):
        raise PrefevalError(f"{name}: {label} must be a finite number >= 0, got {label}={value!r}")
    return float(value)


def _check_log_base(name: str, base: float) -> float:
    if isinstance(base, bool) or not isinstance(base, numbers.Real) or not float(base) > 1.0:
        raise PrefevalError(f"{name}: log_base must be a number > 1, got log_base={base!r}")
    return float(base)


def _pool(name: str, pool: ArrayLike | None, r: np.ndarray) -> np.ndarray:
    """The judged documents' r, ``(..., m, T)`` matching ``r``'s rankings and aspects."""
    if pool is None:
        raise PrefevalError(f"{name}: needs pool= (r of every judged document of the query) for its ideal ranking "
                            "or recall base")
    pl = np.asarray(pool, dtype=np.float64)
    if pl.ndim < 2 or pl.shape[-1] != r.shape[-1]:
        raise PrefevalError(f"{name}: pool must have shape (..., m, {r.shape[-1]}), got {pl.shape}")
    if not np.all((pl >= 0.0) & (pl <= 1.0)):
        raise PrefevalError(f"{name}: pool relevance values must lie in [0, 1]")
    try:
        return np.broadcast_to(pl, r.shape[:-2] + pl.shape[-2:])
    except ValueError as exc:
        raise PrefevalError(f"{name}: pool of shape {pl.shape} does not match rankings of shape {r.shape[:-2]}") from exc


def _positions(n: int) -> np.ndarray:
    """1-based ranks 1..n as float64."""
    return np.arange(1, n + 1, dtype=np.float64)


def _log(x: np.ndarray, base: float) -> np.ndarray:
    return np.log(x) / np.log(base)


def _novelty(relevant: np.ndarray, alpha: float) -> np.ndarray:
    """``(1 - alpha)^c(i,t)``, c(i,t) = relevant documents for t before position i (Clarke et al. (2008) §4)."""
    before = np.cumsum(relevant, axis=-2) - relevant
    return (1.0 - alpha) ** before


def _cascade(r: np.ndarray) -> np.ndarray:
    """``prod_{j<i} (1 - r(d_j,t))``: probability that aspect t is still unsatisfied at position i."""
    lead, t = r.shape[:-2], r.shape[-1]
    survive = np.cumprod(1.0 - r, axis=-2)
    return np.concatenate([np.ones(lead + (1, t)), survive[..., :-1, :]], axis=-2)


def _aspects(w: np.ndarray) -> np.ndarray:
    """Which aspects belong to the query (weight > 0)."""
    return w > 0.0


def _held(lengths: np.ndarray, n: int) -> np.ndarray:
    """``(..., n)`` mask of the positions that hold a document."""
    return np.arange(n) < lengths[..., None]


def greedy_ideal_gains(pool: np.ndarray, aspects: np.ndarray, alpha: float, depth: int) -> np.ndarray:
    """Novelty gains of the greedy ideal ranking of alpha-nDCG (Clarke et al. (2008) §4.1).

    At each step the judged document with the largest ``sum_t r(d,t) (1 - alpha)^c_t`` (over the query's aspects,
    c_t = relevant documents for t already placed) is placed next; ties go to the earlier pool row (so a pool
    ordered by doc id descending breaks ties as ndeval does). Computing the true ideal is NP-hard; the greedy
    approximation is the one of the authors' tool.

    Returns:
        ``(..., depth)`` gains of ranks 1..depth (0 once the pool is exhausted).
    """
    lead, m = pool.shape[:-2], pool.shape[-2]
    gains = np.zeros(lead + (depth,))
    if m == 0 or depth == 0:
        return gains
    flat = np.where(aspects[..., None, :], pool, 0.0).reshape((-1, m, pool.shape[-1]))
    q = flat.shape[0]
    factor = np.ones((q, flat.shape[-1]))
    used = np.zeros((q, m), dtype=bool)
    out = gains.reshape((q, depth))
    rows = np.arange(q)
    for step in range(min(depth, m)):
        score = np.einsum("qmt,qt->qm", flat, factor)
        score[used] = -1.0
        best = np.argmax(score, axis=1)
        out[:, step] = np.maximum(score[rows, best], 0.0)
        used[rows, best] = True
        factor = factor * np.where(flat[rows, best] > 0.0, 1.0 - alpha, 1.0)
    return out.reshape(lead + (depth,))


# --------------------------------------------------------------------------------- intent-aware scheme (§4.2)


def precision_ia(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
                 pool: ArrayLike | None = None) -> np.ndarray:
    """P-IA@k = sum_t w(t) |{i <= k : r(d_i,t) > 0}| / k (Agrawal et al. (2009) §6.1; Amigó et al. (2018) §4.2, fn. 3).

    The denominator is k even when the ranking is shorter (as ndeval); without ``k``, the ranking's length.
    """
    r, w, lengths = prepare_inputs(r, weights, length, k, "P-IA")
    hits = (r > 0.0).sum(axis=-2)
    denom = np.full(lengths.shape, float(k)) if k is not None else lengths.astype(np.float64)
    value = (w * hits).sum(axis=-1)
    return np.divide(value, denom, out=np.zeros_like(value), where=denom > 0)


def ap_ia(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
          pool: ArrayLike | None = None) -> np.ndarray:
    """AP-IA = sum_t w(t) AP_t (Agrawal et al. (2009) §6.1; Amigó et al. (2018) §4.2, fn. 4).

    ``AP_t = (1/R_t) sum_{i : r(d_i,t) > 0} |{j <= i : r(d_j,t) > 0}| / i``, with R_t the number of judged
    documents relevant to t in ``pool`` (the recall base; AP_t = 0 when R_t = 0).
    """
    r, w, lengths = prepare_inputs(r, weights, length, k, "AP-IA")
    recall_base = (_pool("AP-IA", pool, r) > 0.0).sum(axis=-2)
    rel = r > 0.0
    precision = np.cumsum(rel, axis=-2) / _positions(r.shape[-2])[:, None]
    total = np.where(rel, precision, 0.0).sum(axis=-2)
    ap = np.divide(total, recall_base, out=np.zeros_like(total), where=recall_base > 0)
    return (w * ap).sum(axis=-1)


def rr_ia(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
          pool: ArrayLike | None = None) -> np.ndarray:
    """RR-IA@k = sum_t w(t) / (rank of the first document relevant to t), 0 if none (Amigó et al. (2018) §4.2)."""
    r, w, lengths = prepare_inputs(r, weights, length, k, "RR-IA")
    if r.shape[-2] == 0:
        return np.zeros(lengths.shape)
    rel = r > 0.0
    first = np.argmax(rel, axis=-2) + 1.0
    rr = np.where(rel.any(axis=-2), 1.0 / first, 0.0)
    return (w * rr).sum(axis=-1)


def ndcg_ia(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
            pool: ArrayLike | None = None, normalise: bool = True, log_base: float = 2.0) -> np.ndarray:
    """nDCG-IA@k = sum_t w(t) DCG_t@k / IDCG_t@k (Agrawal et al. (2009) §6.1 over Järvelin & Kekäläinen's nDCG).

    ``DCG_t@k = sum_{i <= k} r(d_i,t) / log_b(i + 1)``: the gain is r(d,t), which under the ERR mapping is
    ``(2^g - 1) / 2^gmax_t``, i.e. the usual ``2^g - 1`` gain scaled per aspect (the scale cancels in nDCG_t).
    IDCG_t@k sorts the pool by r(d,t). ``normalise=False`` gives DCG-IA (Amigó et al. (2018) Table 2); the log
    base (default 2, Burges et al.'s form) cancels in the normalised value.
    """
    base = _check_log_base("nDCG-IA", log_base)
    r, w, lengths = prepare_inputs(r, weights, length, k, "nDCG-IA")
    n = r.shape[-2]
    discount = 1.0 / _log(_positions(n) + 1.0, base)
    dcg = np.einsum("...it,i->...t", r, discount)
    if normalise:
        pl = _pool("nDCG-IA", pool, r)
        depth = pl.shape[-2] if k is None else min(k, pl.shape[-2])
        best = -np.sort(-pl, axis=-2)[..., :depth, :]
        ideal = np.einsum("...it,i->...t", best, 1.0 / _log(_positions(depth) + 1.0, base))
        dcg = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
    return (w * dcg).sum(axis=-1)


def err_ia(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
           pool: ArrayLike | None = None) -> np.ndarray:
    """ERR-IA@k = sum_t w(t) sum_{i <= k} (1/i) r(d_i,t) prod_{j<i} (1 - r(d_j,t)) (Chapelle et al. (2009) §4,
    Agrawal et al. (2009) §6.1), on graded r(d,t) as Amigó et al. (2018) §4.2 analyse it."""
    r, w, lengths = prepare_inputs(r, weights, length, k, "ERR-IA")
    gain = np.einsum("...it,...it,...t->...i", r, _cascade(r), w)
    return gain @ (1.0 / _positions(r.shape[-2]))


def rbp_ia(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
           pool: ArrayLike | None = None, p: float = 0.8) -> np.ndarray:
    """RBP-IA = sum_t w(t) (1 - p) sum_i p^(i-1) r(d_i,t) (Moffat & Zobel (2008) Eq. 6, graded gains r(d,t);
    Amigó et al. (2018) §4.2). ``p`` in (0, 1); default 0.8 (a value Moffat & Zobel discuss and the RBU paper's
    grid uses). A single-aspect ``r`` gives graded RBP."""
    pf = _check_unit("RBP-IA", "p", p, low_open=True, high_open=True)
    r, w, lengths = prepare_inputs(r, weights, length, k, "RBP-IA")
    gain = np.einsum("...it,...t->...i", r, w)
    return (1.0 - pf) * (gain @ pf ** (_positions(r.shape[-2]) - 1.0))


# --------------------------------------------------------------------------------- other diversity metrics (§4.3)


def s_recall(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
             pool: ArrayLike | None = None) -> np.ndarray:
    """S-Recall@k = |{t : some d_i, i <= k, has r(d_i,t) > 0}| / |T| (Zhai et al. (2003) §3; ignores weights).

    T = the aspects with weight > 0 (for prefeval's qrels: the subtopics with a relevant document, as ndeval).
    """
    r, w, lengths = prepare_inputs(r, weights, length, k, "S-Recall")
    aspects = _aspects(w)
    covered = ((r > 0.0).any(axis=-2) & aspects).sum(axis=-1)
    total = aspects.sum(axis=-1)
    return np.divide(covered, total, out=np.zeros(covered.shape), where=total > 0)


def s_rr(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
         pool: ArrayLike | None = None) -> np.ndarray:
    """S-RR@100% = 1 / (first rank at which every aspect is covered), 0 if never (Zhai et al. (2003) §3).

    The aspects are those with weight > 0 (all of them have a relevant document in prefeval's qrels, so complete
    coverage is achievable, as Zhai et al. require).
    """
    r, w, lengths = prepare_inputs(r, weights, length, k, "S-RR")
    if r.shape[-2] == 0:
        return np.zeros(lengths.shape)
    aspects = _aspects(w)
    seen = np.logical_or.accumulate((r > 0.0) & aspects[..., None, :], axis=-2)
    complete = (seen.sum(axis=-1) == aspects.sum(axis=-1)[..., None]) & aspects.any(axis=-1)[..., None]
    first = np.argmax(complete, axis=-1) + 1.0
    return np.where(complete.any(axis=-1), 1.0 / first, 0.0)


NrbpNormalise = Literal["none", "clarke", "ideal"]


def _novelty_gains(r: np.ndarray, w: np.ndarray, alpha: float) -> np.ndarray:
    """``sum_{t in T} r(d_i,t) (1 - alpha)^c(i,t)`` per position (unweighted, over the query's aspects)."""
    aspects = _aspects(w)[..., None, :]
    rel = (r > 0.0) & aspects
    return np.where(aspects, r * _novelty(rel, alpha), 0.0).sum(axis=-1)


def alpha_ndcg(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
               pool: ArrayLike | None = None, alpha: float = 0.5, normalise: bool = False,
               log_base: float = 2.0) -> np.ndarray:
    """alpha-nDCG@k on graded r(d,t), Amigó et al. (2018) §4.3 after Clarke et al. (2008) §4::

        alpha-DCG@k = sum_{i <= k} sum_t r(d_i,t) (1 - alpha)^c(i,t) / log_b(i + 1)

    With binary judgments and ``r = J(d,t)`` in {0, 1} this is Clarke et al.'s alpha-DCG. Unweighted over the
    aspects (the formula has no w(t)). ``normalise=False`` (default) is the printed form — "the normalization
    factor ... can be ignored" at topic level (Amigó et al. (2018) fn. 5); ``normalise=True`` divides by the
    alpha-DCG of the greedy ideal ranking of ``pool`` (:func:`greedy_ideal_gains`), as ndeval's alpha-nDCG.
    alpha = 0.5 is Clarke et al.'s and ndeval's default; log base 2 (the printed formula gives none; it cancels
    when normalised).
    """
    a = _check_unit("alpha-nDCG", "alpha", alpha)
    base = _check_log_base("alpha-nDCG", log_base)
    r, w, lengths = prepare_inputs(r, weights, length, k, "alpha-nDCG")
    n = r.shape[-2]
    value = _novelty_gains(r, w, a) @ (1.0 / _log(_positions(n) + 1.0, base))
    if normalise:
        pl = _pool("alpha-nDCG", pool, r)
        depth = pl.shape[-2] if k is None else min(k, pl.shape[-2])
        ideal = greedy_ideal_gains(pl, _aspects(w), a, depth) @ (1.0 / _log(_positions(depth) + 1.0, base))
        value = np.divide(value, ideal, out=np.zeros_like(value), where=ideal > 0)
    return value


def nrbp(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
         pool: ArrayLike | None = None, p: float = 0.5, alpha: float = 0.5,
         normalise: NrbpNormalise = "none") -> np.ndarray:
    """Novelty- and rank-biased precision on graded r(d,t), Amigó et al. (2018) §4.3 after Clarke et al. (2009) §4::

        NRBP = sum_i p^(i-1) sum_t r(d_i,t) (1 - alpha)^c(i,t)

    ``normalise``: ``"none"`` (the printed form), ``"clarke"`` multiplies by Clarke et al.'s constant
    ``(1 - (1 - alpha) p) / |T|`` (ndeval's NRBP with ``r = J``), ``"ideal"`` divides by the value of the greedy
    ideal ranking of ``pool`` (ndeval's nNRBP). p (Clarke et al.'s beta) = 0.5 and alpha = 0.5 are the defaults of
    the authors' tool ndeval.
    """
    pf = _check_unit("NRBP", "p", p, low_open=True, high_open=True)
    a = _check_unit("NRBP", "alpha", alpha)
    if normalise not in ("none", "clarke", "ideal"):
        raise PrefevalError(f"NRBP: normalise must be 'none', 'clarke' or 'ideal', got {normalise!r}")
    r, w, lengths = prepare_inputs(r, weights, length, k, "NRBP")
    n = r.shape[-2]
    value = _novelty_gains(r, w, a) @ pf ** (_positions(n) - 1.0)
    if normalise == "clarke":
        count = _aspects(w).sum(axis=-1)
        value = np.divide(value * (1.0 - (1.0 - a) * pf), count, out=np.zeros_like(value), where=count > 0)
    elif normalise == "ideal":
        pl = _pool("NRBP", pool, r)
        depth = pl.shape[-2] if k is None else min(k, pl.shape[-2])
        ideal = greedy_ideal_gains(pl, _aspects(w), a, depth) @ pf ** (_positions(depth) - 1.0)
        value = np.divide(value, ideal, out=np.zeros_like(value), where=ideal > 0)
    return value


def d_sharp_ndcg(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
                 pool: ArrayLike | None = None, lam: float = 0.5, log_base: float = 2.0) -> np.ndarray:
    """D#-nDCG@k = lam * I-rec@k + (1 - lam) * D-nDCG@k (Sakai & Song (2011) §3; Amigó et al. (2018) §4.3).

    I-rec@k is :func:`s_recall`. D-nDCG@k (Sakai et al. (2010)) is nDCG over the *global gain*
    ``GG(d) = sum_t w(t) g_t(d)`` with the per-intent gain ``g_t(d) = r(d,t)``; its ideal ranking sorts the pool by
    GG. ``lam`` (Sakai & Song's gamma) = 0.5 is their default; log base 2 (cancels in the ratio).
    """
    lam_f = _check_unit("D#-nDCG", "lam", lam)
    base = _check_log_base("D#-nDCG", log_base)
    recall = s_recall(r, weights, length, k)
    r, w, lengths = prepare_inputs(r, weights, length, k, "D#-nDCG")
    pl = _pool("D#-nDCG", pool, r)
    n = r.shape[-2]
    dcg = np.einsum("...it,...t->...i", r, w) @ (1.0 / _log(_positions(n) + 1.0, base))
    depth = pl.shape[-2] if k is None else min(k, pl.shape[-2])
    ideal_gg = -np.sort(-np.einsum("...mt,...t->...m", pl, w), axis=-1)[..., :depth]
    ideal = ideal_gg @ (1.0 / _log(_positions(depth) + 1.0, base))
    dndcg = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
    return lam_f * recall + (1.0 - lam_f) * dndcg


def eu(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
       pool: ArrayLike | None = None, alpha: float = 0.5, e: float = 0.05, log_base: float = 2.0) -> np.ndarray:
    """Expected utility, Amigó et al. (2018) §4.3 after Yang & Lad (2009)::

        EU = sum_{i <= |d|} 1 / (1 + log_b(i)) * ( sum_t w(t) r(d_i,t) (1 - alpha)^c(i,t) - e )

    The effort ``e`` is charged for every position that holds a document (so appending a document always costs,
    the Confidence constraint), up to ``k`` if given. Yang & Lad leave the cost and the novelty discount to the
    application; defaults: alpha = 0.5 (Clarke et al. (2008)), e = 0.05 (the middle of the RBU paper's grid
    {0.001, 0.05, 0.1, 0.5}, §6) and log base 2 (the printed formula gives no base). EU can be negative.
    """
    a = _check_unit("EU", "alpha", alpha)
    ef = _check_nonnegative("EU", "e", e)
    base = _check_log_base("EU", log_base)
    r, w, lengths = prepare_inputs(r, weights, length, k, "EU")
    n = r.shape[-2]
    rel = (r > 0.0) & _aspects(w)[..., None, :]
    gain = np.einsum("...it,...it,...t->...i", r, _novelty(rel, a), w)
    gain = np.where(_held(lengths, n), gain - ef, 0.0)
    return gain @ (1.0 / (1.0 + _log(_positions(n), base)))


CtForm = Literal["paper", "luo"]


def _cube_gains(r: np.ndarray, w: np.ndarray, alpha: float, saturation: float) -> np.ndarray:
    """Per-position gain of the cube test: ``sum_t w(t) r(d_i,t) (1-alpha)^c(i,t) f_Sat(i,t)``, with
    f_Sat = 1 while the relevance accumulated for t before i is below the saturation level (Luo et al. (2013) §4)."""
    rel = (r > 0.0) & _aspects(w)[..., None, :]
    filled = np.cumsum(r, axis=-2) - r
    open_ = filled < saturation
    return np.einsum("...it,...it,...t->...i", np.where(open_, r, 0.0), _novelty(rel, alpha), w)


def ct(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
       pool: ArrayLike | None = None, alpha: float = 0.5, saturation: float = 1.0,
       form: CtForm = "paper") -> np.ndarray:
    """Cube test (Luo et al. (2013) §4; Amigó et al. (2018) §4.3), with linear time (one unit per document).

    Each aspect t is a cube of base w(t) filled by the documents' relevance r(d,t), discounted by
    ``(1 - alpha)^c(i,t)`` (Luo et al.'s gamma = 1 - alpha) and stopped once the aspect holds ``saturation``
    (their MaxHeight; f_Sat = 0 from then on).

    - ``form="paper"`` (default): Amigó et al.'s printed form ``sum_{i <= k} (1/i) gain_i``.
    - ``form="luo"``: Luo et al.'s CT@k = Gain@k / Time@k = ``sum_{i <= k} gain_i / min(k, |d|)`` (0 for an
      empty ranking).

    Defaults: alpha = 0.5 (Luo et al.'s gamma = 0.5) and saturation 1 (a cube holds one fully relevant document's
    worth; r < 1 under the ERR mapping, so one document never saturates an aspect alone).
    """
    a = _check_unit("CT", "alpha", alpha)
    sat = _check_nonnegative("CT", "saturation", saturation)
    if form not in ("paper", "luo"):
        raise PrefevalError(f"CT: form must be 'paper' or 'luo', got {form!r}")
    r, w, lengths = prepare_inputs(r, weights, length, k, "CT")
    gain = _cube_gains(r, w, a, sat)
    if form == "paper":
        return gain @ (1.0 / _positions(r.shape[-2]))
    total = gain.sum(axis=-1)
    return np.divide(total, lengths, out=np.zeros_like(total), where=lengths > 0)


def act(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
        pool: ArrayLike | None = None, alpha: float = 0.5, saturation: float = 1.0) -> np.ndarray:
    """Average cube test ACT@k = (1/L) sum_{j <= L} CT@j with Luo et al.'s CT@j = Gain@j / j and L = min(k, |d|)
    (Luo et al. (2013) §4; TREC Dynamic Domain 2015's official measure). 0 for an empty ranking."""
    a = _check_unit("ACT", "alpha", alpha)
    sat = _check_nonnegative("ACT", "saturation", saturation)
    r, w, lengths = prepare_inputs(r, weights, length, k, "ACT")
    n = r.shape[-2]
    ct_at = np.cumsum(_cube_gains(r, w, a, sat), axis=-1) / _positions(n)
    total = np.where(_held(lengths, n), ct_at, 0.0).sum(axis=-1)
    return np.divide(total, lengths, out=np.zeros_like(total), where=lengths > 0)


def rbu_kernel(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
         pool: ArrayLike | None = None, p: float = 0.8, e: float = 0.03, variant: str = "paper") -> np.ndarray:
    """RBU (Amigó et al. (2018) Eq. 11) with the common signature: :func:`prefeval.core.rbu.rbu`. Listed in
    :data:`KERNELS` under the method's name by its declaration (:mod:`prefeval.methods.rbu`)."""
    return rbu(r, weights, p, e, length=length, variant=variant, k=k)


# ----------------------------------------------------------------------------------------------- entry point

Kernel = Callable[..., np.ndarray]

KERNELS: dict[str, Kernel] = {
    "P_IA": precision_ia, "AP_IA": ap_ia, "RR_IA": rr_ia, "nDCG_IA": ndcg_ia, "ERR_IA": err_ia, "RBP_IA": rbp_ia,
    "S_Recall": s_recall, "S_RR": s_rr, "alpha_nDCG": alpha_ndcg, "NRBP": nrbp, "D_sharp_nDCG": d_sharp_ndcg,
    "EU": eu, "CT": ct, "ACT": act,
}
"""Kernel of each metric name (ir-measures-style names of the planned measures); prefeval's own methods
add theirs from their declarations (:mod:`prefeval.methods`)."""


def evaluate(name: str, r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
             pool: ArrayLike | None = None, **params: object) -> np.ndarray:
    """Evaluate the metric ``name`` (a key of :data:`KERNELS`) on per-aspect relevance arrays.

    Takes the inputs of :func:`prefeval.core.rbu.rbu` plus ``pool`` and the metric's parameters, e.g.
    ``evaluate("nDCG_IA", r, weights, length=lengths, k=10, pool=pool)``. Returns ``r.shape[:-2]`` values.
    """
    try:
        kernel = KERNELS[name]
    except KeyError:
        raise PrefevalError(f"unknown diversity metric {name!r}; known: {', '.join(KERNELS)}") from None
    allowed = [p for p in inspect.signature(kernel).parameters if p not in ("r", "weights", "length", "k", "pool")]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise PrefevalError(f"{name}: unknown parameter(s) {', '.join(unknown)}; "
                            f"{name} takes {', '.join(allowed) if allowed else 'no parameters'} (and k)")
    return kernel(r, weights, length=length, k=k, pool=pool, **params)
