"""RBU kernel (Amigó et al. (2018) Eq. 11) against the spec test vectors and an exact brute force."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.core.rbu import evall_scale, rbu, relevance_probabilities
from prefeval.errors import PrefevalError

# ----------------------------------------------------------------------------------------------
# Brute force straight from the definitions, exact rationals.


def r_exact(grade: int, gmax: int) -> Fraction:
    """ERR mapping of the authors' tool (spec A10): (2^max(g,0) - 1) / 2^gmax."""
    return Fraction(2 ** max(grade, 0) - 1, 2 ** max(gmax, 0))


def rbu_eq11(rows: list[list[Fraction]], w: list[Fraction], p: Fraction, e: Fraction, k: int) -> Fraction:
    """Amigó et al. (2018) Eq. 11 with explicit loops; sums over the positions that hold a document (i <= min(k, n))."""
    total = Fraction(0)
    for i in range(1, min(k, len(rows)) + 1):
        gain = Fraction(0)
        for t in range(len(w)):
            prod = Fraction(1)
            for j in range(1, i):
                prod *= 1 - rows[j - 1][t]
            gain += w[t] * rows[i - 1][t] * prod
        total += p**i * (gain - e)
    return total


def rbu_java(rows: list[list[Fraction]], w: list[Fraction], p: Fraction, e: Fraction) -> Fraction:
    """The released Java tool's formula as transcribed in spec A10 (RBP discount (1-p) p^(i-1))."""
    n = len(rows)
    left = Fraction(0)
    for t in range(len(w)):
        inner = Fraction(0)
        for i in range(1, n + 1):
            prod = Fraction(1)
            for j in range(1, i):
                prod *= 1 - rows[j - 1][t]
            inner += p ** (i - 1) * rows[i - 1][t] * prod
        left += w[t] * (1 - p) * inner
    right = e * (1 - p) * sum((p ** (i - 1) for i in range(1, n + 1)), Fraction(0))
    return left - right


def close(a: float, b: Fraction | float) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-12)


# ----------------------------------------------------------------------------------------------
# Spec A2 test vectors: aspects {a, b}, w = 1/2 each, R = [{a:1/2}, {a:1/2}, {b:1/4}, {}].

R = np.array([[0.5, 0.0], [0.5, 0.0], [0.0, 0.25], [0.0, 0.0]])
W = np.array([0.5, 0.5])
H = Fraction(1, 2)
R_EXACT = [[H, Fraction(0)], [H, Fraction(0)], [Fraction(0), Fraction(1, 4)], [Fraction(0), Fraction(0)]]
W_EXACT = [H, H]
P45 = Fraction(4, 5)
E = Fraction(1, 20)


@pytest.mark.parametrize(
    ("k", "p", "e", "variant", "expected"),
    [
        (4, P45, Fraction(0), "paper", Fraction(43, 125)),
        (4, P45, E, "paper", Fraction(706, 3125)),
        (2, P45, E, "paper", Fraction(26, 125)),
        (4, P45, Fraction(0), "evall", Fraction(43, 500)),
        (4, P45, E, "evall", Fraction(353, 6250)),
    ],
)
def test_spec_a2_vectors(k: int, p: Fraction, e: Fraction, variant: str, expected: Fraction) -> None:
    got = rbu(R[:k], W, float(p), float(e), variant=variant)
    assert got.shape == ()
    assert close(got, expected)
    # the same through the k argument instead of truncating r
    assert close(rbu(R, W, float(p), float(e), variant=variant, k=k), expected)
    # and the brute forces reproduce the exact values computed by hand
    if variant == "paper":
        assert rbu_eq11(R_EXACT, W_EXACT, p, e, k) == expected
    else:
        assert rbu_java(R_EXACT[:k], W_EXACT, p, e) == expected


def test_spec_a2_confidence_vector() -> None:
    r5 = np.vstack([R, np.zeros((1, 2))])
    got = rbu(r5, W, 0.8, 0.05)
    assert close(got, Fraction(209536, 10**6))
    assert got < rbu(R, W, 0.8, 0.05)
    assert rbu_eq11([*R_EXACT, [Fraction(0), Fraction(0)]], W_EXACT, P45, E, 5) == Fraction(209536, 10**6)


