"""trec_eval's common measures as numpy kernels over rankings of grades, every query (and run) at once.

The input is two arrays of integers, no ids:

* :class:`Judgments`: the judged grades of each of ``Q`` judged queries (every judgment of the qrels, one per query
  and document; negative grades included);
* :class:`Rankings`: segments of grades in rank order, each belonging to one judged query: for each query of a run
  (or of several runs, :meth:`Rankings.concat`), the grade of the document at each rank 1..n, :data:`UNJUDGED` for a
  document the qrels do not judge. The ranking is trec_eval's: score descending, ties by document id descending, a
  repeated document removed (the reader's rules); the kernels only read the grades in that order. A judged query the
  run does not retrieve for is an empty segment (``trec_eval -c``: it counts, with the values of an empty ranking).

:func:`trec_values` gives one value per segment for each :class:`Measure` (:func:`query_values`: per judged query of
one run). With ``rel`` the relevance threshold
(a document is relevant when its grade is ``>= rel``; ``rel >= 1``), a segment whose ranking has ``n`` documents
with grades ``g_1 .. g_n``, ``rel_i = [g_i >= rel]``, the query's ``R`` relevant documents (judged ``>= rel``) and a
cutoff ``k`` (``k = n`` when the measure has none), the definitions are those of trec_eval (NIST, usnistgov/trec_eval;
``m_*.c``: the measure's name there in brackets):

* ``P@k`` [``P_k``]: ``sum_{i<=k} rel_i / k`` (``k`` even when ``n < k``);
* ``R@k`` [``recall_k``]: ``sum_{i<=k} rel_i / R``, 0 when ``R = 0``;
* ``Success@k`` [``success_k``]: 1 when some ``rel_i = 1`` with ``i <= k``, else 0;
* ``RR`` [``recip_rank``]: ``1 / i`` for the first ``i`` with ``rel_i = 1``, 0 when there is none; ``RR@k`` counts
  only ``i <= k`` (the MS MARCO MRR@10 of ir-measures' ``msmarco`` provider);
* ``AP`` [``map``], ``AP@k`` [``map_cut_k``]: ``sum_{i<=k, rel_i} P@i / R``, 0 when ``R = 0`` (Buckley & Voorhees
  2005);
* ``Rprec`` [``Rprec``]: ``sum_{i<=R} rel_i / R``, 0 when ``R = 0``;
* ``nDCG`` [``ndcg``], ``nDCG@k`` [``ndcg_cut_k``]: ``DCG@k / IDCG@k`` with ``DCG@k = sum_{i<=k} gain(g_i) /
  log2(i + 1)``, the gain of a grade the grade itself when positive, else 0 (an unjudged document, grade 0 and
  negative grades gain nothing), and ``IDCG@k`` the same sum over the query's judged positive grades sorted
  descending (all of them for ``nDCG``, the top ``k`` for ``nDCG@k``); 0 when ``IDCG = 0`` (Järvelin & Kekäläinen,
  ACM TOIS 20(4), 2002, Section 2.3, with trec_eval's default gains). ``nDCG`` has no ``rel``;
* ``Judged@k`` (ir-measures' ``judged`` provider, not trec_eval): the share of the top ``min(k, n)`` documents that
  the qrels judge (any grade, negative ones too), 0 for an empty ranking;
* counts: ``NumRet`` [``num_ret``] ``n``; ``NumRelRet`` [``num_rel_ret``] ``sum_i rel_i``; ``NumRel`` [``num_rel``]
  ``R``; ``NumQ`` [``num_q``] 1 (all four are summed over the queries by trec_eval, the others averaged).

Values equal trec_eval's bit for bit (tested against pytrec_eval on random rankings and the TREC data): every sum of
fractions is accumulated in rank order, as trec_eval's loops do (``np.bincount`` adds its weights in array order),
each term formed by the same division, and ``log2`` taken from the C library (:func:`math.log2`). trec_eval leaves a
query whose every judgment is negative undefined (it reads state left by the previous query); here its ``IDCG`` is
0 and ``R = 0``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from prefeval.core.arrays import stretch_starts

__all__ = ["UNJUDGED", "MEASURE_NAMES", "Measure", "Judgments", "Rankings", "trec_values", "query_values"]

#: The grade :class:`Rankings` give a retrieved document the qrels do not judge (below every grade a qrels line can
#: hold, so it is never relevant and gains nothing).
UNJUDGED = int(np.iinfo(np.int32).min)

#: Measures :func:`trec_values` computes, with whether each takes a cutoff and a relevance threshold.
MEASURE_NAMES: dict[str, tuple[bool, bool]] = {
    "P": (True, True), "R": (True, True), "Success": (True, True), "RR": (True, True), "AP": (True, True),
    "Rprec": (False, True), "nDCG": (True, False), "Judged": (True, False), "NumRet": (False, False),
    "NumRelRet": (False, True), "NumRel": (False, True), "NumQ": (False, False),
}
_CUTOFF_REQUIRED = frozenset({"P", "Success"})


@dataclass(frozen=True)
class Measure:
    """One measure of :func:`trec_values`: ``name`` (a key of :data:`MEASURE_NAMES`), ``cutoff`` (``k``, or None for
    the whole ranking) and ``rel`` (the relevance threshold; only for measures that take one)."""

    name: str
    cutoff: int | None = None
    rel: int = 1

    def __post_init__(self) -> None:
        if self.name not in MEASURE_NAMES:
            raise ValueError(f"unknown measure {self.name!r}; one of {', '.join(MEASURE_NAMES)}")
        takes_cutoff, takes_rel = MEASURE_NAMES[self.name]
        if self.cutoff is not None and (not takes_cutoff or int(self.cutoff) < 1):
            raise ValueError(f"{self.name} takes no cutoff" if not takes_cutoff else
                             f"{self.name}: the cutoff must be at least 1, not {self.cutoff}")
        if self.cutoff is None and self.name in _CUTOFF_REQUIRED:
            raise ValueError(f"{self.name} needs a cutoff")
        if int(self.rel) < 1 or (self.rel != 1 and not takes_rel):
            raise ValueError(f"{self.name}: rel must be at least 1" if takes_rel else f"{self.name} takes no rel")


_LOG2 = np.zeros(0)


def _log2_of_rank_plus_one(size: int) -> np.ndarray:
    """``log2(i + 1)`` for ranks ``i = 1 .. size`` (at least), by the C library's ``log2`` as trec_eval takes it."""
    global _LOG2
    if len(_LOG2) < size:
        _LOG2 = np.array([math.log2(i + 2) for i in range(max(size, 2 * len(_LOG2), 1024))])
    return _LOG2


