"""Evaluation methods as functions of position vectors, for simulations of random rankings.

A position vector (``prefeval.core.positions``) holds the ascending 1-based positions of a
ranking's relevant items, ``+inf`` for relevant items not retrieved. Every method the
papers compare is a function of it:

- a **metric** maps position vectors ``P (..., m)`` to values ``(...)``; two rankings tie when
  the values are equal (Diaz & Mitra (2023) §5.1, "metric ties use exact equality");
- a **preference** maps two position vectors to a signed value; a tie is the value 0.

Names understood by :func:`resolve` (case-insensitive): every position-based method of the registry
(:mod:`prefeval.methods`: ``LexiRecall``, ``LexiPrecision``, ``LexiPrecision(magnitude='rr')``, ``RPP``,
``RPP(weighting='inverse'|'dcg')``, ``TSE``, with their aliases and parameters),
``AP``, ``nDCG`` / ``nDCG@k``, ``RR``, ``R@k``, ``P@k``, ``Rprec``, and ``random`` (a uniform
random score per ranking: the baseline column of Diaz & Mitra (2023) Table 2). Anything else may be given
as a :class:`PositionMethod` built with :func:`metric` or :func:`preference`; a bare callable is taken as
a metric.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from prefeval.core import metrics
from prefeval.errors import PrefevalError
from prefeval.methods import metric_difference
from prefeval.methods.registry import Declaration, declarations, parse

__all__ = ["PositionMethod", "metric", "preference", "resolve", "ties"]


@dataclass(frozen=True)
class PositionMethod:
    """A named evaluation method on position vectors.

    ``kind="metric"``: ``fn(P, rng) -> values``; ``kind="preference"``: ``fn(A, B) -> values``
    (positive: ``A`` preferred). ``rng`` is a :class:`numpy.random.Generator` (only the
    ``random`` baseline uses it).
    """

    name: str
    kind: Literal["metric", "preference"]
    fn: Callable

    def values(self, P: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self.kind != "metric":
            raise PrefevalError(f"{self.name} is a preference, it has no per-ranking value")
        return np.asarray(self.fn(P, rng), dtype=np.float64)

    def compare(self, A: np.ndarray, B: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Signed comparison of ``A`` over ``B``: a preference's value, or a metric difference."""
        if self.kind == "preference":
            return np.asarray(self.fn(A, B), dtype=np.float64)
        return self.values(A, rng) - self.values(B, rng)


def metric(fn: Callable[[np.ndarray], np.ndarray], name: str | None = None) -> PositionMethod:
    """Wrap ``fn(P) -> values`` (position vectors ``(..., m)`` to one value per ranking) as a metric."""
    return PositionMethod(name or getattr(fn, "__name__", "metric"), "metric", lambda P, rng: fn(P))


def preference(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], name: str | None = None) -> PositionMethod:
    """Wrap ``fn(A, B) -> values`` (positive: ``A`` preferred) as a preference."""
    return PositionMethod(name or getattr(fn, "__name__", "preference"), "preference", fn)


def _random(P: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return rng.random(P.shape[:-1])


_CUTOFF = re.compile(r"^(?P<base>[a-z]+)@(?P<k>\d+)$")


def _declared(declaration: Declaration, params: dict, text: str) -> PositionMethod:
    """A registered position-based method with its parameters (named as declared, or as written)."""
    name = declaration.name if params == declaration.defaults() else text
    if declaration.kind == "preference":
        return preference(declaration.on_positions(params), name)
    return metric(declaration.on_positions(params), name)


def resolve(method: str | PositionMethod | Callable) -> PositionMethod:
    """The :class:`PositionMethod` for a name, a :class:`PositionMethod`, or a metric callable (see module doc)."""
    if isinstance(method, PositionMethod):
        return method
    if callable(method) and not isinstance(method, str):
        return metric(method)
    text = str(method).strip()
    low = text.lower().replace(" ", "")
    found = parse(text)
    if found is not None and found[0].position_based and "cutoff" not in found[1]:
        return _declared(found[0], found[1], text)
    simple: dict[str, PositionMethod] = {
        "ap": metric(metrics.ap, "AP"),
        "ndcg": metric(metrics.ndcg, "nDCG"),
        "rr": metric(metrics.rr, "RR"),
        "rprec": metric(metrics.rprec, "Rprec"),
        "random": PositionMethod("random", "metric", _random),
    }
    if low in simple:
        return simple[low]
    match = _CUTOFF.match(low)
    if match:
        base, k = match.group("base"), int(match.group("k"))
        if base in ("r", "recall"):
            return metric(lambda P: metrics.recall_at_k(P, k), f"R@{k}")
        if base in ("p", "precision"):
            return metric(lambda P: metrics.precision_at_k(P, k), f"P@{k}")
        if base == "ndcg":
            return metric(lambda P: metrics.ndcg(P, k), f"nDCG@{k}")
    own = ", ".join(d.name for d in declarations() if d.position_based)
    raise PrefevalError(
        f"unknown method {text!r} for position-vector simulation; known: {own} (with their parameters), AP, "
        "nDCG, nDCG@k, RR, R@k, P@k, Rprec, random (or pass prefeval.analysis.metric(fn) / preference(fn))"
    )


def ties(method: PositionMethod, A: np.ndarray, B: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Boolean ``(...)``: do the rankings with position vectors ``A`` and ``B`` tie under ``method``?

    Metrics tie on exactly equal values (both NaN also counts as a tie); preferences on value 0.
    """
    if method.kind == "preference":
        return np.asarray(method.fn(A, B)) == 0
    return metric_difference.ties(method.values(A, rng), method.values(B, rng))
