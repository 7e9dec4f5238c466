"""What to know about qrels and runs before evaluating them: :func:`check` (``prefeval check``).

For each run: the judged queries it covers and the queries only it has (which no measure reads); documents per query
(min, median, max); Judged@k for k = 5, 10, 20, 100 (the share of the top k documents the qrels judge, ir-measures'
``Judged@k`` on prefeval's ranking, averaged over the judged queries: a measure reads every unjudged document as
non-relevant, Buckley & Voorhees (2004)); the queries whose top 10 holds a tied score (a score of the top 10 that
another document of the query has: the order of those documents, doc id descending as trec_eval, decides the
measures) and the share of documents whose score another of the query's documents has; repeated documents (each
keeps its first position) and non-finite scores (``inf``, ``-inf``). For the qrels: the grade histogram (one
judgment per query, subtopic and document) and the judged queries without a document at grade >= ``rel`` (every
measure scores them 0). :attr:`Check.warnings` says, one line each, what would change a number.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from prefeval.core.arrays import stretch_starts
from prefeval.data.collection import Collection, coverage_note
from prefeval.data.encoding import column_values
from prefeval.data.inputs import run_frame, runs_dict
from prefeval.data.ranking import code_queries, rank_run
from prefeval.engine.methods import JudgedAt
from prefeval.engine.values import measure_values
from prefeval.errors import PrefevalError

__all__ = ["CUTOFFS", "Check", "QrelsCheck", "RunCheck", "check", "LOW_JUDGED"]

#: The depths of Judged@k :func:`check` reports.
CUTOFFS = (5, 10, 20, 100)
#: Judged@10 below this is warned about: most of the top ten documents are read as non-relevant without a judgment.
LOW_JUDGED = 0.5
#: The depth whose tied scores :func:`check` counts.
TIE_DEPTH = 10
#: How many query ids a list in the output shows at most.
SHOWN = 5


@dataclass(frozen=True)
class RunCheck:
    """:func:`check`'s findings on one run (see the module docstring)."""

    name: str
    judged_covered: int
    judged_queries: int
    run_only: int
    run_only_examples: list[str]
    docs_min: int
    docs_median: float
    docs_max: int
    judged_at: dict[int, float]
    tied_queries: int
    run_queries: int
    tied_share: float
    repeated: int
    non_finite: int

    def warnings(self) -> list[str]:
        out = []
        low = self.judged_at.get(10)
        if low is not None and low < LOW_JUDGED:
            out.append(f"run {self.name!r}: Judged@10 = {low:.3f} < {LOW_JUDGED}: most of its top ten documents "
                       "are unjudged and every measure reads them as non-relevant (see judged_only=True)")
        if note := coverage_note(self.name, self.judged_covered, self.judged_queries,
                                 self.judged_covered + self.run_only):
            out.append(note)
        if self.run_only:
            out.append(f"run {self.name!r} has {self.run_only} queries the qrels do not judge (e.g. "
                       f"{', '.join(map(repr, self.run_only_examples))}); no measure reads them")
        if self.tied_queries:
            out.append(f"run {self.name!r}: {self.tied_queries} of {self.run_queries} queries hold tied scores in "
                       f"their top {TIE_DEPTH}; doc id (descending) orders those documents, as trec_eval does")
        if self.repeated:
            out.append(f"run {self.name!r}: {self.repeated} repeated document(s) within a query; each keeps its "
                       "first (best) position")
        if self.non_finite:
            out.append(f"run {self.name!r}: {self.non_finite} non-finite score(s) (inf or -inf); they rank first or "
                       "last, ties among them by doc id")
        return out


@dataclass(frozen=True)
class QrelsCheck:
    """:func:`check`'s findings on the qrels: ``grades`` (grade -> judgments), the judged queries and those without
    a document at grade >= ``rel``."""

    rel: int
    queries: int
    judgments: int
    grades: dict[int, int]
    no_relevant: int
    no_relevant_examples: list[str] = field(default_factory=list)

    def warnings(self) -> list[str]:
        if not self.no_relevant:
            return []
        return [f"qrels: {self.no_relevant} of the {self.queries} judged queries have no document at grade >= "
                f"{self.rel} (e.g. {', '.join(map(repr, self.no_relevant_examples))}); every measure scores them 0 "
                "and every preference ties there"]


@dataclass(frozen=True)
class Check:
    """The result of :func:`check`: the qrels' findings and each run's."""

    qrels: QrelsCheck
    runs: list[RunCheck]

    @property
    def warnings(self) -> list[str]:
        """One line per finding that would change a number."""
        return self.qrels.warnings() + [line for run in self.runs for line in run.warnings()]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON): ``qrels``, ``runs`` (``judged_at`` keyed by ``"5"``, ``"10"``, ...) and ``warnings``."""
        qrels = asdict(self.qrels)
        qrels["grades"] = {str(g): n for g, n in self.qrels.grades.items()}
        runs = []
        for run in self.runs:
            row = asdict(run)
            row["judged_at"] = {str(k): v for k, v in run.judged_at.items()}
            runs.append(row)
        return {"qrels": qrels, "runs": runs, "warnings": self.warnings}


def check(qrels: Any, runs: Any, rel: int = 1, depth: int | None = None) -> Check:
    """:class:`Check` of ``qrels`` and ``runs`` (as :func:`prefeval.compare` takes them; a run file is read when its
    turn comes, one at a time, and a qrels file on a thread of the call while the first run is read). ``rel``: the
    grade from which a document counts as relevant; ``depth``: one more k of Judged@k (a table's,
    :func:`prefeval.engine.methods.judged_depth`)."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise PrefevalError(f"depth must be a positive integer; got {depth!r}")
    cutoffs = sorted({*CUTOFFS, *([] if depth is None else [depth])})
    if isinstance(rel, bool) or not isinstance(rel, int) or not 1 <= rel <= 1000:
        raise PrefevalError(f"rel must be an integer from 1 to 1000; got {rel!r}")
    judged = [JudgedAt(k) for k in cutoffs]
    if isinstance(qrels, (str, os.PathLike)) and os.path.isfile(qrels):
        # a qrels file is read and coded on a thread of this call while the first run is read (the reader leaves a
        # core idle part of the time); the thread ends before the call does
        with ThreadPoolExecutor(1, thread_name_prefix="prefeval-qrels") as pool:
            return _check(pool.submit(_coded, qrels).result, runs, rel, judged)
    collection = _coded(qrels)
    return _check(lambda: collection, runs, rel, judged)