def test_spec_a2_p1_with_warning() -> None:
    with pytest.warns(RuntimeWarning, match="p=1"):
        got = rbu(R, W, 1, 0.0)
    assert close(got, H)
    with pytest.warns(RuntimeWarning):
        assert float(rbu(R, W, 1.0, 0.0, variant="evall")) == 0.0


def test_spec_a2_from_grades() -> None:
    """1/2 = (2^1-1)/2^1 (aspect a, gmax 1) and 1/4 = (2^1-1)/2^2 (aspect b, gmax 2)."""
    r = relevance_probabilities(np.array([[1, 0], [1, -2], [0, 1], [-2, 0]]), np.array([1, 2]))
    np.testing.assert_array_equal(r, R)
    assert close(rbu(r, W, 0.8, 0.05), Fraction(706, 3125))


# ----------------------------------------------------------------------------------------------
# Property tests against the exact brute force.

P_CHOICES = [Fraction(1, 2), Fraction(4, 5), Fraction(9, 10), Fraction(99, 100), Fraction(1, 3)]
E_CHOICES = [Fraction(0), Fraction(1, 1000), Fraction(3, 100), Fraction(1, 20), Fraction(1, 2)]


@st.composite
def grade_matrix(draw: st.DrawFn, n_aspects: int, max_len: int = 9) -> list[list[int]]:
    """n x T qrels grades in -2..4 (-2 = spam, as in TREC Web)."""
    row = st.lists(st.integers(-2, 4), min_size=n_aspects, max_size=n_aspects)
    return draw(st.lists(row, min_size=0, max_size=max_len))


def gmax_for(draw: st.DrawFn, grade_sets: list[list[list[int]]], n_aspects: int) -> list[int]:
    """Highest judged grade per aspect: >= every grade shown, possibly from a document outside the ranking."""
    return [
        max([row[t] for grades in grade_sets for row in grades] + [draw(st.integers(-2, 4))])
        for t in range(n_aspects)
    ]


@st.composite
def rankings(draw: st.DrawFn) -> tuple[list[list[int]], list[int], list[int]]:
    """(grades n x T, gmax per aspect, integer aspect weights)."""
    n_aspects = draw(st.integers(1, 4))
    grades = draw(grade_matrix(n_aspects))
    gmax = gmax_for(draw, [grades], n_aspects)
    weights = draw(st.lists(st.integers(0, 5), min_size=n_aspects, max_size=n_aspects))
    return grades, gmax, weights


@st.composite
def ranking_batches(draw: st.DrawFn) -> tuple[list[list[list[int]]], list[int], list[int]]:
    """Several rankings (lengths 0..7) of one query: shared aspects, gmax and weights."""
    n_aspects = draw(st.integers(1, 3))
    batch = draw(st.lists(grade_matrix(n_aspects, max_len=7), min_size=1, max_size=5))
    gmax = gmax_for(draw, batch, n_aspects)
    weights = draw(st.lists(st.integers(0, 5), min_size=n_aspects, max_size=n_aspects))
    return batch, gmax, weights


def exact_inputs(grades: list[list[int]], gmax: list[int], weights: list[int]):
    rows = [[r_exact(g, gmax[t]) for t, g in enumerate(row)] for row in grades]
    total = sum(weights)
    w = [Fraction(x, total) if total else Fraction(0) for x in weights]
    return rows, w


def numpy_inputs(grades: list[list[int]], gmax: list[int], w_exact: list[Fraction]):
    n_aspects = len(gmax)
    g = np.array(grades, dtype=np.int64).reshape(len(grades), n_aspects)
    return relevance_probabilities(g, np.array(gmax)), np.array([float(x) for x in w_exact])


