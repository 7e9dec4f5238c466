"""The sign test's p-values (``sign_test_counts``) equal ``scipy.stats.binomtest``'s on every outcome up to 60 trials
and on large samples, on both sides of ``EXACT_TRIALS`` (exact integers below it, ``scipy.special.bdtr`` above)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st

from prefeval.core import stats


def binomtest(wins: np.ndarray, n: np.ndarray) -> np.ndarray:
    """binomtest's p-value; NaN with no trials (every query tied: the test is undefined)."""
    return np.array([st.binomtest(int(a), int(b), 0.5).pvalue if b else np.nan for a, b in zip(wins, n)])


def test_every_outcome_up_to_60_trials_equals_binomtest() -> None:
    wins, n = np.array([(k, n) for n in range(0, 61) for k in range(n + 1)]).T
    got = stats.sign_test_counts(wins, n - wins)
    np.testing.assert_allclose(got.pvalue, binomtest(wins, n), rtol=1e-12, atol=0)
    np.testing.assert_array_equal(got.statistic, 2 * wins - n)


@pytest.mark.parametrize("exact_trials", [stats.EXACT_TRIALS, 0])
def test_large_and_lopsided_samples_equal_binomtest(monkeypatch, exact_trials: int) -> None:
    monkeypatch.setattr(stats, "EXACT_TRIALS", exact_trials)  # 0: every p-value through scipy.special.bdtr
    rng = np.random.default_rng(7)
    n = np.r_[rng.integers(81, 5000, 150), [1000, 1001, 2000, 2001, 10_000, 10_000, 10_000, 99_999]]
    wins = np.r_[rng.integers(0, n[:150] + 1), [500, 500, 900, 1100, 0, 4_900, 10_000, 50_001]]
    # scipy sums two floating-point tails (and loses digits in subnormal tails): equal to ~1e-10 relative
    np.testing.assert_allclose(stats.sign_test_counts(wins, n - wins).pvalue, binomtest(wins, n), rtol=1e-9,
                               atol=1e-300)


def test_bdtr_path_equals_the_exact_tail(monkeypatch) -> None:
    from fractions import Fraction
    from math import comb

    wins = np.array([0, 1, 40, 700, 1400, 1499, 1500])
    losses = np.array([3000, 2999, 2960, 2300, 1601, 1501, 1500])
    exact = stats.sign_test_counts(wins, losses).pvalue  # below EXACT_TRIALS: exact integers
    for w, lost, p in zip(wins.tolist(), losses.tolist(), exact.tolist()):
        n, low = w + lost, min(w, lost)
        assert p == float(min(Fraction(1), Fraction(2 * sum(comb(n, i) for i in range(low + 1)), 2**n)))
    monkeypatch.setattr(stats, "EXACT_TRIALS", 0)
    np.testing.assert_allclose(stats.sign_test_counts(wins, losses).pvalue, exact, rtol=1e-10, atol=1e-300)


def test_a_million_queries_is_fast_and_tiny_tails_do_not_vanish() -> None:
    wins = np.array([499_000, 400_000, 500_000, 3])
    p = stats.sign_test_counts(wins, 1_000_000 - wins).pvalue
    assert p[2] == 1.0 and p[3] == 0.0
    assert 0.04 < p[0] < 0.06 and p[1] == 0.0
