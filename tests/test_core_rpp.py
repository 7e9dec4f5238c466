"""RPP against the recall-level pairing written out in exact fractions (Diaz & Ferraro (2022) Eq. 3-6)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.core import rpp as rpp_module
from prefeval.core.lexicographic import lexiprecision, lexiprecision_matrix
from prefeval.core.positions import doc_positions, position_vectors
from prefeval.core.rpp import (
    WEIGHTINGS,
    graded_populations,
    population_rpp,
    recall_level_weights,
    rpp,
    rpp_matrix,
    subtopic_populations,
)
from prefeval.errors import PrefevalError

INF = math.inf


# --------------------------------------------------------------------------- brute force


def brute_weights(m, weighting):
    """p(i), i = 1..m (Diaz & Ferraro (2022) §5.3): exact fractions for uniform/inverse, floats for dcg."""
    if weighting == "uniform":
        return [Fraction(1, m)] * m
    if weighting == "inverse":
        h = sum(Fraction(1, i) for i in range(1, m + 1))
        return [Fraction(1, i) / h for i in range(1, m + 1)]
    raw = [1 / math.log2(i + 1) for i in range(1, m + 1)]
    return [r / sum(raw) for r in raw]


def sgn_pair(x, y):
    """sgn(y - x) with inf (unretrieved) worse than any position and inf vs inf a tie."""
    return (x < y) - (x > y)


def rpp_brute(f, g, weighting="uniform"):
    """Diaz & Ferraro (2022) Eq. 4: pair the i-th relevant item of f with the i-th of g."""
    assert len(f) == len(g)
    if not f:
        return Fraction(0)
    return sum(w * sgn_pair(x, y) for w, x, y in zip(brute_weights(len(f), weighting), f, g))


def population_rpp_brute(doc_a, doc_b, populations, weighting="uniform"):
    """Diaz & Ferraro (2022) Eq. 5/6 with p(k) ∝ m_k: each population's own sorted positions, paired by level."""
    total, acc = 0, Fraction(0)
    for pop in populations:
        members = [j for j, inside in enumerate(pop) if inside]
        if not members:
            continue
        fa = sorted(doc_a[j] for j in members)
        fb = sorted(doc_b[j] for j in members)
        acc += len(members) * rpp_brute(fa, fb, weighting)
        total += len(members)
    return acc / total if total else Fraction(0)


# --------------------------------------------------------------------------- strategies


@st.composite
def doc_position_rows(draw, m, depth):
    """Per-document positions of one ranking: k of the m relevant docs at distinct positions."""
    k = draw(st.integers(0, min(m, depth)))
    pos = draw(st.lists(st.integers(1, depth), min_size=k, max_size=k, unique=True)) if depth else []
    docs = draw(st.permutations(range(m)))[:k]
    row = [INF] * m
    for d, p in zip(docs, pos):
        row[d] = float(p)
    return row


@st.composite
def graded_case(draw, max_runs=6, max_m=6, max_depth=12, max_grade=3):
    m = draw(st.integers(1, max_m))
    depth = draw(st.integers(0, max_depth))
    S = draw(st.integers(1, max_runs))
    rows = [draw(doc_position_rows(m, depth)) for _ in range(S)]
    grades = draw(st.lists(st.integers(1, max_grade), min_size=m, max_size=m))
    return rows, grades


@st.composite
def vector_pair(draw, max_m=7, max_depth=14):
    m = draw(st.integers(1, max_m))
    depth = draw(st.integers(0, max_depth))
    a = sorted(draw(doc_position_rows(m, depth)))
    b = sorted(draw(doc_position_rows(m, depth)))
    return a, b


# --------------------------------------------------------------------------- weights


@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("m", [1, 2, 5, 37])
def test_recall_level_weights(weighting, m):
    w = recall_level_weights(m, weighting)
    assert w.shape == (m,)
    assert w.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(w, [float(x) for x in brute_weights(m, weighting)], rtol=1e-12, atol=0)
    assert np.all(np.diff(w) <= 0)  # top levels weigh at least as much


def test_recall_level_weights_edge_cases():
    assert recall_level_weights(0).shape == (0,)
    with pytest.raises(PrefevalError, match="weighting"):
        recall_level_weights(3, "log")
    with pytest.raises(PrefevalError, match=">= 0"):
        recall_level_weights(-1)


# --------------------------------------------------------------------------- binary RPP


@settings(max_examples=300, deadline=None)
@given(vector_pair())
def test_binary_rpp_matches_recall_level_pairing(pair):
    a, b = pair
    m = len(a)
    for weighting in WEIGHTINGS:
        got = float(rpp(np.array(a), np.array(b), weighting))
        exact = rpp_brute(a, b, weighting)
        if weighting == "uniform":
            assert got == float(exact)  # exact: integer count / m
            assert float(got * m).is_integer()
        else:
            assert got == pytest.approx(float(exact), abs=1e-12)
        assert -1.0 <= got <= 1.0
        assert float(rpp(np.array(b), np.array(a), weighting)) == -got  # exactly antisymmetric
    assert float(rpp(np.array(a), np.array(a))) == 0.0


