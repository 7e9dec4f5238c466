"""The Dask engine: :func:`prefeval.compare` and :func:`prefeval.evaluate` over a Dask cluster, partitioned by query.

``compare(..., engine="dask")`` and ``evaluate(..., engine="dask")`` run here. The work is cut by query
(:mod:`prefeval.engines.partitions`): every task holds all runs' rows for its queries and their qrels, and calls
the in-process block function (:func:`prefeval.compare.evaluate_block`, or :func:`prefeval.evaluate.evaluate`
on the block), so every value comes from the same kernels as in-process. The driver combines the partial results:
the per-pair sums (counts, means, sums of squared deviations, wins, losses) are merged, the per-query scores
(Q x S per method: win rates or metric values) are put back in query order; per-query pair values are collected
(``per_query=True``), written to partitioned Parquet (``per_query=path``, one file per partition) or dropped.
Significance is computed on the driver from these: the sign and t tests from the merged sums, randomized Tukey
HSD from the per-query scores with the same seed, so p-values equal the in-process ones. Input warnings
(a run without any judged query, a run covering only some) are computed once from counts summed over the
partitions.

Cluster: an existing ``distributed.Client`` (``client=``), a scheduler address (``scheduler="tcp://host:8786"``),
or a ``LocalCluster`` of worker processes (``workers=`` of them, default one per core, one thread each) started
and closed by the call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import operator
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ir_measures

from prefeval._lazy import lazy_module
from prefeval.compare import (
    KEEP_BYTES,
    Comparison,
    MethodResult,
    combine_results,
    evaluate_block,
    per_query_bytes,
)
from prefeval.engines import partitions as parts
from prefeval.engines.registry import Engine, register
from prefeval.errors import PrefevalError
from prefeval.evaluate import per_query_table
from prefeval.inputs import qrels_frame

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
_tqdm = lazy_module("tqdm.auto")  # progress bars load on use

#: default partition size when the qrels are known on the driver: at least this many queries per partition,
#: at most 4 partitions per worker thread
QUERIES_PER_PARTITION = 1000


@contextlib.contextmanager
def cluster(client: Any = None, scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client``: ``client`` itself, one connected to ``scheduler``, or one on a new
    ``LocalCluster`` of ``workers`` single-threaded worker processes (default: one per core); what this
    function opened it closes."""
    if client is not None:
        yield client
        return
    try:
        # deferred: dask is an optional extra, imported only when the Dask engine runs
        from distributed import Client, LocalCluster
    except ImportError:
        raise PrefevalError("engine='dask' needs dask[distributed]: pip install 'prefeval[dask]'") from None
    if scheduler is not None:
        try:
            connected = Client(scheduler, timeout="20s")
        except OSError as exc:
            raise PrefevalError(f"cannot reach the Dask scheduler {scheduler!r}: {exc}") from None
        with connected:
            yield connected
        return
    n = workers or os.cpu_count() or 1
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as local, \
            Client(local) as connected:
        yield connected


def n_threads(client: Any) -> int:
    """Number of worker threads of the cluster (at least 1)."""
    return max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))


# ----------------------------------------------------------------------------------------------
# inputs -> per-partition pieces (futures)


def _is_dask_frame(obj: Any) -> bool:
    return type(obj).__module__.split(".", 1)[0] == "dask" and hasattr(obj, "to_delayed")


def _is_partitioned(obj: Any) -> bool:
    """A collection generated partition by partition (e.g. :func:`prefeval.simulate.recsys`)."""
    return hasattr(obj, "partition") and hasattr(obj, "n_partitions") and hasattr(obj, "run_names")


def _read_split(source: str, name: str | None, n: int) -> list[pd.DataFrame]:
    return parts.split_by_query(parts.read_run_source(source, name), n)


def _named_split(frame: pd.DataFrame, name: str | None, n: int) -> list[pd.DataFrame]:
    """A partition of a Dask DataFrame of runs (with a ``run`` column, or all of run ``name``) cut by query."""
    if name is not None:
        frame = parts.long_frame(name, parts.run_frame(frame, name))
    else:
        if "run" not in frame.columns:
            raise PrefevalError("a Dask DataFrame of several runs needs a 'run' column (run, query_id, doc_id, score)")
        frame = pd.concat([parts.long_frame(str(k), parts.run_frame(g.drop(columns="run"), str(k)))
                           for k, g in frame.groupby("run", sort=False)], ignore_index=True) if len(frame) else \
            pd.DataFrame(columns=parts.LONG_COLUMNS)
    return parts.split_by_query(frame, n)