def _coded(qrels: Any) -> Collection:
    """The collection of ``qrels`` with the judgments every run check reads coded."""
    collection = Collection.of(qrels)
    _ = collection.grades  # (and the judged pairs it holds)
    return collection


def _check(collection: Callable[[], Collection], runs: Any, rel: int, judged: list[JudgedAt]) -> Check:
    """:func:`check` once the qrels are being read: ``collection()`` waits for them. An error in the qrels is raised
    before one in the runs, as when the qrels are read first."""
    try:
        run_sources = runs_dict(runs, columns=True)
        if not run_sources:
            raise PrefevalError("no runs given to check")
        out = []
        for name, source in run_sources.items():  # a run file read when its turn comes
            frame = run_frame(source, name, columns=True) if isinstance(source, (str, os.PathLike)) else source
            out.append(_run_check(name, frame, collection(), judged))
            del frame
    except Exception:
        collection()
        raise
    return Check(_qrels_check(collection(), rel), out)


def _qrels_check(collection: Collection, rel: int) -> QrelsCheck:
    grades = collection.grade_values
    values, counts = np.unique(grades, return_counts=True)
    missing = [str(q) for q in collection.queries.to_numpy()[~collection.evaluated(rel)]]
    return QrelsCheck(rel, len(collection.queries), len(grades), {int(v): int(c) for v, c in zip(values, counts)},
                      len(missing), missing[:SHOWN])


def _run_check(name: str, frame: Any, collection: Collection, judged: list[JudgedAt]) -> RunCheck:
    scores = column_values(frame["score"], np.float64)
    queries = collection.queries
    coded = code_queries(frame["query_id"], name=name)  # (read by the ranking and the tie count)
    with warnings.catch_warnings():  # the repeated documents are counted below
        warnings.simplefilter("ignore")
        # ranked as evaluate ranks it (the judged documents located while the ids are encoded), exactly down to the
        # deepest k: all Judged@k reads
        ranked = rank_run(frame, name=name, depth=max(m.cutoff for m in judged), candidates=collection.judged_pairs,
                          coded_queries=coded)
    in_qrels = queries.get_indexer(ranked.queries)
    sizes = ranked.query_sizes()
    covered = int(np.count_nonzero(sizes[in_qrels >= 0]))
    only = [str(q) for q, i in zip(ranked.queries.to_numpy(dtype=object), in_qrels) if i < 0]
    sizes = sizes[sizes > 0]
    # Judged@k by the one evaluation of measures (trec_eval's kernels), the mean over the judged queries
    values = measure_values(collection, [(name, ranked)], judged).aggregates()[:, 0]
    tied_queries, tied_share = _ties(coded[0], len(coded[1]), scores)
    return RunCheck(name, covered, len(queries), len(only), only[:SHOWN],
                    int(sizes.min()) if len(sizes) else 0, float(np.median(sizes)) if len(sizes) else 0.0,
                    int(sizes.max()) if len(sizes) else 0, {m.cutoff: float(v) for m, v in zip(judged, values)},
                    tied_queries, int(len(sizes)), tied_share, int(len(scores) - sizes.sum()),
                    int(np.count_nonzero(np.isinf(scores))))


def _ties(query_codes: np.ndarray, queries: int, scores: np.ndarray) -> tuple[int, float]:
    """(queries whose top :data:`TIE_DEPTH` by score holds a score another of its documents has, share of the rows whose
    score another row of the query has) of rows with these query codes (of ``queries`` queries, each present) and
    scores. Repeated documents count as rows here. Rows whose queries stand in one stretch each, scores non-increasing
    (as in TREC files), are read in their order, not sorted."""
    n = len(scores)
    if not n:
        return 0, 0.0
    starts = stretch_starts(query_codes)
    new_query = _new_query(starts, n)
    if len(starts) > queries or not np.all(new_query | (scores[1:] <= scores[:-1])):  # (a query in two stretches)
        order = np.lexsort((-scores, query_codes))  # rows to put in query and score order first
        scores, starts = scores[order], stretch_starts(query_codes[order])
        new_query = _new_query(starts, n)
    same = ~new_query & (scores[1:] == scores[:-1])  # row i + 1 ties row i
    tied = np.zeros(n, dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    top = starts[:, None] + np.arange(TIE_DEPTH)  # each query's first rows, up to the next query's first
    top_tied = tied[np.minimum(top, n - 1)] & (top < np.r_[starts[1:], n][:, None])
    return int(np.count_nonzero(top_tied.any(axis=1))), float(np.count_nonzero(tied) / n)


def _new_query(starts: np.ndarray, n: int) -> np.ndarray:
    """Per row ``i`` of ``n`` rows but the last: whether row ``i + 1`` starts a query (``starts``: each query's first
    row)."""
    new_query = np.zeros(n - 1, dtype=bool)
    new_query[starts[1:] - 1] = True
    return new_query