@settings(max_examples=200, deadline=None)
@given(vector_pair())
def test_rpp_dominance_and_monotone_relabelling(pair):
    a, b = pair
    a, b = np.array(a), np.array(b)
    better = np.minimum(a, b)  # at least as good as b at every level
    for weighting in WEIGHTINGS:
        value = float(rpp(better, b, weighting))
        if np.any(better != b):
            assert value > 0
        else:
            assert value == 0
        # invariant to any strictly increasing relabelling of positions (and to the corpus size)
        relabel = lambda p: np.where(np.isinf(p), p, p * p + 3 * p + 100)  # noqa: E731
        assert float(rpp(relabel(a), relabel(b), weighting)) == float(rpp(a, b, weighting))


def test_rpp_m_equals_one_agrees_with_lp_and_rr():
    # spec C4.4: with m = 1, RPP = sgnLP = sgn(δRR_1) for every p_1, p'_1 (including unretrieved)
    values = [1.0, 2.0, 3.0, 50.0, INF]
    for x in values:
        for y in values:
            a, b = np.array([x]), np.array([y])
            expected = np.sign(1 / x - 1 / y) if x != y else 0.0
            assert rpp(a, b) == lexiprecision(a, b) == expected
            for weighting in WEIGHTINGS:
                assert rpp(a, b, weighting) == expected


def test_rpp_broadcasting_and_empty():
    A = np.array([[[1.0, 4.0], [2.0, INF]]])  # (1, 2, 2)
    B = np.array([[2.0, 3.0], [1.0, 5.0], [INF, INF]])[:, None, :]  # (3, 1, 2)
    out = rpp(A, B)
    assert out.shape == (3, 2)
    for i in range(3):
        for j in range(2):
            assert out[i, j] == float(rpp_brute(A[0, j].tolist(), B[i, 0].tolist()))
    assert rpp(np.zeros((4, 0)), np.zeros((4, 0))).tolist() == [0.0] * 4
    with pytest.raises(PrefevalError, match="recall levels"):
        rpp(np.ones(2), np.ones(3))


# --------------------------------------------------------------------------- populations


def test_graded_populations():
    grades = np.array([2, 1, 3, 1, 0, -2, 3])
    pops = graded_populations(grades, rel=1)
    assert pops.tolist() == [
        [True, True, True, True, False, False, True],
        [True, False, True, False, False, False, True],
        [False, False, True, False, False, False, True],
    ]
    assert graded_populations(grades, rel=2).tolist() == pops[1:].tolist()
    assert graded_populations(np.array([1, 1, 1])).tolist() == [[True, True, True]]
    assert graded_populations(np.array([], dtype=int)).shape == (0, 0)


def test_subtopic_populations():
    mem = np.array([[True, False, True], [False, False, True]])
    assert subtopic_populations(mem).tolist() == mem.tolist() + [[True, True, True]]
    assert subtopic_populations(mem, background=False).tolist() == mem.tolist()
    with pytest.raises(PrefevalError, match="subtopics, documents"):
        subtopic_populations(np.array([True, False]))


@settings(max_examples=100, deadline=None)
@given(graded_case(max_runs=5))
def test_graded_rpp_matrix_matches_brute_force(case):
    rows, grades = case
    D = np.array(rows)
    pops = graded_populations(np.array(grades))
    for weighting in WEIGHTINGS:
        M = rpp_matrix(D, pops, weighting)
        assert np.array_equal(M, -M.T)
        assert not np.any(np.diag(M))
        assert np.all(np.abs(M) <= 1.0)
        pair = population_rpp(D[:, None, :], D[None, :, :], pops, weighting)
        for i in range(len(rows)):
            for j in range(len(rows)):
                exact = population_rpp_brute(rows[i], rows[j], pops.tolist(), weighting)
                if weighting == "uniform":
                    assert M[i, j] == float(exact) == pair[i, j]
                else:
                    assert M[i, j] == pytest.approx(float(exact), abs=1e-12)
                    assert pair[i, j] == pytest.approx(float(exact), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(graded_case(max_grade=1))
def test_graded_with_one_grade_equals_binary(case):
    rows, grades = case
    D = np.array(rows)
    P = position_vectors(D)
    pops = graded_populations(np.array(grades))
    assert pops.shape[0] == 1
    for weighting in WEIGHTINGS:
        binary = rpp(P[:, None, :], P[None, :, :], weighting)
        assert np.array_equal(population_rpp(D[:, None, :], D[None, :, :], pops, weighting), binary)
        assert np.array_equal(population_rpp(D[:, None, :], D[None, :, :], None, weighting), binary)
        assert np.allclose(rpp_matrix(D, pops, weighting), binary, rtol=0, atol=1e-15)
        assert np.allclose(rpp_matrix(P, None, weighting), binary, rtol=0, atol=1e-15)
    assert np.array_equal(rpp_matrix(P), rpp(P[:, None, :], P[None, :, :]))


@settings(max_examples=100, deadline=None)
@given(graded_case(max_runs=4), st.data())
def test_subtopic_rpp_matches_brute_force(case, data):
    rows, _ = case
    m = len(rows[0])
    T = data.draw(st.integers(1, 3))
    mem = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=T, max_size=T)))
    pops = subtopic_populations(mem)
    D = np.array(rows)
    M = rpp_matrix(D, pops)
    for i in range(len(rows)):
        for j in range(len(rows)):
            assert M[i, j] == float(population_rpp_brute(rows[i], rows[j], pops.tolist()))


