"""The grades of ranked runs, for the kernels of trec_eval's measures (:mod:`prefeval.core.trec_measures`).

:class:`CodedJudgments` holds a collection's judgments on its codes (:attr:`prefeval.data.collection.Collection.grades`:
one grade per query and document, no subtopics): the judged queries (every query of the qrels, as ``trec_eval -c``
counts them), their grades (:class:`~prefeval.core.trec_measures.Judgments`) and a sorted key per judgment, whose
documents are coded as the collection's judged pairs code them. :meth:`CodedJudgments.rankings` gives a ranked run
(:class:`~prefeval.data.ranking.RankedRun`: score descending, ties by doc id descending, a repeated document at its
first position) as the grades of its rows in rank order (:class:`~prefeval.core.trec_measures.Rankings`): a run ranked
with the judged pairs as candidates has its judged rows found by their candidate codes (found while its ids were
encoded), any other run's document ids are looked up once each among the judged documents (Arrow's ``index_in``); then
only the rows of judged documents, by their (query, document) key (a table of the keys' hashes sets most rows of
documents judged only for other queries aside first: a candidate code tells the document, not the query). A query the
qrels do not judge is left out (trec_eval ignores it); a judged query the run lacks is an empty ranking."""

from __future__ import annotations

from typing import Any

import numpy as np

from prefeval.core.trec_measures import UNJUDGED, Judgments, Rankings
from prefeval.data.arrow import call, options, to_numpy
from prefeval.data.encoding import Ids, id_array
from prefeval.data.ranking import QueryCandidates, RankedRun

__all__ = ["CodedJudgments"]


class CodedJudgments:
    """The judgments of a collection coded for the kernels: ``judged_pairs`` (every judged (query, document) of the
    qrels as per-query candidates, one pair per line of the qrels: its documents are the code space of the
    judgments), ``query`` (each line's row in ``query_ids``, the judged queries: every query of the qrels, in the order
    of the values computed) and ``grades`` (each line's); a document judged on two lines of a query has the grade of
    the last. A run ranked with exactly these pairs (``rank_run(..., candidates=judged_pairs)``) has its judged rows
    found by their candidate codes, in the pass that encoded its ids, instead of by looking its document ids up."""

    def __init__(self, query_ids: Any, judged_pairs: QueryCandidates, query: np.ndarray, grades: np.ndarray) -> None:
        self.queries = query_ids if isinstance(query_ids, Ids) else Ids(query_ids)
        self.judged_pairs = judged_pairs
        documents = judged_pairs.pair_documents
        if not len(query) == len(documents) == len(grades):
            raise ValueError("query, grades and the judged pairs must have one entry per line of the qrels")
        self._n_docs = max(len(judged_pairs.documents.unique), 1)
        keys = query.astype(np.int64) * self._n_docs + documents
        order = np.argsort(keys, kind="stable")
        keys, grades, query = keys[order], np.asarray(grades, dtype=np.int64)[order], query[order]
        last = np.r_[keys[1:] != keys[:-1], True] if len(keys) else np.zeros(0, dtype=bool)
        self._keys, self._grades = keys[last], grades[last]  # a document judged twice: the last line, as pytrec_eval
        self.judgments = Judgments(query[last], self._grades, len(self.queries))
        # the keys' hashes as a table of at least 8 slots per key: a key whose slot is empty is not judged
        self._bits = max(int(len(self._keys)).bit_length() + 3, 10)
        self._slots = np.zeros(1 << self._bits, dtype=bool)
        self._slots[_slot(self._keys, self._bits)] = True

    def rankings(self, run: RankedRun, depth: int | None = None) -> Rankings:
        """The grades of ``run``'s rows in rank order, one segment per judged query; ``depth``: its top ``depth``
        documents only. A run ranked exactly only to some depth (``rank_run(..., depth=k)``) is cut there."""
        keep = None
        if not run.full_order:
            if run.exact_depth is None:
                raise ValueError("this ranking orders tied scores only around the candidate documents; rank the run "
                                 "with ties='all' for trec_eval's measures")
            depth = run.exact_depth if depth is None else min(depth, run.exact_depth)
        if depth is not None and depth != run.exact_depth:  # (a run ranked to a depth holds only those ranks)
            keep = np.flatnonzero(run.rank <= depth)
        query_of_code = self.queries.get_indexer(np.asarray(run.queries.to_numpy(dtype=object), dtype=str)) \
            if len(run.queries) else np.zeros(0, dtype=np.intp)
        codes = run.query_codes if keep is None else run.query_codes[keep]
        query = query_of_code.astype(np.int32)[codes] if len(codes) else np.zeros(0, dtype=np.int32)
        grades = np.full(len(query), UNJUDGED, dtype=np.int32)
        documents = self.judged_pairs.documents
        if len(self._keys) and len(query):
            if run.candidates is documents.unique:
                # every judged (query, document) has a candidate code, its document's code: only those rows are read
                codes = run.doc_codes if keep is None else run.doc_codes[keep]
                rows = np.flatnonzero(codes < len(run.candidates))
                doc_of_row = codes[rows]
            else:
                names = id_array(run.doc_names)
                value_set = documents.arrow_set(names.type)
                found = call("index_in", names, options=options("SetLookupOptions", value_set=value_set))
                doc = to_numpy(found, -1)[run.doc_raw if keep is None else run.doc_raw[keep]]  # int32: no wider copy
                rows = np.flatnonzero(doc >= 0)
                doc_of_row = doc[rows]
            # (a row of a query the qrels do not judge, -1, has a negative key, which no judgment has)
            keys = query[rows].astype(np.int64) * self._n_docs + doc_of_row
            maybe = self._slots[_slot(keys, self._bits)]  # (the rows of documents judged for other queries only,
            rows, keys = rows[maybe], keys[maybe]  # mostly: a candidate code tells the document, not the query)
            at = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
            judged = self._keys[at] == keys
            grades[rows[judged]] = self._grades[at[judged]]
        return Rankings.from_rows(query, grades, len(self.queries))


def _slot(keys: np.ndarray, bits: int) -> np.ndarray:
    """Fibonacci hashing: the top ``bits`` bits of each key times 2**64 / the golden ratio (modulo 2**64), computed in
    one copy of the keys."""
    slots = keys.astype(np.uint64)
    np.multiply(slots, np.uint64(0x9E3779B97F4A7C15), out=slots)
    np.right_shift(slots, np.uint64(64 - bits), out=slots)
    return slots.view(np.int64)
