"""Significance tests for many system pairs at once, and multiple-comparison corrections (numpy + scipy).

Pairwise tests take ``X`` of shape ``(n_pairs, Q)`` (or ``(Q,)`` for one pair): the per-query values of one
pair, positive = first system better -- per-query preferences, or per-query metric differences
``mu(a) - mu(b)``. They return a :class:`TestResult` of arrays of shape ``(n_pairs,)``.

* :func:`sign_test` (:func:`sign_test_counts` from counts) -- exact two-sided binomial test of wins against losses
  (the p-value of ``scipy.stats.binomtest``, computed exactly in integers without scipy);
  ties (|x| <= ``TIE_TOL``) are dropped, as in the sign test. This is the "binomial test" of Diaz & Mitra (2023) §6.2.3
  and Diaz (2023) §4.2 (the papers do not say how ties enter; dropping them is the sign-test convention).
* :func:`t_test` (:func:`t_test_moments` from means and squared deviations) -- Student's one-sample t-test of
  the values against 0 (as ``scipy.stats.ttest_1samp``); on
  metric differences this *is* the paired t-test ``scipy.stats.ttest_rel(mu_a, mu_b)`` (Smucker et al. 2007).
* :func:`wilcoxon_test` -- Wilcoxon signed-rank test (``scipy.stats.wilcoxon``, zeros dropped).
* :func:`permutation_test` -- paired randomisation test of the mean: random sign flips of the per-query
  values (exact enumeration when ``2^Q <= n_resamples``).
* :func:`randomized_tukey_hsd` -- Carterette (TOIS 2012) randomised Tukey HSD on per-query scores ``(Q, S)``.
* :func:`paired_test` -- one of the paired tests above by name (:data:`PAIRED_TESTS`; :data:`TESTS` adds
  ``randomized_tukey_hsd``).
* :func:`adjust` -- Holm, Bonferroni (from their definitions, equal to ``statsmodels``' ``multipletests``), Benjamini-Hochberg
  (``scipy.stats.false_discovery_control``), over the *defined* p-values only (:func:`family_size`).
* :func:`effect_size` / :func:`effect_size_moments` -- the standardised mean of the per-query values, Cohen's d_z
  for paired data (Sakai 2014 §5; Sakai 2018 ch. 5).
* :func:`t_interval` / :func:`bootstrap_interval` / :func:`mean_interval` -- confidence intervals of the mean of
  the per-query values: Student's t (``scipy.stats.t.interval``) or the percentile bootstrap over queries
  (Efron & Tibshirani 1993, §13.3), vectorised over the resamples.

**Undefined tests.** A test is undefined -- ``pvalue`` NaN, never significant -- when it has fewer than
:data:`MIN_QUERIES` queries, when every query ties (``|value| <= TIE_TOL``: no win, no loss, nothing to rank), or,
for the t test, when the values do not vary (zero variance: no estimate of the standard error). Sakai (2014, §2)
asks that what is reported be the test's outcome; a NaN is no outcome, so :func:`adjust` leaves undefined
p-values out of the family (its size is :func:`family_size`) and never rejects them.

All tests are two-sided. Randomised tests use ``numpy.random.default_rng(seed)`` and share the same random
draws across all pairs (vectorised; there is no Python loop over pairs or permutations).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from prefeval.errors import PrefevalError

#: |value| <= TIE_TOL counts as a tie (floating-point noise in weighted preferences must not count as a win).
TIE_TOL = 1e-12
#: Randomised tests process the resamples in blocks of at most this many matrix entries.
_BLOCK_ENTRIES = 4_000_000

#: At most this many resamples in a randomised test (:func:`check_resamples`).
MAX_RESAMPLES = 10_000_000
#: Work limits of the randomised tests (entries of the resampled means, about a minute at most):
#: resamples x queries x pairs for :func:`permutation_test`, resamples x queries x systems for
#: :func:`randomized_tukey_hsd`.
MAX_PERMUTATION_WORK = 5 * 10**10
MAX_TUKEY_WORK = 5 * 10**9

#: Multiple-comparison corrections of :func:`adjust`.
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "none")
#: A test on fewer queries than this is undefined (p-value NaN).
MIN_QUERIES = 2
#: Interval methods of :func:`mean_interval`: Student's t, or the percentile bootstrap over queries.
INTERVALS = ("t", "bootstrap")


@dataclass(frozen=True)
class TestResult:
    """``statistic`` and two-sided ``pvalue``, one entry per pair; ``groups`` (optional): a group code per pair, the
    p-value being the same within a group (for :func:`adjust`)."""

    statistic: np.ndarray
    pvalue: np.ndarray
    groups: np.ndarray | None = None

    __test__ = False  # not a pytest class


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_seed(seed: object, name: str = "seed") -> None:
    """A random seed must be absent (``None``) or an integer >= 0 (what ``numpy.random.default_rng`` accepts);
    else a :class:`PrefevalError` naming ``name``."""
    if seed is not None and not (_is_int(seed) and seed >= 0):
        raise PrefevalError(f"{name} must be a non-negative integer; got {seed!r}")


def check_resamples(n_resamples: object, n_queries: int = 1, n_units: int = 1, test: str = "permutation",
                    name: str = "n_resamples") -> None:
    """Bound the resamples of a randomised test before any is drawn: an integer in 1..:data:`MAX_RESAMPLES`,
    and the test's work ``n_resamples x n_queries x n_units`` (pairs for the permutation test, systems for the
    randomised Tukey HSD) at most :data:`MAX_PERMUTATION_WORK` / :data:`MAX_TUKEY_WORK`. Else a
    :class:`PrefevalError` naming ``name``."""
    if not _is_int(n_resamples) or not 1 <= n_resamples <= MAX_RESAMPLES:
        raise PrefevalError(f"{name} must be an integer between 1 and {MAX_RESAMPLES:,}; got {n_resamples!r}")
    limit = MAX_TUKEY_WORK if test == "randomized_tukey_hsd" else MAX_PERMUTATION_WORK
    per_resample = max(1, int(n_queries)) * max(1, int(n_units))
    if test == "permutation" and n_queries <= 20 and 2**n_queries <= n_resamples:
        return  # enumerated exactly: 2^Q sign vectors, not n_resamples
    if int(n_resamples) * per_resample > limit:
        units = {"randomized_tukey_hsd": "systems", "bootstrap": "series"}.get(test, "pairs")
        raise PrefevalError(
            f"{name}={n_resamples:,} is too many for the {test} test on {n_queries:,} queries and {n_units:,} {units}: "
            f"{int(n_resamples) * per_resample:.3g} operations, more than the limit of {limit:.0e}; use at most "
            f"{max(1, limit // per_resample):,} resamples")


def _pairs(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[None, :]
    if X.ndim != 2:
        raise ValueError(f"per-query values must have shape (pairs, queries); got shape {X.shape}")
    if X.shape[1] == 0:
        raise ValueError("a significance test needs at least one query")
    if np.isnan(X).any():
        p, q = np.argwhere(np.isnan(X))[0]
        raise ValueError(f"per-query values contain NaN (pair index {p}, query index {q})")
    return X


def wins_losses_ties(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts per pair of queries with value > TIE_TOL, < -TIE_TOL and in between."""
    X = _pairs(X)
    wins = (X > TIE_TOL).sum(axis=1)
    losses = (X < -TIE_TOL).sum(axis=1)
    return wins, losses, X.shape[1] - wins - losses


