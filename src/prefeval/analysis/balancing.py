"""Balancing index, Ferrante et al. (2015) §6 (Ferrante, Ferro & Maistro, ICTIR 2015).

For runs of length ``n`` over relevance grades with smallest positive grade ``q_min`` and largest
``q_max``, let ``ref = (q_max, 0, ..., 0)`` and ``s_b = (0 x (b-1), q_min x (n-b+1))``::
    B(n) = max { b in 1..n : M(ref) <= M(s_b) }          (max of the empty set: None)

the deepest start of a tail of minimally relevant documents that still balances one maximally
relevant document at rank 1. ``B(n)`` near ``n``: the measure behaves like a set-based one; ``B = 1``:
very top-heavy. Implemented from the definition (every ``b`` is scored), not with the paper's
Algorithm 1, which has no termination guard (it loops forever when no b balances); ties ``M(ref) = M(s_b)`` count as
balanced.

Floating-point ties decide ``B`` at the boundary (e.g. RBP p=0.5: ``M(s_2) = 1/2 - 2^-n``). The
built-in measures therefore score all ``b`` in float64 and re-check exactly, with
:class:`fractions.Fraction`, every ``b`` whose float difference is within ``1e-9`` of zero.

Built-in measures (``measure=`` name; gains chosen so that the paper's claims of Ferrante et al. (2015) §6 are reproduced):

- ``"AP"``: ``sum_{i: g_i > 0} P@i`` (the recall base is a topic constant, which cancels);
- ``"RBP(p=0.8)"``: ``(1-p) sum_i p^(i-1) g_i / q_max`` (corrected closed form ``b <= log_p(1-p+p^n)+1``);
- ``"ERR"``: ``sum_i (1/i) x_i prod_{j<i}(1-x_j)``, ``x = (2^g - 1) / 2^q_max`` (binary: x = 1/2);
- ``"DCG"`` (= ``"nDCG"``, the ideal is constant): ``sum_i g_i / log2(i+1)``;
- ``"DCG-JK(a=2)"``: Järvelin–Kekäläinen DCG, ``g_i`` undiscounted for ``i < a``, ``g_i / log_a(i)`` after;
- ``"P"`` (precision at n) and ``"RR"``.

Any other measure: a callable ``fn(grades) -> score`` on one judged run (a 1-D integer array of
grades, rank 1 first), or an ir-measures measure (object or string such as ``"nDCG@10"``,
``"RBU(p=0.8)@20"``), which is scored on synthetic queries by :mod:`prefeval.axioms` (the qrels hold the
same documents and grades for every ``b``, so normalisations like the ideal DCG or AP's recall base are
constant); unlike :func:`prefeval.axioms.balancing_index`, ties are exact (no tolerance).

The runs, the ir-measures scoring and the final maximum are those of :mod:`prefeval.axioms.balance`, which
holds the one definition and tabulates how the two entry points differ (defaults: ``q_min = 1``, ``q_max``
= ``q_min``; the tie rule; what a callable means).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
from ir_measures.measures import Measure

from prefeval.axioms.balance import balancing_runs, balancing_scores, largest_balanced
from prefeval.core import metrics
from prefeval.errors import PrefevalError
from prefeval.methods.measures import parse_measure

__all__ = ["balancing_index", "balancing_curve", "balancing_runs"]  # balancing_runs: see prefeval.axioms.balance

_REL_TOL = 1e-9


@dataclass(frozen=True)
class _Builtin:
    name: str
    scores: Callable[[np.ndarray], np.ndarray]  # (B, n) grades -> (B,) float
    exact: Callable[[np.ndarray], Fraction]  # one grade vector -> exact score


# --- built-in measures -------------------------------------------------------------------------


def _relevant_positions(G: np.ndarray) -> np.ndarray:
    """Position vectors (ascending, ``+inf`` padding) of the documents with a positive grade in each row."""
    ranks = np.where(G > 0, np.arange(1, G.shape[1] + 1, dtype=np.float64), np.inf)
    return np.sort(ranks, axis=1)


def _ap(G: np.ndarray) -> np.ndarray:
    # AP times the padded length n: sum_i i / p_i (unretrieved padding adds 0)
    return metrics.ap(_relevant_positions(G)) * G.shape[1]


def _ap_exact(g: np.ndarray) -> Fraction:
    return metrics.ap_times_m([i for i, grade in enumerate(g, start=1) if grade > 0])


def _rbp(p: Fraction, q_max: int) -> _Builtin:
    pf = float(p)

    def scores(G: np.ndarray) -> np.ndarray:
        disc = (1 - pf) * pf ** np.arange(G.shape[1])
        return (G / q_max) @ disc

    def exact(g: np.ndarray) -> Fraction:
        return sum((Fraction(int(x), q_max) * (1 - p) * p**i for i, x in enumerate(g) if x), Fraction(0))

    return _Builtin(f"RBP(p={pf:g})", scores, exact)


def _err(q_max: int) -> _Builtin:
    def scores(G: np.ndarray) -> np.ndarray:
        x = (2.0 ** G - 1) / 2.0**q_max
        survive = np.cumprod(np.concatenate([np.ones((len(G), 1)), 1 - x[:, :-1]], axis=1), axis=1)
        return (x * survive / np.arange(1, G.shape[1] + 1)).sum(axis=1)

    def exact(g: np.ndarray) -> Fraction:
        total, survive = Fraction(0), Fraction(1)
        for i, grade in enumerate(g, start=1):
            x = Fraction(2 ** int(grade) - 1, 2**q_max)
            total += survive * x / i
            survive *= 1 - x
        return total

    return _Builtin("ERR", scores, exact)


def _dcg(G: np.ndarray) -> np.ndarray:
    return G @ (1.0 / np.log2(np.arange(2, G.shape[1] + 2)))


def _dcg_jk(a: int) -> _Builtin:
    def disc(n: int) -> np.ndarray:
        i = np.arange(1, n + 1, dtype=np.float64)
        return np.where(i < a, 1.0, math.log(a) / np.log(np.maximum(i, 2.0)))

    return _Builtin(f"DCG-JK(a={a})", lambda G: G @ disc(G.shape[1]), None)  # type: ignore[arg-type]


def _precision(G: np.ndarray) -> np.ndarray:
    return (G > 0).mean(axis=1)


def _rr(G: np.ndarray) -> np.ndarray:
    rel = G > 0
    first = np.argmax(rel, axis=1) + 1.0
    return np.where(rel.any(axis=1), 1.0 / first, 0.0)


_RBP = re.compile(r"^rbp(?:\(p=(?P<p>[0-9.]+)\))?$")
_JK = re.compile(r"^dcg-jk(?:\(a=(?P<a>\d+)\))?$")


def _builtin(name: str, q_max: int) -> _Builtin | None:
    low = name.lower().replace(" ", "")
    match = _RBP.match(low)
    if match:
        p = Fraction(match.group("p") or "0.8")
        if not 0 < p < 1:
            raise PrefevalError(f"balancing index: RBP needs 0 < p < 1, got {name!r}")
        return _rbp(p, q_max)
    match = _JK.match(low)
    if match:
        a = int(match.group("a") or 2)
        if a < 2:
            raise PrefevalError(f"balancing index: DCG-JK log base must be >= 2, got {name!r}")
        return _dcg_jk(a)
    table = {
        "ap": _Builtin("AP", _ap, _ap_exact),
        "err": _err(q_max),
        "dcg": _Builtin("DCG", _dcg, None),  # irrational: float only
        "ndcg": _Builtin("DCG", _dcg, None),
        "p": _Builtin("P", _precision, lambda g: Fraction(int((np.asarray(g) > 0).sum()), len(g))),
        "rr": _Builtin("RR", _rr, lambda g: Fraction(1, int(np.argmax(np.asarray(g) > 0)) + 1)
                       if (np.asarray(g) > 0).any() else Fraction(0)),
    }
    return table.get(low)


# --- other measures ----------------------------------------------------------------------------


def _ir_measures_scores(measure: Any, n: int, q_min: int, q_max: int) -> np.ndarray:
    """``M(ref)`` followed by ``M(s_b)``, b = 1..n, of an ir-measures measure, scored on synthetic queries by
    :func:`prefeval.axioms.balance.balancing_scores` (one shared set of judged documents, so normalisations
    like the ideal DCG or AP's recall base are the same for every run)."""

    if isinstance(measure, str):
        try:
            measure = parse_measure(measure)
        except Exception as exc:  # ir-measures raises several types for unknown names
            raise PrefevalError(f"balancing index: unknown measure {measure!r} ({exc})") from exc
    scores, ref = balancing_scores(measure, n, q_min, q_max)
    return np.concatenate([ref[:1], scores])


def _is_ir_measure(obj: Any) -> bool:
    return isinstance(obj, Measure)


def _callable_scores(fn: Callable, ref: np.ndarray, S: np.ndarray) -> np.ndarray:
    return np.array([float(fn(row)) for row in np.vstack([ref[None, :], S])], dtype=np.float64)


def balancing_curve(measure: Any, n: int, q_min: int = 1, q_max: int | None = None) -> pd.DataFrame:
    """``M(s_b) - M(ref)`` for ``b = 1..n`` (DataFrame ``b, ref, score, balanced``), the data behind
    :func:`balancing_index`; ``balanced`` uses the exact re-check of near ties for built-in measures."""
    ref, S = balancing_runs(n, q_min, q_max)
    q_max = int(ref[0])
    builtin = _builtin(measure, q_max) if isinstance(measure, str) else None
    if builtin is not None:
        values = np.concatenate([builtin.scores(ref[None, :].astype(np.float64)),
                                 builtin.scores(S.astype(np.float64))])
    elif callable(measure) and not _is_ir_measure(measure):
        values = _callable_scores(measure, ref, S)
    else:
        values = _ir_measures_scores(measure, n, q_min, q_max)
    ref_value, scores = values[0], values[1:]
    diff = scores - ref_value
    balanced = diff >= 0
    if builtin is not None and builtin.exact is not None:
        close = np.abs(diff) <= _REL_TOL * max(1.0, abs(ref_value))
        if close.any():
            exact_ref = builtin.exact(ref)
            for b in np.flatnonzero(close):
                balanced[b] = builtin.exact(S[b]) >= exact_ref
    return pd.DataFrame({"b": np.arange(1, n + 1), "ref": ref_value, "score": scores, "balanced": balanced})


def balancing_index(measure: Any, n: int, q_min: int = 1, q_max: int | None = None) -> int | None:
    """Balancing index ``B(n)`` of ``measure`` for runs of length ``n`` (Ferrante et al. (2015) §6; see module doc).

    ``q_max`` defaults to ``q_min`` (binary relevance). Returns ``None`` when no ``b`` balances (``max ∅``;
    e.g. graded ERR with ``q_min=1, q_max=3``).

    >>> balancing_index("RBP(p=0.8)", 21), balancing_index("ERR", 50)
    (8, 1)
    """
    return largest_balanced(balancing_curve(measure, n, q_min, q_max)["balanced"].to_numpy())
