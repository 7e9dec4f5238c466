"""Re-evaluate many runs under edited relevance labels without re-ranking or re-reading anything.

Label-degradation experiments (Diaz & Mitra (2023) §6.2.4, Diaz (2023) §4.2, Diaz & Ferraro (2022) §6.2) evaluate the same runs
under dozens of reduced qrels. Removing relevance labels only removes columns of the per-query position
arrays (:class:`prefeval.data.positions.QueryPositions`: where each run put each judged document), so the runs
are ranked once and every label subset is evaluated from those arrays with the kernels of
:mod:`prefeval.core`, giving exactly the values :func:`prefeval.engine.compare.compare` gives on the reduced
qrels (tests check this on real runs).

Supported methods (the others raise :class:`~prefeval.errors.PrefevalError` from :func:`supported`):

- preferences LexiRecall, LexiPrecision (sgn / rr), RPP (any weighting, graded or binary, subtopics);
- metrics from positions, with trec_eval semantics: ``AP``, ``RR``, ``R@k``, ``P@k``, ``Rprec``, ``TSE``
  (each with ``rel=`` and ``@k``), and ``nDCG`` / ``nDCG@k`` with the default gains (the grade) and
  ``log2(rank + 1)`` discount, the ideal ranking built from the judged documents with a positive grade;
  not on diversity qrels (subtopic rows), where ir-measures' own reading of the rows applies.

Documents with a grade below 1 never enter the arrays: they contribute to none of these methods.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from prefeval.core import metrics
from prefeval.core.positions import position_vectors
from prefeval.data.collection import Collection, query_positions
from prefeval.data.inputs import runs_dict
from prefeval.data.positions import QueryPositions
from prefeval.engine.comparison import Comparison
from prefeval.engine.methods import Method, parse_method
from prefeval.engine.results import MethodResult
from prefeval.errors import PrefevalError
from prefeval.methods import metric_difference
from prefeval.methods.registry import declaration_of, declarations, parameters

__all__ = ["PositionData", "load_positions", "supported", "evaluate_positions", "frequencies", "query_table"]

_METRICS = ("AP", "RR", "R", "P", "Rprec", "nDCG")  # ir-measures metrics computed from positions here


@dataclass(frozen=True)
class PositionData:
    """Runs ranked once: names and, per query with a judged positive grade, a :class:`QueryPositions`
    holding every document with grade >= 1 (the relevant ones for any ``rel >= 1``)."""

    runs: list[str]
    queries: list[QueryPositions]
    #: queries with a judgment of grade < 1: they stay judged (compared, as ties or zeros) whatever labels are kept
    nonpositive: frozenset[str] = frozenset()


def load_positions(qrels: Any, runs: Any, depth: int | None = None) -> PositionData:
    """Rank ``runs`` (anything :func:`prefeval.engine.compare.compare` accepts) once and locate every document with
    a positive grade. ``depth`` truncates the runs first."""

    collection = Collection.of(qrels)
    qrels_df = collection.frame
    run_frames = runs_dict(runs)
    if len(run_frames) < 2:
        raise PrefevalError(f"need at least two runs; got {len(run_frames)}")
    queries = query_positions(run_frames, collection, rel=1, depth=depth)
    if not queries:
        raise PrefevalError("no query of the qrels has a document with a positive grade")
    nonpositive = frozenset(qrels_df.loc[qrels_df["relevance"] < 1, "query_id"].astype(str))
    return PositionData(list(run_frames), queries, nonpositive)


def supported(method: Method, data: PositionData | None = None) -> bool:
    """Whether the position engine evaluates ``method`` (see the module doc) on ``data``.

    Metrics are not evaluated on qrels with subtopic rows (diversity qrels): ir-measures reads such qrels
    row by row, not with the max-over-subtopics grade the position arrays hold, so compare() must do it.
    """
    measure = method.measure
    if method.rel < 1:
        return False
    if method.kind == "metric" and data is not None and any(q.subtopics is not None for q in data.queries):
        return False
    declaration = declaration_of(measure)
    if method.kind == "preference":
        # subtopic membership is located at grade >= 1; a higher threshold would need it re-located
        return not (declaration.reads_subtopics(parameters(measure)) and method.rel > 1)
    if declaration is not None:  # a prefeval metric: from positions when it is position-based
        return declaration.position_based
    name = getattr(measure, "NAME", None)
    if name not in _METRICS:
        return False
    params = dict(measure.params)
    params.pop("cutoff", None)
    params.pop("rel", None)
    if name == "nDCG":
        return params.get("dcg", "log2") == "log2" and params.get("gains") is None and \
            not params.get("judged_only", False)
    return not params.get("judged_only", False)


def _restrict(query: QueryPositions, keep: np.ndarray) -> QueryPositions:
    return replace(query, doc_ids=query.doc_ids[keep], grades=query.grades[keep], doc_pos=query.doc_pos[:, keep],
                   subtopics=None if query.subtopics is None else query.subtopics[:, keep])


def _metric(measure: Any, query: QueryPositions, rel: int, cutoff: int | None) -> np.ndarray:
    """(S,) values of a position metric on one query (``query`` holds grade >= 1 documents, truncated)."""
    declaration = declaration_of(measure)
    if declaration is not None:
        return declaration.on_positions(parameters(measure))(position_vectors(query.doc_pos[:, query.grades >= rel]))
    name = measure.NAME
    if name == "nDCG":
        return metrics.graded_ndcg(query.doc_pos, query.grades, cutoff)
    P = position_vectors(query.doc_pos[:, query.grades >= rel])
    if name == "AP":
        return metrics.ap(P)
    if name == "RR":
        return metrics.rr(P)
    if name == "R":
        return metrics.recall_at_k(P, cutoff if cutoff is not None else np.inf)
    if name == "P":
        return metrics.precision_at_k(P, cutoff)
    if name == "Rprec":
        return metrics.rprec(P)
    raise AssertionError(name)  # pragma: no cover


def evaluate_positions(data: PositionData, methods: Sequence[Any], *, rel: int = 1,
                       keep: Mapping[str, np.ndarray] | None = None,
                       query_ids: Sequence[str] | None = None) -> Comparison:
    """A :class:`~prefeval.engine.comparison.Comparison` of ``data``'s runs under ``methods`` (names or measures, as for
    :func:`prefeval.engine.compare.compare`), with the labels of each query restricted to ``keep[query_id]`` (a
    boolean mask over that query's ``doc_ids``; default: all) and the queries to ``query_ids``.

    As in :func:`prefeval.engine.compare.compare`, every judged query is compared (one with a kept document, or with a
    judgment of grade < 1); a query without a kept document of grade >= the method's ``rel`` is a tie (0).
    """
    parsed = [parse_method(m, rel) for m in methods]
    bad = [m.label for m in parsed if not supported(m, data)]
    if bad:
        own = ", ".join(d.name for d in declarations() if d.kind == "preference" or d.position_based)
        raise PrefevalError(f"the position engine cannot evaluate {bad}; supported: {own}, AP, RR, R@k, P@k, "
                            "Rprec, nDCG(@k) with rel >= 1 (metrics only on qrels without subtopics)")
    wanted = None if query_ids is None else set(map(str, query_ids))
    queries = [q for q in data.queries if wanted is None or q.query_id in wanted]
    if keep is not None:
        queries = [_restrict(q, np.asarray(keep[q.query_id], dtype=bool)) if q.query_id in keep else q
                   for q in queries]
    judged = {q.query_id for q in queries if len(q.doc_ids)} | {q for q in data.nonpositive
                                                                 if wanted is None or q in wanted}
    by_id = {q.query_id: q for q in queries}
    S = len(data.runs)
    empty = replace(data.queries[0], doc_ids=np.zeros(0, object), grades=np.zeros(0, np.int64),
                    doc_pos=np.zeros((S, 0)), subtopic_ids=None, subtopics=None) if data.queries else None
    queries = [by_id.get(q) or replace(empty, query_id=q) for q in sorted(judged)]
    results = []
    for m in parsed:
        cutoff = m.measure.params.get("cutoff")
        depth = m.depth if m.kind == "preference" else cutoff
        qids, tensors, values = [], [], []
        for q in queries:
            if not (q.grades >= m.rel).any():  # judged, nothing relevant at rel: a tie, every metric 0
                qids.append(q.query_id)
                tensors.append(np.zeros((S, S)))
                if m.kind == "metric":
                    values.append(np.zeros(S))
                continue
            view = q if depth is None else replace(q, doc_pos=np.where(q.doc_pos <= depth, q.doc_pos, np.inf))
            qids.append(q.query_id)
            if m.kind == "preference":
                declaration = declaration_of(m.measure)
                tensors.append(declaration.matrix(_restrict(view, view.grades >= m.rel), parameters(m.measure)))
            else:
                v = _metric(m.measure, view, m.rel, cutoff)
                values.append(v)
                tensors.append(metric_difference.matrix(v))
        if not any((q.grades >= m.rel).any() for q in queries):
            raise PrefevalError(f"no query keeps a document with grade >= {m.rel}; nothing to evaluate for {m.label}")
        prefs = np.stack(tensors) if tensors else np.zeros((0, S, S))
        results.append(MethodResult(m, np.array(qids, dtype=object), prefs,
                                    np.vstack(values) if m.kind == "metric" else None))
    return Comparison(data.runs, results)


def frequencies(query: QueryPositions) -> np.ndarray:
    """Per judged document of ``query``: the number of rankings (runs) that retrieved it (Diaz & Mitra (2023) §6.2.4)."""
    return np.isfinite(query.doc_pos).sum(axis=0)


def query_table(data: PositionData) -> pd.DataFrame:
    """One row per query and judged document: ``query_id, doc_id, grade, frequency``."""
    rows = [pd.DataFrame({"query_id": q.query_id, "doc_id": q.doc_ids, "grade": q.grades,
                          "frequency": frequencies(q)}) for q in data.queries]
    return pd.concat(rows, ignore_index=True)
