"""Undefined tests are never findings; effect sizes and intervals from their definitions (prefeval.core.stats)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs
from statsmodels.stats.multitest import multipletests

from prefeval.core import stats


@pytest.mark.parametrize("name", ["sign", "t", "wilcoxon", "permutation"])
def test_one_query_is_undefined(name):
    res = stats.paired_test(name, np.array([[0.5], [-0.2], [0.0]]))
    assert np.isnan(res.pvalue).all()


@pytest.mark.parametrize("name", ["sign", "t", "wilcoxon", "permutation"])
def test_every_query_tied_is_undefined(name):
    res = stats.paired_test(name, np.array([[0.0, 1e-14, -1e-13, 0.0], [0.5, -0.25, 0.5, 0.1]]))
    assert np.isnan(res.pvalue[0]) and np.isfinite(res.pvalue[1])


def test_t_test_with_zero_variance_is_undefined():
    """scipy's limit (|t| = inf, p = 0) is not evidence: identical non-zero differences give no standard error."""
    res = stats.t_test(np.array([[0.3, 0.3, 0.3], [0.1, 0.2, 0.4]]))
    assert np.isnan(res.pvalue[0]) and np.isnan(res.statistic[0])
    assert res.pvalue[1] == pytest.approx(st.ttest_1samp([0.1, 0.2, 0.4], 0).pvalue)


def test_tukey_undefined_for_one_query_and_tied_pairs():
    W = np.array([[0.1, 0.1, 0.5], [0.3, 0.3, 0.2], [0.2, 0.2, 0.9]])
    _, p = stats.randomized_tukey_hsd(W, n_resamples=200, seed=1)
    assert np.isnan(p[0, 1]) and np.isnan(p[1, 0]) and np.isfinite(p[0, 2])
    _, p1 = stats.randomized_tukey_hsd(W[:1], n_resamples=200, seed=1)
    off = ~np.eye(3, dtype=bool)
    assert np.isnan(p1[off]).all()


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh", "none"])
def test_undefined_p_values_leave_the_family(method):
    """The defined p-values are corrected as a family of their own size; the undefined stay NaN, never rejected."""
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 0.05, size=12)
    p[[1, 4, 9]] = np.nan
    adjusted, reject = stats.adjust(p, method)
    assert stats.family_size(p) == 9
    assert np.isnan(adjusted[[1, 4, 9]]).all() and not reject[[1, 4, 9]].any()
    defined = np.isfinite(p)
    if method == "none":
        np.testing.assert_array_equal(adjusted[defined], p[defined])
    else:
        ref_reject, ref_adjusted, _, _ = multipletests(p[defined], alpha=0.05, method=method)
        np.testing.assert_allclose(adjusted[defined], ref_adjusted)
        np.testing.assert_array_equal(reject[defined], ref_reject)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh", "none"])
def test_all_undefined_family_does_not_crash(method):
    adjusted, reject = stats.adjust(np.full(4, np.nan), method)
    assert np.isnan(adjusted).all() and not reject.any()
    assert stats.family_size(adjusted) == 0


def test_holm_with_groups_and_undefined():
    res = stats.sign_test(np.array([[1, 1, 1, 1, 1, 1, 1.0], [0, 0, 0, 0, 0, 0, 0.0], [1, 1, 1, 1, 1, 1, 1.0],
                                    [1, -1, 1, 1, 1, 1, 1.0]]))
    grouped = stats.adjust(res.pvalue, "holm", groups=res.groups)
    plain = stats.adjust(res.pvalue, "holm")
    np.testing.assert_array_equal(grouped[0], plain[0])
    np.testing.assert_array_equal(grouped[1], plain[1])
    assert np.isnan(grouped[0][1])


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.floats(-1, 1, allow_nan=False, width=32), min_size=1, max_size=30))
def test_effect_size_is_the_paired_dz(values):
    """d_z = mean / sd (ddof = 1), brute force; undefined for one value or zero variance."""
    x = np.array(values, dtype=np.float64)
    d = stats.effect_size(x)[0]
    if len(x) < 2 or np.std(x, ddof=1) <= stats.TIE_TOL:
        assert np.isnan(d)
    else:
        mean = sum(values) / len(values)
        sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
        assert d == pytest.approx(mean / sd, rel=1e-9, abs=1e-12)


def test_effect_size_times_sqrt_n_is_the_t_statistic():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(6, 25)), rng.normal(0.3, 1, size=(6, 25))
    np.testing.assert_allclose(stats.effect_size(a - b) * np.sqrt(25), st.ttest_rel(a, b, axis=1).statistic)


def test_t_interval_is_scipys():
    rng = np.random.default_rng(9)
    X = rng.normal(0.4, 0.3, size=(8, 17))
    low, high = stats.mean_interval(X, "t")
    for x, lo, hi in zip(X, low, high):
        ref = st.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=st.sem(x))
        assert (lo, hi) == pytest.approx(ref, rel=1e-12)
    low, high = stats.mean_interval(np.array([[0.5], [0.2]]))
    assert np.isnan(low).all() and np.isnan(high).all()
    low, high = stats.mean_interval(np.array([[0.5, 0.5, 0.5]]))
    assert np.isnan(low[0])


def brute_bootstrap(x, n_resamples, seed, level=0.95):
    """Draw the resamples one by one from the same generator stream and take the percentiles."""
    rng = np.random.default_rng(seed)
    Q = len(x)
    means = [x[rng.integers(0, Q, size=(1, Q))[0]].mean() for _ in range(n_resamples)]
    return np.quantile(means, [(1 - level) / 2, (1 + level) / 2])


def test_bootstrap_interval_is_the_percentile_interval():
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(3, 12))
    low, high = stats.bootstrap_interval(X, n_resamples=300, seed=4)
    # one draw of shape (300, Q) is the same stream as 300 draws of shape (1, Q)
    for x, lo, hi in zip(X, low, high):
        assert (lo, hi) == pytest.approx(tuple(brute_bootstrap(x, 300, 4)), rel=1e-12)


def test_bootstrap_is_seeded_and_holds_the_mean():
    rng = np.random.default_rng(11)
    X = rng.uniform(size=(20, 40))
    a = stats.bootstrap_interval(X, n_resamples=2000, seed=7)
    b = stats.bootstrap_interval(X, n_resamples=2000, seed=7)
    c = stats.bootstrap_interval(X, n_resamples=2000, seed=8)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.all((a[0] <= X.mean(axis=1)) & (X.mean(axis=1) <= a[1]))
    t_low, t_high = stats.mean_interval(X, "t")
    np.testing.assert_allclose(a[0], t_low, atol=0.03)  # close to the t interval on 40 queries
    np.testing.assert_allclose(a[1], t_high, atol=0.03)


def test_bootstrap_blocks_are_one_stream(monkeypatch):
    X = np.random.default_rng(1).uniform(size=(2, 7))
    whole = stats.bootstrap_means(X, 50, seed=3)
    monkeypatch.setattr(stats, "_BLOCK_ENTRIES", 7 * 8)  # blocks of 8 resamples
    np.testing.assert_array_equal(stats.bootstrap_means(X, 50, seed=3)[:, :8], whole[:, :8])


def test_interval_errors():
    with pytest.raises(ValueError, match="unknown interval"):
        stats.mean_interval(np.ones((1, 3)), "bca")
    with pytest.raises(ValueError, match="level"):
        stats.t_interval(3, np.zeros(1), np.ones(1), level=1.5)
