"""Closed-form probabilities that two uniformly random complete rankings tie (Python integers / log space).

Setting (Diaz & Mitra (2023) §5.3 and App. D; Diaz (2023) §3.3): ``n`` items, ``m`` of them relevant, two
rankings drawn independently and uniformly from all permutations. Every m-subset of positions of the
relevant items is equally likely (``1 / C(n, m)``), and a method whose value is ``f(p)`` ties with
probability ``sum_v Pr(f(p) = v)^2``. Each function returns a :class:`fractions.Fraction` with
``exact=True`` (Python integers, exact for any ``n``) and otherwise a float computed in log space
(``scipy.special.gammaln``, about 1e-9 relative at n = 10^6).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from fractions import Fraction

__all__ = ["every_position", "last_position", "relevant_in_top_k", "first_position_given", "log_comb"]


def log_comb(a, b) -> np.ndarray:
    """``log C(a, b)`` element-wise, ``-inf`` outside ``0 <= b <= a``."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    valid = (b >= 0) & (b <= a)
    with np.errstate(invalid="ignore"):
        # deferred: scipy.special is slow to import and only tie probabilities use it
        from scipy.special import gammaln

        out = gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)
    return np.where(valid, out, -np.inf)


def _from_log_weights(log_w: np.ndarray, n: int, m: int) -> float:
    # deferred: scipy.special is slow to import and only tie probabilities use it
    from scipy.special import logsumexp

    return float(np.exp(logsumexp(2.0 * log_w) - 2.0 * float(log_comb(n, m))))


def every_position(n: int, m: int, exact: bool = False) -> float | Fraction:
    """Ties iff all relevant positions agree, ``p = p'`` (LexiRecall, LexiPrecision: Diaz & Mitra (2023)
    Thm. D.1, Diaz (2023) §3.3): ``1 / C(n, m)``."""
    from fractions import Fraction  # deferred: the exact forms only (2 ms at import)

    if exact:
        return Fraction(1, math.comb(n, m))
    return float(np.exp(-log_comb(n, m)))


def last_position(n: int, m: int, exact: bool = False) -> float | Fraction:
    """Ties iff ``p_m = p'_m`` (TSE; Diaz & Mitra (2023) Thm. D.2), with ``Pr(p_m = i) = C(i-1, m-1) / C(n, m)``:
    ``C(n, m)^-2 sum_{i=m..n} C(i-1, m-1)^2``. The same value as ties on ``p_1`` (RR, Diaz (2023) §3.3):
    ``C(n-j, m-1)`` for j = 1..n-m+1 runs over the same multiset."""
    from fractions import Fraction  # deferred: the exact forms only (2 ms at import)

    if exact:
        total, c = 0, 1  # c = C(i-1, m-1), updated as C(i, m-1) = C(i-1, m-1) * i / (i-m+1)
        for i in range(m, n + 1):
            total += c * c
            c = c * i // (i - m + 1)
        return Fraction(total, math.comb(n, m) ** 2)
    i = np.arange(m, n + 1, dtype=np.float64)
    return _from_log_weights(log_comb(i - 1, m - 1), n, m)


def relevant_in_top_k(n: int, m: int, k: int, exact: bool = False) -> float | Fraction:
    """Ties iff the same number of relevant items lie in the top ``k`` (R@k; Diaz & Mitra (2023) Thm. D.3), a
    hypergeometric count: ``C(n, m)^-2 sum_{i=0..m} C(k, i)^2 C(n-k, m-i)^2``."""
    from fractions import Fraction  # deferred: the exact forms only (2 ms at import)

    k = min(k, n)
    if exact:
        total = sum((math.comb(k, i) * math.comb(n - k, m - i)) ** 2 for i in range(0, m + 1))
        return Fraction(total, math.comb(n, m) ** 2)
    i = np.arange(0, m + 1, dtype=np.float64)
    return _from_log_weights(log_comb(k, i) + log_comb(n - k, m - i), n, m)


def first_position_given(n: int, m: int, p1: int, exact: bool = False) -> float | Fraction:
    """``Pr(p'_1 = p_1 | p_1) = C(n - p1, m - 1) / C(n, m)`` (Diaz (2023) §3.3)."""
    from fractions import Fraction  # deferred: the exact forms only (2 ms at import)

    if exact:
        return Fraction(math.comb(n - p1, m - 1), math.comb(n, m))
    return float(np.exp(log_comb(n - p1, m - 1) - log_comb(n, m)))