def sign_test(X: np.ndarray) -> TestResult:
    """Exact two-sided sign test: ``binomtest(wins, wins + losses, 0.5)``; ties dropped (:func:`sign_test_counts`)."""
    wins, losses, _ = wins_losses_ties(X)
    result = sign_test_counts(wins, losses)
    if np.shape(X)[-1] < MIN_QUERIES:
        result.pvalue[:] = np.nan
    return result


EXACT_TRIALS = 10_000  # sign tests with up to this many non-tied queries are exact in integers


def sign_test_counts(wins: np.ndarray, losses: np.ndarray) -> TestResult:
    """The sign test from the counts of wins and losses of each pair.

    ``statistic`` = wins - losses. The p-value is the two-sided exact binomial one of ``scipy.stats.binomtest(wins,
    n, 0.5)`` (the probability of the outcomes at most as likely as the observed one) with ``n = wins + losses``: by
    symmetry ``min(1, 2 P(X <= min(wins, losses)))``, and 1 when ``wins == losses``; undefined (NaN) with no wins
    and no losses (every query tied). Computed once per distinct (wins, n): exactly in integers and rounded once up to ``EXACT_TRIALS``
    non-tied queries (scipy's floating-point value agrees to ~1e-15 relative), beyond that (where exact integers
    grow slow) by the binomial distribution function ``scipy.special.bdtr`` (relative error below 1e-10).
    """
    wins, losses = np.asarray(wins, dtype=np.int64), np.asarray(losses, dtype=np.int64)
    n = wins + losses
    base = int(n.max(initial=0)) + 1
    keys, inverse = _distinct(np.minimum(wins, losses) * base + n, base * base)  # one key per (min, n)
    low, total = keys // base, keys % base
    pvals = np.ones(len(keys))  # wins == losses (or n = 0): the observed outcome is the most likely one
    large = (2 * low < total) & (total > EXACT_TRIALS)
    if large.any():
        from scipy.special import bdtr  # deferred: slow to import, needed only beyond EXACT_TRIALS

        pvals[large] = np.minimum(1.0, 2 * bdtr(low[large], total[large], 0.5))
    tails: dict[int, tuple[int, int, int]] = {}  # n -> (i, C(n, i), C(n, 0) + ... + C(n, i)), largest i so far
    for k in np.flatnonzero((2 * low < total) & ~large).tolist():  # keys ascend: for one n the tail only grows
        i, term, tail = tails.get(int(total[k]), (0, 1, 1))
        while i < low[k]:  # C(n, i + 1) = C(n, i) (n - i) / (i + 1), exactly
            term = term * (int(total[k]) - i) // (i + 1)
            tail += term
            i += 1
        tails[int(total[k])] = (i, term, tail)
        pvals[k] = min(1.0, 2 * tail / (1 << int(total[k])))  # int / int: correctly rounded
    pvals[total == 0] = np.nan  # every query tied: nothing to test
    inverse = np.ravel(inverse)
    return TestResult((wins - losses).astype(np.float64), pvals[inverse], inverse)