class Judgments:
    """The judged grades of ``num_queries`` queries: ``query[j]`` (0 .. num_queries - 1) and ``grades[j]`` of each
    judgment ``j`` (one per query and document, in any order). A query without a judgment has none (``R = 0``)."""

    def __init__(self, query: np.ndarray, grades: np.ndarray, num_queries: int | None = None) -> None:
        query = np.asarray(query, dtype=np.int64)
        grades = np.asarray(grades, dtype=np.int64)
        if query.shape != grades.shape or query.ndim != 1:
            raise ValueError("query and grades must be 1-d arrays of one length")
        self.num_queries = int(num_queries if num_queries is not None else (query.max() + 1 if len(query) else 0))
        if len(query) and (query.min() < 0 or query.max() >= self.num_queries):
            raise ValueError(f"query indices must be from 0 to {self.num_queries - 1}")
        self.query, self.grades = query, grades
        self._num_rel: dict[int, np.ndarray] = {}
        self._ideal: dict[int | None, np.ndarray] = {}

    def num_rel(self, rel: int) -> np.ndarray:
        """``R`` of each query: its judged documents of grade ``>= rel``."""
        if rel not in self._num_rel:
            self._num_rel[rel] = np.bincount(self.query[self.grades >= rel], minlength=self.num_queries)
        return self._num_rel[rel]

    def ideal_dcg(self, cutoff: int | None) -> np.ndarray:
        """``IDCG@cutoff`` of each query (module docstring; ``None``: every judged positive grade)."""
        if cutoff not in self._ideal:
            query, grades, offsets = self._ideal_rankings
            rank = np.arange(len(grades)) - offsets[query]  # 0-based, positive grades first
            keep = grades > 0
            if cutoff is not None:
                keep &= rank < cutoff
            rank = rank[keep]
            discount = _log2_of_rank_plus_one(int(rank.max()) + 1 if len(rank) else 0)
            gains = grades[keep].astype(np.float64) / discount[rank]
            self._ideal[cutoff] = np.bincount(query[keep], weights=gains, minlength=self.num_queries)
        return self._ideal[cutoff]

    @functools.cached_property
    def _ideal_rankings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(query, grade, each query's first row) of the judgments by query, grades descending: the ideal ranking of
        each query (sorted on first use: measures without an ideal ranking do not sort)."""
        order = np.lexsort((-self.grades, self.query))
        query = self.query[order]
        return query, self.grades[order], np.searchsorted(query, np.arange(self.num_queries + 1))


class Rankings:
    """Segments of grades in rank order: segment ``s`` is ``grades[offsets[s]:offsets[s + 1]]`` (the grade at rank
    1, 2, ...; :data:`UNJUDGED` for a document the qrels do not judge) and belongs to the judged query ``query[s]``.
    Segments may be empty (a judged query the run does not retrieve for)."""

    def __init__(self, grades: np.ndarray, offsets: np.ndarray, query: np.ndarray) -> None:
        self.grades = np.asarray(grades, dtype=np.int32)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.query = np.asarray(query, dtype=np.int64)
        if self.offsets.ndim != 1 or len(self.offsets) != len(self.query) + 1 or \
                (len(self.offsets) and (self.offsets[0] != 0 or self.offsets[-1] != len(self.grades))) or \
                np.any(np.diff(self.offsets) < 0):
            raise ValueError("offsets must rise from 0 to len(grades), one more than the segments")
        self._relevant: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._judged: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def from_rows(cls, query: np.ndarray, grades: np.ndarray, num_queries: int) -> Rankings:
        """One run's rankings, exactly one segment per judged query ``0 .. num_queries - 1`` (an empty one for a query
        without a row, after the others), from rows in rank order within each query: ``query[i]`` (-1: a query the
        qrels do not judge, left out, as trec_eval leaves it out) and ``grades[i]``. The rows of a query are usually
        adjacent (segments then follow the rows, no copy); otherwise they are gathered, their order kept."""
        query = np.asarray(query)
        query = query if query.dtype in (np.int32, np.int64) else query.astype(np.int64)  # int32 kept: no copy
        grades = np.asarray(grades, dtype=np.int32)
        if query.shape != grades.shape or query.ndim != 1:
            raise ValueError("query and grades must be 1-d arrays of one length")
        if len(query) and query.min() < 0:
            keep = query >= 0
            query, grades = query[keep], grades[keep]
        if len(query) and query.max() >= num_queries:
            raise ValueError(f"query indices must be below num_queries ({num_queries})")
        starts = stretch_starts(query)
        present = np.zeros(num_queries, dtype=bool)
        present[query[starts]] = True
        if present.sum() < len(starts):  # a query in several stretches of rows: gather them
            order = np.argsort(query, kind="stable")
            query, grades = query[order], grades[order]
            starts = stretch_starts(query)
        missing = np.flatnonzero(~present)
        offsets = np.concatenate([starts, np.full(len(missing) + 1, len(query))])
        return cls(grades, offsets, np.concatenate([query[starts], missing]))

    @classmethod
    def concat(cls, parts: list[Rankings]) -> Rankings:
        """The segments of ``parts`` one after the other (several runs evaluated at once)."""
        if not parts:
            return cls(np.zeros(0, np.int32), np.zeros(1, np.int64), np.zeros(0, np.int64))
        starts = np.cumsum([0] + [len(p.grades) for p in parts[:-1]])
        offsets = np.concatenate([[0]] + [p.offsets[1:] + start for p, start in zip(parts, starts)])
        return cls(np.concatenate([p.grades for p in parts]), offsets, np.concatenate([p.query for p in parts]))

    def __len__(self) -> int:
        return len(self.query)

    @property
    def lengths(self) -> np.ndarray:
        """``n`` of each segment."""
        return np.diff(self.offsets)

    def locate(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(segment, 0-based rank within it) of the ascending row indices ``rows``."""
        segment = np.searchsorted(self.offsets, rows, side="right") - 1
        return segment, rows - self.offsets[segment]

    def judged(self) -> tuple[np.ndarray, np.ndarray]:
        """(segment, 0-based rank) of each retrieved document the qrels judge, in row order (located once for every
        Judged@k)."""
        if self._judged is None:
            self._judged = self.locate(np.flatnonzero(self.grades != UNJUDGED))
        return self._judged

    def relevant(self, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(segment, 0-based rank, 1-based count of relevant documents up to it) of each retrieved document of grade
        ``>= rel``, in row order."""
        if rel not in self._relevant:
            segment, rank = self.locate(np.flatnonzero(self.grades >= rel))
            first = np.searchsorted(segment, segment, side="left")  # the segment's first relevant row
            self._relevant[rel] = segment, rank, np.arange(1, len(segment) + 1) - first
        return self._relevant[rel]


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` elementwise, 0 where the denominator is 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast_shapes(numerator.shape, denominator.shape))
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _count(segment: np.ndarray, keep: np.ndarray | None, size: int) -> np.ndarray:
    return np.bincount(segment if keep is None else segment[keep], minlength=size)


def _value(measure: Measure, judgments: Judgments, rankings: Rankings) -> np.ndarray:
    size, k = len(rankings), measure.cutoff
    name = measure.name
    if name == "NumQ":
        return np.ones(size)
    if name == "NumRet":
        return rankings.lengths.astype(np.float64)
    if name == "NumRel":
        return judgments.num_rel(measure.rel)[rankings.query].astype(np.float64)
    if name == "nDCG":
        segment, rank = rankings.locate(np.flatnonzero(rankings.grades > 0))
        gains = rankings.grades[np.flatnonzero(rankings.grades > 0)]
        if k is not None:
            keep = rank < k
            segment, rank, gains = segment[keep], rank[keep], gains[keep]
        discount = _log2_of_rank_plus_one(int(rank.max()) + 1 if len(rank) else 0)
        dcg = np.bincount(segment, weights=gains.astype(np.float64) / discount[rank], minlength=size)
        return _ratio(dcg, judgments.ideal_dcg(k)[rankings.query])
    if name == "Judged":
        segment, rank = rankings.judged()
        lengths = rankings.lengths
        depth = lengths if k is None else np.minimum(lengths, k)
        return _ratio(_count(segment, None if k is None else rank < k, size), depth)
    segment, rank, seen = rankings.relevant(measure.rel)
    within = None if k is None else rank < k
    if name == "NumRelRet":
        return _count(segment, None, size).astype(np.float64)
    if name == "P":
        return _count(segment, within, size) / float(k)
    if name == "Success":
        return (_count(segment, within, size) > 0).astype(np.float64)
    num_rel = judgments.num_rel(measure.rel)[rankings.query]
    if name == "R":
        return _ratio(_count(segment, within, size), num_rel)
    if name == "Rprec":
        return _ratio(_count(segment, rank < num_rel[segment], size), num_rel)
    if name == "RR":
        first = seen == 1 if within is None else (seen == 1) & within
        out = np.zeros(size)
        out[segment[first]] = 1.0 / (rank[first] + 1.0)
        return out
    if name == "AP":
        terms = seen.astype(np.float64) / (rank + 1.0)  # P@i at each relevant rank i, as trec_eval divides
        if within is not None:
            segment, terms = segment[within], terms[within]
        return _ratio(np.bincount(segment, weights=terms, minlength=size), num_rel)
    raise AssertionError(name)  # pragma: no cover  (Measure checks the name)


def query_values(judgments: Judgments, rankings: Rankings, measures: list[Measure]) -> np.ndarray:
    """(measures, queries) values of one run's ``rankings`` (:meth:`Rankings.from_rows`: one segment per judged
    query): :func:`trec_values` in the order of the judged queries."""
    if len(rankings) != judgments.num_queries or np.any(np.bincount(rankings.query, minlength=judgments.num_queries)
                                                           != 1):
        raise ValueError("one run's rankings have exactly one segment per judged query")
    out = np.empty((len(measures), judgments.num_queries))
    for k, values in enumerate(trec_values(judgments, rankings, measures)):
        out[k, rankings.query] = values
    return out


def trec_values(judgments: Judgments, rankings: Rankings, measures: list[Measure]) -> list[np.ndarray]:
    """The value of each of ``measures`` (module docstring) for each segment of ``rankings`` (float64 arrays of
    ``len(rankings)``), the segments' queries judged as ``judgments`` says."""
    if len(rankings) and (rankings.query.min() < 0 or rankings.query.max() >= judgments.num_queries):
        raise ValueError("a segment's query is not one of the judged queries")
    return [_value(measure, judgments, rankings) for measure in measures]