@settings(max_examples=150, deadline=None)
@given(rankings(), st.sampled_from(P_CHOICES), st.sampled_from(E_CHOICES), st.integers(0, 12))
def test_matches_eq11_bruteforce(case, p: Fraction, e: Fraction, k: int) -> None:
    grades, gmax, weights = case
    rows, w = exact_inputs(grades, gmax, weights)
    r, wf = numpy_inputs(grades, gmax, w)
    for row, exact_row in zip(r, rows):
        assert [float(x) for x in exact_row] == pytest.approx(list(row), abs=1e-15)
    expected = rbu_eq11(rows, w, p, e, k)
    assert close(rbu(r[:k], wf, float(p), float(e)), expected)
    assert close(rbu(r, wf, float(p), float(e), k=k), expected)
    # evall variant = the Java formula on the top-k, = (1-p)/p x paper
    java = rbu_java(rows[:k], w, p, e)
    assert java == (1 - p) / p * expected
    assert close(rbu(r, wf, float(p), float(e), k=k, variant="evall"), java)


@settings(max_examples=100, deadline=None)
@given(rankings(), st.sampled_from(P_CHOICES), st.sampled_from(E_CHOICES[1:]))
def test_confidence_appending_nonrelevant_decreases(case, p: Fraction, e: Fraction) -> None:
    """Conf (Amigó et al. (2018) §3.2): with e > 0, appending a non-relevant document strictly lowers RBU."""
    grades, gmax, weights = case
    _, w = exact_inputs(grades, gmax, weights)
    r, wf = numpy_inputs(grades, gmax, w)
    longer = np.vstack([r, np.zeros((1, r.shape[1]))])
    assert rbu(longer, wf, float(p), float(e)) < rbu(r, wf, float(p), float(e))
    # same comparison inside one padded batch: effort is charged only up to each length
    n = r.shape[0]
    batch = np.stack([longer, longer])
    both = rbu(batch, wf, float(p), float(e), length=np.array([n, n + 1]))
    assert both[1] < both[0]
    assert close(both[0], rbu(r, wf, float(p), float(e)))


@settings(max_examples=60, deadline=None)
@given(ranking_batches(), st.sampled_from(P_CHOICES), st.sampled_from(E_CHOICES))
def test_vectorised_over_padded_runs(case, p: Fraction, e: Fraction) -> None:
    """Many rankings of different lengths in one call = each ranking alone (incl. shorter than k)."""
    batch, gmax, weights = case
    k = 6
    padded = np.zeros((len(batch), 7, len(gmax)))
    expected = []
    for s, grades in enumerate(batch):
        rows, w = exact_inputs(grades, gmax, weights)
        r, wf = numpy_inputs(grades, gmax, w)
        padded[s, : len(r)] = r
        expected.append(rbu_eq11(rows, w, p, e, k))
    lengths = np.array([len(grades) for grades in batch])
    got = rbu(padded, wf, float(p), float(e), length=lengths, k=k)
    assert got.shape == (len(batch),)
    for value, exact in zip(got, expected):
        assert close(value, exact)


def test_shorter_than_k_charges_effort_only_for_documents() -> None:
    r = np.array([[0.5], [0.0], [0.25]])
    p, e = 0.8, 0.05
    expected = 0.8 * (0.5 - e) + 0.8**2 * (0 - e) + 0.8**3 * (0.25 * 0.5 - e)
    assert close(rbu(r, [1.0], p, e, k=20), expected)
    padded = np.vstack([r, np.zeros((17, 1))])
    assert close(rbu(padded, [1.0], p, e, length=3), expected)
    # without length, the 17 padding rows are treated as (non-relevant) documents and cost effort
    assert rbu(padded, [1.0], p, e) < expected
    # the same ranking cut at k = 2 < length
    assert close(rbu(padded, [1.0], p, e, length=3, k=2), 0.8 * (0.5 - e) + 0.8**2 * (0 - e))


def test_empty_ranking_scores_zero() -> None:
    assert float(rbu(np.zeros((5, 2)), W, 0.8, 0.03, length=0)) == 0.0
    assert float(rbu(np.zeros((0, 2)), W, 0.8, 0.03)) == 0.0
    np.testing.assert_array_equal(rbu(np.zeros((3, 0, 2)), W, 0.8, 0.03), np.zeros(3))


