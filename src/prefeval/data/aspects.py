"""Per-aspect relevance arrays from qrels and a run: the inputs of :mod:`prefeval.core.diversity` and RBU.

For every query with a document of grade >= ``rel`` (the queries prefeval evaluates), the aspects are its
subtopics (the qrels ``iteration`` column; one aspect for qrels without subtopics) that have a document of grade
>= ``rel``, each of weight 1/#aspects. Grades below ``rel`` count as 0 (negative "junk" grades too).

``mapping`` turns grades into r(d, t):

- ``"err"`` (default): ``(2^g - 1) / 2^gmax_t`` (:func:`prefeval.core.rbu.relevance_probabilities`, the mapping
  of RBU and of its authors' tool), gmax_t the highest grade judged for aspect t;
- ``"binary"``: ``r = 1`` for grade >= ``rel``, else 0 (Clarke et al.'s J(d,t), as ndeval's alpha-nDCG and NRBP).

The run is ranked as everywhere in prefeval (score descending, ties by doc id descending). The pool holds every
document relevant to some aspect, ordered by doc id descending (so the greedy ideal ranking breaks ties as
ndeval does). Rankings are padded into ``(queries, depth, aspects)`` arrays, in buckets of similar depth so that
one very long ranking does not blow up the padding of all others.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from prefeval.core import diversity
from prefeval.core.graded import GradedRankings
from prefeval.core.lazy import lazy_module
from prefeval.data.collection import Collection
from prefeval.data.inputs import qrels_frame, run_frame
from prefeval.data.ranking import NO_SUBTOPIC, RankedRun, rank_run
from prefeval.errors import PrefevalError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["AspectArrays", "QrelsSide", "aspect_arrays", "evaluate_kernel", "graded_rankings", "kernel_measure",
           "qrels_side", "run_graded_rankings", "single_aspect"]

Mapping = Literal["err", "binary"]


@dataclass(frozen=True)
class AspectArrays:
    """Padded kernel inputs of a set of queries (see :mod:`prefeval.core.diversity`)."""

    query_ids: list[str]
    r: np.ndarray  # (Q, n, T)
    weights: np.ndarray  # (Q, T)
    length: np.ndarray  # (Q,)
    pool: np.ndarray  # (Q, m, T)


def _judged(qrels: pd.DataFrame, rel: int) -> pd.DataFrame:
    """Qrels rows of the evaluated queries with ``aspect`` and ``grade`` (0 below rel)."""
    judged = qrels.assign(
        aspect=qrels["iteration"].where(~qrels["iteration"].isin(NO_SUBTOPIC), "0"),
        grade=np.where(qrels["relevance"] >= rel, qrels["relevance"], 0).astype(np.int64),
    )
    return judged[judged.groupby("query_id")["grade"].transform("max") > 0]


@dataclass(frozen=True)
class QrelsSide:
    """The part of :func:`graded_rankings` that depends on the qrels only (built once, reused for every run)."""

    index: dict[str, int]  # query id -> row
    relevant: pd.DataFrame  # query_id, doc_id, q, a (aspect column), grade: the relevant judgments
    n_aspects: np.ndarray  # (Q,)
    gmax: np.ndarray  # (Q, A)
    sizes: np.ndarray  # (Q,) pool sizes
    pool: np.ndarray  # (Q, m, A)
    _keys: dict = field(default_factory=dict, compare=False, repr=False)  # see judged_keys

    def judged_keys(self, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Of each relevant judgment: the code of its document among ``candidates`` (-1: not one), and its ``q``,
        ``a`` and ``grade`` columns; kept for the last candidates array object (the runs of one evaluation share
        it)."""
        cached = self._keys.get("candidates")
        if cached is None or cached[0] is not candidates:
            docs = self.relevant["doc_id"].to_numpy(dtype=object)
            code = pd.Index(candidates, dtype=object).get_indexer(docs) if len(candidates) else np.full(len(docs), -1)
            columns = tuple(self.relevant[c].to_numpy(dtype=np.int64) for c in ("q", "a", "grade"))
            cached = (candidates, (code, *columns))
            self._keys["candidates"] = cached
        return cached[1]


