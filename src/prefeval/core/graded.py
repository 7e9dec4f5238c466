"""Rankings as the grades of their documents per aspect: the input of metric kernels (numpy only).

A batch of ``Q`` rankings, one per query, padded to a common depth ``n`` and number of aspects ``A``
(subtopics; one aspect for qrels without subtopics):

* ``grades[q, i, a]``: grade of the document at rank ``i + 1`` of ranking ``q`` for aspect ``a``, grades below
  the relevance threshold already 0; 0 on padding (ranks past ``length[q]``, aspects past ``n_aspects[q]``);
* ``length[q]``: number of documents ranking ``q`` holds (after any cutoff);
* ``gmax[q, a]``: the highest grade the qrels give a document for aspect ``a`` (the ideal grade);
* ``n_aspects[q]``: aspects of query ``q`` with a relevant document (the first ``n_aspects[q]`` columns);
* ``n_relevant[q]``: documents with a relevant grade for some aspect, retrieved or not;
* ``pool[q, m, a]`` (optional): grade for aspect ``a`` of the ``m``-th judged document relevant to some aspect of
  query ``q`` (the recall base and the documents of ideal rankings), ordered by doc id descending so that greedy
  ideal rankings break ties as ndeval does; 0 on padding.

Diversity metrics (Amigó et al. (2018) §3) are functions of these arrays; position-based metrics use
:meth:`GradedRankings.position_vectors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from prefeval.core.rbu import relevance_probabilities

__all__ = ["GradedRankings", "PositionVectors"]


@dataclass(frozen=True)
class GradedRankings:
    grades: np.ndarray
    length: np.ndarray
    gmax: np.ndarray
    n_aspects: np.ndarray
    n_relevant: np.ndarray
    pool: np.ndarray | None = None

    @classmethod
    def stack(cls, rankings: Sequence[np.ndarray], gmax: Sequence[np.ndarray],
              n_relevant: Sequence[int], pool: Sequence[np.ndarray] | None = None) -> GradedRankings:
        """Pad per-query ``(length_q, A_q)`` grade arrays, ``(A_q,)`` ideal grades and (optionally) ``(m_q, A_q)``
        pool grades into one batch."""
        Q = len(rankings)
        depth = max((len(r) for r in rankings), default=0)
        width = max((len(g) for g in gmax), default=0)
        grades = np.zeros((Q, max(depth, 1), max(width, 1)))
        ideal = np.zeros((Q, max(width, 1)))
        for q, (ranked, best) in enumerate(zip(rankings, gmax)):
            ranked = np.asarray(ranked, dtype=np.float64)
            grades[q, :ranked.shape[0], :ranked.shape[1]] = ranked
            ideal[q, :len(best)] = best
        pooled = None
        if pool is not None:
            pooled = np.zeros((Q, max(max((len(p) for p in pool), default=0), 1), max(width, 1)))
            for q, judged in enumerate(pool):
                judged = np.asarray(judged, dtype=np.float64).reshape(len(judged), -1)
                pooled[q, :judged.shape[0], :judged.shape[1]] = judged
        return cls(grades, np.array([len(r) for r in rankings], dtype=np.int64), ideal,
                   np.array([len(g) for g in gmax], dtype=np.int64), np.asarray(n_relevant, dtype=np.int64), pooled)

    def relevance(self, mapping: str = "err") -> tuple[np.ndarray, np.ndarray | None]:
        """``(r, pool_r)``: satisfaction probabilities r(d, t) of the ranked and of the pooled documents.

        ``"err"``: ``(2^g - 1) / 2^gmax_t`` (:func:`prefeval.core.rbu.relevance_probabilities`, Amigó et al.
        (2018) §5); ``"binary"``: 1 for a relevant grade, else 0 (Clarke et al. (2008)'s J(d, t)).
        """
        if mapping == "binary":
            return ((self.grades > 0).astype(np.float64),
                    None if self.pool is None else (self.pool > 0).astype(np.float64))
        ideal = self.gmax[:, None, :]
        return (relevance_probabilities(self.grades, ideal),
                None if self.pool is None else relevance_probabilities(self.pool, ideal))

    def aspect_weights(self) -> np.ndarray:
        """(Q, A) uniform weights ``1 / n_aspects`` over each query's aspects, 0 on padding."""
        width = self.grades.shape[2]
        return np.where(np.arange(width) < self.n_aspects[:, None], 1.0 / np.maximum(self.n_aspects, 1)[:, None], 0.0)

    def position_vectors(self) -> list[np.ndarray]:
        """Per query, the ascending positions of its relevant documents, ``+inf`` for those not retrieved
        (the position vectors of :mod:`prefeval.core.positions`)."""
        relevant = self.grades.max(axis=2) > 0
        out = []
        for q in range(len(self.length)):
            found = np.flatnonzero(relevant[q, :self.length[q]]) + 1.0
            out.append(np.concatenate([found, np.full(max(self.n_relevant[q] - len(found), 0), np.inf)]))
        return out


@dataclass(frozen=True)
class PositionVectors:
    """Rankings known only by the positions of their relevant documents (binary relevance): ``vectors`` ``(N, m)``,
    one position vector per ranking (:mod:`prefeval.core.positions`). What a position-based metric's kernel reads
    of :class:`GradedRankings`, so that simulations of random rankings evaluate it without grade arrays."""

    vectors: np.ndarray

    def position_vectors(self) -> np.ndarray:
        return self.vectors
