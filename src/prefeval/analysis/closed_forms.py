"""Closed-form probabilities that two random complete rankings tie under a method.

Setting (Diaz & Mitra (2023) §5.3 and App. D; Diaz (2023) §3.3): a corpus of ``n`` items of which
``m`` are relevant; two rankings pi, pi' are drawn independently and uniformly from all
permutations of the corpus (complete rankings, retrieval depth = n).  Only the sorted
positions ``p_1 < ... < p_m`` of the relevant items matter, and every m-subset of
``[1..n]`` is equally likely, with probability ``1 / C(n, m)``.  For a method whose value
is a function ``f(p)``, ``Pr(tie) = sum_v Pr(f(p) = v)^2``.  Closed forms:

- LexiRecall and LexiPrecision tie iff ``p = p'`` (Diaz & Mitra (2023) Thm. D.1, Diaz (2023) §3.3)::

      Pr = 1 / C(n, m)

- TSE ties iff ``p_m = p'_m``; ``Pr(p_m = i) = C(i-1, m-1) / C(n, m)`` (Diaz & Mitra (2023) Thm. D.2)::

      Pr = C(n, m)^-2 * sum_{i=m..n} C(i-1, m-1)^2

- R@k ties iff the same number of relevant items lie in the top k; that number is
  hypergeometric (Diaz & Mitra (2023) Thm. D.3, whose proof is mislabelled "=TSE")::

      Pr = C(n, m)^-2 * sum_{i=0..m} C(k, i)^2 C(n-k, m-i)^2

- R-precision is R@k with k = m (Diaz & Mitra (2023) Thm. D.4).
- RR (any RL1 metric) ties iff ``p_1 = p'_1``; ``Pr(p_1 = j) = C(n-j, m-1) / C(n, m)``
  (Diaz (2023) §3.3)::

      Pr = C(n, m)^-2 * sum_{j=1..n-m+1} C(n-j, m-1)^2

- AP has no closed form; for small corpora it is computed exactly by enumerating all
  ``C(n, m)`` position vectors with rational arithmetic (AP can tie on distinct ``p``,
  e.g. n=6, m=2 gives 17/225 > 1/15).

``exact=True`` returns a :class:`fractions.Fraction` computed with Python integers (exact for
any n, but the TSE and RR sums take O(n) big-integer steps: about a second at n = 10^6).
The default returns a float computed in log space (``scipy.special.gammaln``), vectorised,
accurate to about 1e-9 relative at n = 10^6 (cancellation in log-gamma differences).
"""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction

import numpy as np

from prefeval.core import metrics, ties
from prefeval.errors import PrefevalError
from prefeval.methods.registry import declarations, parse

__all__ = ["tie_probability", "rr_tie_probability_given_p1", "known_measures"]

#: ir-measures metrics with a closed form here -> accepted spellings (case-insensitive); the methods of the
#: registry (:mod:`prefeval.methods`) that declare a tie probability are accepted by name and alias too
METRICS: dict[str, tuple[str, ...]] = {
    "R@k": ("r@k", "r", "recall"),
    "Rprec": ("rprec", "rp", "r-precision", "rprecision"),
    "RR": ("rr", "rl1", "mrr", "rr_1"),
    "AP": ("ap", "map"),
}
_ALIASES = {alias: name for name, aliases in METRICS.items() for alias in aliases}
_RK = re.compile(r"^(?:r|recall)@(\d+)$")

#: largest C(n, m) the AP enumeration accepts
AP_ENUMERATION_LIMIT = 200_000


def _closed_form_methods() -> dict[str, tuple[str, ...]]:
    return {d.name: tuple(spelling for spelling, _ in d.spellings()) for d in declarations()
            if d.tie_probability is not None}


def known_measures() -> dict[str, tuple[str, ...]]:
    """Canonical name -> accepted spellings of every measure :func:`tie_probability` knows."""
    return {**_closed_form_methods(), **METRICS}


def _parse(measure: object, k: int | None):
    """``(closed form, k)``: a registered method's ``tie_probability`` or the name of a metric of ``METRICS``."""
    text = str(measure).strip()
    low = text.lower().replace(" ", "")
    match = _RK.match(low)
    if match:
        cut = int(match.group(1))
        if k is not None and k != cut:
            raise PrefevalError(f"tie_probability: measure {text!r} gives k={cut} but k={k} was also passed")
        return "R@k", cut
    if low in _ALIASES:
        name = _ALIASES[low]
        if name == "R@k" and k is None:
            raise PrefevalError(f"tie_probability: measure {text!r} needs a cutoff: pass k= or write 'R@1000'")
        return name, k
    try:
        found = parse(text)
    except PrefevalError:
        found = None
    if found is not None and found[0].tie_probability is not None and "cutoff" not in found[1]:
        return found[0].tie_probability, k
    known = ", ".join([*_closed_form_methods(), "R@k (e.g. 'R@1000' or k=)", "Rprec", "RR", "AP"])
    raise PrefevalError(f"tie_probability: unknown measure {text!r}; known: {known}")


