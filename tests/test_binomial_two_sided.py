"""The vectorised two-sided binomial test of the sign test gives exactly ``scipy.stats.binomtest``'s p-values."""

from __future__ import annotations

import numpy as np
import scipy.stats as st

from prefeval.core import stats


def test_every_outcome_up_to_80_trials_equals_binomtest() -> None:
    k, n = np.array([(k, n) for n in range(1, 81) for k in range(n + 1)]).T
    expected = np.array([st.binomtest(int(a), int(b), 0.5).pvalue for a, b in zip(k, n)])
    np.testing.assert_array_equal(stats.binomial_two_sided(k, n), expected)


def test_large_and_lopsided_samples_equal_binomtest() -> None:
    rng = np.random.default_rng(7)
    n = np.r_[rng.integers(81, 5000, 150), [1000, 1001, 10_000, 10_000, 10_000, 99_999]]
    k = np.r_[rng.integers(0, n[:150] + 1), [500, 500, 0, 4_900, 10_000, 50_001]]
    expected = np.array([st.binomtest(int(a), int(b), 0.5).pvalue for a, b in zip(k, n)])
    np.testing.assert_array_equal(stats.binomial_two_sided(k, n), expected)


def test_other_success_probabilities_equal_binomtest() -> None:
    k, n = np.array([(k, n) for n in (1, 2, 7, 30, 101) for k in range(n + 1)]).T
    for p in (0.1, 0.3, 0.75):
        expected = np.array([st.binomtest(int(a), int(b), p).pvalue for a, b in zip(k, n)])
        np.testing.assert_array_equal(stats.binomial_two_sided(k, n, p), expected)