def _qrels_split(frame: pd.DataFrame, n: int) -> list[pd.DataFrame]:
    return parts.split_by_query(parts.canonical_qrels(frame, "qrels (Dask DataFrame)"), n)


def _run_sources(runs: Any) -> tuple[list[tuple[str | None, str]], dict[str, Any], list[tuple[str | None, Any]]]:
    """``(run files, in-memory runs, Dask DataFrames)`` of ``runs``, each file or Dask DataFrame with the name
    given to it (``None``: named by its file name or ``run`` column): a folder of Parquet files, a list of run
    files (TREC or Parquet), a dict name -> run (frame, dict of dicts, path, Dask DataFrame), or a Dask DataFrame
    of several runs. Files are read by the tasks, in-memory runs are cut by query on the driver."""
    if _is_dask_frame(runs):
        return [], {}, [(None, runs)]
    if isinstance(runs, (str, os.PathLike)):
        return [(None, str(f)) for f in parts.parquet_files(runs)] if Path(runs).is_dir() else [(None, str(runs))], \
            {}, []
    if isinstance(runs, Mapping):
        files = [(str(k), str(v)) for k, v in runs.items() if isinstance(v, (str, os.PathLike))]
        dask_frames = [(str(k), v) for k, v in runs.items() if _is_dask_frame(v)]
        memory = {str(k): v for k, v in runs.items() if not _is_dask_frame(v) and not isinstance(v, (str, os.PathLike))}
        return files, memory, dask_frames
    if isinstance(runs, Sequence):
        if not all(isinstance(run, (str, os.PathLike)) for run in runs):
            raise PrefevalError("a list of runs must hold file paths; use a dict name -> run for data")
        return [(None, str(run)) for run in runs], {}, []
    raise PrefevalError(f"cannot use {type(runs).__name__} as runs: give a dict name -> run, a list of paths, "
                        "a folder of Parquet files or a Dask DataFrame")


@dataclasses.dataclass
class _Plan:
    """What the partition tasks read: ``n`` partitions, the run names in input order, and per partition the
    futures of its qrels pieces and run pieces, or a collection that generates each partition."""

    n: int
    names: list[str]
    qrels: list[list[Any]]
    runs: list[list[Any]]
    generated: Any = None
    query_order: Any = None


def _dask_run_names(ddf: Any) -> list[str]:
    """The values of the ``run`` column of a Dask DataFrame, in order of first appearance."""
    if "run" not in ddf.columns:
        raise PrefevalError("a Dask DataFrame of several runs needs a 'run' column (run, query_id, doc_id, score)")
    firsts = ddf["run"].map_partitions(lambda s: pd.Series(pd.unique(s), dtype=object), meta=("run", object))
    return [str(x) for x in pd.unique(firsts.compute().to_numpy(dtype=object))]


