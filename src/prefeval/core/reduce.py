"""Streamed reductions of the per-query values of many pairs of systems (numpy only).

All-pairs comparison produces ``S (S - 1) / 2`` values per query; summaries, matrices, sign and t tests need
only a few numbers per pair, which can be accumulated block of queries by block of queries (and combined
across machines) without ever holding the ``pairs x queries`` table. Per pair, :class:`PairSums` keeps

* ``n`` -- the number of queries folded in;
* ``mean`` and ``m2`` -- the mean and the sum of squared deviations from it, merged with the parallel update
  of Chan et al. (1979) (numerically stable; the order of the blocks only changes the last bits);
* ``wins`` and ``losses`` -- the number of queries with a value above ``TIE_TOL`` and below ``-TIE_TOL``
  (int32: fewer than 2^31 queries).

Pairs are numbered as ``numpy.triu_indices(S, 1)`` numbers them: ``(0, 1), (0, 2), ..., (1, 2), ...``; a
value is the preference of the first system of the pair over the second.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from prefeval.core.stats import TIE_TOL

#: Blocks of per-query values are folded in at most this many entries at a time.
BLOCK_ENTRIES = 4_000_000
#: :meth:`PairSums.of_block` reduces a block of a few queries in chunks of pairs of about this many entries, each
#: at least ``_MIN_WIDTH`` pairs wide.
_CHUNK_ENTRIES = 1 << 18
_MIN_WIDTH = 2048


def upper_mask(n_systems: int) -> np.ndarray:
    """Boolean (S, S) mask of the pairs ``a < b``; ``P[upper_mask(S)]`` lists a matrix's pairs in
    ``triu_indices`` order without building the index arrays."""
    return np.triu(np.ones((n_systems, n_systems), dtype=bool), 1)


@dataclass(frozen=True)
class PairSums:
    """Per pair: ``n`` queries, ``mean``, ``m2`` (sum of squared deviations), ``wins``, ``losses``."""

    n: int
    mean: np.ndarray
    m2: np.ndarray
    wins: np.ndarray
    losses: np.ndarray

    @classmethod
    def zeros(cls, n_pairs: int, n: int = 0) -> PairSums:
        """The sums of ``n`` queries on which every pair ties with value 0 (``n = 0``: nothing folded in)."""
        return cls(int(n), np.zeros(n_pairs), np.zeros(n_pairs), np.zeros(n_pairs, dtype=np.int32),
                   np.zeros(n_pairs, dtype=np.int32))

    @classmethod
    def of_block(cls, X: np.ndarray) -> PairSums:
        """The sums of a block ``X`` of shape (queries, pairs)."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"a block of per-query values must have shape (queries, pairs); got {X.shape}")
        n, n_pairs = X.shape
        if n == 0:
            return cls.zeros(n_pairs)
        chunks = -(-n * n_pairs // _CHUNK_ENTRIES)
        if n > 64 or n_pairs < 2 * _MIN_WIDTH * chunks:  # few wide rows only (the sums then add row after row)
            mean = X.mean(axis=0)
            deviations = X - mean
            m2 = np.square(deviations, out=deviations).sum(axis=0)
            wins = (X > TIE_TOL).sum(axis=0, dtype=np.int32)
            losses = (X < -TIE_TOL).sum(axis=0, dtype=np.int32)
            return cls(n, mean, m2, wins, losses)
        # the same values, in chunks of pairs whose temporaries stay in cache
        mean, m2 = np.empty(n_pairs), np.empty(n_pairs)
        wins, losses = np.empty(n_pairs, dtype=np.int32), np.empty(n_pairs, dtype=np.int32)
        bounds = np.arange(chunks + 1) * n_pairs // chunks  # chunks of equal width (within 1)
        width = int(np.diff(bounds).max())
        deviations, beyond = np.empty((n, width)), np.empty((n, width), dtype=bool)
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            x = X[:, a:b]
            k = b - a
            m = np.add.reduce(x, axis=0, out=mean[a:b])
            m /= n
            d, flags = deviations[:, :k], beyond[:, :k]
            np.square(np.subtract(x, m, out=d), out=d)
            np.add.reduce(d, axis=0, out=m2[a:b])
            np.add.reduce(np.greater(x, TIE_TOL, out=flags), axis=0, dtype=np.int32, out=wins[a:b])
            np.add.reduce(np.less(x, -TIE_TOL, out=flags), axis=0, dtype=np.int32, out=losses[a:b])
        return cls(n, mean, m2, wins, losses)

    @classmethod
    def combine(cls, parts: Iterable[PairSums]) -> PairSums:
        """The sums of the union of disjoint sets of queries."""
        total = None
        for part in parts:
            total = part if total is None else total.merge(part)
        if total is None:
            raise ValueError("nothing to combine")
        return total

    def merge(self, other: PairSums) -> PairSums:
        """The sums over the queries of ``self`` and of ``other`` (disjoint sets of queries)."""
        if self.mean.shape != other.mean.shape:
            raise ValueError(f"cannot merge sums over {self.mean.shape[0]} and {other.mean.shape[0]} pairs")
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n = self.n + other.n
        delta = other.mean - self.mean
        mean = self.mean + delta * (other.n / n)
        m2 = self.m2 + other.m2 + delta ** 2 * (self.n * other.n / n)
        return PairSums(n, mean, m2, self.wins + other.wins, self.losses + other.losses)

    @property
    def ties(self) -> np.ndarray:
        """Queries with ``|value| <= TIE_TOL``."""
        return self.n - self.wins - self.losses

    def take(self, index: np.ndarray) -> PairSums:
        """The sums of the pairs ``index`` only."""
        return PairSums(self.n, self.mean[index], self.m2[index], self.wins[index], self.losses[index])


class PairAccumulator:
    """Folds per-query (S, S) preference matrices into :class:`PairSums` block by block.

    ``add(P)`` takes one query's antisymmetric matrix; ``sums(n_queries)`` returns the sums over the added
    queries plus ``n_queries - added`` queries on which every pair ties (judged queries without a relevant
    document).
    """

    def __init__(self, n_systems: int) -> None:
        self.mask = upper_mask(n_systems)
        n_pairs = n_systems * (n_systems - 1) // 2
        self.buffer = np.empty((max(1, BLOCK_ENTRIES // max(1, n_pairs)), n_pairs))
        self.filled = 0
        self.total = PairSums.zeros(n_pairs)

    def add(self, P: np.ndarray) -> None:
        """Fold in one query's (S, S) matrix."""
        self.buffer[self.filled] = P[self.mask]
        self.filled += 1
        if self.filled == len(self.buffer):
            self._flush()

    def _flush(self) -> None:
        if self.filled:
            self.total = self.total.merge(PairSums.of_block(self.buffer[:self.filled]))
            self.filled = 0

    def sums(self, n_queries: int | None = None) -> PairSums:
        """The sums so far; with ``n_queries``, padded with tied queries up to that many."""
        self._flush()
        missing = 0 if n_queries is None else n_queries - self.total.n
        if missing < 0:
            raise ValueError(f"{self.total.n} queries were added, more than {n_queries}")
        return self.total.merge(PairSums.zeros(len(self.total.mean), missing)) if missing else self.total