def qrels_side(qrels: pd.DataFrame, queries: list[str], rel: int) -> QrelsSide:
    """The aspects, ideal grades and pool of ``queries`` (see :func:`graded_rankings`)."""
    index = {q: i for i, q in enumerate(queries)}
    row = pd.Index(np.asarray(queries, dtype=object), dtype=object).get_indexer(qrels["query_id"].to_numpy(dtype=object))
    judged = _judged(qrels[row >= 0].assign(q=row[row >= 0]), rel)
    aspects = judged.groupby(["q", "aspect"], as_index=False)["grade"].max()
    aspects = aspects[aspects["grade"] > 0].rename(columns={"grade": "gmax"})
    aspects["a"] = aspects.groupby("q").cumcount()
    n_aspects = np.bincount(aspects["q"], minlength=len(queries))
    relevant = judged[judged["grade"] > 0].merge(aspects[["q", "aspect", "a"]], on=["q", "aspect"])
    width = max(int(n_aspects.max(initial=0)), 1)

    docs = relevant[["q", "doc_id"]].drop_duplicates().sort_values(["q", "doc_id"], ascending=[True, False])
    docs["m"] = docs.groupby("q").cumcount()
    pooled = relevant.merge(docs, on=["q", "doc_id"])
    sizes = np.bincount(docs["q"], minlength=len(queries))
    pool = np.zeros((len(queries), max(int(sizes.max(initial=0)), 1), width))
    pool[pooled["q"], pooled["m"], pooled["a"]] = pooled["grade"]

    gmax = np.zeros((len(queries), width))
    gmax[aspects["q"], aspects["a"]] = aspects["gmax"]
    relevant = relevant[["query_id", "doc_id", "q", "a", "grade"]].astype({"doc_id": object})
    return QrelsSide(index, relevant, n_aspects, gmax, sizes, pool)


def graded_rankings(ranked: pd.DataFrame, qrels: pd.DataFrame, queries: list[str], rel: int,
                    n_relevant: np.ndarray | None = None, side: QrelsSide | None = None) -> GradedRankings:
    """The rankings of ``queries`` (each with a document of grade >= ``rel``) as
    :class:`~prefeval.core.graded.GradedRankings` with their pool: the input of every metric kernel, built for all
    queries at once (the one construction the provider, :func:`aspect_arrays` and the diversity measures share).

    ``ranked`` holds the run's ranked rows ``query_id, doc_id, rank`` (:meth:`prefeval.data.ranking.RankedRun.rows`,
    truncated at the cutoff). Aspects of a query are its subtopics (one aspect for qrels without subtopics) that
    have a document with grade >= ``rel``, in the order of their ids. Grades below ``rel`` count as 0. The pool
    holds every document relevant to some aspect, ordered by doc id descending. ``n_relevant``: default the pool
    size. ``side``: :func:`qrels_side` of the same qrels, queries and rel, when already built (e.g. for another run).
    """
    side = qrels_side(qrels, queries, rel) if side is None else side
    codes, ids = pd.factorize(ranked["query_id"].to_numpy(dtype=object))  # each query id looked up once
    row = np.array([side.index.get(q, -1) for q in ids], dtype=np.int64)[codes] if len(codes) else codes
    found = row >= 0
    length = np.bincount(row[found], minlength=len(queries))
    rows = pd.DataFrame({"q": row[found], "doc_id": ranked["doc_id"].to_numpy(dtype=object)[found],
                         "rank": ranked["rank"].to_numpy()[found]})
    hits = rows.merge(side.relevant[["q", "doc_id", "a", "grade"]], on=["q", "doc_id"])
    grades = np.zeros((len(queries), max(int(length.max(initial=0)), 1), side.gmax.shape[1]))
    grades[hits["q"], hits["rank"] - 1, hits["a"]] = hits["grade"]
    return GradedRankings(grades, length, side.gmax, side.n_aspects,
                          side.sizes if n_relevant is None else np.asarray(n_relevant, dtype=np.int64), side.pool)


def run_graded_rankings(run: RankedRun, depth: int | None, qrels: pd.DataFrame, queries: list[str], rel: int,
                        n_relevant: np.ndarray | None = None, side: QrelsSide | None = None) -> GradedRankings:
    """:func:`graded_rankings` of ``run.rows(depth)``, read from the run's integer codes when every relevant
    document is one of its candidates (:func:`prefeval.data.ranking.rank_run`): only the candidates' rows are matched
    with the qrels, no document id of the run is converted. That reads just the ranks of the candidates and the
    number of ranked documents per query, so a run ranked with ``ties="candidates"`` gives the same rankings."""
    side = qrels_side(qrels, queries, rel) if side is None else side
    n_cand = len(run.candidates)
    code, judged_q, judged_a, judged_grade = side.judged_keys(run.candidates)
    if (code < 0).any():  # rows() refuses a run ranked with ties='candidates'
        return graded_rankings(run.rows(depth), qrels, queries, rel, n_relevant, side)
    row_of = np.array([side.index.get(q, -1) for q in run.queries.to_numpy(dtype=object)], dtype=np.int64)
    row = row_of[run.query_codes] if len(run.query_codes) else np.zeros(0, dtype=np.int64)
    kept = row >= 0 if depth is None else (row >= 0) & (run.rank <= depth)
    length = np.bincount(row[kept], minlength=len(queries))
    hit = kept & (run.doc_codes < n_cand)
    # each (query, candidate) is ranked once: find the ranked row of each judgment by its key
    keys = row[hit] * n_cand + run.doc_codes[hit]
    order = np.argsort(keys)
    keys, ranks = keys[order], run.rank[hit][order]
    wanted = judged_q * n_cand + code
    at = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
    found = keys[at] == wanted if len(keys) else np.zeros(len(wanted), dtype=bool)
    grades = np.zeros((len(queries), max(int(length.max(initial=0)), 1), side.gmax.shape[1]))
    grades[judged_q[found], ranks[at[found]] - 1, judged_a[found]] = judged_grade[found]
    return GradedRankings(grades, length, side.gmax, side.n_aspects,
                          side.sizes if n_relevant is None else np.asarray(n_relevant, dtype=np.int64), side.pool)


