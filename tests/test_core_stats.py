"""prefeval.core.stats against scipy / statsmodels and brute-force definitions."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from statsmodels.stats.multitest import multipletests

from prefeval.core import stats


@pytest.fixture
def rng():
    return np.random.default_rng(20240601)


def test_sign_test_agrees_with_binomtest(rng):
    X = rng.integers(-1, 2, size=(300, 40)).astype(float)
    X[:5] = 0.0  # all ties
    X[5] = 1.0  # all wins
    res = stats.sign_test(X)
    for x, stat, p in zip(X, res.statistic, res.pvalue):
        wins, losses = int((x > 0).sum()), int((x < 0).sum())
        if wins + losses == 0:  # every query tied: undefined
            assert np.isnan(p)
            continue
        assert p == pytest.approx(st.binomtest(wins, wins + losses, 0.5).pvalue, rel=1e-12)  # exact in integers; scipy's float agrees to ~1e-14
        assert stat == wins - losses


def test_sign_test_drops_ties_and_noise(rng):
    x = np.array([0.5, 1e-15, -1e-14, 0.0, -0.25, 0.1])
    wins, losses, ties = stats.wins_losses_ties(x)
    assert (wins[0], losses[0], ties[0]) == (2, 1, 3)
    assert stats.sign_test(x).pvalue[0] == pytest.approx(st.binomtest(2, 3, 0.5).pvalue, rel=1e-12)


def test_sign_test_is_the_exact_binomial_tail():
    """The p-value from its definition in exact fractions: 2 P(X <= min(wins, losses)) for X ~ Bin(n, 1/2), capped
    at 1, and 1 when wins == losses; correctly rounded to a float."""
    from fractions import Fraction
    from math import comb

    wins = np.array([w for n in range(0, 40) for w in range(n + 1)] + [17, 1200, 1300])
    losses = np.array([n - w for n in range(0, 40) for w in range(n + 1)] + [40, 1300, 1200])
    got = stats.sign_test_counts(wins, losses).pvalue
    for w, lost, p in zip(wins.tolist(), losses.tolist(), got.tolist()):
        n, low = w + lost, min(w, lost)
        if n == 0:
            assert np.isnan(p)
            continue
        exact = Fraction(1) if 2 * low >= n else min(Fraction(1), Fraction(2 * sum(comb(n, i) for i in range(low + 1)), 2**n))
        assert p == float(exact)


def test_t_test_is_the_paired_t_test(rng):
    a, b = rng.normal(size=(20, 30)), rng.normal(0.2, 1.0, size=(20, 30))
    res = stats.t_test(a - b)
    ref = st.ttest_rel(a, b, axis=1)
    np.testing.assert_allclose(res.statistic, ref.statistic)
    np.testing.assert_allclose(res.pvalue, ref.pvalue)
    zero = stats.t_test(np.zeros((1, 10)))
    assert np.isnan(zero.statistic[0]) and np.isnan(zero.pvalue[0])


def test_wilcoxon_agrees_with_scipy(rng):
    X = rng.integers(-3, 4, size=(25, 30)).astype(float)
    X[0] = 0.0
    res = stats.wilcoxon_test(X)
    assert np.isnan(res.pvalue[0])
    for x, stat, p in zip(X[1:], res.statistic[1:], res.pvalue[1:]):
        ref = st.wilcoxon(x, zero_method="wilcox")
        assert stat == pytest.approx(ref.statistic)
        assert p == pytest.approx(ref.pvalue)


def test_permutation_exact_agrees_with_scipy(rng):
    X = rng.normal(0.3, 1.0, size=(6, 10))
    X[0, :3] = 0.0
    res = stats.permutation_test(X, n_resamples=10_000)  # 2^10 <= 10_000: exact
    for x, stat, p in zip(X, res.statistic, res.pvalue):
        ref = st.permutation_test((x,), np.mean, permutation_type="samples", n_resamples=np.inf,
                                  alternative="two-sided")
        assert stat == pytest.approx(x.mean())
        assert p == pytest.approx(ref.pvalue)


def test_permutation_random_is_seeded_and_close_to_exact(rng):
    X = rng.normal(0.2, 1.0, size=(4, 14))
    exact = stats.permutation_test(X, n_resamples=2**14)
    a = stats.permutation_test(X, n_resamples=4000, seed=3)
    b = stats.permutation_test(X, n_resamples=4000, seed=3)
    np.testing.assert_array_equal(a.pvalue, b.pvalue)
    assert np.all(a.pvalue > 0)
    np.testing.assert_allclose(a.pvalue, exact.pvalue, atol=0.03)


def brute_tukey_hsd(W, n_resamples, seed):
    """Carterette 2012: permute each query's values across systems; p = share of max ranges >= |difference|."""
    gen = np.random.default_rng(seed)
    ranges = []
    for _ in range(n_resamples):
        means = gen.permuted(W, axis=1).mean(axis=0)
        ranges.append(means.max() - means.min())
    means = W.mean(axis=0)
    S = W.shape[1]
    p = np.ones((S, S))
    for a in range(S):
        for b in range(S):
            if a != b:
                count = sum(r >= abs(means[a] - means[b]) - 1e-12 for r in ranges)
                p[a, b] = (count + 1) / (n_resamples + 1)
    return p


def test_randomized_tukey_hsd_matches_brute_force(rng):
    W = rng.normal(size=(15, 5)) + np.array([0.0, 0.1, 0.5, 2.0, 0.0])
    diff, p = stats.randomized_tukey_hsd(W, n_resamples=500, seed=11)
    np.testing.assert_allclose(p, brute_tukey_hsd(W, 500, 11))
    np.testing.assert_allclose(diff, W.mean(0)[:, None] - W.mean(0)[None, :])
    np.testing.assert_array_equal(p, p.T)
    assert p[0, 3] < 0.05  # a clear difference
    assert p[0, 4] > 0.5  # no difference


def test_hsd_is_more_conservative_than_unadjusted_permutation(rng):
    W = rng.normal(size=(30, 6)) + np.linspace(0, 0.8, 6)
    _, p_hsd = stats.randomized_tukey_hsd(W, n_resamples=2000, seed=0)
    i, j = np.triu_indices(6, 1)
    p_perm = stats.permutation_test((W[:, i] - W[:, j]).T, n_resamples=2000, seed=0).pvalue
    assert np.all(p_hsd[i, j] >= p_perm - 0.05)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_corrections_agree_with_statsmodels(rng, method):
    p = rng.uniform(0, 0.2, size=50)
    adjusted, reject = stats.adjust(p, method, alpha=0.05)
    ref_reject, ref_adjusted, _, _ = multipletests(p, alpha=0.05, method=method)
    np.testing.assert_allclose(adjusted, ref_adjusted)
    np.testing.assert_array_equal(reject, ref_reject)


def test_no_correction_and_errors():
    p = np.array([0.01, 0.05, 0.2])
    adjusted, reject = stats.adjust(p, "none", alpha=0.05)
    np.testing.assert_array_equal(adjusted, p)
    assert reject.tolist() == [True, True, False]
    with pytest.raises(ValueError, match="unknown correction"):
        stats.adjust(p, "sidak")
    with pytest.raises(ValueError, match="NaN"):
        stats.sign_test(np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match="at least one query"):
        stats.t_test(np.zeros((2, 0)))