def test_rpp_matrix_blocks_agree(monkeypatch):
    rng = np.random.default_rng(5)
    S, m = 40, 30
    D = np.where(rng.random((S, m)) < 0.3, INF, rng.permuted(np.tile(np.arange(1.0, 61.0), (S, 1)), axis=1)[:, :m])
    grades = rng.integers(1, 4, m)
    pops = graded_populations(grades)
    full = {w: rpp_matrix(D, pops, w) for w in WEIGHTINGS}
    monkeypatch.setattr(rpp_module, "_BLOCK_ELEMENTS", 7 * S * m)  # force several row blocks
    for w in WEIGHTINGS:
        assert np.array_equal(rpp_matrix(D, pops, w), full[w])
    assert np.array_equal(full["uniform"], population_rpp(D[:, None], D[None], pops))


def test_population_edge_cases():
    D = np.array([[1.0, INF], [INF, 2.0]])
    empty = np.zeros((2, 2), dtype=bool)
    assert not np.any(rpp_matrix(D, empty))
    assert population_rpp(D[0], D[1], empty) == 0.0
    assert rpp_matrix(np.zeros((3, 0))).tolist() == [[0.0] * 3] * 3
    with pytest.raises(PrefevalError, match="populations"):
        rpp_matrix(D, np.ones((1, 3), dtype=bool))
    with pytest.raises(PrefevalError, match="weighting"):
        rpp_matrix(D, weighting="exp")


# --------------------------------------------------------------------------- worked examples (spec C4)


def xy_example():
    """Spec C4.1: the paper's X/Y rankings as grades by position, omitted grades unretrieved."""
    ranking_grades = {
        "X": [0, 4, 3, 0, 0, 0, 1, 0, 3, 0, 0],
        "Y": [3, 0, 4, 5, 3, 0, 0, 1, 1, 0, 0],
    }
    # Same 9 relevant items (grade multiset {1,1,1,2,3,3,4,4,5}); give each grade's docs ids.
    relevant = {"g1a": 1, "g1b": 1, "g1c": 1, "g2": 2, "g3a": 3, "g3b": 3, "g4a": 4, "g4b": 4, "g5": 5}
    ranked = []
    for name, grades in ranking_grades.items():
        pool = {g: sorted(d for d, gd in relevant.items() if gd == g) for g in set(relevant.values())}
        ids = [pool[g].pop(0) if g else f"{name}-nonrel-{r}" for r, g in enumerate(grades)]
        ranked.append(np.array(ids))
    rel_ids = np.array(list(relevant))
    return doc_positions(ranked, rel_ids), np.array(list(relevant.values()))


def test_c4_1_graded_and_binary_xy():
    D, grades = xy_example()
    X, Y = D
    pops = graded_populations(grades)
    assert pops.sum(axis=1).tolist() == [9, 6, 5, 3, 1]
    # the per-λ position vectors of the worked example's table (unretrieved = inf instead of n - m_λ + i)
    assert position_vectors(X, pops[0]).tolist() == [2, 3, 7, 9] + [INF] * 5
    assert position_vectors(Y, pops[0]).tolist() == [1, 3, 4, 5, 8, 9] + [INF] * 3
    per_level = [population_rpp(X, Y, pops[k:k + 1]) for k in range(5)]
    assert per_level == [-5 / 9, -3 / 6, -3 / 5, 0.0, -1.0]
    assert population_rpp(X, Y, pops) == -0.5  # -12/24
    assert population_rpp(Y, X, pops) == 0.5
    M = rpp_matrix(D, pops)
    assert M.tolist() == [[0.0, -0.5], [0.5, 0.0]]
    # binary (λ = 1 only)
    P = position_vectors(D)
    assert rpp(P[0], P[1]) == -5 / 9
    assert rpp(P[0], P[1], "inverse") == pytest.approx(-0.689297, abs=5e-7)
    assert rpp(P[0], P[1], "dcg") == pytest.approx(-0.628450, abs=5e-7)
    assert lexiprecision(P[0], P[1]) == -1.0
    assert lexiprecision(P[0], P[1], "rr") == -0.5


