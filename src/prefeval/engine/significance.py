"""Significance of a family of pairs of runs: which test and correction a family gets, and its p-values.

The tests themselves are :mod:`prefeval.core.stats`; this module chooses among them for the pairs of one method of a
:class:`~prefeval.engine.comparison.Comparison` (or of a pipeline's table), and is the one place that knows

* which tests already control the family-wise error over all pairs (:data:`FAMILY_WISE_TESTS`: the randomized
  Tukey HSD of Carterette (2012), on per-query scores; no correction applies), and
* which tests need every per-query value of a pair (:data:`VALUE_TESTS`: Wilcoxon, permutation); the sign test
  (the "binomial test" of Diaz & Mitra (2023) §6.2.3 and Diaz (2023) §4.2) and the t test work from the pairs'
  streamed sums (:class:`~prefeval.core.reduce.PairSums`).

:func:`pair_significance` runs the test and corrects the p-values over the family (Holm by default,
:func:`prefeval.core.stats.adjust`).
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
    """Per pair: ``statistic``, ``pvalue``, ``adjusted`` p-value and ``significant`` (``adjusted <= alpha``)."""

    statistic: np.ndarray
    pvalue: np.ndarray
    adjusted: np.ndarray
    significant: np.ndarray


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
    elif sums is not None and test == "t":
        result = stats.t_test_moments(sums.n, sums.mean, sums.m2, sums.ties == sums.n)
        statistic, pvalue = result.statistic, result.pvalue
    else:
        result = stats.paired_test(test, X, n_resamples=n_resamples, seed=seed)
        statistic, pvalue = result.statistic, result.pvalue
    adjusted, significant = stats.adjust(pvalue, correction, alpha, groups=groups)
    return PairTests(statistic, pvalue, adjusted, significant)