def _plan(client: Any, qrels: Any, runs: Any, n: int | None) -> _Plan:
    if _is_partitioned(runs):
        if qrels is not None:
            raise PrefevalError("a generated collection brings its own qrels; pass qrels=None")
        return _Plan(runs.n_partitions, list(runs.run_names), [], [], generated=runs)
    if _is_dask_frame(qrels):
        frame, query_order = None, None
        n = n or 4 * n_threads(client)
    else:
        frame = qrels_frame(qrels)
        query_order = pd.unique(frame["query_id"])
        n = n or max(1, min(4 * n_threads(client), len(query_order) // QUERIES_PER_PARTITION))
    qrels_pieces: list[list[Any]] = [[] for _ in range(n)]
    run_pieces: list[list[Any]] = [[] for _ in range(n)]

    def add(pieces: list[list[Any]], split: Any) -> None:
        for i in range(n):
            pieces[i].append(client.submit(operator.getitem, split, i, pure=False))

    if frame is None:
        for d in qrels.to_delayed():
            add(qrels_pieces, client.submit(_qrels_split, client.compute(d), n, pure=False))
    else:
        for i, f in enumerate(client.scatter(parts.split_by_query(frame, n))):
            qrels_pieces[i].append(f)
    files, memory, dask_frames = _run_sources(runs)
    names: list[str] = []
    for name, path in files:
        names += parts.run_names_of(path) if name is None else [name]
        add(run_pieces, client.submit(_read_split, path, name, n, pure=False))
    if memory:
        names += list(memory)
        for i, f in enumerate(client.scatter(parts.split_by_query(parts.long_runs(memory), n))):
            run_pieces[i].append(f)
    for name, ddf in dask_frames:
        names += _dask_run_names(ddf) if name is None else [name]
        for d in ddf.to_delayed():
            add(run_pieces, client.submit(_named_split, client.compute(d), name, n, pure=False))
    if isinstance(runs, Mapping):
        names = [str(k) for k in runs]  # input order, whatever each run is
    duplicated = sorted({x for x in names if names.count(x) > 1})
    if duplicated:
        raise PrefevalError(f"several runs are named {', '.join(duplicated)}; give each run a distinct name")
    return _Plan(n, names, qrels_pieces, run_pieces, query_order=query_order)


# ----------------------------------------------------------------------------------------------
# tasks


def _portable(measures: list[Any]) -> list[Any]:
    """Measures (or methods holding one) with each measure object replaced by its name: measure classes made by
    ir-measures' registration do not pickle, names do (:func:`_restore` parses them in the task)."""
    return [dataclasses.replace(m, measure=str(m.measure)) if dataclasses.is_dataclass(m) else str(m)
            for m in measures]


def _restore(measures: list[Any]) -> list[Any]:
    return [dataclasses.replace(m, measure=ir_measures.parse_measure(m.measure)) if dataclasses.is_dataclass(m)
            else ir_measures.parse_measure(m) for m in measures]

#: the input warnings a partition would give about itself; the driver gives them once for the whole input
_PARTITION_WARNINGS = r"run '.*' (covers \d+ of|shares no query|has none of)"


def _load(names: list[str], generated: Any, index: int, qrels_pieces: list[pd.DataFrame],
          run_pieces: list[pd.DataFrame]) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    if generated is not None:
        return generated.partition(index)
    return parts.block(qrels_pieces, run_pieces, names)


def _in_partition(compute: Any, names: list[str], generated: Any, index: int, qrels_pieces: list[pd.DataFrame],
                  run_pieces: list[pd.DataFrame]) -> tuple[Any, Any, list[str]]:
    """Load partition ``index`` and return ``compute(qrels, runs)`` (``None`` without judged queries), its coverage
    counts and the warnings it gave other than the input warnings the driver gives for the whole input."""
    qrels, runs = _load(names, generated, index, qrels_pieces, run_pieces)
    counts = parts.coverage(qrels, runs)
    if not len(qrels):
        return None, counts, []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", message=_PARTITION_WARNINGS)
        value = compute(qrels, runs)
    return value, counts, [str(w.message) for w in caught]


def _compare_task(names: list[str], generated: Any, index: int, qrels_pieces: list[pd.DataFrame],
                  run_pieces: list[pd.DataFrame], methods: list[Any], keep: bool, out: str | None
                  ) -> tuple[Any, Any, list[str]]:
    """One partition: its results (``None`` without judged queries), coverage counts and other warnings."""

    def compute(qrels: pd.DataFrame, runs: dict[str, pd.DataFrame]) -> list[MethodResult]:
        results = evaluate_block(_restore(methods), runs, qrels, keep=keep or out is not None, warn=False)
        if out is not None:
            frame = Comparison(names, results).per_query
            frame = frame.astype({c: str for c in ("method", "query_id", "run_a", "run_b")})  # same types in every file
            frame.to_parquet(Path(out) / f"part-{index:05d}.parquet", index=False)
        # the driver puts its Method objects back (measure objects do not pickle)
        return [_with_method(r, r.method.label, keep) for r in results]

    return _in_partition(compute, names, generated, index, qrels_pieces, run_pieces)


def _with_method(r: MethodResult, method: Any, keep: bool = True) -> MethodResult:
    """``r`` with another ``method``, and without its per-query preferences unless ``keep``."""
    prefs = r.prefs if keep and r.kept and r.values is None else None
    return MethodResult(method, r.query_ids, prefs, r.values, win_rates=r.win_rates, sums=r.sums)


def _evaluate_task(names: list[str], generated: Any, index: int, qrels_pieces: list[pd.DataFrame],
                   run_pieces: list[pd.DataFrame], measures: list[Any], rel: int | None) -> tuple[Any, Any, list[str]]:
    """One partition's per-query values (``evaluate(..., per_query=True)`` in-process on the block)."""
    return _in_partition(lambda qrels, runs: per_query_table(qrels, runs, _restore(measures), rel),
                         names, generated, index, qrels_pieces, run_pieces)


def _run(client: Any, plan: _Plan, task: Any, *args: Any, progress: bool = False) -> tuple[list[Any], list[str]]:
    """Submit one task per partition; collect the results as they complete (kept in partition order), sum the
    coverage counts and return the input warnings of the whole input with the other warnings (each once)."""
    # deferred: dask is an optional extra, imported only when the Dask engine runs
    from distributed import as_completed

    futures = [client.submit(task, plan.names, plan.generated, i, plan.qrels[i] if plan.qrels else [],
                             plan.runs[i] if plan.runs else [], *args, pure=False) for i in range(plan.n)]
    index = {f.key: i for i, f in enumerate(futures)}
    results: list[Any] = [None] * plan.n
    n_judged = 0
    counts = {name: [0, 0] for name in plan.names}
    messages: dict[str, None] = {}
    bar = _tqdm.tqdm(total=plan.n, desc="partitions", disable=not progress, leave=False)
    for future, (value, (judged, per_run), caught) in as_completed(futures, with_results=True):
        results[index[future.key]] = value
        n_judged += judged
        for name, (covered, present) in per_run.items():
            counts[name][0] += covered
            counts[name][1] += present
        messages.update(dict.fromkeys(caught))
        bar.update()
        future.release()
    bar.close()
    notes = parts.coverage_warnings(n_judged, {k: (a, b) for k, (a, b) in counts.items()})
    return [r for r in results if r is not None], notes + list(messages)


# ----------------------------------------------------------------------------------------------
# entry points


def compare(qrels: Any, runs: Any, methods: list[Any], *, client: Any = None, scheduler: str | None = None,
            workers: int | None = None, partitions: int | None = None, per_query: bool | str | None = None,
            progress: bool = False) -> Any:
    """:func:`prefeval.compare` on Dask (module docstring); ``methods`` are parsed :class:`prefeval.compare.Method`.

    ``partitions``: number of query partitions (default: 4 per worker thread, fewer for fewer than
    :data:`QUERIES_PER_PARTITION` queries each; a generated collection brings its own). ``per_query``: ``True``
    keeps the per-query pair values (collected on the driver), ``None`` keeps them when the qrels are known on
    the driver and they are small (as in-process), a path writes them as Parquet files ``part-NNNNN.parquet``
    (columns ``method, query_id, run_a, run_b, value``) into that folder, ``False`` keeps only the reductions
    and per-query scores.
    """
    out = None
    if isinstance(per_query, (str, os.PathLike)):
        out = str(per_query)
        Path(out).mkdir(parents=True, exist_ok=True)
    with cluster(client, scheduler, workers) as c:
        plan = _plan(c, qrels, runs, partitions)
        if len(plan.names) < 2:
            raise PrefevalError(f"compare needs at least two runs; got {len(plan.names)} ({', '.join(plan.names) or '-'})")
        keep = per_query is True or (per_query is None and plan.query_order is not None
                                     and per_query_bytes(methods, len(plan.query_order), len(plan.names)) <= KEEP_BYTES)
        blocks, notes = _run(c, plan, _compare_task, _portable(methods), keep, out, progress=progress)
    for note in notes:
        warnings.warn(note, stacklevel=3)
    if not blocks:
        raise PrefevalError("the qrels have no judged query; nothing to compare")
    by_label = {m.label: m for m in methods}
    results = combine_results([[_with_method(r, by_label[r.method]) for r in block] for block in blocks])
    return Comparison(plan.names, results, query_order=plan.query_order)


def evaluate(qrels: Any, runs: Any, measures: list[Any], rel: int | None, *, client: Any = None,
             scheduler: str | None = None, workers: int | None = None, partitions: int | None = None,
             progress: bool = False) -> tuple[pd.DataFrame, list[str]]:
    """The per-query values of :func:`prefeval.evaluate` on Dask and the run names: each partition is evaluated
    in-process (:func:`prefeval.evaluate.per_query_table`); :func:`prefeval.evaluate` aggregates them."""
    with cluster(client, scheduler, workers) as c:
        plan = _plan(c, qrels, runs, partitions)
        if not plan.names:
            raise PrefevalError("no runs given; pass a dict name -> run or a list of run files")
        blocks, notes = _run(c, plan, _evaluate_task, _portable(measures), rel, progress=progress)
    for note in notes:
        warnings.warn(note, stacklevel=4)
    if not blocks:
        raise PrefevalError("the qrels have no judged query; nothing to evaluate")
    return pd.concat(blocks, ignore_index=True), plan.names


register(Engine("dask", compare, evaluate))
