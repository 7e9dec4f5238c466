"""Closed-form tie probabilities (Diaz & Mitra (2023) §5.3 / App. D, Diaz (2023) §3.3) against exhaustive enumeration,
the spec's exact small cases, and the paper's Tables 3 and 4."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.analysis import rr_tie_probability_given_p1, tie_probability
from prefeval.errors import PrefevalError


def brute_force(value_of, n: int, m: int) -> Fraction:
    """Pr(f(p) = f(p')) for p, p' independent uniform m-subsets of 1..n (straight from the definition)."""
    subsets = list(itertools.combinations(range(1, n + 1), m))
    counts: dict = {}
    for p in subsets:
        key = value_of(p)
        counts[key] = counts.get(key, 0) + 1
    return Fraction(sum(c * c for c in counts.values()), len(subsets) ** 2)


DEFINITIONS = {
    "LexiRecall": lambda n, m, k: (lambda p: p),                       # ties iff p = p'
    "LexiPrecision": lambda n, m, k: (lambda p: p),
    "TSE": lambda n, m, k: (lambda p: p[-1]),                          # e(p_m)
    "RR": lambda n, m, k: (lambda p: p[0]),                            # 1/p_1
    "R@k": lambda n, m, k: (lambda p: sum(x <= k for x in p)),         # #{p_i <= k}/m
    "Rprec": lambda n, m, k: (lambda p: sum(x <= m for x in p)),
    "AP": lambda n, m, k: (lambda p: sum(Fraction(i, x) for i, x in enumerate(p, 1))),
}


@pytest.mark.parametrize("n, m, k, expected", [
    (6, 2, 3, {"LexiRecall": Fraction(1, 15), "TSE": Fraction(11, 45), "R@k": Fraction(11, 25),
               "Rprec": Fraction(101, 225), "AP": Fraction(17, 225)}),
    (8, 3, 4, {"LexiRecall": Fraction(1, 56), "TSE": Fraction(29, 112), "R@k": Fraction(37, 98),
               "Rprec": Fraction(613, 1568), "AP": Fraction(15, 784)}),
])
def test_spec_exact_small_cases(n, m, k, expected):
    # Diaz & Mitra (2023) §5.3, App. D: exact rationals
    for measure, value in expected.items():
        got = tie_probability(measure, n, m, k=k if measure == "R@k" else None, exact=True)
        assert isinstance(got, Fraction)
        assert got == value, measure
        assert got == brute_force(DEFINITIONS[measure](n, m, k), n, m)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 10), data=st.data())
def test_closed_forms_match_enumeration(n, data):
    m = data.draw(st.integers(1, n))
    k = data.draw(st.integers(0, n + 2))
    for measure, definition in DEFINITIONS.items():
        got = tie_probability(measure, n, m, k=k if measure == "R@k" else None, exact=True)
        assert got == brute_force(definition(n, m, k), n, m), (measure, n, m, k)
        approx = tie_probability(measure, n, m, k=k if measure == "R@k" else None)
        assert approx == pytest.approx(float(got), rel=1e-9, abs=1e-15)


# Diaz & Mitra (2023) Table 3 (m = 10) and Table 4 (n = 10^6): TSE, R1000, RP, LR
TABLE3 = {10**3: (0.005, 1.000, 0.825, 0.000), 10**4: (0.001, 0.313, 0.980, 0.000),
          10**5: (0.000, 0.826, 0.998, 0.000), 10**6: (0.000, 0.980, 1.000, 0.000)}
TABLE4 = {1: (0.000, 0.998, 1.000, 0.000), 5: (0.000, 0.990, 1.000, 0.000), 10: (0.000, 0.981, 1.000, 0.000),
          25: (0.000, 0.952, 0.999, 0.000), 50: (0.000, 0.907, 0.995, 0.000)}
# two cells of Diaz & Mitra (2023) App. D: the paper rounds the closed form oddly; they match it instead
FLAGGED = {(10**3, 10, "Rprec"): 0.82566, (10**6, 10, "R@1000"): 0.98029}


def _check_row(n, m, row):
    for measure, paper in zip(("TSE", "R@1000", "Rprec", "LexiRecall"), row):
        got = tie_probability(measure, n, m)
        if (n, m, measure) in FLAGGED:
            assert got == pytest.approx(FLAGGED[n, m, measure], abs=5e-6)
        else:
            assert got == pytest.approx(paper, abs=1e-3), (n, m, measure)


@pytest.mark.parametrize("n", sorted(TABLE3))
def test_table3(n):
    _check_row(n, 10, TABLE3[n])


@pytest.mark.parametrize("m", sorted(TABLE4))
def test_table4(m):
    _check_row(10**6, m, TABLE4[m])


def test_large_n_exact_and_float_agree():
    exact = tie_probability("TSE", 10**5, 10, exact=True)
    assert float(exact) == pytest.approx(tie_probability("TSE", 10**5, 10), rel=1e-8)
    assert tie_probability("LexiRecall", 10**6, 1, exact=True) == Fraction(1, 10**6)
    assert tie_probability("R@1000", 10**6, 50, exact=True) == pytest.approx(0.90706, abs=5e-6)


def test_lexiprecision_and_rr():
    # Diaz (2023) §3.3: LP ties iff identical position vectors; RR iff same p_1 (mirror image of TSE)
    assert tie_probability("LexiPrecision", 50_000, 250) == tie_probability("LexiRecall", 50_000, 250)
    assert tie_probability("RR", 1000, 10, exact=True) == tie_probability("TSE", 1000, 10, exact=True)
    # spec B4.3 gold values
    assert [rr_tie_probability_given_p1(5, 2, j, exact=True) for j in (1, 2, 3, 4)] == [
        Fraction(2, 5), Fraction(3, 10), Fraction(1, 5), Fraction(1, 10)]
    assert rr_tie_probability_given_p1(50_000, 250, 1) == pytest.approx(0.005, rel=1e-9)
    n, m = 9, 3
    assert sum(rr_tie_probability_given_p1(n, m, j, exact=True) ** 2 for j in range(1, n - m + 2)) \
        == tie_probability("RR", n, m, exact=True)


def test_measure_spellings():
    assert tie_probability("R@3", 6, 2, exact=True) == tie_probability("R", 6, 2, k=3, exact=True)
    assert tie_probability("rprec", 6, 2) == tie_probability("R-precision", 6, 2)
    import ir_measures

    assert tie_probability(ir_measures.R @ 1000, 10**4, 10) == pytest.approx(0.31267, abs=5e-6)
    assert tie_probability(ir_measures.Rprec, 10, 3) == tie_probability("Rprec", 10, 3)


@pytest.mark.parametrize("args, match", [
    (("nDCG", 10, 2), "unknown measure"),
    (("R@k", 10, 2), "needs a cutoff"),
    (("TSE", 10, 0), "1 <= m <= n"),
    (("TSE", 5, 6), "1 <= m <= n"),
    (("TSE", 10.5, 2), "integer"),
    (("AP", 1000, 10), "enumeration limit"),
])
def test_errors(args, match):
    with pytest.raises(PrefevalError, match=match):
        tie_probability(*args)