def _distinct(keys: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.unique(keys, return_inverse=True)`` of non-negative integers below ``bound``: by a table of the
    ``bound`` possible keys when it is small next to ``keys`` (linear, no sort), else by ``numpy.unique``."""
    if bound > max(4 * keys.size, 1 << 16):
        return np.unique(keys, return_inverse=True)
    present = np.zeros(bound, dtype=bool)
    present[keys] = True
    distinct = np.flatnonzero(present)
    index = np.cumsum(present) - 1
    return distinct, index[keys]


def t_test(X: np.ndarray) -> TestResult:
    """Two-sided one-sample t-test of the per-query values against 0 (:func:`t_test_moments` of ``X``).

    On metric differences this equals the paired t-test (``ttest_rel``).
    """
    X = _pairs(X)
    mean = X.mean(axis=1)
    m2 = ((X - mean[:, None]) ** 2).sum(axis=1)
    return t_test_moments(X.shape[1], mean, m2, np.all(np.abs(X) <= TIE_TOL, axis=1))


def t_test_moments(n: int, mean: np.ndarray, m2: np.ndarray, all_ties: np.ndarray) -> TestResult:
    """Student's one-sample t-test against 0 from ``n`` values per pair summarised by their ``mean`` and ``m2``
    (sum of squared deviations): ``t = mean / sqrt(m2 / (n - 1) / n)``, two-sided p from the t distribution
    with ``n - 1`` degrees of freedom (what ``scipy.stats.ttest_1samp`` computes from the values).

    Undefined (statistic and p-value NaN): fewer than :data:`MIN_QUERIES` values, values that are all ties
    (``all_ties``), or values that do not vary (zero variance, ``sd <= TIE_TOL``: scipy's limit |t| = inf, p = 0,
    is no evidence).
    """
    # deferred: scipy.special is needed for the t distribution only (scipy.stats, which calls it, is slower to import)
    from scipy.special import stdtr

    mean = np.asarray(mean, dtype=np.float64)
    m2 = np.maximum(np.asarray(m2, dtype=np.float64), 0.0)
    undefined = np.asarray(all_ties, dtype=bool) | (np.sqrt(m2 / max(n - 1, 1)) <= TIE_TOL)
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = mean / np.sqrt(m2 / (n - 1) / n) if n >= MIN_QUERIES else np.full_like(mean, np.nan)
        # scipy.stats.t.sf(|t|, df) is stdtr(df, -|t|)
        pval = 2.0 * stdtr(n - 1, -np.abs(stat)) if n >= MIN_QUERIES else np.full_like(mean, np.nan)
    stat[undefined], pval[undefined] = np.nan, np.nan
    return TestResult(stat, pval)


def wilcoxon_test(X: np.ndarray) -> TestResult:
    """Two-sided Wilcoxon signed-rank test (``scipy.stats.wilcoxon``; zero differences dropped, "wilcox").

    scipy chooses the exact distribution for small samples without ties, else the normal approximation.
    Undefined (p NaN): all values 0 (statistic 0), or fewer than :data:`MIN_QUERIES` queries.
    """
    # deferred: scipy.stats is slow to import
    from scipy.stats import wilcoxon

    X = _pairs(X)
    X = np.where(np.abs(X) <= TIE_TOL, 0.0, X)
    stat = np.zeros(X.shape[0])
    pval = np.full(X.shape[0], np.nan)
    live = np.any(X != 0, axis=1) & (X.shape[1] >= MIN_QUERIES)
    if live.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.simplefilter("ignore", UserWarning)
            res = wilcoxon(X[live], axis=1, zero_method="wilcox")
        stat[live] = res.statistic
        pval[live] = res.pvalue
    return TestResult(stat, pval)


def _sign_blocks(Q: int, n_resamples: int, rng: np.random.Generator, block: int):
    """Sign-flip matrices (at most ``block`` rows, Q): all 2^Q sign vectors when that is at most ``n_resamples``
    (exact), else ``n_resamples`` random rows, drawn block by block from ``rng`` (the same rows as one draw of
    shape ``(n_resamples, Q)``; memory stays one block)."""
    if Q <= 20 and 2**Q <= n_resamples:
        codes = np.arange(2**Q)[:, None] >> np.arange(Q)[None, :]
        signs = np.where(codes & 1, -1.0, 1.0)
        for start in range(0, len(signs), block):
            yield signs[start:start + block]
        return
    choices = np.array([-1.0, 1.0])
    for start in range(0, n_resamples, block):
        yield rng.choice(choices, size=(min(block, n_resamples - start), Q))


def permutation_test(X: np.ndarray, n_resamples: int = 10_000, seed: int | None = 0) -> TestResult:
    """Paired randomisation test of the mean per-query value (two-sided).

    Under H0 each query's value is equally likely to have either sign (the two systems' outputs are
    exchangeable within a query). ``statistic`` = mean value. p = share of sign-flip vectors whose |mean| is at
    least the observed |mean| (within 1e-12). With ``2^Q <= n_resamples`` all sign vectors are enumerated (exact;
    the identity is included); otherwise ``n_resamples`` random vectors are drawn and p = (1 + count) / (1 + R)
    (so p > 0). The same sign vectors are used for every pair. Undefined (p NaN): every value a tie, or fewer
    than :data:`MIN_QUERIES` queries.
    """
    X = _pairs(X)
    n_pairs, Q = X.shape
    check_resamples(n_resamples, Q, n_pairs, "permutation")
    check_seed(seed)
    rng = np.random.default_rng(seed)
    exact = Q <= 20 and 2**Q <= n_resamples
    observed = X.mean(axis=1)
    threshold = np.abs(observed) - 1e-12 * np.maximum(1.0, np.abs(observed))
    count = np.zeros(n_pairs, dtype=np.int64)
    block = max(1, _BLOCK_ENTRIES // max(1, n_pairs, Q))
    R = 0
    for signs in _sign_blocks(Q, n_resamples, rng, block):
        null = signs @ X.T / Q  # (block, n_pairs)
        count += (np.abs(null) >= threshold).sum(axis=0)
        R += len(signs)
    pval = count / R if exact else (count + 1) / (R + 1)
    pval[np.all(np.abs(X) <= TIE_TOL, axis=1) | (Q < MIN_QUERIES)] = np.nan
    return TestResult(observed, pval)


#: The paired tests by name: each maps ``X`` (per-query values of each pair) to a :class:`TestResult`.
PAIRED_TESTS: dict[str, Callable[..., TestResult]] = {"sign": sign_test, "t": t_test, "wilcoxon": wilcoxon_test,
                                                      "permutation": permutation_test}
#: All significance tests by name: the paired tests and :func:`randomized_tukey_hsd` (which needs every system's
#: per-query scores, not only the pairs' differences).
TESTS = (*PAIRED_TESTS, "randomized_tukey_hsd")


def paired_test(name: str, X: np.ndarray, n_resamples: int = 10_000, seed: int | None = 0) -> TestResult:
    """The paired test ``name`` (a key of :data:`PAIRED_TESTS`) on ``X``; ``n_resamples`` and ``seed`` are
    used by the permutation test only."""
    if name not in PAIRED_TESTS:
        raise ValueError(f"unknown paired test {name!r}; choose one of {', '.join(PAIRED_TESTS)}")
    if name == "permutation":
        return permutation_test(X, n_resamples=n_resamples, seed=seed)
    return PAIRED_TESTS[name](X)


def randomized_tukey_hsd(scores: np.ndarray, n_resamples: int = 10_000, seed: int | None = 0
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Randomised Tukey HSD (Carterette, TOIS 2012; Diaz & Mitra (2023) §6.2.3, Diaz (2023) §4.2).

    ``scores``: ``(Q, S)`` per-query scores (metric values; for a preference, per-query win rates). Each trial
    permutes the S values *within each query* independently (systems exchangeable under H0), takes the system
    means, and records the range ``max - min``. The p-value of a pair (a, b) is the share of trials whose range
    is at least ``|mean_a - mean_b|``, p = (1 + count) / (1 + R). It controls the family-wise error over all
    pairs, so no further correction is applied. Undefined (p NaN): every pair with fewer than
    :data:`MIN_QUERIES` queries, and a pair whose two systems tie on every query.

    Returns ``(diff, pvalue)``, both ``(S, S)``: ``diff[a, b] = mean_a - mean_b``; the diagonal of ``pvalue`` is 1.
    """
    W = np.asarray(scores, dtype=np.float64)
    if W.ndim != 2 or W.shape[0] == 0 or W.shape[1] < 2:
        raise ValueError(f"randomized Tukey HSD needs scores of shape (Q >= 1, S >= 2); got shape {W.shape}")
    Q, S = W.shape
    check_resamples(n_resamples, Q, S, "randomized_tukey_hsd")
    check_seed(seed)
    rng = np.random.default_rng(seed)
    means = W.mean(axis=0)
    diff = means[:, None] - means[None, :]
    ranges = np.empty(n_resamples)
    block = max(1, _BLOCK_ENTRIES // (Q * S))
    for start in range(0, n_resamples, block):
        n = min(block, n_resamples - start)
        shuffled = rng.permuted(np.broadcast_to(W, (n, Q, S)), axis=2)
        m = shuffled.mean(axis=1)
        ranges[start:start + n] = m.max(axis=1) - m.min(axis=1)
    ranges.sort()
    observed = np.abs(diff)
    threshold = observed - 1e-12 * np.maximum(1.0, observed)
    count = n_resamples - np.searchsorted(ranges, threshold, side="left")
    pval = (count + 1) / (n_resamples + 1)
    _, profile = np.unique(np.round(W.T, 12), axis=0, return_inverse=True)  # equal columns: tied on every query
    profile = np.ravel(profile)
    tied = profile[:, None] == profile[None, :]
    pval[tied | (Q < MIN_QUERIES)] = np.nan
    np.fill_diagonal(pval, 1.0)
    return diff, pval


def family_size(pvalues: np.ndarray) -> int:
    """The size of the correction family of ``pvalues``: the number of defined (finite) p-values. An undefined
    test (NaN) is left out of the family, so it neither counts towards ``m`` nor is ever rejected."""
    return int(np.isfinite(np.asarray(pvalues, dtype=np.float64)).sum())


def adjust(pvalues: np.ndarray, method: str = "holm", alpha: float = 0.05,
           groups: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Multiple-comparison correction over one family of p-values.

    ``method``: ``holm`` (Holm-Bonferroni, Diaz & Mitra (2023) §6.2.3), ``bonferroni`` (Diaz (2023) §4.2), ``fdr_bh``
    (Benjamini-Hochberg, ``scipy.stats.false_discovery_control``) or ``none``; Holm (Holm, 1979, "A simple
    sequentially rejective multiple test procedure") and Bonferroni from their definitions, as
    ``statsmodels.stats.multitest.multipletests`` computes them (statsmodels is not imported).
    ``groups`` (optional, :class:`TestResult`): a code (0, 1, ...) per p-value, equal codes having equal p-values;
    Holm's procedure then finds the distinct p-values among the groups' (the same result, without sorting them all).

    Undefined p-values (NaN, an undefined test) are not part of the family: the correction runs over the
    :func:`family_size` defined ones, and an undefined one stays NaN and is never rejected.
    Returns ``(adjusted p-values, reject at alpha)``.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha}")
    defined = np.isfinite(p)
    if defined.all():
        return _adjust_defined(p, method, alpha, groups)
    adjusted = np.full(p.shape, np.nan)
    reject = np.zeros(p.shape, dtype=bool)
    if defined.any():
        kept = None if groups is None else np.ravel(groups)[np.ravel(defined)]
        adjusted[defined], reject[defined] = _adjust_defined(p[defined], method, alpha, kept)
    return adjusted, reject


def _adjust_defined(p: np.ndarray, method: str, alpha: float,
                    groups: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`adjust` of finite p-values."""
    if p.size == 0:
        return p.copy(), np.zeros(0, dtype=bool)
    if method == "none":
        return p.copy(), p <= alpha
    if method == "fdr_bh":
        # deferred: scipy.stats is slow to import
        from scipy.stats import false_discovery_control

        adjusted = false_discovery_control(p, method="bh")
        return adjusted, adjusted <= alpha
    shape, p = p.shape, p.ravel()
    m = p.size
    if method == "bonferroni":  # Bonferroni: reject p <= alpha / m; adjusted min(1, m p)
        return np.minimum(p * m, 1.0).reshape(shape), (p <= alpha / m).reshape(shape)
    # Holm's procedure: step down over the ascending p-values p_(1) <= ... <= p_(m); reject H_(1..k-1) where k is the
    # first index with p_(k) > alpha / (m - k + 1); adjusted p_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)).
    # Equal p-values get equal results, those of the first of them (j0): the later ones have smaller factors (their
    # products cannot raise the running maximum) and larger thresholds alpha / (m - j + 1) (they stop the procedure
    # only if the first does). So the steps run over the distinct values, each at the rank of its first occurrence.
    if groups is None:
        values, inverse, counts = np.unique(p, return_inverse=True, return_counts=True)
    else:  # the distinct values among the groups' p-values; each group counts for its value
        groups = np.ravel(groups)
        sizes = np.bincount(groups)
        group_p = np.zeros(len(sizes))
        group_p[groups] = p  # equal within a group
        present = np.flatnonzero(sizes)
        values, value_of = np.unique(group_p[present], return_inverse=True)
        code = np.zeros(len(sizes), dtype=np.intp)
        code[present] = np.ravel(value_of)
        inverse = code[groups]
        counts = np.bincount(code[present], weights=sizes[present], minlength=len(values)).astype(np.intp)
    factors = (m - (np.cumsum(counts) - counts)).astype(np.float64)  # m - j0 + 1, j0 the 1-based rank of the first
    stop = np.flatnonzero(values > alpha / factors)
    reject = np.arange(len(values)) < (stop[0] if stop.size else len(values))
    adjusted = np.minimum(np.maximum.accumulate(values * factors), 1.0)
    inverse = inverse.reshape(-1)
    return adjusted[inverse].reshape(shape), reject[inverse].reshape(shape)


def effect_size_moments(n: int | np.ndarray, mean: np.ndarray, m2: np.ndarray) -> np.ndarray:
    """The standardised mean of ``n`` per-query values summarised by their ``mean`` and ``m2`` (sum of squared
    deviations): ``mean / sd`` with ``sd = sqrt(m2 / (n - 1))`` (``ddof = 1``).

    On paired metric differences ``mu_a(q) - mu_b(q)`` this is Cohen's d_z for paired data, the effect size Sakai
    recommends reporting beside every paired test (Sakai 2014, "Statistical reform in information retrieval?",
    SIGIR Forum 48(1), §5; Sakai 2018, *Laboratory Experiments in Information Retrieval*, §5.2); it equals the
    paired t statistic divided by ``sqrt(n)``. On per-query preferences it is their mean over their standard
    deviation. Undefined (NaN) with fewer than :data:`MIN_QUERIES` values or when they do not vary
    (``sd <= TIE_TOL``).
    """
    n = np.asarray(n, dtype=np.float64)
    mean = np.asarray(mean, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(np.maximum(np.asarray(m2, dtype=np.float64), 0.0) / (n - 1))
        d = mean / sd
    return np.where((n >= MIN_QUERIES) & (sd > TIE_TOL), d, np.nan)


def effect_size(X: np.ndarray) -> np.ndarray:
    """:func:`effect_size_moments` of the rows of ``X`` (``(rows, queries)`` per-query values, or one row):
    ``mean(x) / std(x, ddof=1)``, the paired d_z on metric differences."""
    X = _pairs(X)
    mean = X.mean(axis=1)
    return effect_size_moments(X.shape[1], mean, ((X - mean[:, None]) ** 2).sum(axis=1))


def t_interval(n: int | np.ndarray, mean: np.ndarray, m2: np.ndarray, level: float = 0.95
               ) -> tuple[np.ndarray, np.ndarray]:
    """Student's t confidence interval of the mean of ``n`` values (``mean``, ``m2`` the sum of squared
    deviations): ``scipy.stats.t.interval(level, n - 1, loc=mean, scale=sem)`` with ``sem = sd / sqrt(n)``
    (computed as scipy computes it, ``loc + scale * scipy.special.stdtrit(n - 1, q)``),
    ``sd`` with ``ddof = 1`` (Sakai 2018, §5.2). Undefined (NaN, NaN) with fewer than :data:`MIN_QUERIES`
    values or zero variance (``sd <= TIE_TOL``; scipy gives NaN for a zero scale too).
    Returns ``(low, high)`` arrays.
    """
    # deferred: scipy.special is needed for the t quantiles only (scipy.stats, which calls it, is slower to import)
    from scipy.special import stdtrit

    _check_level(level)
    n = np.broadcast_to(np.asarray(n, dtype=np.float64), np.shape(mean))
    mean = np.asarray(mean, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(np.maximum(np.asarray(m2, dtype=np.float64), 0.0) / (n - 1))
    defined = (n >= MIN_QUERIES) & (sd > TIE_TOL)
    low, high = np.full(mean.shape, np.nan), np.full(mean.shape, np.nan)
    if defined.any():  # scipy.stats.t.interval: loc + scale * ppf(q), ppf(q) = stdtrit(df, q)
        df, sem = n[defined] - 1, sd[defined] / np.sqrt(n[defined])
        low[defined] = stdtrit(df, (1.0 - level) / 2) * sem + mean[defined]
        high[defined] = stdtrit(df, (1.0 + level) / 2) * sem + mean[defined]
    return low, high


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"the confidence level must be in (0, 1); got {level}")


def bootstrap_means(X: np.ndarray, n_resamples: int = 10_000, seed: int | None = 0) -> np.ndarray:
    """The means of every row of ``X`` (``(rows, Q)``) on ``n_resamples`` bootstrap samples of the queries:
    ``(rows, n_resamples)``. Each resample draws Q query indices with replacement
    (``numpy.random.default_rng(seed).integers(0, Q, (block, Q))``, block after block) and is shared by all rows,
    so the rows stay paired. Vectorised over the resamples: a block of resamples becomes a matrix of how often it
    drew each query, and the means of all rows on all its resamples are one matrix product."""
    X = _pairs(X)
    rows, Q = X.shape
    check_resamples(n_resamples, Q, rows, "bootstrap")
    check_seed(seed)
    rng = np.random.default_rng(seed)
    out = np.empty((rows, n_resamples))
    block = max(1, _BLOCK_ENTRIES // Q)
    for start in range(0, n_resamples, block):
        n = min(block, n_resamples - start)
        draws = rng.integers(0, Q, size=(n, Q))
        counts = np.bincount((draws + Q * np.arange(n)[:, None]).ravel(), minlength=n * Q).reshape(n, Q)
        out[:, start:start + n] = X @ counts.T.astype(np.float64) / Q
    return out


def bootstrap_interval(X: np.ndarray, level: float = 0.95, n_resamples: int = 10_000, seed: int | None = 0
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The percentile bootstrap confidence interval of the mean of each row of ``X`` (Efron & Tibshirani 1993,
    *An Introduction to the Bootstrap*, §13.3): the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles
    (``numpy.quantile``, linear interpolation) of the row's :func:`bootstrap_means`. Identical for the same
    ``seed``. Undefined (NaN, NaN) for a row with fewer than :data:`MIN_QUERIES` values or that does not vary
    (as :func:`t_interval`). Returns ``(low, high)`` arrays."""
    _check_level(level)
    X = _pairs(X)
    means = bootstrap_means(X, n_resamples, seed)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2], axis=1)
    undefined = (X.shape[1] < MIN_QUERIES) | (X.std(axis=1, ddof=min(1, X.shape[1] - 1)) <= TIE_TOL)
    low[undefined], high[undefined] = np.nan, np.nan
    return low, high


def mean_interval(X: np.ndarray, ci: str = "t", level: float = 0.95, n_resamples: int = 10_000,
                  seed: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """The confidence interval of the mean of each row of ``X`` by ``ci`` (:data:`INTERVALS`): ``"t"``
    (:func:`t_interval`) or ``"bootstrap"`` (:func:`bootstrap_interval`, ``n_resamples``, ``seed``)."""
    if ci not in INTERVALS:
        raise ValueError(f"unknown interval {ci!r}; choose one of {', '.join(INTERVALS)}")
    X = _pairs(X)
    if ci == "bootstrap":
        return bootstrap_interval(X, level, n_resamples, seed)
    mean = X.mean(axis=1)
    return t_interval(X.shape[1], mean, ((X - mean[:, None]) ** 2).sum(axis=1), level)
