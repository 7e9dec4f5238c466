"""Pool reusability by leave-one-run-out (Zobel (1998); Buckley et al. (2007)): how much a run loses when the
judgments only it contributed are gone.

For each run X and each measure: the value with all judgments, and the value when the judgments are kept only for
the documents some *other* run retrieved in its top ``depth`` (the pool of the other runs at that depth; a document
only X found is then unjudged, which every measure reads as non-relevant). Every run is truncated to its top
``depth`` documents first (``prefeval analyse --depth``). Preferences without a baseline are each run's mean
preference over the other runs (:func:`prefeval.evaluate`'s value), computed with every run on the reduced qrels.
Each measure is also computed on condensed lists (``judged_only=True``, Sakai (2007)), where the unjudged documents
are removed instead of read as non-relevant. A judged query that keeps no judgment leaves the mean of the reduced
qrels.

:func:`leave_one_run_out` gives one row per run and measure: ``run, measure, condensed, value, value_left_out,
delta`` (left out minus all) and the run's ``rank`` among the runs in both cases (``rank_left_out``: every run
evaluated on X's reduced qrels; 1 = best, ties share the best rank).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from prefeval.data.collection import Collection
from prefeval.data.inputs import run_frame, runs_dict
from prefeval.data.ranking import rank_run
from prefeval.engine.evaluate import evaluate, parse_measures
from prefeval.engine.values import aggregate
from prefeval.errors import PrefevalError
from prefeval.methods.registry import declaration_of

__all__ = ["leave_one_run_out", "condensed_variant", "pool_tops"]

COLUMNS = ["run", "measure", "condensed", "value", "value_left_out", "delta", "rank", "rank_left_out"]


def condensed_variant(measure: Any) -> Any | None:
    """``measure`` on condensed lists (``judged_only=True``: prefeval's methods, and trec_eval's measures through
    ir-measures, trec_eval ``-J``), or ``None`` when it has no such variant."""
    declaration = declaration_of(measure)
    takes = "judged_only" in (declaration.params if declaration is not None else getattr(measure, "SUPPORTED_PARAMS", {}))
    if not takes or measure.params.get("judged_only"):
        return None
    return measure(judged_only=True)


def leave_one_run_out(qrels: Any, runs: Any, measures: Sequence[Any], depth: int, rel: int = 1) -> pd.DataFrame:
    """The rows of the module docstring for every run of ``runs`` (at least two) and every measure of ``measures``
    (names or measure objects, and their condensed variants), the pool of the other runs taken at ``depth``."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise PrefevalError(f"reusability needs the pool depth K (--depth K), a positive integer; got {depth!r}")
    collection = Collection.of(qrels)
    qrels_df = collection.frame
    sources = runs_dict(runs)
    if len(sources) < 2:
        raise PrefevalError(f"reusability leaves one run out of the pool of the others: give at least two runs; got "
                            f"{len(sources)}")
    tops = pool_tops(collection, sources, depth)
    parsed = parse_measures(list(measures), rel)
    variants = [(m, False) for m in parsed] + [(c, True) for m in parsed if (c := condensed_variant(m)) is not None]
    every = [m for m, _ in variants]
    full = _values(evaluate(collection, tops, every))
    with warnings.catch_warnings():  # the coverage warnings were given for the full qrels
        warnings.simplefilter("ignore")
        left_out = _left_out_values(qrels_df, tops, every)
    out = []
    for name, left in zip(tops, left_out):
        for measure, condensed in variants:
            label = str(measure)
            value = full[label]
            value_left = left[label] if left is not None else pd.Series(0.0, index=value.index)
            out.append((name, label, condensed, float(value[name]), float(value_left[name]),
                        float(value_left[name] - value[name]), _rank(value, name), _rank(value_left, name)))
    return pd.DataFrame(out, columns=COLUMNS)


def pool_tops(collection: Collection, runs: dict[str, Any], depth: int) -> dict[str, pd.DataFrame]:
    """Each run (as :func:`prefeval.data.inputs.runs_dict` gives them) ranked once on the collection's queries and
    cut at ``depth``: name -> ``query_id, doc_id, score`` (score = -rank, so every later ranking keeps its order)."""
    tops = {}
    for name, source in runs.items():
        rows = rank_run(run_frame(source, name), collection.queries, name=name, depth=depth).rows(depth)
        tops[name] = pd.DataFrame({"query_id": rows["query_id"].astype(str), "doc_id": rows["doc_id"].astype(str),
                                   "score": -rows["rank"].astype(float)})
    return tops


