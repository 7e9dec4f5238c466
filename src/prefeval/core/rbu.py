"""Rank-biased utility (RBU), Amigó et al. (2018) §5, Eq. 11 (Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018).

For a ranking d_1..d_n over aspects t with weights w(t)::

    RBU@k = sum_{i<=k} p^i * ( sum_t w(t) * r(d_i,t) * prod_{j<i} (1 - r(d_j,t))  -  e )

- ``p`` in (0, 1] is the probability of going on to the next document (exponent ``i``, not ``i-1``;
  no ``(1-p)`` factor, no normalisation);
- ``e >= 0`` is the effort of inspecting one document, charged **only for positions that hold a
  document** (i <= min(k, |ranking|)), so that appending a document always costs effort and the
  Confidence constraint holds (Amigó et al. (2018) §5). An empty ranking scores 0. RBU can be negative.
- ``r(d,t)`` in [0, 1] is the probability that document d satisfies aspect t. From integer qrels
  grades it is the ERR mapping of the authors' released tool:
  ``r = (2^max(g,0) - 1) / 2^gmax_t`` (see :func:`relevance_probabilities`).

Variants (``variant=``):

- ``"paper"`` (default): Eq. 11 as printed.
- ``"evall"``: the scaling of the authors' Java tool / EvALL, which uses RBP's ``(1-p) p^(i-1)``
  discount: ``((1-p)/p) * paper``. Same system ordering for a fixed p; at p = 1 it
  is identically 0.

Decisions where the paper is silent:

- p = 1 is accepted with a :class:`RuntimeWarning` (the measure is then order-insensitive within
  the top k).
- Aspect weights are used as given (no renormalisation, as the authors' tool); the caller chooses
  them (prefeval: uniform over the aspects with at least one relevant document).
- Aspects whose highest judged grade is <= 0 get r = 0 everywhere instead of the Java tool's 0/0 = NaN;
  callers leave such aspects out of the weights.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from prefeval.errors import PrefevalError

Variant = Literal["paper", "evall"]
VARIANTS: tuple[str, ...] = ("paper", "evall")

__all__ = ["VARIANTS", "evall_scale", "prepare_inputs", "rbu", "relevance_probabilities", "validate_params"]


def relevance_probabilities(grades: ArrayLike, gmax: ArrayLike) -> np.ndarray:
    """ERR mapping of qrels grades to satisfaction probabilities (the authors' released tool).

    ``r(d,t) = (2^max(g,0) - 1) / 2^max(gmax_t, 0)``, with ``gmax_t`` the highest grade judged for
    aspect t. Negative grades (e.g. -2 spam) count as 0; unjudged documents should be passed as
    grade 0. The result lies in [0, 1): r = 1 is never reached, as in the authors' tool.

    Args:
        grades: ``(..., n, T)`` grades of the ranked documents per aspect (or ``(n,)`` with scalar
            ``gmax`` for one aspect); broadcast against ``gmax``.
        gmax: ``(T,)`` highest judged grade per aspect. An aspect with ``gmax <= 0`` has no relevant
            document; its r is 0 (no NaN) and it should get no weight.

    Raises:
        PrefevalError: non-finite grades or gmax, or a grade above its aspect's gmax.
    """
    g = np.asarray(grades, dtype=np.float64)
    gm = np.asarray(gmax, dtype=np.float64)
    if not np.all(np.isfinite(g)):
        raise PrefevalError("RBU: relevance grades must be finite numbers (got NaN or inf)")
    if not np.all(np.isfinite(gm)):
        raise PrefevalError("RBU: gmax (highest judged grade per aspect) must be finite")
    g = np.maximum(g, 0.0)
    gm = np.maximum(gm, 0.0)
    try:
        above = g > gm
    except ValueError as exc:  # shapes do not broadcast
        raise PrefevalError(
            f"RBU: grades of shape {g.shape} do not match gmax of shape {gm.shape} (one gmax per aspect)"
        ) from exc
    if np.any(above):
        idx = tuple(int(i) for i in np.argwhere(above)[0])
        raise PrefevalError(
            f"RBU: grade {np.broadcast_to(g, above.shape)[idx]:g} at index {idx} exceeds the highest judged "
            f"grade {np.broadcast_to(gm, above.shape)[idx]:g} of its aspect"
        )
    return (np.exp2(g) - 1.0) / np.exp2(gm)


def validate_params(p: float, e: float, variant: str = "paper") -> tuple[float, float]:
    """Check RBU's parameters: ``p`` in (0, 1] (p = 1 warns), ``e >= 0`` finite, a known variant.

    Returns ``(float(p), float(e))``. Raises :class:`PrefevalError` with the offending value.
    """
    for name, value in (("p", p), ("e", e)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise PrefevalError(f"RBU: {name} must be a number, got {name}={value!r}")
    pf, ef = float(p), float(e)
    if not (0.0 < pf <= 1.0):  # also rejects NaN
        raise PrefevalError(f"RBU: p (persistence) must be in (0, 1], got p={p!r}")
    if not (ef >= 0.0 and np.isfinite(ef)):
        raise PrefevalError(f"RBU: e (effort per document) must be a finite number >= 0, got e={e!r}")
    if variant not in VARIANTS:
        raise PrefevalError(f"RBU: unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    if pf == 1.0:
        warnings.warn(
            "RBU with p=1 ignores the order of documents within the cutoff (Amigó et al. (2018) Eq. 11; the "
            "'evall' variant is then identically 0)",
            RuntimeWarning,
            stacklevel=3,
        )
    return pf, ef


def evall_scale(p: float) -> float:
    """Factor turning a paper-convention RBU value into the authors' Java/EvALL value: ``(1-p)/p``.

    The Java tool discounts with ``(1-p) p^(i-1)`` instead of Eq. 11's ``p^i``.
    """
    return (1.0 - float(p)) / float(p)


def prepare_inputs(r: ArrayLike, weights: ArrayLike, length: ArrayLike | None = None, k: int | None = None,
                   name: str = "RBU") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate the common inputs of the per-aspect ranking kernels (RBU and :mod:`prefeval.core.diversity`).

    Args:
        r: ``(..., n, T)`` satisfaction probabilities in [0, 1]; positions past a ranking's ``length`` are
            padding and must be 0.
        weights: aspect weights, broadcastable to ``r.shape[:-2] + (T,)``, finite and >= 0.
        length: documents per ranking (scalar or broadcastable to ``r.shape[:-2]``); default n.
        k: optional cutoff; positions after k are dropped and lengths capped at k.
        name: measure named in error messages.

    Returns:
        ``(r, w, lengths)``: float64 ``r`` truncated to k, weights broadcast to ``r.shape[:-2] + (T,)``,
        int64 lengths of shape ``r.shape[:-2]``.

    Raises:
        PrefevalError: a bad shape, value, length or cutoff (the message names ``name``).
    """
    r = np.asarray(r, dtype=np.float64)
    if r.ndim < 2:
        raise PrefevalError(f"{name}: r must have shape (..., n, T) (positions x aspects), got shape {r.shape}")
    if not np.all((r >= 0.0) & (r <= 1.0)):  # NaN fails both comparisons
        raise PrefevalError(
            f"{name}: relevance probabilities r(d,t) must lie in [0, 1] (got a value outside, or NaN)"
        )
    n, n_aspects = r.shape[-2], r.shape[-1]
    lead = r.shape[:-2]

    w = np.asarray(weights, dtype=np.float64)
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise PrefevalError(f"{name}: aspect weights must be finite and >= 0")
    try:
        w = np.broadcast_to(w, lead + (n_aspects,))
    except ValueError as exc:
        raise PrefevalError(
            f"{name}: weights of shape {np.shape(weights)} do not match {n_aspects} aspects (r has shape {r.shape})"
        ) from exc

    if length is None:
        lengths = np.full(lead, n, dtype=np.int64)
    else:
        lf = np.asarray(length)
        if lf.dtype.kind not in "iu" and not (
            lf.dtype.kind == "f" and np.all(np.isfinite(lf)) and np.all(lf == np.round(lf))
        ):
            raise PrefevalError(f"{name}: length must be whole numbers of documents, got {length!r}")
        if np.any(lf < 0) or np.any(lf > n):
            raise PrefevalError(f"{name}: length must lie in [0, {n}] (the number of positions in r)")
        try:
            lengths = np.broadcast_to(lf.astype(np.int64), lead)
        except ValueError as exc:
            raise PrefevalError(
                f"{name}: length of shape {lf.shape} does not match rankings of shape {lead}"
            ) from exc
        pos = np.arange(n)
        padding = pos >= lengths[..., None]  # (..., n)
        if np.any(r[padding] != 0.0):
            raise PrefevalError(
                f"{name}: positions beyond a ranking's length must have r = 0 (they hold no document)"
            )

    if k is not None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise PrefevalError(f"{name}: cutoff k must be a non-negative integer, got {k!r}")
        r = r[..., :k, :]
        lengths = np.minimum(lengths, k)
    return r, w, lengths


def rbu(
    r: ArrayLike,
    weights: ArrayLike,
    p: float,
    e: float,
    length: ArrayLike | None = None,
    variant: Variant = "paper",
    k: int | None = None,
) -> np.ndarray:
    """RBU of one or many rankings, Amigó et al. (2018) Eq. 11 (vectorised; no loop over positions).

    Args:
        r: ``(..., n, T)`` satisfaction probabilities in [0, 1] of the document at each position for
            each aspect, e.g. from :func:`relevance_probabilities`. Leading axes (runs, queries) are
            independent rankings; positions past a ranking's ``length`` are padding and must be 0.
            ``n`` is normally already truncated to the cutoff k.
        weights: aspect weights, ``(T,)`` or broadcastable to ``r.shape[:-2] + (T,)``; non-negative,
            used as given (the paper assumes they sum to 1).
        p: persistence, in (0, 1]; p = 1 is allowed with a warning.
        e: effort per inspected document, >= 0.
        length: number of real documents in each ranking (scalar or broadcastable to
            ``r.shape[:-2]``); effort is charged for positions ``1..min(length, k)`` only.
            Default: every one of the n positions holds a document.
        variant: ``"paper"`` (Eq. 11) or ``"evall"`` (``(1-p)/p`` times it, the Java tool's value).
        k: optional cutoff applied here (positions after k are ignored); default: all n positions.

    Returns:
        ``float64`` array of shape ``r.shape[:-2]`` (0-d for a single ranking).

    Raises:
        PrefevalError: invalid p, e, variant, k, length, weights, or r outside [0, 1].
    """
    pf, ef = validate_params(p, e, variant)
    r, w, lengths = prepare_inputs(r, weights, length, k, "RBU")
    lead, n, n_aspects = r.shape[:-2], r.shape[-2], r.shape[-1]
    if n == 0:
        return np.zeros(lead, dtype=np.float64)

    # prod_{j<i} (1 - r(d_j,t)): exclusive cumulative product along positions.
    survive = np.cumprod(1.0 - r, axis=-2)
    before = np.concatenate([np.ones(lead + (1, n_aspects)), survive[..., :-1, :]], axis=-2)
    gain = np.einsum("...it,...it,...t->...i", r, before, w)  # (..., n)
    disc = pf ** np.arange(1, n + 1, dtype=np.float64)  # p^i, i = 1..n
    value = gain @ disc
    if ef > 0.0:
        effort_upto = np.concatenate([[0.0], np.cumsum(disc)])  # sum_{i<=L} p^i for L = 0..n
        value = value - ef * effort_upto[lengths]
    if variant == "evall":
        value = value * evall_scale(pf)
    return np.asarray(value, dtype=np.float64)
