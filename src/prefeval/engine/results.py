"""The results of one comparison method over a set of queries (:class:`MethodResult`), and their union over blocks.

Per method and query ``q``, the per-query preference matrix ``P[q, a, b]`` of every pair of runs (antisymmetric;
positive: run ``a`` preferred; for a metric, the difference ``mu(a) - mu(b)``) is folded, as it is computed, into

* the per-query win rates ``W[q, a] = sum_b P[q, a, b]`` (Diaz & Mitra (2023) §6.2.1, Diaz & Ferraro (2022) §5.4),
  which the rankings aggregate (:mod:`prefeval.core.aggregate`);
* the :class:`~prefeval.core.reduce.PairSums` of every unordered pair (mean preference, Diaz & Mitra (2023) §5.2;
  wins, losses, squared deviations), which the summaries, matrices, sign and t tests need;

and the tensor ``P`` itself is kept only when asked for (a metric's is rebuilt from its per-query values). The engines
evaluate disjoint blocks of queries and join them with :func:`combine_results`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from prefeval.core import aggregate as agg
from prefeval.core import reduce
from prefeval.core.reduce import PairSums
from prefeval.engine.methods import Method
from prefeval.errors import PrefevalError
from prefeval.methods import metric_difference


class MethodResult:
    """Results of one method over a set of queries.

    Always kept, small: ``query_ids`` (Q,); ``win_rates`` (Q, S), each run's per-query win rate
    ``sum_b P[q, a, b]``; ``values`` (Q, S), a metric's per-query values (``None`` for preferences); ``sums``, the
    :class:`prefeval.core.reduce.PairSums` of every unordered pair over the queries (summaries, matrices, sign
    and t tests). Kept only when asked for: ``prefs[q, a, b]``, the preference of run ``a`` over run ``b`` on
    query ``query_ids[q]`` (antisymmetric); a metric's are rebuilt from ``values`` on demand.
    """

    def __init__(self, method: Method, query_ids: np.ndarray, prefs: np.ndarray | None = None,
                 values: np.ndarray | None = None, *, win_rates: np.ndarray | None = None,
                 sums: PairSums | None = None) -> None:
        self.method = method
        self.query_ids = np.asarray(query_ids, dtype=object)
        self.values = values
        self._prefs = prefs
        if win_rates is None:
            if values is not None:  # sum_b (v_a - v_b)
                win_rates = values.shape[1] * values - values.sum(axis=1, keepdims=True)
            elif prefs is not None:
                win_rates = agg.win_rates(prefs)
            else:
                raise ValueError("a MethodResult needs per-query preferences, metric values or win rates")
        self.win_rates = np.asarray(win_rates, dtype=np.float64)
        if sums is None:
            sums = _sums_of(prefs, values)
        self.sums = sums

    @property
    def kept(self) -> bool:
        """Whether per-query preferences are available (kept, or rebuilt from a metric's values)."""
        return self._prefs is not None or self.values is not None

    @property
    def prefs(self) -> np.ndarray:
        """Per-query preference tensor (Q, S, S); an error when it was not kept."""
        if self._prefs is not None:
            return self._prefs
        if self.values is not None:
            return metric_difference.matrix(self.values)
        raise PrefevalError(f"per-query preferences of {self.method.label} were not kept "
                            f"({len(self.query_ids)} queries x {len(self.sums.mean)} pairs); "
                            "give compare(..., per_query=True) (--per-query) to keep them")

    def scores(self) -> np.ndarray:
        """Per-query scores (Q, S) for aggregation: metric values, or per-query win rates of a preference."""
        return self.values if self.values is not None else self.win_rates

    def pair_sums(self, pairs: tuple[np.ndarray, np.ndarray]) -> PairSums:
        """The :class:`~prefeval.core.reduce.PairSums` of the pairs ``(i, j)``, each oriented ``i`` over ``j``: :attr:`sums`
        holds them for the pairs ``i < j`` (``numpy.triu_indices`` order); a pair the other way round has its mean
        negated and its wins and losses swapped."""
        i, j = pairs
        S = self.win_rates.shape[1]
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        k = lo * S - lo * (lo + 1) // 2 + (hi - lo - 1)  # index of (lo, hi) among the pairs of np.triu_indices(S, 1)
        flip = i > j
        s = self.sums
        return PairSums(s.n, np.where(flip, -s.mean[k], s.mean[k]), s.m2[k],
                        np.where(flip, s.losses[k], s.wins[k]), np.where(flip, s.wins[k], s.losses[k]))

    def pair_values(self, pairs: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """(n_pairs, Q) per-query values of the pairs ``(i, j)``; an error when they were not kept."""
        i, j = pairs
        if self._prefs is None and self.values is not None:
            return (self.values[:, i] - self.values[:, j]).T
        return self.prefs[:, i, j].T


def _sums_of(prefs: np.ndarray | None, values: np.ndarray | None) -> PairSums:
    """Pair sums of a per-query tensor, or of a metric's pairwise differences, in blocks of queries."""
    source = prefs if prefs is not None else values
    S = source.shape[1]
    pairs = np.triu_indices(S, 1)
    if not len(pairs[0]):  # a single run: no pairs
        return PairSums.zeros(0, len(source))
    rows = max(1, reduce.BLOCK_ENTRIES // max(1, len(pairs[0])))
    parts = []
    for start in range(0, max(1, len(source)), rows):
        block = source[start:start + rows]
        X = block[:, pairs[0], pairs[1]] if prefs is not None else block[:, pairs[0]] - block[:, pairs[1]]
        parts.append(PairSums.of_block(X))
    return PairSums.combine(parts)


def combine_results(parts: Sequence[Sequence[MethodResult]]) -> list[MethodResult]:
    """The results of disjoint blocks of queries (each a list from :func:`evaluate_block`, methods in the same
    order) as one list, queries in the order :func:`evaluate_block` gives them on the union (sorted by id)."""
    combined = []
    for method_parts in zip(*parts):
        query_ids = np.concatenate([r.query_ids for r in method_parts])
        order = np.argsort(query_ids.astype(str), kind="stable")
        values = None if method_parts[0].values is None else np.vstack([r.values for r in method_parts])[order]
        kept = values is None and all(r.kept for r in method_parts)
        prefs = np.concatenate([r.prefs for r in method_parts])[order] if kept else None
        combined.append(MethodResult(method_parts[0].method, query_ids[order], prefs, values,
                                     win_rates=np.vstack([r.win_rates for r in method_parts])[order],
                                     sums=PairSums.combine(r.sums for r in method_parts)))
    return combined