#: The largest corpus of the closed forms (they sum over the ``n`` positions: memory and time grow with ``n``), in
#: floating point and with ``exact=True`` (integers of ``m log2 n`` bits).
MAX_N, MAX_N_EXACT = 10**8, 10**7


def _check(n: int, m: int, k: int | None, exact: bool = False) -> None:
    for label, value in (("n", n), ("m", m)) + ((("k", k),) if k is not None else ()):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise PrefevalError(f"tie_probability: {label} must be an integer, got {value!r}")
    if n < 1 or not 1 <= m <= n:
        raise PrefevalError(f"tie_probability: need n >= 1 and 1 <= m <= n, got n={n}, m={m}")
    most = MAX_N_EXACT if exact else MAX_N
    if n > most:
        raise PrefevalError(f"tie_probability: n={n:,} is more than the {most:,} items the closed forms handle"
                            f"{' exactly' if exact else ''} (they sum over the n positions); the tie probability "
                            "changes little beyond that")
    if k is not None and k < 0:
        raise PrefevalError(f"tie_probability: k must be >= 0, got k={k}")


def _exact_ap(n: int, m: int) -> Fraction:
    total = math.comb(n, m)
    if total > AP_ENUMERATION_LIMIT:
        raise PrefevalError(
            f"tie_probability('AP', n={n}, m={m}): AP has no closed form and C(n, m) = {total} position "
            f"vectors exceed the enumeration limit {AP_ENUMERATION_LIMIT}; use "
            "prefeval.analysis.simulated_tie_probability for large corpora"
        )
    counts: dict[Fraction, int] = {}
    for positions in itertools.combinations(range(1, n + 1), m):
        value = metrics.ap_times_m(positions)  # AP times m: m is fixed, ties are AP's ties
        counts[value] = counts.get(value, 0) + 1
    return Fraction(sum(c * c for c in counts.values()), total * total)


# ---------------------------------------------------------------------------------------------


def tie_probability(measure: object, n: int, m: int, k: int | None = None, *,
                    exact: bool = False) -> float | Fraction:
    """Probability that two uniformly random complete rankings of ``n`` items, ``m`` of them
    relevant, tie under ``measure`` (Diaz & Mitra (2023) §5.3 and App. D; Diaz (2023) §3.3).

    ``measure``: ``"LexiRecall"``, ``"LexiPrecision"``, ``"TSE"``, ``"R@k"`` (with ``k=``) or
    ``"R@1000"``, ``"Rprec"``, ``"RR"``, or ``"AP"`` (exact enumeration, small ``C(n, m)`` only);
    ir-measures measure objects such as ``ir_measures.R@1000`` are accepted through ``str()``.
    ``exact=True`` returns a :class:`~fractions.Fraction`; otherwise a float.

    >>> tie_probability("TSE", 6, 2, exact=True)
    Fraction(11, 45)
    >>> round(tie_probability("R@1000", 10**4, 10), 5)
    0.31267
    """
    form, k = _parse(measure, k)
    _check(n, m, k, exact)
    if callable(form):
        return form(n, m, exact)
    if form == "RR":
        # Pr(p_1 = j) C(n, m) = C(n-j, m-1): as j runs 1..n-m+1, n-j runs n-1 down to m-1, the same multiset
        # {C(t, m-1) : t = m-1..n-1} as the sum for ties on the last position
        return ties.last_position(n, m, exact)
    if form == "R@k":
        return ties.relevant_in_top_k(n, m, k, exact)
    if form == "Rprec":
        return ties.relevant_in_top_k(n, m, m, exact)
    if form == "AP":
        value = _exact_ap(n, m)
        return value if exact else float(value)
    raise AssertionError(form)  # pragma: no cover


def rr_tie_probability_given_p1(n: int, m: int, p1: int, *, exact: bool = False) -> float | Fraction:
    """``Pr(p'_1 = p_1 | p_1)``: probability that a uniformly random second ranking ties a ranking
    whose first relevant item is at ``p1`` under RR / any RL1 metric (Diaz (2023) §3.3)::

        C(n - p1, m - 1) / C(n, m)

    It grows as ``p1`` gets smaller; ``p1 = 1`` gives ``m / n``.
    """
    _check(n, m, None)
    if isinstance(p1, bool) or not isinstance(p1, (int, np.integer)) or not 1 <= p1 <= n - m + 1:
        raise PrefevalError(f"rr_tie_probability_given_p1: p1 must be an integer in [1, n-m+1], got {p1!r}")
    return ties.first_position_given(n, m, p1, exact)