def test_c4_1_same_values_with_corpus_imputation():
    # Omitted items at the bottom of a corpus of n = 20 in increasing grade order.
    X = {1: [7, 16, 17], 2: [18], 3: [3, 9], 4: [2, 19], 5: [20]}
    Y = {1: [8, 9, 18], 2: [19], 3: [1, 5], 4: [3, 20], 5: [4]}
    grades = np.array([g for g in sorted(X) for _ in X[g]])
    D = np.array([[float(p) for g in sorted(X) for p in X[g]], [float(p) for g in sorted(Y) for p in Y[g]]])
    pops = graded_populations(grades)
    assert population_rpp(D[0], D[1], pops) == -0.5
    assert rpp(np.sort(D[0]), np.sort(D[1])) == -5 / 9


def test_c4_2_rpp_disagrees_with_lp():
    A, B = np.array([1.0, 10, 11]), np.array([2.0, 3, 4])
    assert rpp(A, B) == -1 / 3
    assert rpp(A, B, "inverse") == pytest.approx(1 / 11, abs=1e-15)
    assert rpp(A, B, "dcg") == pytest.approx(-0.061443, abs=5e-7)
    assert lexiprecision(A, B) == 1.0
    assert lexiprecision(A, B, "rr") == 0.5


def test_c4_3_condorcet_cycle():
    P = np.array([[1.0, 6, 8], [2.0, 4, 9], [3.0, 5, 7]])  # A, B, C
    M = rpp_matrix(P)
    assert M[0, 1] == M[1, 2] == M[2, 0] == 1 / 3
    assert M.sum(axis=1).tolist() == [0.0, 0.0, 0.0]  # all win rates 0
    lp = lexiprecision_matrix(P)
    assert lp[0, 1] == 1 and lp[1, 2] == 1 and lp[2, 0] == -1  # LP is transitive: A > B > C


@pytest.mark.parametrize("n", [None, 1000])
def test_c4_5_fig4_pair(n):
    last = INF if n is None else float(n)
    before = INF if n is None else float(n - 1)
    A = np.array([2.0, 4, 10, before, last])
    B = np.array([2.0, 8, 9, 500, last])
    assert rpp(A, B) == -0.2
    assert rpp(A, B, "inverse") == pytest.approx(-5 / 137, abs=1e-15)
    assert lexiprecision(A, B, "rr") == pytest.approx(1 / 8, abs=1e-15)


def test_b4_5_unretrieved_rpp_zero():
    assert rpp(np.array([3.0, INF, INF]), np.array([5.0, 7, INF])) == 0.0


def test_c4_6_system_level_table():
    q1 = np.array([[1.0, 5, 9], [1.0, 3, INF], [2.0, 3, 4]])  # A, B, C
    q2 = np.array([[2.0, INF], [1.0, 10], [3.0, 4]])
    pairs = [(0, 1), (0, 2), (1, 2)]
    expected = {  # (sgnLP, rrLP, RPP) per query and pair
        "q1": [(-1, Fraction(-2, 15), 0), (1, Fraction(1, 2), Fraction(-1, 3)), (1, Fraction(1, 2), 0)],
        "q2": [(-1, Fraction(-1, 2), -1), (1, Fraction(1, 6), 0), (1, Fraction(2, 3), 0)],
    }
    mats = {}
    for q, P in [("q1", q1), ("q2", q2)]:
        mats[q] = (lexiprecision_matrix(P), lexiprecision_matrix(P, "rr"), rpp_matrix(P))
        for (i, j), (sgn, rr, r) in zip(pairs, expected[q]):
            assert mats[q][0][i, j] == sgn
            assert mats[q][1][i, j] == pytest.approx(float(rr), abs=1e-15)
            assert mats[q][2][i, j] == float(r)
    mean = [(mats["q1"][k] + mats["q2"][k]) / 2 for k in range(3)]
    assert [mean[0][i, j] for i, j in pairs] == [-1, 1, 1]
    assert [mean[1][i, j] for i, j in pairs] == pytest.approx([-19 / 60, 1 / 3, 7 / 12], abs=1e-15)
    assert [mean[2][i, j] for i, j in pairs] == [-1 / 2, -1 / 6, 0.0]
    # per-query RPP win rates (row sums)
    assert mats["q1"][2].sum(axis=1).tolist() == [-1 / 3, 0.0, 1 / 3]
    assert mats["q2"][2].sum(axis=1).tolist() == [-1.0, 1.0, 0.0]
