"""Aggregation of per-query preferences into system-level preferences and system orderings (numpy only).

Two inputs are used throughout:

* a per-query preference tensor ``P`` of shape ``(Q, S, S)``: ``P[q, a, b]`` is the preference of system ``a``
  over system ``b`` on query ``q`` (antisymmetric, zero diagonal; positive = ``a`` preferred);
* per-query scores ``W`` of shape ``(Q, S)``, higher = better: the per-query *win rates* of a preference
  (``W[q, a] = sum_b P[q, a, b]``, Diaz & Mitra (2023) §6.2.1 / Diaz & Ferraro (2022) §5.4) or the per-query values of a metric.

A query ranks ``a`` above ``b`` when ``W[q, a] - W[q, b] > TIE_TOL``; smaller differences are ties
(floating-point noise from weighted sums must not decide an order). Every ordering returned here is total
and deterministic: the rule of each function is stated in its docstring, and the last resort is always the
input order of the systems.

Functions:

* :func:`win_rates`, :func:`mean_preference` -- per-query win rates and the system-level preference matrix
  (mean over queries, Diaz & Mitra (2023) §5.2 / Diaz (2023) §4.2);
* :func:`majority_matrix` -- ``#queries a above b - #queries b above a``;
* :func:`mc4` -- Dwork, Kumar, Naor & Sivakumar (WWW 2001) Markov chain MC4, as used by Diaz & Mitra (2023) §6.2.1 and
  Diaz & Ferraro (2022) §5.4 to aggregate per-query orderings;
* :func:`borda`, :func:`copeland`, :func:`mean_score` -- simpler aggregations;
* :func:`order` -- sort with tolerance-aware, deterministic tie-breaking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Two per-query scores closer than this are tied (win rates are sums of at most S preferences in [-1, 1]).
TIE_TOL = 1e-9
#: Stationary probabilities closer than this are tied.
MASS_TOL = 1e-9
#: Scores are rounded to this many decimals before they are used as sort keys.
KEY_DECIMALS = 9
#: Names of the system rankings offered on top of these functions (``Comparison.ranking``, pipelines, CLI):
#: :func:`mc4`, :func:`borda`, :func:`copeland`, win rate (:func:`win_rates` averaged) and a metric's mean.
AGGREGATES = ("mc4", "borda", "copeland", "win_rate", "mean")


@dataclass(frozen=True)
class Aggregation:
    """A total ordering of ``S`` systems.

    ``order``: indices of the systems, best first. ``score``: the aggregate score of each system, in input
    order (its meaning depends on the method: mean, Borda points, Copeland score or MC4 stationary mass).
    """

    order: np.ndarray
    score: np.ndarray

    @property
    def rank(self) -> np.ndarray:
        """1-based rank of each system, in input order."""
        rank = np.empty(len(self.order), dtype=np.int64)
        rank[self.order] = np.arange(1, len(self.order) + 1)
        return rank


def _check_scores(W: np.ndarray) -> np.ndarray:
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2:
        raise ValueError(f"per-query scores must have shape (queries, systems); got shape {W.shape}")
    if W.shape[0] == 0 or W.shape[1] == 0:
        raise ValueError(f"per-query scores need at least one query and one system; got shape {W.shape}")
    if np.isnan(W).any():
        q, s = np.argwhere(np.isnan(W))[0]
        raise ValueError(f"per-query scores contain NaN (query index {q}, system index {s})")
    return W


def win_rates(P: np.ndarray) -> np.ndarray:
    """Per-query win rates ``W[..., a] = sum_b P[..., a, b]`` (Diaz & Ferraro (2022) §5.4).

    The sum (not the mean) over the other systems, as in the worked example of Diaz & Ferraro (2022) (RPP win
    rates A -1/3, B 0, C +1/3). For a transitive preference (LexiRecall, LexiPrecision) sorting by win rate
    reproduces the per-query order; for RPP, which can cycle, it is the Copeland-like summary the paper uses.
    """
    P = np.asarray(P, dtype=np.float64)
    if P.ndim < 2 or P.shape[-1] != P.shape[-2]:
        raise ValueError(f"a preference tensor must have shape (..., S, S); got shape {P.shape}")
    return P.sum(axis=-1)


def mean_preference(P: np.ndarray) -> np.ndarray:
    """System-level preference matrix: the mean over queries of ``P[q]`` (Diaz (2023) §4.2).

    ``P``: ``(Q, S, S)``. Returns ``(S, S)``, antisymmetric when every ``P[q]`` is.
    """
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 3 or P.shape[1] != P.shape[2]:
        raise ValueError(f"a per-query preference tensor must have shape (Q, S, S); got shape {P.shape}")
    if P.shape[0] == 0:
        raise ValueError("no queries to aggregate")
    return P.mean(axis=0)


def above(W: np.ndarray, tol: float = TIE_TOL) -> np.ndarray:
    """``A[q, a, b]`` = query ``q`` ranks ``a`` strictly above ``b`` (score difference greater than ``tol``)."""
    W = _check_scores(W)
    return (W[:, :, None] - W[:, None, :]) > tol


def majority_matrix(W: np.ndarray, tol: float = TIE_TOL) -> np.ndarray:
    """``M[a, b]`` = number of queries ranking ``a`` above ``b`` minus the number ranking ``b`` above ``a``.

    Queries that tie ``a`` and ``b`` do not vote. ``M`` is antisymmetric with a zero diagonal.
    """
    counts = above(W, tol).sum(axis=0, dtype=np.int64)
    return counts - counts.T


def mean_score(W: np.ndarray) -> np.ndarray:
    """Mean per-query score of each system (the usual aggregation of a metric)."""
    return _check_scores(W).mean(axis=0)


def borda(W: np.ndarray, tol: float = TIE_TOL) -> np.ndarray:
    """Borda count: the mean over queries of ``#systems ranked below + 1/2 #systems tied`` (excluding itself).

    With strict per-query orders this is the classical Borda count ``S - position``; ties share the points.
    """
    W = _check_scores(W)
    diff = W[:, :, None] - W[:, None, :]
    below = (diff > tol).sum(axis=2)
    tied = (np.abs(diff) <= tol).sum(axis=2) - 1  # minus the system itself
    return (below + 0.5 * tied).mean(axis=0)


def copeland(M: np.ndarray, tol: float = TIE_TOL) -> np.ndarray:
    """Copeland score ``sum_b sgn(M[a, b])``: pairwise contests won minus contests lost.

    ``M`` is any antisymmetric pairwise matrix: the system-level mean preference (:func:`mean_preference`)
    or the per-query majority counts (:func:`majority_matrix`). Entries within ``tol`` of 0 are draws.
    """
    M = np.asarray(M, dtype=np.float64)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"a pairwise matrix must be square; got shape {M.shape}")
    return (M > tol).sum(axis=1).astype(np.float64) - (M < -tol).sum(axis=1)


def order(*keys: np.ndarray) -> np.ndarray:
    """Indices sorting systems by ``keys`` (all descending; the first key is the primary one).

    Keys are rounded to ``KEY_DECIMALS`` decimals, so floating-point noise cannot decide an order; systems
    equal on every key keep their input order.
    """
    if not keys:
        raise ValueError("order() needs at least one key")
    n = len(keys[0])
    rounded = [-np.round(np.asarray(k, dtype=np.float64), KEY_DECIMALS) for k in keys]
    # np.lexsort sorts by the LAST key first; the input position is the final tie-break.
    return np.lexsort([np.arange(n), *reversed(rounded)])


def mc4_transition(M: np.ndarray) -> np.ndarray:
    """MC4 transition matrix (Dwork et al. 2001, §4 "MC4").

    From the current system ``a`` pick a system ``b`` uniformly among all ``S`` systems; move to ``b`` if a
    majority of the queries that do not tie them rank ``b`` above ``a`` (``M[b, a] > 0``), else stay. So
    ``T[a, b] = 1/S`` for every such ``b`` and ``T[a, a] = 1 - #{such b}/S``. No damping is added: every state
    keeps a self-loop of at least ``1/S``, so the chain is aperiodic and the power iteration converges.
    """
    M = np.asarray(M)
    S = M.shape[0]
    beats = M.T > 0  # beats[a, b]: b beats a by majority
    T = beats / S
    T[np.arange(S), np.arange(S)] = 1.0 - beats.sum(axis=1) / S
    return T


def stationary(T: np.ndarray, start: np.ndarray | None = None, max_doublings: int = 64) -> np.ndarray:
    """The limit of the power iteration ``x_{t+1} = x_t T`` from ``start`` (default uniform), run to convergence.

    Computed by repeated squaring (``T^(2^k)``) until the matrix stops changing (max absolute change below
    1e-15), i.e. up to 2^64 steps of the power iteration. For a chain with several closed classes the limit
    depends on the start; the uniform start gives every closed class the mass that flows into it.
    """
    T = np.asarray(T, dtype=np.float64)
    S = T.shape[0]
    x = np.full(S, 1.0 / S) if start is None else np.asarray(start, dtype=np.float64) / np.sum(start)
    A = T
    for _ in range(max_doublings):
        A2 = A @ A
        A2 /= A2.sum(axis=1, keepdims=True)  # keep rows stochastic despite rounding
        if np.max(np.abs(A2 - A)) < 1e-15:
            A = A2
            break
        A = A2
    return x @ A


def mc4(W: np.ndarray, tol: float = TIE_TOL, iterations: int | None = None) -> Aggregation:
    """MC4 rank aggregation of per-query orderings (Dwork et al. 2001; Diaz & Mitra (2023) §6.2.1, Diaz & Ferraro (2022) §5.4).

    ``W``: ``(Q, S)`` per-query scores (per-query win rates for a preference); query ``q`` ranks ``a`` above
    ``b`` when ``W[q, a] > W[q, b]`` (ties do not vote, see :func:`majority_matrix`).

    ``score``: the stationary distribution of the MC4 chain (:func:`mc4_transition`) reached by power iteration
    from the uniform distribution, run to convergence (:func:`stationary`; no damping); mass below 1e-9 is 0.

    ``order`` (a decision: the papers leave it open): the exact stationary distribution puts all mass on the closed
    classes of the chain (with a Condorcet winner: all of it on the winner), which leaves every other system
    at 0. To obtain a full ordering, MC4 is applied recursively: the systems holding mass (mass > 1e-9) are
    ranked first, then removed, and MC4 is recomputed on the remaining systems (majorities restricted to
    them), until none remain. Within one round, systems are sorted by their stationary mass, then by Copeland
    score on the majority matrix, then by mean per-query score (win rate), then by input order. (The authors'
    tool instead stops after 10 power-iteration steps from the all-ones vector and breaks ties by run name,
    descending.) When the majority relation is a total order (e.g. every query gives the same order, or a
    Condorcet order exists) the result is that order.

    ``iterations``: if given, reproduce the fixed-step variant instead: ``x = 1 T^iterations`` (all-ones
    start, no recursion); systems are ordered by that mass with the same tie-breaks.
    """
    W = _check_scores(W)
    S = W.shape[1]
    M = majority_matrix(W, tol)
    cope = copeland(M)
    mean = W.mean(axis=0)
    if iterations is not None:
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0; got {iterations}")
        x = np.ones(S) @ np.linalg.matrix_power(mc4_transition(M), int(iterations))
        return Aggregation(order(x, cope, mean), x)

    score = stationary(mc4_transition(M))
    score[score <= MASS_TOL] = 0.0  # transient mass the exact limit does not have (float remnants such as 1e-42)
    remaining = np.arange(S)
    ranked: list[np.ndarray] = []
    mass = score
    while remaining.size:
        top = mass > MASS_TOL
        members = remaining[top]
        ranked.append(members[order(mass[top], cope[members], mean[members])])
        remaining = remaining[~top]
        if remaining.size:
            mass = stationary(mc4_transition(M[np.ix_(remaining, remaining)]))
    return Aggregation(np.concatenate(ranked), score)


def orderings_to_scores(orderings: list[list[int]] | np.ndarray, n_systems: int) -> np.ndarray:
    """Per-query scores from per-query orderings (best first): ``W[q, s] = -(position of s in ordering q)``.

    Every ordering must be a permutation of ``range(n_systems)``.
    """
    W = np.empty((len(orderings), n_systems), dtype=np.float64)
    for q, ordering in enumerate(orderings):
        ordering = np.asarray(ordering)
        if sorted(ordering.tolist()) != list(range(n_systems)):
            raise ValueError(f"ordering {q} is not a permutation of range({n_systems}): {ordering.tolist()}")
        W[q, ordering] = -np.arange(n_systems, dtype=np.float64)
    return W
