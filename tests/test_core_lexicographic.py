"""LexiRecall and LexiPrecision against brute force from the papers' definitions.

* LexiRecall: leximin over the utilities of all 2^m - 1 searchers (Diaz & Mitra (2023) Eq. 10),
  each utility a top-heavy recall-level metric (AP or RBP) on pessimistically imputed
  positions in a corpus of known size n; and Yager's metric form (Diaz & Mitra (2023) §7.3.2).
* LexiPrecision: plain Python tuple comparison (Diaz (2023) §3.2) and the first differing
  level with exact fractions (Eq. 2).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.core.lexicographic import (
    dense_ranks,
    lexiprecision,
    lexiprecision_matrix,
    lexiprecision_ranks,
    lexirecall,
    lexirecall_keys,
    lexirecall_matrix,
    lexirecall_ranks,
)
from prefeval.errors import PrefevalError

INF = math.inf


# --------------------------------------------------------------------------- strategies


@st.composite
def position_vector(draw, m, depth):
    """Ascending positions of the retrieved relevant docs within ``depth``, +inf padding to m."""
    k = draw(st.integers(0, min(m, depth)))
    pos = sorted(draw(st.sets(st.integers(1, depth), min_size=k, max_size=k))) if depth else []
    return [float(p) for p in pos] + [INF] * (m - len(pos))


@st.composite
def position_matrix(draw, max_runs=8, max_m=5, max_depth=12):
    m = draw(st.integers(1, max_m))
    depth = draw(st.integers(0, max_depth))
    S = draw(st.integers(1, max_runs))
    return [draw(position_vector(m, depth)) for _ in range(S)]


@st.composite
def vector_pair(draw, max_m=5, max_depth=12):
    m = draw(st.integers(1, max_m))
    depth = draw(st.integers(0, max_depth))
    return draw(position_vector(m, depth)), draw(position_vector(m, depth))


# --------------------------------------------------------------------------- brute force


def impute(p, n):
    """Pessimistic imputation (Diaz & Mitra (2023) §2.2): unretrieved items at n-k+1, ..., n."""
    finite = [int(x) for x in p if x != INF]
    k = len(p) - len(finite)
    return finite + [n - k + 1 + j for j in range(k)]


def ap_utility(positions):
    """AP of the searcher whose relevant set is the items at ``positions`` (Diaz & Mitra (2023) Table 1)."""
    return sum(Fraction(j, p) for j, p in enumerate(sorted(positions), start=1)) / len(positions)


def rbp_utility(positions, gamma=Fraction(1, 2)):
    """RBP(γ): e(i) = (1-γ) γ^{i-1}, z = 1 (top-heavy, z(1,1) = 1)."""
    return sum((1 - gamma) * gamma ** (p - 1) for p in positions)


def leximin(x, y):
    """Diaz & Mitra (2023) Eq. 9: x, y sorted decreasing; the last (worst-off) differing entry decides."""
    for xi, yi in zip(reversed(x), reversed(y)):
        if xi != yi:
            return 1 if xi > yi else -1
    return 0


def lexirecall_brute(a, b, utility=ap_utility):
    """Diaz & Mitra (2023) Eq. 10: leximin over the utilities of all 2^m - 1 searchers u ⊆ R, u ≠ ∅."""
    m = len(a)
    finite = [x for x in a + b if x != INF]
    n = int(max(finite, default=0)) + m + 1  # imputed positions lie below every retrieved one
    pa, pb = impute(a, n), impute(b, n)
    subsets = [s for r in range(1, m + 1) for s in itertools.combinations(range(m), r)]
    ua = sorted((utility([pa[i] for i in s]) for s in subsets), reverse=True)
    ub = sorted((utility([pb[i] for i in s]) for s in subsets), reverse=True)
    return leximin(ua, ub)


def lexiprecision_brute(a, b):
    """Diaz (2023) §3.2: tuple comparison, smaller tuple (inf = unretrieved) preferred."""
    return (tuple(a) < tuple(b)) - (tuple(a) > tuple(b))


def rr_lexiprecision_brute(a, b):
    """Diaz (2023) Eq. 2 in exact fractions: 1/a_i* - 1/b_i* (1/inf = 0)."""
    for x, y in zip(a, b):
        if x != y:
            rx = Fraction(0) if x == INF else Fraction(1, int(x))
            ry = Fraction(0) if y == INF else Fraction(1, int(y))
            return rx - ry
    return Fraction(0)


# --------------------------------------------------------------------------- brute-force agreement


def test_leximin_fig7_example():
    # Diaz & Mitra (2023) Fig. 7: decided at the third-from-last entry (0.12 > 0.07), left preferred.
    x = [1.00, 0.50, 0.25, 0.20, 0.15, 0.12, 0.04, 0.01]
    y = [1.00, 0.50, 0.33, 0.30, 0.11, 0.07, 0.04, 0.01]
    assert leximin(x, y) == 1 and leximin(y, x) == -1


@settings(max_examples=300, deadline=None)
@given(vector_pair(max_m=4, max_depth=10))
def test_lexirecall_equals_leximin_over_all_searchers_ap(pair):
    a, b = pair
    assert int(lexirecall(np.array(a), np.array(b))) == lexirecall_brute(a, b, ap_utility)


@settings(max_examples=150, deadline=None)
@given(vector_pair(max_m=4, max_depth=8))
def test_lexirecall_equals_leximin_over_all_searchers_rbp(pair):
    a, b = pair
    assert int(lexirecall(np.array(a), np.array(b))) == lexirecall_brute(a, b, rbp_utility)


def yager_weights(n, m, eps):
    """Diaz & Mitra (2023) §7.3.2 (Yager 1997): bottom-heavy weights with Δ = 1/(n + ε)."""
    d = 1 / (n + eps)
    return [d ** (m - 1) / (1 + d) ** (m - 1)] + [d ** (m - i) / (1 + d) ** (m + 1 - i) for i in range(2, m + 1)]


def test_yager_weights_test_vector():
    assert yager_weights(10, 3, Fraction(1, 2)) == [Fraction(4, 529), Fraction(42, 529), Fraction(21, 23)]


@pytest.mark.parametrize("n, m", [(8, 1), (8, 2), (8, 3), (7, 4)])
def test_lexirecall_agrees_with_yager_metric_on_all_position_sets(n, m):
    # Every pair of m-subsets of [1..n] (full rankings): sgn(LR(p) - LR(p')) == lexirecall.
    w = yager_weights(n, m, Fraction(1, 2))
    vectors = [list(c) for c in itertools.combinations(range(1, n + 1), m)]
    metric = [sum(wi * Fraction(n - p, n) for wi, p in zip(w, v)) for v in vectors]
    P = np.array(vectors, dtype=float)
    expected = np.sign(np.subtract.outer(np.array(metric, dtype=object), np.array(metric, dtype=object)))
    assert np.array_equal(lexirecall_matrix(P), expected.astype(np.int8))
    # ties only on identical vectors (Diaz & Mitra (2023) Thm B.5): 1/C(n, m) tie probability
    assert np.count_nonzero(lexirecall_matrix(P) == 0) == len(vectors)


@settings(max_examples=300, deadline=None)
@given(vector_pair(max_m=6, max_depth=12))
def test_lexiprecision_equals_tuple_comparison_and_exact_rr(pair):
    a, b = pair
    sgn = float(lexiprecision(np.array(a), np.array(b)))
    rr = float(lexiprecision(np.array(a), np.array(b), magnitude="rr"))
    assert sgn == lexiprecision_brute(a, b)
    exact = rr_lexiprecision_brute(a, b)
    assert rr == pytest.approx(float(exact), abs=1e-15)
    assert np.sign(rr) == sgn  # Diaz (2023) §3.5: sgnLP and rrLP always agree in sign
    assert -1.0 <= rr <= 1.0
    if a[0] != b[0]:  # δRR_1 ≠ 0 => rrLP = δRR_1
        assert exact == rr_lexiprecision_brute(a[:1], b[:1])


# --------------------------------------------------------------------------- properties


@settings(max_examples=120, deadline=None)
@given(position_matrix(max_runs=6, max_m=4))
def test_matrices_equal_pairwise_and_are_antisymmetric(rows):
    P = np.array(rows)
    S = len(rows)
    for fn, mat in [
        (lexirecall, lexirecall_matrix(P)),
        (lexiprecision, lexiprecision_matrix(P)),
        (lambda a, b: lexiprecision(a, b, "rr"), lexiprecision_matrix(P, "rr")),
    ]:
        assert mat.shape == (S, S)
        assert np.array_equal(mat, fn(P[:, None, :], P[None, :, :]))  # broadcasting pairwise form
        assert np.array_equal(mat, -mat.T)
        assert not np.any(np.diag(mat))
    lr, lp, rr = lexirecall_matrix(P), lexiprecision_matrix(P), lexiprecision_matrix(P, "rr")
    assert lr.dtype == np.int8
    for i in range(S):
        for j in range(i + 1, S):
            identical = rows[i] == rows[j]
            assert (lr[i, j] == 0) == identical
            assert (lp[i, j] == 0) == identical
            assert lr[i, j] == lexirecall_brute(rows[i], rows[j])
            assert lp[i, j] == lexiprecision_brute(rows[i], rows[j])
            assert rr[i, j] == pytest.approx(float(rr_lexiprecision_brute(rows[i], rows[j])), abs=1e-15)


@settings(max_examples=120, deadline=None)
@given(position_matrix(max_runs=7, max_m=4, max_depth=7))
def test_transitivity_and_sort_consistency(rows):
    P = np.array(rows)
    for mat, ranks in [
        (lexirecall_matrix(P), lexirecall_ranks(P)),
        (lexiprecision_matrix(P), lexiprecision_ranks(P)),
    ]:
        S = len(rows)
        for i, j, k in itertools.product(range(S), repeat=3):
            if mat[i, j] >= 0 and mat[j, k] >= 0:  # weak preference is transitive ...
                assert mat[i, k] >= 0
                if mat[i, j] > 0 or mat[j, k] > 0:  # ... and so is strict preference
                    assert mat[i, k] > 0
        order = np.argsort(ranks, kind="stable")  # best first
        for x, y in itertools.combinations(order, 2):
            assert mat[x, y] >= 0
        assert set(ranks.tolist()) == set(range(len(set(ranks.tolist()))))  # dense


@settings(max_examples=100, deadline=None)
@given(position_matrix())
def test_lexirecall_keys_match_the_documented_tuple_key(rows):
    # Sorting by (-#retrieved, p_m~, ..., p_1) with Python tuples gives the same order.
    def key(p):
        fin = [x for x in p if x != INF]
        return (-len(fin), *reversed(fin))

    P = np.array(rows)
    ranks = lexirecall_ranks(P)
    distinct = sorted({key(r) for r in rows})
    assert ranks.tolist() == [distinct.index(key(r)) for r in rows]
    assert lexirecall_keys(P).shape == (len(rows), P.shape[1] + 1)


def test_pairwise_broadcasting_over_leading_axes():
    rng = np.random.default_rng(3)
    A = np.sort(rng.choice([1.0, 2.0, 3.0, 5.0, INF], size=(2, 3, 4)), axis=-1)
    B = np.sort(rng.choice([1.0, 2.0, 3.0, 5.0, INF], size=(3, 4)), axis=-1)
    assert lexirecall(A, B).shape == (2, 3)
    assert lexiprecision(A, B, "rr").shape == (2, 3)
    for i in range(2):
        for j in range(3):
            assert lexirecall(A, B)[i, j] == lexirecall_brute(A[i, j].tolist(), B[j].tolist())
            assert lexiprecision(A, B)[i, j] == lexiprecision_brute(A[i, j].tolist(), B[j].tolist())


def test_no_relevant_documents_gives_zero_preference():
    empty = np.zeros((3, 0))
    assert lexirecall(empty, empty).tolist() == [0, 0, 0]
    assert lexiprecision(empty, empty, "rr").tolist() == [0.0, 0.0, 0.0]
    assert not np.any(lexirecall_matrix(empty))
    assert not np.any(lexiprecision_matrix(empty))
    assert not np.any(lexiprecision_matrix(empty, "rr"))
    assert lexirecall_matrix(np.zeros((0, 3))).shape == (0, 0)
    assert lexiprecision_matrix(np.zeros((0, 3)), "rr").shape == (0, 0)


def test_errors():
    with pytest.raises(PrefevalError, match="magnitude"):
        lexiprecision(np.ones(2), np.ones(2), magnitude="log")
    with pytest.raises(PrefevalError, match="recall levels"):
        lexirecall(np.ones(2), np.ones(3))
    with pytest.raises(PrefevalError, match="runs, recall levels"):
        lexirecall_matrix(np.ones(3))


def test_large_matrix_is_consistent_with_pairwise():
    rng = np.random.default_rng(11)
    S, m = 60, 40
    P = np.sort(np.where(rng.random((S, m)) < 0.2, INF, rng.integers(1, 60, (S, m))), axis=1)
    P[5] = P[7]  # a tie
    for mat, pair in [
        (lexirecall_matrix(P), lexirecall(P[:, None], P[None])),
        (lexiprecision_matrix(P, "rr"), lexiprecision(P[:, None], P[None], "rr")),
    ]:
        assert np.array_equal(mat, pair)
    assert dense_ranks(np.zeros((4, 0))).tolist() == [0, 0, 0, 0]


# --------------------------------------------------------------------------- worked examples


RUNS_A_TO_F = {  # derived cases (n = 20, m = 4; exact arithmetic): retrieved relevant positions
    "A": [1, 2, 3],
    "B": [4, 5, 6, 7],
    "C": [1, 2, 9, 10],
    "D": [1, 2, 3, 10],
    "E": [],
    "F": [1, 2, 3],
}


def a_to_f(imputed: bool) -> np.ndarray:
    rows = [RUNS_A_TO_F[r] for r in "ABCDEF"]
    if imputed:  # pessimistic imputation in a corpus of 20: tail 17..20
        return np.array([impute(r + [INF] * (4 - len(r)), 20) for r in rows], dtype=float)
    return np.array([r + [INF] * (4 - len(r)) for r in rows], dtype=float)


LR_A_TO_F = [
    [0, -1, -1, -1, +1, 0],
    [+1, 0, +1, +1, +1, +1],
    [+1, -1, 0, -1, +1, +1],
    [+1, -1, +1, 0, +1, +1],
    [-1, -1, -1, -1, 0, -1],
    [0, -1, -1, -1, +1, 0],
]
LP_A_TO_F = [
    [0, +1, +1, -1, +1, 0],
    [-1, 0, -1, -1, +1, -1],
    [-1, +1, 0, -1, +1, -1],
    [+1, +1, +1, 0, +1, +1],
    [-1, -1, -1, -1, 0, -1],
    [0, +1, +1, -1, +1, 0],
]


@pytest.mark.parametrize("imputed", [False, True])
def test_a_to_f_matrices(imputed):
    P = a_to_f(imputed)
    assert lexirecall_matrix(P).tolist() == LR_A_TO_F
    assert lexiprecision_matrix(P).tolist() == LP_A_TO_F
    # LR order B > D > C > A ~ F > E
    ranks = dict(zip("ABCDEF", lexirecall_ranks(P).tolist()))
    assert ranks["B"] < ranks["D"] < ranks["C"] < ranks["A"] == ranks["F"] < ranks["E"]


def test_a_to_f_metric_lexirecall_values():
    # derived cases: Yager metric (Diaz & Mitra (2023) §7.3.2) (n = 20, ε = 1/2) on imputed vectors.
    w = yager_weights(20, 4, Fraction(1, 2))
    values = {r: float(sum(wi * Fraction(20 - int(p), 20) for wi, p in zip(w, row)))
              for r, row in zip("ABCDEF", a_to_f(True))}
    expected = {"A": 3.9648e-2, "B": 6.5244e-1, "C": 5.0309e-1, "D": 5.1639e-1, "E": 2.4388e-3}
    for r, v in expected.items():
        assert values[r] == pytest.approx(v, rel=1e-4)
    assert values["F"] == values["A"]


def test_lp_fig4_example():
    # Diaz (2023) Fig. 4 / spec B4.1 (n = 1000): first difference at level 2 (4 < 8).
    n = 1000.0
    A = np.array([2, 4, 10, n - 1, n])
    B = np.array([2, 8, 9, 500, n])
    assert lexiprecision(A, B) == 1.0 and lexiprecision(B, A) == -1.0
    assert lexiprecision(A, B, "rr") == pytest.approx(1 / 8, abs=1e-15)
    assert lexiprecision(B, A, "rr") == pytest.approx(-1 / 8, abs=1e-15)


def test_lp_unretrieved_examples():
    # spec B4.5
    p, q = np.array([3, INF, INF]), np.array([5, 7, INF])
    assert lexiprecision(p, q) == 1.0
    assert lexiprecision(p, q, "rr") == pytest.approx(2 / 15, abs=1e-15)
    none = np.array([INF, INF])
    assert lexiprecision(none, none) == 0.0 and lexiprecision(none, none, "rr") == 0.0
    assert lexirecall(none, none) == 0
    q = np.array([50, INF])
    assert lexiprecision(none, q) == -1.0
    assert lexiprecision(none, q, "rr") == pytest.approx(-1 / 50, abs=1e-15)
    # spec B4.6: RR tie broken by LP
    A, B = np.array([1, 5, 9]), np.array([1, 3, INF])
    assert lexiprecision(A, B) == -1.0
    assert lexiprecision(A, B, "rr") == pytest.approx(-2 / 15, abs=1e-15)
    # ... while LexiRecall prefers A (all three retrieved)
    assert lexirecall(A, B) == 1


def test_lp_fig1_total_order():
    # spec B4.2 (m = 5, n = 10): LP orders all C(10, 5) arrangements as the tuples do.
    vecs = list(itertools.combinations(range(1, 11), 5))
    P = np.array(vecs, dtype=float)
    assert lexiprecision_ranks(P).tolist() == list(range(len(vecs)))  # combinations come out sorted
    # RR sees only n - m + 1 = 6 classes
    assert len({v[0] for v in vecs}) == 6


def test_lexirecall_properties_from_paper_appendix_a():
    # Appending a non-relevant item never changes LR (Thm A.8): positions unchanged => tie.
    a = np.array([2, 5, INF])
    assert lexirecall(a, a.copy()) == 0
    # Appending a relevant item when m~ < m gives a strict preference (Thm A.7/A.9).
    assert lexirecall(np.array([2, 5, 40]), a) == 1
    # Swapping a relevant item up past a non-relevant one is a strict improvement (Thm A.10).
    assert lexirecall(np.array([2, 4, 9]), np.array([2, 5, 9])) == 1
    assert lexirecall(np.array([1, 5, 9]), np.array([2, 5, 9])) == 1
