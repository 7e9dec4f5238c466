"""The balancing index B(n) of Ferrante, Ferro & Maistro (Ferrante et al. (2015) §6).

For runs of length n, with ``ref = (q_max, 0, …, 0)`` and ``s_b = (0 × (b-1), q_min × (n-b+1))``::

    B(n) = max { b : M(ref) <= M(s_b) }        (max ∅ = None)

B(n) near n: the measure behaves like a set-based one (a tail of minimally relevant documents balances
one maximally relevant document at rank 1); B(n) = 1: it is very top-heavy. Computed from the
definition (all b at once), not with the paper's Algorithm 1, which has no termination guard
(it loops forever when no b balances). ``ref`` and every ``s_b`` share one set of qrels (one document of grade q_max, n of grade
q_min, n non-relevant), so recall-base and ideal-ranking normalisations cancel as the paper assumes.
Ties count as balanced, up to the tolerance of :func:`prefeval.axioms.check` (relative 1e-10): a
difference below it is a tie, so e.g. RBP with p = 0.5 at n = 50 gives 2 where exact arithmetic gives 1
(the gap is 0.5^50, below float64 resolution relative to 1).

This module holds the one definition of B(n): the runs (:func:`balancing_runs`), their scores through the
checker (:func:`balancing_scores`) and the largest balanced b (:func:`largest_balanced`).
:func:`prefeval.analysis.balancing_index` reuses all three and adds exact closed forms for some built-in
measures; the two entry points differ only where their documentation says so:

- ``q_max`` defaults to ``q_min`` (binary relevance) in both;
- ties: here a relative tolerance of 1e-10, as the checker; in analysis exact (built-ins re-checked as
  fractions, other measures compared as floats without tolerance);
- a callable ``measure``: here it scores comparisons, as for :func:`~prefeval.axioms.check`; in analysis it is
  ``fn(grades) -> score`` on one run.

The tie rules differ on purpose: the axioms entry point must agree with :func:`~prefeval.axioms.check`,
whose documented tolerance absorbs summation-order noise; the analysis entry point reproduces the exact
values Ferrante et al. (2015) §6 derives (RBP with p = 0.5 at n = 60 gives 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from prefeval.axioms.evaluate import resolve
from prefeval.axioms.model import Judgments, RankingPair
from prefeval.errors import PrefevalError

__all__ = ["balancing_index", "balancing_runs", "balancing_scores", "largest_balanced"]

#: relative difference below which two scores tie (that of :func:`prefeval.axioms.check`)
TIE_TOLERANCE = 1e-10


#: The longest run of the balancing index (its runs form an n x n matrix).
MAX_LENGTH = 1000


def check_length(n: object) -> None:
    """The run length of the balancing index: an integer from 1 to :data:`MAX_LENGTH`."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_LENGTH:
        raise PrefevalError(f"balancing index: the run length n must be an integer from 1 to {MAX_LENGTH:,}, got {n!r}")


def balancing_runs(n: int, q_min: int = 1, q_max: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``ref`` (n,) and the matrix ``S`` (n, n) whose row ``b-1`` is ``s_b``, as grades (Ferrante et al. (2015) §6).
    ``q_max`` defaults to ``q_min`` (binary relevance)."""
    q_max = q_min if q_max is None else q_max
    check_length(n)
    if not 0 < q_min <= q_max:
        raise PrefevalError(f"balancing index: need 0 < q_min <= q_max, got q_min={q_min}, q_max={q_max}")
    ref = np.zeros(n, dtype=np.int64)
    ref[0] = q_max
    cols = np.arange(n)
    S = np.where(cols[None, :] >= cols[:, None], q_min, 0).astype(np.int64)
    return ref, S


def largest_balanced(balanced: np.ndarray) -> int | None:
    """B(n) from the mask ``balanced[b-1] = M(ref) <= M(s_b)``: the largest such b, or ``None`` (max ∅)."""
    hits = np.flatnonzero(np.asarray(balanced, dtype=bool))
    return int(hits[-1]) + 1 if hits.size else None


def balancing_scores(measure: Any, n: int, q_min: int = 1, q_max: int | None = None,
                     direct: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(M(s_b) for b = 1..n, M(ref) repeated n times)`` of a metric (string, ir-measures object, or callable
    as for :func:`~prefeval.axioms.check`), scored by :mod:`prefeval.axioms.evaluate` with one shared set of
    qrels. Raises :class:`PrefevalError` for a preference, an unavailable measure or a missing value."""
    q_max = q_min if q_max is None else q_max
    balancing_runs(n, q_min, q_max)  # validates
    scorer = resolve(measure, direct=direct)
    if scorer.unavailable:
        raise PrefevalError(f"{scorer.label}: {scorer.unavailable}")
    if scorer.kind == "preference":
        raise PrefevalError(f"{scorer.label} is a preference method; the balancing index needs a metric")
    # documents: 0 = grade q_max, 1..n = grade q_min, n+1..2n = non-relevant
    judgments = Judgments(((q_max,),) + ((q_min,),) * n + ((0,),) * n)
    nonrel = list(range(n + 1, 2 * n + 1))
    ref = (0,) + tuple(nonrel[: n - 1])
    comps = [RankingPair(tuple(nonrel[: b - 1]) + tuple(range(1, n - b + 2)), ref, judgments, strict=False)
             for b in range(1, n + 1)]
    left, right = scorer.values(comps)
    if np.isnan(left).any() or np.isnan(right).any():
        raise PrefevalError(f"{scorer.label} returned no value for some of the balancing runs")
    return left, right


def balancing_index(measure: Any, n: int, q_min: int = 1, q_max: int | None = None,
                    direct: bool = True) -> int | None:
    """B(n) of ``measure`` (string, ir-measures object, or callable as for :func:`~prefeval.axioms.check`).

    Args:
        n: run length (>= 1).
        q_min: lowest relevant grade (> 0).
        q_max: highest grade (default ``q_min``, i.e. binary relevance).

    Returns:
        The largest b in 1..n with ``M(ref) <= M(s_b)`` up to :data:`TIE_TOLERANCE` (module doc), or ``None`` if
        even ``s_1`` scores below ``ref``.
    """
    left, right = balancing_scores(measure, n, q_min, q_max, direct)
    tol = TIE_TOLERANCE * np.maximum(1.0, np.maximum(np.abs(left), np.abs(right)))
    return largest_balanced(left - right >= -tol)
