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

Two tie rules (``ties``) are offered for :func:`mc4` and :func:`borda`:

* ``"shared"`` (default) -- runs tied on a query do not vote on each other (MC4) and share the Borda points;
  remaining ties in the aggregate are broken by the documented secondary keys, then by input order;
* ``"pref_aggregate"`` -- the rule of the authors' ``pref_aggregate`` tool (Diaz & Ferraro (2022) §5.4,
  Diaz & Mitra (2023) §6.2.1): each query's tie is broken by run name, descending (Python string order), so
  every query gives a strict order and a tied run still votes and earns Borda points; ties in the
  aggregate are broken by run name, descending, too (:func:`strict_by_name`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from prefeval.errors import PrefevalError

#: Two per-query scores closer than this are tied (win rates are sums of at most S preferences in [-1, 1]).
TIE_TOL = 1e-9
#: Stationary probabilities closer than this are tied.
MASS_TOL = 1e-9
#: Scores are rounded to this many decimals before they are used as sort keys.
KEY_DECIMALS = 9
#: Per-query comparisons are made in blocks of queries of at most this many (S x S) entries.
_BLOCK_ENTRIES = 4_000_000
#: Names of the system rankings offered on top of these functions (``Comparison.ranking``, pipelines, CLI):
#: :func:`mc4`, :func:`borda`, :func:`copeland`, win rate (:func:`win_rates` averaged) and a metric's mean.
AGGREGATES = ("mc4", "borda", "copeland", "win_rate", "mean")
#: Tie rules inside one query (see the module docstring).
TIES = ("shared", "pref_aggregate")


@dataclass(frozen=True)
class Aggregation:
    """A total ordering of ``S`` systems.

    ``order``: indices of the systems, best first. ``score``: the aggregate score of each system, in input
    order (its meaning depends on the method: mean, Borda points, Copeland score or MC4 stationary mass).
    ``level`` (MC4 only, else ``None``): the round of recursive MC4 in which each system was ranked (1 = it
    holds stationary mass in the chain of all systems); MC4's ``score`` is the mass within that level.
    """

    order: np.ndarray
    score: np.ndarray
    level: np.ndarray | None = None

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
    W = _check_scores(W)
    S = W.shape[1]
    counts = np.zeros((S, S), dtype=np.int64)
    rows = _BLOCK_ENTRIES // max(1, S * S)
    if rows >= 16:  # few systems: blocks of queries at once (memory bounded at any Q and S)
        for start in range(0, W.shape[0], rows):
            counts += above(W[start:start + rows], tol).sum(axis=0, dtype=np.int64)
        return counts - counts.T
    # many systems: one query at a time in reused buffers, counted in uint8 for up to 255 queries
    diff, higher, count8 = np.empty((S, S)), np.empty((S, S), dtype=bool), np.zeros((S, S), dtype=np.uint8)
    for q, w in enumerate(W, 1):
        np.subtract(w[:, None], w[None, :], out=diff)  # the differences of above(), compared as there
        np.greater(diff, tol, out=higher)
        np.add(count8, higher.view(np.uint8), out=count8)
        if q % 255 == 0 or q == len(W):
            counts += count8
            count8[:] = 0
    return counts - counts.T


def mean_score(W: np.ndarray) -> np.ndarray:
    """Mean per-query score of each system (the usual aggregation of a metric)."""
    return _check_scores(W).mean(axis=0)


def borda(W: np.ndarray, tol: float = TIE_TOL, ties: str = "shared",
          names: Sequence[str] | None = None) -> np.ndarray:
    """Borda count: the mean over queries of ``#systems ranked below + 1/2 #systems tied`` (excluding itself).

    With strict per-query orders this is the classical Borda count ``S - 1 - position`` (0-based position);
    with ``ties="shared"`` tied systems share the points, with ``ties="pref_aggregate"`` each query's ties
    are first broken by run name, descending (:func:`strict_by_name`; ``names`` required).
    """
    W = _check_scores(W)
    if ties != "shared":
        W = strict_by_name(W, _names(ties, names, W.shape[1]))
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


def _names(ties: str, names: Sequence[str] | None, S: int) -> list[str]:
    if ties not in TIES:
        raise ValueError(f"unknown tie rule {ties!r}; choose one of {', '.join(TIES)}")
    if names is None or len(names) != S or len(set(names)) != S:
        raise ValueError(f"ties={ties!r} breaks ties by run name: give {S} distinct names")
    return [str(n) for n in names]


def name_key(names: Sequence[str]) -> np.ndarray:
    """A sort key that is larger for a larger name (Python string order), for "by name, descending"."""
    key = np.empty(len(names), dtype=np.float64)
    key[sorted(range(len(names)), key=lambda i: names[i])] = np.arange(len(names))
    return key


def strict_by_name(W: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Per-query strict orders as scores: ``W'[q, s] = -(0-based position of s in query q)``.

    Query ``q`` sorts the systems by ``W[q]`` (descending; scores equal after rounding to ``KEY_DECIMALS``
    decimals are ties, as in :func:`order`) and breaks each tie by name, descending -- the per-query rule of
    the authors' ``pref_aggregate`` tool, which sorts ``[win rate, run id]`` pairs in reverse.
    """
    W = _check_scores(W)
    Q, S = W.shape
    key = np.broadcast_to(name_key(names), (Q, S))
    rounded = np.round(W, KEY_DECIMALS)
    positions = np.lexsort((-key, -rounded), axis=-1)
    out = np.empty_like(W)
    np.put_along_axis(out, positions, np.broadcast_to(-np.arange(S, dtype=np.float64), (Q, S)), axis=-1)
    return out


def shared_ranks(*keys: np.ndarray) -> np.ndarray:
    """The rank of each system (input order) under ``keys`` (all descending; the first key is the primary one),
    tied systems sharing one: standard competition ranking ("1224"), the rank of a system being 1 + the number of
    systems strictly ahead of it on the keys. Keys are rounded to ``KEY_DECIMALS`` decimals, as in :func:`order`,
    whose order lists systems that share a rank next to each other."""
    if not keys:
        raise ValueError("shared_ranks() needs at least one key")
    rounded = np.stack([-np.round(np.asarray(k, dtype=np.float64), KEY_DECIMALS) for k in keys], axis=1)
    _, code = np.unique(rounded, axis=0, return_inverse=True)  # distinct key tuples in ascending order
    code = np.ravel(code)
    ahead = np.concatenate([[0], np.cumsum(np.bincount(code))])
    return ahead[code] + 1


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


def stationary(T: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """The limit of the power iteration ``x_{t+1} = x_t T`` from ``start`` (default uniform).

    ``T`` must be aperiodic on its closed classes (true of MC4's chains: every state keeps a self-loop). The
    limit is computed exactly from the chain's decomposition instead of by iterating: the closed communicating
    classes (strongly connected components of ``T > 0`` that no transition leaves) are recurrent, each with a
    unique stationary distribution ``pi_C`` (``pi_C T_CC = pi_C``, summing to 1); the mass ``x_t`` on the
    transient states ``t`` first enters the closed states with probabilities ``x_t (I - T_tt)^-1 T_t,closed``;
    each class keeps the mass that starts in or enters it, spread as ``pi_C``. For a chain with several closed
    classes the limit depends on the start; the uniform start gives every closed class the mass that flows
    into it. One linear solve over the transient states instead of repeated squaring of the whole matrix.
    """
    T = np.asarray(T, dtype=np.float64)
    S = T.shape[0]
    x = np.full(S, 1.0 / S) if start is None else np.asarray(start, dtype=np.float64) / np.sum(start)
    edges = T > 0
    n_classes, label = strong_components(edges)
    src, dst = np.nonzero(edges)
    leaves = np.zeros(n_classes, dtype=bool)
    leaves[label[src[label[src] != label[dst]]]] = True
    closed = ~leaves[label]
    entering = x * closed
    transient = np.flatnonzero(~closed)
    if transient.size:
        through = np.linalg.solve((np.eye(transient.size) - T[np.ix_(transient, transient)]).T, x[transient])
        entering[closed] += through @ T[np.ix_(transient, np.flatnonzero(closed))]
    limit = np.zeros(S)
    for c in np.unique(label[closed]):
        members = np.flatnonzero(label == c)
        limit[members] = entering[members].sum() * _class_distribution(T[np.ix_(members, members)])
    return limit


def strong_components(edges: np.ndarray) -> tuple[int, np.ndarray]:
    """The strongly connected components of the directed graph with adjacency matrix ``edges`` (S x S, ``edges[a,
    b]``: an edge a -> b): their number and each node's component (0, 1, ...). Kosaraju's algorithm (Sharir (1981)):
    a depth-first search records the order in which nodes finish; a search of the reversed graph from each unassigned
    node, in reverse finishing order, reaches exactly that node's component. On the dense matrix each step scans one
    row with numpy: O(S^2)."""
    edges = np.asarray(edges, dtype=bool)
    S = edges.shape[0]
    unseen = np.ones(S, dtype=bool)
    finished: list[int] = []
    for root in range(S):
        if not unseen[root]:
            continue
        unseen[root] = False
        stack = [root]
        while stack:
            row = edges[stack[-1]] & unseen
            nxt = int(row.argmax())
            if row[nxt]:
                unseen[nxt] = False
                stack.append(nxt)
            else:
                finished.append(stack.pop())
    reverse = np.ascontiguousarray(edges.T)
    label = np.full(S, -1, dtype=np.int64)
    n = 0
    for root in reversed(finished):
        if label[root] >= 0:
            continue
        frontier = np.array([root])
        while frontier.size:
            label[frontier] = n
            frontier = np.flatnonzero(reverse[frontier].any(axis=0) & (label < 0))
        n += 1
    return n, label


def _class_distribution(T: np.ndarray) -> np.ndarray:
    """The stationary distribution of an irreducible chain: ``pi (T - I) = 0`` with ``sum(pi) = 1``."""
    k = T.shape[0]
    if k == 1:
        return np.ones(1)
    A = (T - np.eye(k)).T
    A[-1] = 1.0
    b = np.zeros(k)
    b[-1] = 1.0
    return np.clip(np.linalg.solve(A, b), 0.0, None)


#: Work limit of MC4's fixed steps (about a minute at most): :func:`fixed_steps` multiplies integers that grow by
#: log2(S) bits a step, so ``k`` steps on ``S`` systems cost about ``S^2 k^2 log2(S) / 128`` machine-word
#: operations; :func:`fixed_steps_as_tool` costs ``k S^2`` float operations in Python.
MAX_FIXED_STEP_WORK = 2 * 10**10
MAX_TOOL_STEP_WORK = 10**9


def max_iterations(n_systems: int) -> int:
    """The most fixed MC4 steps :func:`check_iterations` allows for ``n_systems`` systems."""
    S = max(2, int(n_systems))
    exact = math.isqrt(MAX_FIXED_STEP_WORK * 128 // int(S * S * math.log2(S) + 1))
    return max(0, min(exact, MAX_TOOL_STEP_WORK // (S * S)))


def check_iterations(iterations: object, n_systems: int, name: str = "iterations") -> None:
    """MC4's fixed steps must be absent (``None``: converged) or an integer from 0 to :func:`max_iterations`
    ``(n_systems)``; else a :class:`PrefevalError` naming ``name``, before any step."""
    if iterations is None:
        return
    if not isinstance(iterations, (int, np.integer)) or isinstance(iterations, (bool, np.bool_)) or iterations < 0:
        raise PrefevalError(f"{name} must be a non-negative integer (MC4 power-iteration steps); got {iterations!r}")
    most = max_iterations(n_systems)
    if iterations > most:
        raise PrefevalError(f"{name}={iterations:,} is too many MC4 steps for {n_systems:,} systems (at most {most:,}; "
                            "the authors' tool uses 10, and no iterations gives the converged chain)")


def fixed_steps(M: np.ndarray, steps: int) -> np.ndarray:
    """``1 T^steps / S``: the MC4 chain of majority matrix ``M`` run ``steps`` power-iteration steps from the
    all-ones vector (the authors' fixed-step variant), normalised to sum to 1.

    Computed exactly: ``S T`` has integer entries, so ``1 (S T)^steps`` is an integer vector (Python integers,
    no overflow) and equal masses are exactly equal, whatever the summation order.
    """
    S = M.shape[0]
    beats = (np.asarray(M).T > 0).astype(np.int64)  # beats[a, b]: b beats a by majority
    ST = beats.astype(object)
    for a in range(S):
        ST[a, a] = S - int(beats[a].sum())
    x = np.ones(S, dtype=object)
    for _ in range(int(steps)):
        x = x.dot(ST)
    from fractions import Fraction  # deferred: only this exact iteration uses it (2 ms at import)

    total = sum(x)
    return np.array([float(Fraction(int(v), int(total))) for v in x])


def fixed_steps_as_tool(M: np.ndarray, steps: int, state_order: Sequence[int]) -> np.ndarray:
    """``1 T^steps`` (not normalised) in float64, computed in the authors' ``pref_aggregate`` order of operations.

    The tool indexes the states in ``state_order`` (the ranking of its first query), builds ``T`` with entries
    ``1/S`` and ``1 - k/S`` (subtracting ``1/S`` once per beating system, in that order) and sums
    ``x'[i] = sum_j x[j] T[j, i]`` term by term in that order. Reproducing this float arithmetic is what makes
    masses that are equal in exact arithmetic compare as they do in the tool.
    """
    S = M.shape[0]
    idx = [int(i) for i in state_order]
    T = [[0.0] * S for _ in range(S)]
    for a, sa in enumerate(idx):
        stay = 1.0
        for b, sb in enumerate(idx):
            if M[sa, sb] < 0:  # sb beats sa
                T[a][b] = 1.0 / float(S)
                stay = stay - 1.0 / float(S)
        T[a][a] = stay
    x = [1.0] * S
    for _ in range(int(steps)):
        new = [0.0] * S
        for i in range(S):
            total = 0.0
            for j in range(S):
                total = total + x[j] * T[j][i]
            new[i] = total
        x = new
    out = np.empty(S)
    out[idx] = x
    return out


def mc4(W: np.ndarray, tol: float = TIE_TOL, iterations: int | None = None, ties: str = "shared",
        names: Sequence[str] | None = None, first_query: int = 0) -> Aggregation:
    """MC4 rank aggregation of per-query orderings (Dwork et al. 2001; Diaz & Mitra (2023) §6.2.1, Diaz & Ferraro (2022) §5.4).

    ``W``: ``(Q, S)`` per-query scores (per-query win rates for a preference); query ``q`` ranks ``a`` above
    ``b`` when ``W[q, a] > W[q, b]``. ``ties="shared"``: tied systems do not vote on each other (see
    :func:`majority_matrix`); ``ties="pref_aggregate"``: each query's ties are broken by name, descending
    (:func:`strict_by_name`; ``names`` required), as the authors' tool does.

    Converged (``iterations=None``, default): the exact stationary distribution of the MC4 chain
    (:func:`mc4_transition`, no damping) puts all mass on the chain's closed classes (with a Condorcet winner,
    all of it on the winner). To obtain a full ordering MC4 is applied recursively: the systems holding mass
    (> 1e-9) form level 1 and are ranked first, then removed, and MC4 is recomputed on the rest (majorities
    restricted to them) for level 2, and so on. ``level`` is that round; ``score`` is the stationary mass
    within the level (the scores of each level sum to 1). Within a level, systems are sorted by mass, then by
    Copeland score on the majority matrix, then by mean per-query score, then by input order
    (``ties="shared"``) or by name, descending (``ties="pref_aggregate"``). When the majority relation is a
    total order (e.g. a Condorcet order) the result is that order.

    Fixed steps (``iterations=k``): the authors' variant ``1 T^k`` from the all-ones vector, no recursion;
    every system is on level 1 and ``score`` is that vector divided by ``S`` (sums to 1; computed exactly,
    :func:`fixed_steps`). With ``ties="shared"`` ties are broken by Copeland score, mean score, input order;
    with ``ties="pref_aggregate"`` the vector is computed in the tool's float arithmetic
    (:func:`fixed_steps_as_tool`, states in the order of query ``first_query``'s ranking, the tool's first
    query) and sorted as the tool sorts it: by exact float value, then by name, descending --
    ``iterations=10, ties="pref_aggregate"`` reproduces the authors' ``pref_aggregate`` MC4 order.
    """
    W = _check_scores(W)
    S = W.shape[1]
    if ties == "shared":
        last = np.zeros(S)
    else:
        names = _names(ties, names, S)
        W = strict_by_name(W, names)
        last = name_key(names)
    M = majority_matrix(W, tol)
    cope = copeland(M)
    mean = W.mean(axis=0)
    check_iterations(iterations, S)
    if iterations is not None:
        if ties == "shared":
            x = fixed_steps(M, iterations)
            return Aggregation(order(x, cope, mean, last), x, np.ones(S, dtype=np.int64))
        if not 0 <= first_query < W.shape[0]:
            raise ValueError(f"first_query must index one of the {W.shape[0]} queries; got {first_query}")
        x = fixed_steps_as_tool(M, iterations, np.argsort(-W[first_query], kind="stable"))
        ranked = sorted(range(S), key=lambda i: (x[i], names[i]), reverse=True)
        return Aggregation(np.array(ranked, dtype=np.int64), x / x.sum(), np.ones(S, dtype=np.int64))

    score = np.zeros(S)
    level = np.zeros(S, dtype=np.int64)
    remaining = np.arange(S)
    ranked: list[np.ndarray] = []
    while remaining.size:
        mass = stationary(mc4_transition(M[np.ix_(remaining, remaining)]))
        top = mass > MASS_TOL
        members = remaining[top]
        within = mass[top] / mass[top].sum()
        score[members], level[members] = within, len(ranked) + 1
        ranked.append(members[order(within, cope[members], mean[members], last[members])])
        remaining = remaining[~top]
    return Aggregation(np.concatenate(ranked), score, level)


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
