"""Compare many runs pairwise: per-query preferences, system-level matrices, rankings and significance.

``compare(qrels, runs, methods)`` evaluates every unordered pair of runs on every evaluated query with

* prefeval's preferences, named as in ir-measures (``"LexiRecall"``, ``"LexiPrecision(magnitude='rr')"``,
  ``"RPP(weighting='dcg')"``, ``"RPP(graded=False)@100"``; Diaz & Mitra (2023) §5.2, Diaz (2023) §3, Diaz & Ferraro
  (2022) Eq. 3-6), computed per query for all S x S pairs at once by the kernels of :mod:`prefeval.core`;
* any other ir-measures measure (``"nDCG@10"``, ``"AP(rel=2)"``, ``"RBU@20"``), which becomes the metric-difference
  preference ``mu(a) - mu(b)`` per query (its per-query values from :func:`prefeval.engine.values.measure_values`, the
  one evaluation of measures, one run at a time).

Semantics (README, "Input semantics"): runs are ordered by score descending, ties by doc_id descending; a repeated
document keeps its best position; every query of the qrels is compared (as ``evaluate``, ir-measures and PyTerrier
average over them): a query with a document at grade >= ``rel`` gets the authors' preference, a judged query without
one a tie (0); a query missing from a run is a ranking that retrieved nothing (worst case); run queries absent
from the qrels are ignored. ``@k`` on a preference and ``depth`` truncate the runs first (metrics see the same
truncated, deduplicated rankings as the preferences). The system-level preference of a pair is the mean of its
per-query preferences. Positive values mean ``run_a`` is preferred; each unordered pair appears once, with
``run_a`` before ``run_b`` in the input order of the runs.

This module checks the arguments and runs the comparison in this process or on another engine
(:mod:`prefeval.engine.registry`). The methods are parsed by :mod:`prefeval.engine.methods`, the queries evaluated
by :mod:`prefeval.engine.blocks`, and the results held by :class:`~prefeval.engine.comparison.Comparison`;
:mod:`prefeval.engine.memory` decides whether the per-query values are kept.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from prefeval.data.collection import Collection
from prefeval.data.inputs import runs_dict
from prefeval.engine import registry as engines
from prefeval.engine.blocks import check_relevant, evaluate_block
from prefeval.engine.comparison import Comparison
from prefeval.engine.memory import check_pairs, keep_per_query
from prefeval.engine.methods import Method, check_run_options, judged_method, method_list, parse_methods
from prefeval.engine.values import aggregate
from prefeval.errors import PrefevalError
from prefeval.methods.registry import rel_problem


def compare(qrels: Any, runs: Any, methods: Any, rel: int = 1, depth: int | None = None, *,
            per_query: bool | str | os.PathLike | None = None, progress: bool = False, engine: str = "inprocess",
            client: Any = None, scheduler: str | None = None, workers: int | None = None,
            partitions: int | None = None, baseline: str | None = None) -> Comparison:
    """Compare every pair of ``runs`` on every evaluated query under each of ``methods``.

    ``qrels``: a TREC qrels path, ir_datasets id, DataFrame, dict of dicts or Qrel records.
    ``runs``: a dict name -> run (DataFrame, dict of dicts or path) or a list of run paths (named by file name).
    ``methods``: names in ir-measures syntax or measure objects (one or a list); see the module docstring.
    ``rel``: minimum grade of a relevant document (a method's own ``rel=`` wins). ``depth``: truncate every
    run to its top ``depth`` documents first. ``progress``: show a progress bar.

    ``per_query``: keep every per-query preference (``Comparison.per_query``, the wilcoxon and permutation
    tests, the analyses that resample queries). ``None`` (default) keeps them when they take at most
    :data:`KEEP_BYTES`; ``False`` never. Summaries, matrices, rankings, sign and t tests and randomized
    Tukey HSD need only per-pair sums and per-query win rates, which are always computed, query by query,
    so comparing thousands of runs does not need ``queries x runs^2`` memory.

    ``engine="dask"``: the same computation on a Dask cluster, partitioned by query, with the same results
    (:mod:`prefeval.engine.dask_engine`): ``client`` (a ``distributed.Client``), ``scheduler`` (an address) or
    ``workers`` (local worker processes; default one per core); ``partitions`` (default: from the number of
    queries and workers). ``runs`` may then also be a folder of Parquet files, a Dask DataFrame or a collection
    generated partition by partition (:func:`prefeval.data.simulate.recsys`, with ``qrels=None``), and ``per_query``
    a folder: the per-query values are written there as Parquet files, one per partition.

    ``baseline`` (a run name): the summary, tests and reports cover only the pairs of each other run with it
    (``run_a`` the run, ``run_b`` the baseline), the correction only those pairs (:meth:`Comparison.against`).
    """

    methods = method_list(methods, "methods", "['LexiRecall', 'RPP', 'nDCG@10']")
    if rel is None:
        raise PrefevalError(f"{rel_problem(rel)}; got {rel!r}")
    check_run_options(rel, depth)
    other = engines.options(engine, client, scheduler, workers, partitions)
    if per_query not in (None, True, False) and not (other is not None and isinstance(per_query, (str, os.PathLike))):
        raise PrefevalError(f"per_query must be True, False or None (keep when small), or a folder with "
                            f"engine='dask'; got {per_query!r}")
    parsed = parse_methods(methods, rel, depth)
    seen: dict[str, str] = {}
    for m in parsed:
        if m.key in seen:
            raise PrefevalError(f"methods {seen[m.key]!r} and {m.label!r} are the same; give each once")
        seen[m.key] = m.label
    # each run's Judged@k, stated beside the preferences: evaluated with them, kept apart from the methods
    judged = judged_method(parsed, depth)
    given = any(repr(m.measure) == repr(judged.measure) and m.depth == judged.depth for m in parsed)
    evaluated = parsed if given else [*parsed, judged]
    if other is not None:  # (its per-query files hold the methods only)
        result = other.compare(qrels, runs, parsed, per_query=per_query, client=client, scheduler=scheduler,
                               workers=workers, partitions=partitions, progress=progress,
                               stated=[] if given else [judged])
    else:
        result = compare_methods(qrels, runs, evaluated, per_query=per_query, progress=progress, baseline=baseline)
    values = aggregate(judged.measure, result.result(str(judged.measure)).values)
    return Comparison(result.runs, [result.results[m.label] for m in parsed], result.query_order, baseline,
                      dict(zip(result.runs, values.tolist())), str(judged.measure))


def compare_methods(qrels: Any, runs: Any, methods: Sequence[Method], *, per_query: bool | None = None,
                    progress: bool = False, min_runs: int = 2, baseline: str | None = None) -> Comparison:
    """:func:`compare` in process of parsed ``methods`` (:func:`parse_methods`), with at least ``min_runs`` runs
    (1: a table of one run's metric values, without pairs); ``baseline`` is checked before any work."""
    collection = Collection.of(qrels)  # files are read into columns: no pandas on this path
    run_frames = runs_dict(runs, columns=True)
    if len(run_frames) < min_runs:
        raise PrefevalError(f"compare needs at least two runs; got {len(run_frames)} ({', '.join(run_frames) or '-'})")
    if baseline is not None and baseline not in run_frames:
        raise PrefevalError(f"baseline {baseline!r} is not one of the runs: {', '.join(run_frames)}")
    check_pairs(len(run_frames), len(methods))
    check_relevant(list(methods), collection)
    keep = keep_per_query(per_query, methods, len(collection), len(run_frames))
    results = {r.method.label: r
               for r in evaluate_block(list(methods), run_frames, collection, keep=keep, progress=progress)}
    return Comparison(list(run_frames), [results[m.label] for m in methods],
                      query_order=collection.queries.tolist(), baseline=baseline)
