"""Simulations of random rankings: tie rates (Diaz & Mitra (2023) Fig. 6) and agreement with the worst case (Table 2).

A uniformly random complete ranking of ``n`` items with ``m`` relevant has, as position vector,
a uniformly random m-subset of ``[1..n]``, sorted; it is drawn here without materialising the
permutation (rejection or Floyd's algorithm, vectorised over rankings), so n = 10^6 costs nothing. A
retrieval depth ``ñ`` truncates a ranking: relevant items below ``ñ`` become unretrieved
(``+inf``), i.e. pessimistic imputation (Diaz & Mitra (2023) §2.2).

Everything is seeded (``numpy.random.default_rng(seed)``) and vectorised over rankings; the only
Python loops are over recall-level counts m (at most 46 values for ``m ~ U{5..50}``), depths and
methods.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from prefeval.analysis.position_methods import PositionMethod, resolve, ties
from prefeval.errors import PrefevalError

__all__ = [
    "random_position_vectors",
    "simulate_ties",
    "simulated_tie_probability",
    "worst_case_agreement",
]


#: The most positions (rankings x relevant items) drawn at once (two arrays of 8 bytes each per position).
MAX_POSITIONS = 2 * 10**7
#: The most simulated queries (requests) of one simulation.
MAX_QUERIES = 10**7


def random_position_vectors(n: int, m: int, size: int, rng: np.random.Generator,
                            depth: int | None = None) -> np.ndarray:
    """``(size, m)`` position vectors of ``size`` independent uniformly random rankings of ``n`` items
    with ``m`` relevant: ascending 1-based positions, ``+inf`` for those below ``depth`` (default: the
    complete ranking).

    Every m-subset of ``[1..n]`` is equally likely. When collisions are rare (``m (m-1) <= 2n``) the
    positions are drawn with replacement and rows with a repeated position are redrawn (rejection,
    acceptance probability above ``e^-1``); otherwise Floyd's algorithm is used (for ``j = n-m .. n-1``:
    draw ``t`` uniform in ``[0, j]``; take ``t`` unless already taken, else ``j``), vectorised over rows.
    """
    if not 1 <= m <= n:
        raise PrefevalError(f"random_position_vectors: need 1 <= m <= n, got n={n}, m={m}")
    if size * m > MAX_POSITIONS:
        raise PrefevalError(f"random rankings: {size:,} rankings x {m:,} relevant items = {size * m:.3g} positions at "
                            f"once, more than {MAX_POSITIONS:.0e}; simulate fewer queries or pairs")
    if m * (m - 1) <= 2 * n:
        chosen = np.sort(rng.integers(0, n, size=(size, m)), axis=1)
        bad = np.flatnonzero((np.diff(chosen, axis=1) == 0).any(axis=1))
        while len(bad):
            redraw = np.sort(rng.integers(0, n, size=(len(bad), m)), axis=1)
            chosen[bad] = redraw
            bad = bad[(np.diff(redraw, axis=1) == 0).any(axis=1)]
    else:
        chosen = np.empty((size, m), dtype=np.int64)
        for s in range(m):
            j = n - m + s
            t = rng.integers(0, j + 1, size=size)
            taken = (chosen[:, :s] == t[:, None]).any(axis=1)
            chosen[:, s] = np.where(taken, j, t)
        chosen.sort(axis=1)
    P = chosen.astype(np.float64) + 1.0
    if depth is not None:
        P[P > depth] = np.inf
    return P


def _draw_m(m_range: tuple[int, int], size: int, rng: np.random.Generator, n: int) -> np.ndarray:
    """``size`` relevant-item counts uniform on ``m_range`` (inclusive), checked against the corpus size ``n``."""
    lo, hi = m_range
    if not 1 <= lo <= hi:
        raise PrefevalError(f"m_range must satisfy 1 <= low <= high, got {m_range}")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= MAX_QUERIES:
        raise PrefevalError(f"n_queries must be an integer between 1 and {MAX_QUERIES:,}; got {size!r}")
    ms = rng.integers(lo, hi + 1, size=size)
    if ms.max() > n:
        raise PrefevalError(f"m_range {m_range} exceeds the corpus size n={n}")
    return ms


def _methods(methods: Iterable[str | PositionMethod]) -> list[PositionMethod]:
    resolved = [resolve(m) for m in methods]
    if not resolved:
        raise PrefevalError("no methods given")
    return resolved


def simulate_ties(methods: Sequence[str | PositionMethod] = ("TSE", "R@1000", "Rprec", "AP", "LexiRecall"),
                  n: int = 250_000, depths: Sequence[int] | None = None, *, n_queries: int = 25,
                  pairs_per_query: int = 100, m_range: tuple[int, int] = (5, 50),
                  seed: int = 0) -> pd.DataFrame:
    """Fraction of tied pairs of random rankings as the retrieval depth decreases (Diaz & Mitra (2023) §5.1, Fig. 6).

    Setup of Fig. 6: corpus of ``n = 250,000`` items, 25 requests, ``m ~ U{5..50}`` relevant items per
    request (inclusive). The paper does not say how many pairs per request; here each request draws
    ``pairs_per_query`` pairs of complete random rankings, and every depth truncates the *same*
    rankings (so the curves are smooth in the depth). Default depths: n, 0.8n, 0.6n, 0.4n, 0.2n,
    0.1n, 0.01n, 0.001n.

    Returns a DataFrame with columns ``depth, method, pairs, tied, fraction_tied``.
    """
    resolved = _methods(methods)
    if depths is None:
        depths = sorted({max(1, int(n * f)) for f in (1, 0.8, 0.6, 0.4, 0.2, 0.1, 0.01, 0.001)}, reverse=True)
    rng = np.random.default_rng(seed)
    ms = _draw_m(m_range, n_queries, rng, n)
    tied = np.zeros((len(depths), len(resolved)), dtype=np.int64)
    for m in ms:
        A = random_position_vectors(n, int(m), pairs_per_query, rng)
        B = random_position_vectors(n, int(m), pairs_per_query, rng)
        for d, depth in enumerate(depths):
            Ad = np.where(A <= depth, A, np.inf)
            Bd = np.where(B <= depth, B, np.inf)
            for j, method in enumerate(resolved):
                tied[d, j] += int(ties(method, Ad, Bd, rng).sum())
    total = n_queries * pairs_per_query
    rows = [
        {"depth": int(depth), "method": method.name, "pairs": total, "tied": int(tied[d, j]),
         "fraction_tied": tied[d, j] / total}
        for d, depth in enumerate(depths) for j, method in enumerate(resolved)
    ]
    return pd.DataFrame(rows)


def simulated_tie_probability(method: str | PositionMethod, n: int, m: int, samples: int = 10_000, *,
                              depth: int | None = None, seed: int = 0) -> float:
    """Monte Carlo estimate of ``Pr(tie)`` for ``samples`` pairs of random rankings (n items, m relevant),
    optionally truncated at ``depth``; for complete rankings it estimates
    :func:`prefeval.analysis.tie_probability`."""
    table = simulate_ties([method], n=n, depths=[depth if depth is not None else n], n_queries=1,
                          pairs_per_query=samples, m_range=(m, m), seed=seed)
    return float(table["fraction_tied"].iloc[0])


def worst_case_agreement(ns: Sequence[int] = (10**3, 10**4, 10**5, 10**6),
                         metrics: Sequence[str | PositionMethod] = ("TSE", "R@1000", "Rprec", "AP", "nDCG", "random"),
                         *, n_queries: int = 10_000, m_range: tuple[int, int] = (5, 50),
                         seed: int = 0) -> pd.DataFrame:
    """Agreement of metrics with the worst-case preference on random rankings (Diaz & Mitra (2023) §4.3, Table 2).

    For each corpus size ``n``: ``n_queries`` simulated requests, each with ``m ~ U{5..50}`` relevant
    items and one pair of uniformly random complete rankings. The worst case ``WC(π)`` orders rankings
    like TSE, i.e. by ``-p_m`` (Thm. B.1). Columns:

    - ``tied``: fraction of pairs with ``WC(π) = WC(π')``;
    - one column per metric: among pairs with ``WC(π) != WC(π')``, the fraction where the metric orders
      the pair strictly in the same direction (a metric tie counts as disagreement). This reading of the
      paper's unstated statistic reproduces its Table 2; ``random`` scores each
      ranking uniformly at random.
    """
    resolved = _methods(metrics)
    rows = []
    for n in ns:
        rng = np.random.default_rng([seed, int(n)])
        ms = _draw_m(m_range, n_queries, rng, n)
        strict = 0
        wc_ties = 0
        agree = np.zeros(len(resolved), dtype=np.int64)
        for m in np.unique(ms):
            size = int((ms == m).sum())
            A = random_position_vectors(n, int(m), size, rng)
            B = random_position_vectors(n, int(m), size, rng)
            wc = np.sign(B[:, -1] - A[:, -1])  # +1: A's last relevant item is higher, A better off
            keep = wc != 0
            wc_ties += int((~keep).sum())
            strict += int(keep.sum())
            for j, method in enumerate(resolved):
                sign = np.sign(method.compare(A[keep], B[keep], rng))
                agree[j] += int((sign == wc[keep]).sum())
        row = {"n": int(n), "tied": wc_ties / n_queries}
        row.update({method.name: (agree[j] / strict if strict else np.nan) for j, method in enumerate(resolved)})
        rows.append(row)
    return pd.DataFrame(rows)
