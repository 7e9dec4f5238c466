"""Significance of a family of pairs of runs: which test and correction a family gets, and its p-values.

The tests themselves are :mod:`prefeval.core.stats`; this module chooses among them for the pairs of one method of a
:class:`~prefeval.engine.comparison.Comparison` (or of a pipeline's table), and is the one place that knows

* which tests already control the family-wise error over all pairs (:data:`FAMILY_WISE_TESTS`: the randomized
  Tukey HSD of Carterette (2012), on per-query scores; no correction applies), and
* which tests need every per-query value of a pair (:data:`VALUE_TESTS`: Wilcoxon, permutation); the sign test
  (the "binomial test" of Diaz & Mitra (2023) §6.2.3 and Diaz (2023) §4.2) and the t test work from the pairs'
  streamed sums (:class:`~prefeval.core.reduce.PairSums`).

:func:`pair_significance` runs the test and corrects the p-values over the family (Holm by default,
:func:`prefeval.core.stats.adjust`); an undefined test (p-value NaN: fewer than two queries, every query tied,
zero variance) is left out of the family and never significant, and the family's size is the number of defined
tests. Beside each p-value it gives the pair's effect size (:func:`prefeval.core.stats.effect_size_moments`, the
paired d_z); :func:`pair_intervals` gives the confidence interval of each pair's mean difference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from prefeval.core import stats
from prefeval.core.reduce import PairSums
from prefeval.errors import PrefevalError

#: tests that already control the family-wise error over all pairs of systems, so no correction applies
FAMILY_WISE_TESTS = frozenset({"randomized_tukey_hsd"})
#: tests that need every per-query value of a pair (the others work from per-pair sums or per-query scores)
VALUE_TESTS = frozenset({"wilcoxon", "permutation"})


def correction_for(test: str, correction: str | None) -> str:
    """The correction a family of pairs gets under ``test``: ``none`` for a family-wise test, else
    ``correction`` (default ``holm``)."""
    if test in FAMILY_WISE_TESTS:
        return "none"
    return "holm" if correction is None else correction


@dataclass(frozen=True)
class PairTests:
    """Per pair: ``statistic``, ``pvalue`` (NaN: the test is undefined), ``adjusted`` p-value, ``significant``
    (``adjusted <= alpha``; never for an undefined test) and ``effect_size`` (mean / sd of the per-query values,
    NaN where undefined); ``family``: the size of the correction family, the number of defined tests."""

    statistic: np.ndarray
    pvalue: np.ndarray
    adjusted: np.ndarray
    significant: np.ndarray
    effect_size: np.ndarray | None = None
    family: int = 0

    @property
    def undefined(self) -> int:
        """The number of pairs whose test is undefined (p-value NaN), left out of the family."""
        return int(np.isnan(self.pvalue).sum())


def pair_significance(test: str, X: np.ndarray | None, scores: np.ndarray, pairs: tuple[np.ndarray, np.ndarray],
                      correction: str, alpha: float, n_resamples: int = 10_000, seed: int | None = 0,
                      family_statistic: np.ndarray | None = None, sums: PairSums | None = None) -> PairTests:
    """Significance of a family of pairs of systems.

    ``X`` (pairs, Q): per-query values of each pair (a preference, or a metric difference); ``scores``
    (Q, S): every system's per-query scores, which a family-wise test (randomized Tukey HSD, Carterette
    (2012)) resamples; ``pairs``: the (a, b) system indices of the rows of ``X``. A paired test runs on ``X``
    and its p-values are corrected over the family; a family-wise test is not corrected again and reports
    ``family_statistic`` (default: the difference of the two systems' mean scores). With ``sums`` (the pairs'
    :class:`PairSums`), the sign and t tests are computed from them and ``X`` may be ``None``.
    """
    groups = None  # pairs whose p-values are equal by construction (sign test)
    if test in FAMILY_WISE_TESTS:
        if correction != "none":
            raise PrefevalError(f"{test} already controls the family-wise error over all pairs; "
                                f"use correction='none' (got {correction!r})")
        diff, pmat = stats.randomized_tukey_hsd(scores, n_resamples=n_resamples, seed=seed)
        i, j = pairs
        statistic = diff[i, j] if family_statistic is None else family_statistic
        pvalue = pmat[i, j]
    elif sums is not None and test == "sign":
        result = stats.sign_test_counts(sums.wins, sums.losses)
        statistic, pvalue, groups = result.statistic, result.pvalue, result.groups
        if sums.n < stats.MIN_QUERIES:
            pvalue = np.full_like(pvalue, np.nan)
    elif sums is not None and test == "t":
        result = stats.t_test_moments(sums.n, sums.mean, sums.m2, sums.ties == sums.n)
        statistic, pvalue = result.statistic, result.pvalue
    else:
        result = stats.paired_test(test, X, n_resamples=n_resamples, seed=seed)
        statistic, pvalue = result.statistic, result.pvalue
    adjusted, significant = stats.adjust(pvalue, correction, alpha, groups=groups)
    return PairTests(statistic, pvalue, adjusted, significant, pair_effect_sizes(X, sums),
                     stats.family_size(pvalue))


def pair_effect_sizes(X: np.ndarray | None, sums: PairSums | None = None) -> np.ndarray | None:
    """The effect size of each pair, mean / sd (``ddof = 1``) of its per-query values (the paired d_z on metric
    differences, :func:`prefeval.core.stats.effect_size_moments`), from the pairs' ``sums`` when given, else from
    ``X`` (pairs, Q); None without either."""
    if sums is not None:
        return stats.effect_size_moments(sums.n, sums.mean, sums.m2)
    return None if X is None else stats.effect_size(X)


def pair_intervals(ci: str, X: np.ndarray | None, sums: PairSums | None = None, level: float = 0.95,
                   n_resamples: int = 10_000, seed: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """The confidence interval of each pair's mean per-query value: ``ci="t"`` (:func:`prefeval.core.stats.t_interval`,
    from ``sums`` when given) or ``"bootstrap"`` (:func:`prefeval.core.stats.bootstrap_interval` of ``X``, which it
    needs: the per-query values, ``n_resamples``, ``seed``). Returns ``(low, high)``."""
    if ci not in stats.INTERVALS:
        raise PrefevalError(f"unknown interval {ci!r}; choose one of {', '.join(stats.INTERVALS)}")
    if ci == "t" and sums is not None:
        return stats.t_interval(sums.n, sums.mean, sums.m2, level)
    if X is None:
        raise PrefevalError("the bootstrap interval needs the per-query values; keep them "
                            "(prefeval.compare(..., per_query=True))")
    return stats.mean_interval(X, ci, level, n_resamples, seed)