def _bucket_arrays(qrels: pd.DataFrame, ranked: pd.DataFrame, queries: list[str], rel: int,
                   mapping: Mapping) -> AspectArrays:
    """Arrays of ``queries`` (each with a document of grade >= ``rel``) from the qrels and their ranked rows."""
    rankings = graded_rankings(ranked, qrels, queries, rel)
    r, pool = rankings.relevance(mapping)
    return AspectArrays(list(queries), r, rankings.aspect_weights(), rankings.length, pool)


def single_aspect(arrays: AspectArrays) -> AspectArrays:
    """The same rankings on one aspect with r(d) = max_t r(d,t): the RBU paper's reduction for single-aspect
    metrics (Amigó et al. (2018) §6.2)."""
    return AspectArrays(arrays.query_ids, arrays.r.max(axis=-1, keepdims=True), np.ones((len(arrays.query_ids), 1)),
                        arrays.length, arrays.pool.max(axis=-1, keepdims=True))


def aspect_arrays(qrels: Any, run: Any, rel: int = 1, depth: int | None = None, mapping: Mapping = "err",
                  bucket: bool = True) -> Iterator[AspectArrays]:
    """Kernel inputs of every evaluated query, in buckets of similar ranking depth (one bucket if not ``bucket``).

    ``qrels`` and ``run``: anything :func:`prefeval.data.inputs.qrels_frame` / :func:`~prefeval.data.inputs.run_frame`
    accept. ``depth``: keep ranks <= depth (a cutoff applied before padding). A query the run lacks is an empty
    ranking; queries only in the run are ignored.
    """
    if mapping not in ("err", "binary"):
        raise PrefevalError(f"unknown relevance mapping {mapping!r}; expected 'err' or 'binary'")
    qrels = qrels_frame(qrels)
    judged = _judged(qrels, rel)
    evaluated = set(judged["query_id"].unique())
    queries = [q for q in Collection(qrels).queries if q in evaluated]
    ranked = rank_run(run_frame(run), pd.Index(queries)).rows(depth)
    if not queries:
        return
    length = ranked.groupby("query_id").size().reindex(queries, fill_value=0).to_numpy()
    keys = np.ceil(np.log2(np.maximum(length, 1))).astype(int) if bucket else np.zeros(len(queries), int)
    for key in np.unique(keys):
        members = [q for q, kk in zip(queries, keys) if kk == key]
        yield _bucket_arrays(qrels, ranked, members, rel, mapping)


def evaluate_kernel(name: str, qrels: Any, run: Any, rel: int = 1, k: int | None = None, mapping: Mapping = "err",
                    single: bool = False, **params: Any) -> pd.Series:
    """Per-query values of the diversity metric ``name`` (:data:`prefeval.core.diversity.KERNELS`), indexed by
    query id, in qrels order. ``k`` is the cutoff; ``single``: on r(d) = max_t r(d,t) (:func:`single_aspect`);
    ``params`` go to the kernel."""
    qrels = qrels_frame(qrels)
    values: dict[str, float] = {}
    for arrays in aspect_arrays(qrels, run, rel, k, mapping):
        arrays = single_aspect(arrays) if single else arrays
        out = diversity.evaluate(name, arrays.r, arrays.weights, length=arrays.length, k=k, pool=arrays.pool,
                                 **params)
        values.update(zip(arrays.query_ids, np.asarray(out, dtype=np.float64).tolist()))
    qrels_order = [q for q in Collection(qrels).queries if q in values]
    return pd.Series([values[q] for q in qrels_order], index=pd.Index(qrels_order, name="query_id"),
                     name=name, dtype=np.float64)


def kernel_measure(name: str, k: int | None = None, rel: int = 1, mapping: Mapping = "err",
                   single_aspect: bool = False, **params: Any):
    """The diversity metric ``name`` as a function ``f(qrels, run) -> {query_id: value}`` (canonical frames), the
    form :func:`prefeval.axioms.check` accepts. ``single_aspect``: score r(d) = max_t r(d,t) on one aspect (the
    RBU paper's reduction for single-aspect metrics, Amigó et al. (2018) §6.2), e.g. graded RBP from ``"RBP_IA"``.
    """
    if name not in diversity.KERNELS:
        raise PrefevalError(f"unknown diversity metric {name!r}; known: {', '.join(diversity.KERNELS)}")

    def measure(qrels: pd.DataFrame, run: pd.DataFrame) -> dict[str, float]:
        return evaluate_kernel(name, qrels, run, rel=rel, k=k, mapping=mapping, single=single_aspect,
                               **params).to_dict()

    measure.__name__ = name
    return measure
