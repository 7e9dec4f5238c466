"""The coded collection: canonical qrels coded once, with everything the measures read from them.

A :class:`Collection` holds the reader's qrels (canonical: a frame or :class:`~prefeval.data.trec.Columns`, a
document judged twice in one query keeping the grade of the last line) and derives each of these once, on first use:

* :attr:`~Collection.queries`: the queries of the qrels in order of first appearance, the code space of rankings
  (:meth:`~Collection.rank`) and of the position tables;
* :attr:`~Collection.judged`: the query set of every measure, every query of the qrels judged at any grade, sorted
  by id (as ``trec_eval -c``, ir-measures and PyTerrier count them); a judged query without a document of grade
  ``>= rel`` scores 0 with every measure, and a judged query a run lacks is an empty ranking;
* :attr:`~Collection.grades`: one grade per judged (query, document), for trec_eval's measures
  (:class:`~prefeval.data.grades.CodedJudgments`);
* per relevance threshold ``rel``: the relevant documents (grade ``>= rel`` for some subtopic) and where runs put
  them (:meth:`~Collection.table`), the documents a ranking locates in advance (:meth:`~Collection.candidates`,
  :meth:`~Collection.query_candidates`), which queries have one (:meth:`~Collection.evaluated`) and how many per
  judged query (:meth:`~Collection.relevant_counts`, trec_eval's ``num_rel``);
* every judged document (:attr:`~Collection.judged_documents`: the condensed lists of Sakai (2007));
* the qrels as ir-measures' providers read them (:attr:`~Collection.standard_qrels`).

Every consumer takes a :class:`Collection` and derives none of these again: the one evaluation of measures
(:mod:`prefeval.engine.values`), the blocks of :func:`prefeval.compare` (:mod:`prefeval.engine.blocks`), prefeval's
ir-measures provider, the Dask partitions (one collection per partition), the checks and the analyses.
:meth:`Collection.rank` ranks a run on it (:func:`prefeval.data.ranking.rank_run`: score descending, ties by doc id
descending, a repeated document at its first position) and :meth:`Collection.coverage_note` says when a run lacks
judged queries.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import lazy_module
from prefeval.data.encoding import Ids, column_values, distinct, string_order, take_rows
from prefeval.data.grades import CodedJudgments
from prefeval.data.inputs import qrels_table
from prefeval.data.positions import PositionTable, QueryPositions, judged_table
from prefeval.data.ranking import NO_SUBTOPIC, QueryCandidates, RankedRun, nested_dict, rank_run
from prefeval.data.trec import MIN_GRADE, Columns

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["Collection"]


class Collection:
    """Canonical ``qrels`` coded once (see the module docstring); :meth:`of` reads any form of qrels into one."""

    def __init__(self, qrels: pd.DataFrame | Columns) -> None:
        self.qrels = qrels
        self._by_rel: dict[tuple[str, int], Any] = {}

    @classmethod
    def of(cls, qrels: Any) -> Collection:
        """``qrels`` itself when it is a collection, else the collection of the qrels read by
        :func:`prefeval.data.inputs.qrels_table` (a path, an ir_datasets id, a frame, a dict of dicts, records)."""
        return qrels if isinstance(qrels, Collection) else cls(qrels_table(qrels))

    def __len__(self) -> int:
        """The number of judged queries."""
        return len(self.judged)

    # ------------------------------------------------------------------------------------------
    # the queries

    @functools.cached_property
    def _query_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """(each judgment's query code, the queries in order of first appearance)."""
        return distinct(self.qrels["query_id"], grouped=True)

    @functools.cached_property
    def queries(self) -> Ids:
        """The queries of the qrels in order of first appearance: the ``queries`` of every ranking and position table."""
        return Ids(self._query_codes[1])

    @functools.cached_property
    def judged(self) -> np.ndarray:
        """The judged queries (every query of the qrels, at any grade) as ``str``, sorted: the query set and order
        of every measure's values."""
        return self._query_codes[1][self._id_order]

    @functools.cached_property
    def _id_order(self) -> np.ndarray:
        """The indices in :attr:`queries` of the queries in id order (:func:`~prefeval.data.encoding.string_order`)."""
        return string_order(self._query_codes[1])

    def evaluated(self, rel: int) -> np.ndarray:
        """Per query of :attr:`queries`: whether it has a document of grade ``>= rel`` (an *evaluated* query)."""
        def build() -> np.ndarray:
            codes = self._query_codes[0][self.grade_values >= rel]
            out = np.zeros(len(self.queries), dtype=bool)
            out[codes] = True
            return out

        return self._cached("evaluated", rel, build)

    def relevant_counts(self, rel: int) -> np.ndarray:
        """Per judged query (:attr:`judged`): the documents of grade ``>= rel`` (a document judged for several
        subtopics counts once), trec_eval's ``num_rel`` at ``-l rel``."""
        def build() -> np.ndarray:  # the table holds one row per relevant (query, document)
            per_query = np.bincount(self.table(rel).query_codes, minlength=len(self.queries)).astype(np.float64)
            out = np.zeros(len(self.judged))
            out[self.judged_rows] = per_query
            return out

        return self._cached("relevant_counts", rel, build)

    @functools.cached_property
    def judged_rows(self) -> np.ndarray:
        """The row in :attr:`judged` of each query of :attr:`queries`."""
        rows = np.empty(len(self._id_order), dtype=np.intp)
        rows[self._id_order] = np.arange(len(rows))
        return rows

    # ------------------------------------------------------------------------------------------
    # the judgments

    @functools.cached_property
    def grade_values(self) -> np.ndarray:
        """The grade of each line of the qrels (int64)."""
        return column_values(self.qrels["relevance"], np.int64)

    @functools.cached_property
    def max_grade(self) -> int | None:
        """The highest grade of the qrels (None without a judgment)."""
        return int(self.grade_values.max()) if len(self.grade_values) else None

    @functools.cached_property
    def subtopics(self) -> bool:
        """Whether the qrels judge subtopics (an ``iteration`` other than ``0`` / ``Q0``: diversity qrels)."""
        return "iteration" in self.qrels and not set(distinct(self.qrels["iteration"])[1].tolist()) <= NO_SUBTOPIC

    @functools.cached_property
    def grades(self) -> CodedJudgments:
        """One grade per judged (query, document), on :attr:`judged`: the input of trec_eval's measures."""
        rows = self._lines(MIN_GRADE)  # the lines of the judged pairs
        return CodedJudgments(Ids(self.judged), self.judged_pairs, self.judged_rows[self._query_codes[0][rows]],
                              self.grade_values[rows])

    @property
    def judged_pairs(self) -> QueryCandidates:
        """Every judged (query, document), at any grade, as per-query candidates (:meth:`query_candidates` at the lowest
        grade the reader accepts): a run ranked with them (:func:`prefeval.engine.evaluate.ranked_runs`) has its judged
        rows found while its ids are encoded, for :attr:`grades`, condensed lists and every position table."""
        return self.query_candidates(MIN_GRADE)

    @functools.cached_property
    def frame(self) -> pd.DataFrame:
        """The qrels as a pandas frame (for the providers that read one)."""
        return self.qrels.frame() if isinstance(self.qrels, Columns) else self.qrels

    @functools.cached_property
    def standard_qrels(self) -> Any:
        """The qrels as ir-measures' providers read them: ``{query: {doc: grade}}`` without subtopics (one line per
        query and document), else the frame (pyndeval reads the subtopics from it)."""
        if self.subtopics:
            return self.frame
        return nested_dict(self.qrels["query_id"], self.qrels["doc_id"], self.qrels["relevance"])

    def candidates(self, rel: int) -> np.ndarray:
        """The distinct documents of grade ``>= rel`` for some query: the ``candidates`` a ranking locates."""
        return self._cached("candidates", rel, lambda: distinct(self._at(rel, self.qrels["doc_id"]))[1])

    def query_candidates(self, rel: int) -> QueryCandidates:
        """Each query's own documents of grade ``>= rel``: per-query ``candidates`` for a ranking."""
        return self._cached("query_candidates", rel,
                            lambda: QueryCandidates(self._query_codes[1], self._at(rel, self.qrels["doc_id"]),
                                                    self._at(rel, self._query_codes[0])))

    def table(self, rel: int) -> PositionTable:
        """The relevant documents at ``rel`` of every evaluated query and where runs put them."""
        return self._cached("table", rel, lambda: PositionTable(self.qrels, rel, self.queries))

    @functools.cached_property
    def judged_documents(self) -> PositionTable:
        """Every judged (query, document), at any grade: what a condensed list keeps."""
        return judged_table(self.qrels, self.queries)

    def _lines(self, rel: int) -> np.ndarray:
        """The lines of the qrels at grade ``>= rel`` (at most :data:`MIN_GRADE`: every line the reader accepts,
        every line of validated qrels), found once per ``rel``."""
        rel = max(rel, MIN_GRADE)
        return self._cached("lines", rel, lambda: np.flatnonzero(self.grade_values >= rel))

    def _at(self, rel: int, values: Any) -> Any:
        """``values`` (one per line of the qrels: a column of ids, or a numpy array) of the lines at grade ``>= rel``
        (all lines: ``values`` itself)."""
        lines = self._lines(rel)
        if len(lines) == len(self.grade_values):
            return values
        return values[lines] if isinstance(values, np.ndarray) else take_rows(values, lines)

    def _cached(self, kind: str, rel: int, build) -> Any:
        key = (kind, rel)
        if key not in self._by_rel:
            self._by_rel[key] = build()
        return self._by_rel[key]

    # ------------------------------------------------------------------------------------------
    # the runs

    def rank(self, run: Any, name: str = "run", *, rel: int | None = None, query_candidates: bool = False,
             ties: str = "all", depth: int | None = None) -> RankedRun:
        """``run`` (canonical columns, a frame, or an :class:`~prefeval.data.ranking.EncodedRun`) ranked on
        :attr:`queries` (rows of other queries dropped) by :func:`~prefeval.data.ranking.rank_run`, with the
        documents of grade ``>= rel`` located in advance (each query's own with ``query_candidates``); ``ties`` and
        ``depth`` as :func:`~prefeval.data.ranking.rank_run` takes them."""
        candidates = None if rel is None else self.query_candidates(rel) if query_candidates else self.candidates(rel)
        return rank_run(run, self.queries, candidates, name, ties=ties, depth=depth)

    def coverage_note(self, name: str, run_queries: Any) -> str | None:
        """:func:`coverage_note` of a run ``name`` that retrieved for the distinct queries ``run_queries`` (ids)."""
        run_queries = np.asarray(run_queries, dtype=object)
        covered = np.count_nonzero(self.queries.get_indexer(run_queries) >= 0) if len(run_queries) else 0
        example = (run_queries[0], self.queries[0]) if len(run_queries) and len(self.queries) else None
        return coverage_note(name, covered, len(self.judged), len(run_queries), example)


def coverage_note(name: str, covered: int, judged: int, present: int, example: tuple[Any, Any] | None = None
                  ) -> str | None:
    """The sentence for a run ``name`` that retrieved for ``present`` queries, ``covered`` of them among the
    ``judged`` queries of the qrels, when it lacks some of these (None when it has them all): the queries it lacks
    count as empty rankings. ``example``: a query id of the run and one of the qrels, named when they share none."""
    if covered >= judged:
        return None
    if present and not covered:
        ids = f" (e.g. run {example[0]!r} vs qrels {example[1]!r})" if example else ""
        return (f"run {name!r} shares no query id with the qrels{ids}; it counts as an empty ranking for each of the "
                f"{judged} judged queries")
    return (f"run {name!r} covers {covered} of the {judged} judged queries; the other {judged - covered} count as "
            "empty rankings (0 for a metric, the worst case for a preference)")


def query_positions(runs: Mapping[str, Any], qrels: Any, rel: int = 1, depth: int | None = None,
                    subtopics: bool = True) -> list[QueryPositions]:
    """Position arrays for every evaluated query (in the order of the qrels), one row per run in ``runs`` order;
    ``depth`` truncates the runs first. Each run is ranked once on the collection of ``qrels`` (any form
    :meth:`Collection.of` reads) and located in its table at ``rel``."""
    collection = Collection.of(qrels)
    table = collection.table(rel)
    doc_pos = np.full((len(runs), len(table)), np.inf)
    for s, (name, frame) in enumerate(runs.items()):
        doc_pos[s] = table.locate(collection.rank(frame, str(name), rel=rel, ties="candidates"), depth)
    return table.positions(doc_pos, subtopics)