def _left_out_values(qrels: pd.DataFrame, tops: dict[str, pd.DataFrame], measures: list[Any]
                     ) -> list[dict[str, pd.Series] | None]:
    """For each run X of ``tops`` (in order): each run's value of each measure on X's reduced qrels (the judgments of
    the documents some other run retrieved in its top K), or None when none is kept.

    Each judgment is kept for X iff the runs that retrieve its document, less X, are at least one: counted once for
    all runs. A query's values depend only on that query's judgments and rankings, and X's reduced qrels differ from
    the judgments some run retrieves (the base) only in the queries where X alone retrieved a judged document. So
    every run is evaluated once on the base, and once more on each such query of each X (under a query id of its
    own): one evaluation, not one per run. X's values are the aggregates over its reduced qrels' queries; sums are
    correctly rounded (:func:`prefeval.engine.values.aggregate`), so they equal those of evaluating every run again
    on each X's reduced qrels. Reduced qrels without a document relevant at the measures' highest ``rel`` are
    evaluated by themselves, as defined (a preference refuses to compare on them)."""
    names = list(tops)
    query_ids = qrels["query_id"].astype(str).to_numpy(dtype=object)
    judged = pd.DataFrame({"query_id": query_ids, "doc_id": qrels["doc_id"].astype(str).to_numpy(dtype=object),
                           "row": np.arange(len(qrels))})
    ranked = pd.concat([top.assign(run=k) for k, top in enumerate(tops.values())], ignore_index=True)
    hits = ranked[["query_id", "doc_id", "run"]].merge(judged, on=["query_id", "doc_id"])
    rows, by = hits["row"].to_numpy(), hits["run"].to_numpy()
    count = np.bincount(rows, minlength=len(qrels))  # how many runs retrieve each judged document in their top K
    alone = np.full(len(qrels), -1)
    once = count[rows] == 1
    alone[rows[once]] = by[once]  # the one run that retrieves it
    codes, queries = pd.factorize(query_ids)
    run_codes = pd.Index(queries).get_indexer(ranked["query_id"])  # -1: a query without judgments
    grades = qrels["relevance"].to_numpy()
    top_rel = max([r for m in measures if isinstance(r := m.params.get("rel"), (int, float))] + [1])
    prefix = "~" * (1 + max(map(len, queries), default=0))  # the copies' query ids are longer than any judged one's
    base = count >= 1
    extra_qrels, extra_runs = [qrels[base]], [ranked]
    out: list[dict[str, pd.Series] | None] = []
    plans: dict[int, np.ndarray] = {}
    for k in range(len(names)):
        kept = base & (alone != k)
        if not kept.any():
            out.append(None)
        elif grades[kept].max() < top_rel:  # no relevant document (a preference refuses to compare): as defined
            out.append(_values(evaluate(qrels[kept].reset_index(drop=True), tops, measures)))
        else:
            out.append({})
            own = np.unique(codes[kept])  # X's judged queries
            changed = np.intersect1d(own, codes[(alone == k) & base])  # those X alone retrieved judged documents into
            copy = np.empty(len(queries), dtype=object)
            copy[changed] = (f"{prefix}{k}~" + pd.Index(queries[changed], dtype=object)).to_numpy(dtype=object)
            at = kept & np.isin(codes, changed)
            extra_qrels.append(qrels[at].assign(query_id=copy[codes[at]]))
            moved = np.isin(run_codes, changed)
            extra_runs.append(ranked[moved].assign(query_id=copy[run_codes[moved]]))
            plans[k] = np.where(np.isin(own, changed), copy[own], queries[own])
    if not plans:
        return out
    table = pd.concat(extra_runs, ignore_index=True)
    parts = dict(iter(table.groupby("run", sort=True)))  # (one split, not a scan of the table per run)
    runs = {name: parts.get(k, table.iloc[:0]).drop(columns="run") for k, name in enumerate(names)}
    per_query = evaluate(pd.concat(extra_qrels, ignore_index=True), runs, measures, per_query=True)
    index = pd.Index(pd.unique(per_query["query_id"]))
    grids = {label: part.pivot(index="query_id", columns="run", values="value").reindex(index=index, columns=names)
             .to_numpy() for label, part in per_query.groupby("measure", sort=False)}  # (queries, runs)
    for k, ids in plans.items():
        rows = index.get_indexer(ids)
        out[k] = {str(m): pd.Series(aggregate(m, grids[str(m)][rows]), index=names) for m in measures}
    return out


def _values(frame: pd.DataFrame) -> dict[str, pd.Series]:
    """measure -> each run's value (indexed by run)."""
    return {m: group.set_index("run")["value"] for m, group in frame.groupby("measure", sort=False)}


def _rank(values: pd.Series, run: str) -> int:
    """``run``'s rank among ``values`` (1 = highest; ties share the best rank)."""
    return int(values.rank(ascending=False, method="min")[run])
