"""prefeval.core.aggregate: win rates, MC4, Borda, Copeland -- worked examples and brute-force definitions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.core import aggregate as agg

# ---------------------------------------------------------------------------------------------
# brute force, straight from the definitions (Dwork et al. 2001 MC4; Borda; Copeland)


def brute_majority(W):
    Q, S = len(W), len(W[0])
    M = [[0] * S for _ in range(S)]
    for a in range(S):
        for b in range(S):
            for q in range(Q):
                if W[q][a] > W[q][b]:
                    M[a][b] += 1
                elif W[q][a] < W[q][b]:
                    M[a][b] -= 1
    return M


def brute_mc4_mass(M, steps=2_000):
    """Power iteration from the uniform distribution, moving from a to b when M[b][a] > 0."""
    S = len(M)
    T = [[0.0] * S for _ in range(S)]
    for a in range(S):
        beaten_by = [b for b in range(S) if M[b][a] > 0]
        for b in beaten_by:
            T[a][b] = 1 / S
        T[a][a] = 1 - len(beaten_by) / S
    return (np.full(S, 1 / S) @ np.linalg.matrix_power(np.array(T), steps)).tolist()  # x_{t+1} = x_t T


def brute_borda(W):
    Q, S = len(W), len(W[0])
    points = [0.0] * S
    for row in W:
        for a in range(S):
            for b in range(S):
                if a != b:
                    points[a] += 1.0 if row[a] > row[b] else 0.5 if row[a] == row[b] else 0.0
    return [p / Q for p in points]


def scores_strategy(max_q=6, max_s=5):
    return st.integers(1, max_q).flatmap(lambda q: st.integers(2, max_s).flatmap(
        lambda s: st.lists(st.lists(st.integers(-2, 2), min_size=s, max_size=s), min_size=q, max_size=q)))


# ---------------------------------------------------------------------------------------------
# worked examples


def test_mc4_example_of_lexirecall_digest():
    """Aggregation over queries, worked example: per-query orders [B,D,C], [B,C,D], [D,B,C] give B, D, C."""
    B, C, D = 0, 1, 2
    W = agg.orderings_to_scores([[B, D, C], [B, C, D], [D, B, C]], 3)
    result = agg.mc4(W)
    assert result.order.tolist() == [B, D, C]
    # B is a Condorcet winner: the exact stationary distribution puts all the mass on it (level 1); then D
    # holds all the mass of the chain on {C, D} (level 2), then C (level 3); each level's mass sums to 1
    assert result.level.tolist() == [1, 3, 2]
    np.testing.assert_allclose(result.score, [1.0, 1.0, 1.0])
    assert result.rank.tolist() == [1, 3, 2]


def test_mc4_tie_example_c46():
    """Worked example (hand-checked): RPP win rates q1 (A -1/3, B 0, C 1/3), q2 (A -1, B 1, C 0)."""
    A, B, C = 0, 1, 2
    P = np.zeros((2, 3, 3))
    P[0, A, C], P[1, A, B] = -1 / 3, -1.0
    P = P - P.transpose(0, 2, 1)
    W = agg.win_rates(P)
    np.testing.assert_allclose(W, [[-1 / 3, 0, 1 / 3], [-1, 1, 0]])
    result = agg.mc4(W)
    # B and C split 1-1 and both absorb half of the mass; A loses to both
    np.testing.assert_allclose(result.score, [1.0, 0.5, 0.5], atol=1e-12)
    assert result.level.tolist() == [2, 1, 1]
    # documented tie-break: Copeland on the majority matrix (1 each), then mean win rate (B 0.5 > C 1/6)
    assert result.order.tolist() == [B, C, A]
    # the authors' fixed 10 iterations from the all-ones vector: B = C ~ 1.49999, A ~ 1.7e-5 (divided by S = 3)
    fixed = agg.mc4(W, iterations=10)
    assert fixed.score[B] == pytest.approx(1.49999 / 3, abs=1e-5)
    assert fixed.score[B] == fixed.score[C]
    assert fixed.score[A] == pytest.approx(1.7e-5 / 3, rel=0.01)
    assert fixed.score.sum() == pytest.approx(1.0)
    assert fixed.order.tolist() == [B, C, A]


def test_rpp_cycle_gives_all_ties_and_input_order():
    """C4.3: RPP(A,B) = RPP(B,C) = RPP(C,A) = 1/3 on one query; all win rates are 0."""
    P = np.zeros((1, 3, 3))
    P[0, 0, 1] = P[0, 1, 2] = P[0, 2, 0] = 1 / 3
    P = P - P.transpose(0, 2, 1)
    W = agg.win_rates(P)
    np.testing.assert_allclose(W, 0.0, atol=1e-15)
    result = agg.mc4(W)
    np.testing.assert_allclose(result.score, 1 / 3)
    assert result.order.tolist() == [0, 1, 2]


# ---------------------------------------------------------------------------------------------
# properties and brute force


@given(scores_strategy())
@settings(max_examples=150, deadline=None)
def test_majority_borda_copeland_match_brute_force(W):
    Wa = np.array(W, dtype=float)
    M = agg.majority_matrix(Wa)
    assert M.tolist() == brute_majority(W)
    np.testing.assert_allclose(agg.borda(Wa), brute_borda(W))
    cope = agg.copeland(M)
    S = len(W[0])
    Mb = brute_majority(W)
    assert cope.tolist() == [sum(int(Mb[a][b] > 0) - int(Mb[a][b] < 0) for b in range(S)) for a in range(S)]


@given(scores_strategy(max_q=5, max_s=5))
@settings(max_examples=100, deadline=None)
def test_mc4_mass_matches_power_iteration(W):
    Wa = np.array(W, dtype=float)
    result = agg.mc4(Wa)
    mass = np.array(brute_mc4_mass(brute_majority(W)))
    top = result.level == 1  # level 1: the systems holding mass in the full chain, with that mass
    np.testing.assert_allclose(result.score[top], mass[top], atol=1e-6)
    assert (mass[~top] < 1e-6).all()
    for lv in set(result.level.tolist()):  # every level's mass sums to 1
        assert result.score[result.level == lv].sum() == pytest.approx(1.0)
    assert sorted(result.order.tolist()) == list(range(len(W[0])))


@given(st.permutations(list(range(6))), st.integers(1, 5))
@settings(max_examples=60, deadline=None)
def test_mc4_returns_a_consistent_order(ordering, n_queries):
    W = agg.orderings_to_scores([ordering] * n_queries, 6)
    for method in (lambda w: agg.mc4(w).order, lambda w: agg.order(agg.borda(w)),
                   lambda w: agg.order(agg.copeland(agg.majority_matrix(w)))):
        assert method(W).tolist() == list(ordering)


def test_mc4_condorcet_order_from_majorities():
    """A majority relation that is a total order (no unanimity) is returned by the recursive MC4."""
    orderings = [[0, 1, 2, 3], [1, 0, 3, 2], [0, 2, 1, 3], [0, 1, 3, 2], [2, 0, 1, 3]]
    W = agg.orderings_to_scores(orderings, 4)
    M = agg.majority_matrix(W)
    assert all(M[a, b] > 0 for a, b in itertools.combinations(range(4), 2))
    assert agg.mc4(W).order.tolist() == [0, 1, 2, 3]


@given(st.integers(2, 7), st.integers(1, 6), st.integers(0, 10_000))
@settings(max_examples=60, deadline=None)
def test_win_rates_of_antisymmetric_tensor_sum_to_zero(S, Q, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(-1, 2, size=(Q, S, S)).astype(float)
    P = np.triu(X, 1) - np.triu(X, 1).transpose(0, 2, 1)
    np.testing.assert_allclose(agg.win_rates(P).sum(axis=1), 0.0, atol=1e-12)
    M = agg.mean_preference(P)
    np.testing.assert_allclose(M, -M.T)
    assert np.all(np.diag(M) == 0)


def test_order_uses_tolerance_then_input_order():
    a = np.array([1.0, 1.0 + 1e-13, 2.0, 1.0])
    assert agg.order(a).tolist() == [2, 0, 1, 3]
    assert agg.order(a, np.array([0.0, 0.0, 0.0, 5.0])).tolist() == [2, 3, 0, 1]


def test_stationary_of_identity_keeps_start():
    np.testing.assert_allclose(agg.stationary(np.eye(3)), [1 / 3] * 3)


def test_errors():
    with pytest.raises(ValueError, match="permutation"):
        agg.orderings_to_scores([[0, 0, 1]], 3)
    with pytest.raises(ValueError, match="NaN"):
        agg.mc4(np.array([[0.0, np.nan]]))
    with pytest.raises(ValueError, match="shape"):
        agg.win_rates(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="iterations"):
        agg.mc4(np.zeros((1, 2)), iterations=-1)


# ---------------------------------------------------------------------------------------------
# the pref_aggregate tie rule


def test_strict_by_name_breaks_query_ties_by_name_descending():
    W = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    strict = agg.strict_by_name(W, ["a", "b", "c"])
    assert strict.tolist() == [[-1.0, 0.0, -2.0], [-2.0, -1.0, 0.0]]


def test_borda_and_mc4_tie_rules_differ_on_a_tied_query():
    W = np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 1.0]])  # b wins one query, two ties
    np.testing.assert_allclose(agg.borda(W), [1 / 3, 2 / 3])
    # pref_aggregate: "b" > "a", so b is ranked first on the tied queries too
    np.testing.assert_allclose(agg.borda(W, ties="pref_aggregate", names=["a", "b"]), [0.0, 1.0])
    for ties in agg.TIES:
        result = agg.mc4(W, iterations=10, ties=ties, names=["a", "b"])
        assert result.order.tolist() == [1, 0]
        assert result.score.sum() == pytest.approx(1.0)
    # with names reversed, the tool's rule prefers the other run on ties: 2 of 3 queries for "b" (index 0)
    result = agg.mc4(W, iterations=10, ties="pref_aggregate", names=["b", "a"])
    assert result.order.tolist() == [0, 1]


def test_pref_aggregate_rule_needs_distinct_names():
    with pytest.raises(ValueError, match="distinct names"):
        agg.borda(np.zeros((1, 2)), ties="pref_aggregate")
    with pytest.raises(ValueError, match="tie rule"):
        agg.mc4(np.zeros((1, 2)), ties="random", names=["a", "b"])


def _power_limit(T: np.ndarray, x: np.ndarray, doublings: int = 60) -> np.ndarray:
    """The definition: x T^(2^doublings), by repeated squaring."""
    A = T.copy()
    for _ in range(doublings):
        A = A @ A
        A /= A.sum(axis=1, keepdims=True)
    return x @ A


@pytest.mark.parametrize("seed", range(25))
def test_stationary_equals_the_power_iteration_limit(seed):
    rng = np.random.default_rng(seed)
    S, Q = int(rng.integers(2, 30)), int(rng.integers(1, 8))
    W = rng.integers(0, 4, size=(Q, S)).astype(float)  # many ties: several closed classes, transient states
    T = agg.mc4_transition(agg.majority_matrix(W))
    start = rng.random(S) if seed % 2 else np.full(S, 1.0 / S)
    np.testing.assert_allclose(agg.stationary(T, start), _power_limit(T, start / start.sum()), atol=1e-12)


def test_majority_matrix_in_blocks_equals_the_whole(monkeypatch):
    rng = np.random.default_rng(3)
    W = rng.integers(0, 3, size=(50, 7)).astype(float)
    whole = agg.majority_matrix(W)
    monkeypatch.setattr(agg, "_BLOCK_ENTRIES", 49 * 3)
    np.testing.assert_array_equal(agg.majority_matrix(W), whole)