def test_negative_grades_clipped_to_zero() -> None:
    gmax = np.array([2, 4])
    neg = relevance_probabilities(np.array([[-2, -1], [1, -2]]), gmax)
    zero = relevance_probabilities(np.array([[0, 0], [1, 0]]), gmax)
    np.testing.assert_array_equal(neg, zero)
    assert neg[1, 0] == 0.25
    assert rbu(neg, W, 0.8, 0.03) == rbu(zero, W, 0.8, 0.03)


def test_aspect_without_relevant_document_gives_no_nan() -> None:
    r = relevance_probabilities(np.array([[0, 0, 3], [-2, -2, 1]]), np.array([0, -2, 3]))
    assert np.all(np.isfinite(r))
    np.testing.assert_array_equal(r[:, :2], 0.0)
    assert r[0, 2] == 7 / 8
    assert np.isfinite(rbu(r, [0.0, 0.0, 1.0], 0.8, 0.03))


def test_evall_scale_relation() -> None:
    rng = np.random.default_rng(7)
    r = rng.uniform(0, 1, size=(4, 3, 10, 3)) * (rng.uniform(size=(4, 3, 10, 3)) < 0.4)
    w = np.array([0.2, 0.3, 0.5])
    for p in (0.5, 0.8, 0.95):
        paper = rbu(r, w, p, 0.03)
        evall = rbu(r, w, p, 0.03, variant="evall")
        assert paper.shape == (4, 3)
        np.testing.assert_allclose(evall, (1 - p) / p * paper, rtol=1e-13, atol=1e-15)
        assert evall_scale(p) == pytest.approx((1 - p) / p)


def test_per_ranking_weights_broadcast() -> None:
    r = np.stack([R, R])
    got = rbu(r, np.array([[0.5, 0.5], [1.0, 0.0]]), 0.8, 0.0)
    assert close(got[0], Fraction(43, 125))
    assert close(got[1], 0.8 * 0.5 + 0.64 * 0.25)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"p": 0.0}, "p"),
        ({"p": 1.5}, "p"),
        ({"p": -0.2}, "p"),
        ({"p": float("nan")}, "p"),
        ({"p": "0.8"}, "p"),
        ({"e": -0.01}, "e"),
        ({"e": float("nan")}, "e"),
        ({"e": float("inf")}, "e"),
        ({"variant": "java"}, "variant"),
        ({"r": np.array([[1.5, 0.0]])}, r"\[0, 1\]"),
        ({"r": np.array([[-0.1, 0.0]])}, r"\[0, 1\]"),
        ({"r": np.array([[np.nan, 0.0]])}, r"\[0, 1\]"),
        ({"r": np.array([0.5, 0.0])}, "shape"),
        ({"weights": np.array([-0.5, 1.5])}, "weights"),
        ({"weights": np.array([0.2, 0.3, 0.5])}, "weights"),
        ({"length": 5}, "length"),
        ({"length": -1}, "length"),
        ({"length": 1.5}, "length"),
        ({"length": 2}, "beyond"),
        ({"k": -1}, "cutoff"),
        ({"k": 2.0}, "cutoff"),
    ],
)
def test_invalid_input_raises(kwargs: dict, match: str) -> None:
    args = {"r": R, "weights": W, "p": 0.8, "e": 0.03}
    args.update(kwargs)
    with pytest.raises(PrefevalError, match=match):
        rbu(**args)


def test_relevance_probabilities_invalid() -> None:
    with pytest.raises(PrefevalError, match="exceeds"):
        relevance_probabilities(np.array([[3, 0]]), np.array([2, 1]))
    with pytest.raises(PrefevalError, match="finite"):
        relevance_probabilities(np.array([[np.nan]]), np.array([2]))
    with pytest.raises(PrefevalError, match="finite"):
        relevance_probabilities(np.array([[1]]), np.array([np.inf]))
    with pytest.raises(PrefevalError, match="aspect"):
        relevance_probabilities(np.array([[1, 0, 0]]), np.array([2, 1]))


def test_valid_p_emits_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rbu(R, W, 0.99, 0.0)
        rbu(R, W, 4 / 5, 0)
