"""The Dask engine: :func:`prefeval.compare` and :func:`prefeval.evaluate` over a Dask cluster, partitioned by query.

``compare(..., engine="dask")`` and ``evaluate(..., engine="dask")`` run here. The work is cut by query
(:mod:`prefeval.engine.partitions`): every task holds all runs' rows for its queries and their qrels, and calls
the in-process block function (:func:`prefeval.engine.blocks.evaluate_block`, or :func:`prefeval.engine.evaluate.evaluate`
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
import signal
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prefeval.core.lazy import lazy_module
from prefeval.data.collection import Collection
from prefeval.data.inputs import list_run_name
from prefeval.engine import partitions as parts
from prefeval.engine.blocks import evaluate_block
from prefeval.engine.comparison import Comparison
from prefeval.engine.evaluate import per_query_table
from prefeval.engine.memory import KEEP_BYTES, check_pairs, per_query_bytes
from prefeval.engine.registry import check_scheduler_address
from prefeval.engine.results import MethodResult, combine_results
from prefeval.errors import PrefevalError
from prefeval.methods.measures import parse_measure

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
        address = check_scheduler_address(scheduler)
        if address.startswith("tcp://"):
            probe_scheduler(address)
        try:
            connected = Client(address, timeout=f"{CONNECT_TIMEOUT}s")
        except Exception as exc:  # OSError, TimeoutError, TLS settings (ValueError, TypeError), a foreign peer
            raise PrefevalError(f"cannot connect to the Dask scheduler {address!r}: {_short(exc)}"
                                + (_TLS_HINT if address.startswith("tls://") else "")) from None
        with connected:
            yield connected
        return
    check_main_guard()
    n = workers or os.cpu_count() or 1
    with contextlib.ExitStack() as stack:
        # the cluster's own log lines (tasks cancelled, data lost as an interrupted run closes it) stay out of the
        # output: its scheduler logs here, its workers in their processes
        stack.enter_context(_quiet_logger("distributed"))
        with _worker_logging("critical"):  # the workers inherit it
            # no dashboard; the scheduler's own HTTP server (health and metrics routes) on a free port of this
            # machine, so a port in use (8787, the default) is no warning
            local = stack.enter_context(_started(lambda: LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}), n))
            connected = stack.enter_context(Client(local))
        yield connected


def _started(start: Any, workers: int) -> Any:
    """The local cluster ``start()`` makes, its ``workers`` processes spawned with SIGINT ignored, and Ctrl-C during
    its start-up stopping it at once (a ``KeyboardInterrupt`` here, the cluster closed).

    Ctrl-C in a terminal signals every process of its group: worker processes that received it printed tracebacks
    and log lines around this process's one "interrupted" line. An ignored signal stays ignored in a process
    started meanwhile (across ``exec``), so SIGINT is ignored here until the workers' processes exist (while the
    cluster starts on another thread); from then on this process takes Ctrl-C again while the workers start up: it
    ends their processes (so that the start fails at once rather than when they are up), waits for the start to end
    and closes what it made."""
    if threading.current_thread() is not threading.main_thread():  # signal handlers belong to the main thread
        return start()
    import multiprocessing  # deferred: only a local cluster needs it
    import time

    before = set(multiprocessing.active_children())
    made: dict[str, Any] = {}

    def run() -> None:
        try:
            made["cluster"] = start()
        except BaseException as exc:  # noqa: BLE001 (handed to the main thread)
            made["error"] = exc

    starting = threading.Thread(target=run, name="prefeval: local cluster start", daemon=True)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        starting.start()
        while starting.is_alive() and len(set(multiprocessing.active_children()) - before) < workers:
            time.sleep(0.01)
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        while starting.is_alive():
            starting.join(0.1)
    except KeyboardInterrupt:
        for process in set(multiprocessing.active_children()) - before:
            process.terminate()
        starting.join()
        if "cluster" in made:
            made["cluster"].close()
        raise
    if "error" in made:
        raise made["error"]
    return made["cluster"]


@contextlib.contextmanager
def _worker_logging(level: str) -> Iterator[None]:
    """Worker processes started in the block log ``distributed`` messages of ``level`` and above: dask's
    ``distributed.nanny.pre-spawn-environ`` (a worker sets up its logging as it starts, from its environment); the
    variable is taken out of this process's environment again after the block."""
    import dask  # deferred: with distributed

    name = "DASK_LOGGING__DISTRIBUTED"
    before = os.environ.get(name)
    environ = {**dask.config.get("distributed.nanny.pre-spawn-environ", default={}), name: level}
    try:
        with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
            yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


@contextlib.contextmanager
def _quiet_logger(name: str) -> Iterator[None]:
    """The logger ``name`` shows critical messages only, for the block."""
    import logging  # deferred: only a local cluster needs it

    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


#: Seconds to wait for a scheduler to connect and answer.
CONNECT_TIMEOUT = 20
#: A scheduler's handshake is a small message: a peer announcing more is not a Dask scheduler.
_HANDSHAKE_BYTES = 1 << 20
_TLS_HINT = (" (a tls:// scheduler needs TLS settings: dask's distributed.comm.tls configuration, or pass client= a "
             "distributed.Client made with security=...)")


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return " ".join(text.split())[:300]


def probe_scheduler(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Check that a Dask scheduler answers at ``tcp://host:port`` before ``distributed.Client`` connects (which waits
    for ever on a peer that accepts connections but never answers, and allocates what a foreign peer's first bytes
    announce). A Dask listener sends its handshake as soon as it accepts: an 8-byte little-endian length, then that
    many bytes. A :class:`PrefevalError` when nothing listens, the peer stays silent for ``timeout`` seconds, or
    its first bytes are no such message."""
    import socket  # deferred: only a scheduler address needs it
    import struct
    import time

    host, _, port = address.removeprefix("tcp://").rpartition(":")
    host = host.strip("[]")
    deadline = time.monotonic() + timeout

    def receive(sock: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            sock.settimeout(left)
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("the peer closed the connection")
            data += chunk
        return data

    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as sock:
            (length,) = struct.unpack("<Q", receive(sock, 8))
            if not 0 < length <= _HANDSHAKE_BYTES:
                raise PrefevalError(f"the peer at {address} is not a Dask scheduler (its first message does not "
                                    "follow Dask's protocol); check the address and port")
            receive(sock, length)
    except TimeoutError:
        raise PrefevalError(f"the peer at {address} accepted the connection but did not answer within {timeout:g} s; "
                            "is it a Dask scheduler? check the address and port") from None
    except OSError as exc:
        raise PrefevalError(f"cannot reach the Dask scheduler {address!r}: {exc.strerror or _short(exc)}") from None


_GUARD_HINT = ("put the code that runs it under `if __name__ == \"__main__\":` (Dask's worker processes import "
               "the script again; unguarded, each would start a cluster of its own), or pass scheduler= or client=")


def check_main_guard() -> None:
    """Refuse to start a local cluster of worker processes from the top level of a script outside an
    ``if __name__ == "__main__":`` block: the worker processes are started by importing the script again (the
    "spawn" method), which would run that code again in each of them (hundreds of lines of tracebacks ending in
    "Nanny failed to start"). Checked in the script's process from its source (the line of the top-level statement
    running now, and the ``if`` blocks around it), and in a worker process that imports the script as
    ``__mp_main__``."""
    import sys  # deferred: only a local cluster needs it

    main = sys.modules.get("__main__")
    if getattr(main, "__name__", None) == "__mp_main__":  # a process started by "spawn", importing the script
        raise PrefevalError(f"engine='dask' was started again while a worker process imported the script: {_GUARD_HINT}")
    path = getattr(main, "__file__", None)
    if not path or not os.path.isfile(path):
        return  # interactive, python -c, a notebook: nothing imports them again
    frame = sys._getframe(1)
    script = os.path.realpath(path)
    while frame is not None and not (frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == "__main__"
                                     and os.path.realpath(frame.f_code.co_filename) == script):
        frame = frame.f_back
    if frame is None:  # not called while the script's top level runs (e.g. from a thread or a callback)
        return
    if not _guarded(path, frame.f_lineno):
        raise PrefevalError(f"engine='dask' starts a local cluster from the top level of {os.path.basename(path)} "
                            f"(line {frame.f_lineno}) outside `if __name__ == \"__main__\":`; {_GUARD_HINT}")


def _guarded(path: str, line: int) -> bool:
    """Whether ``line`` of the script ``path`` lies in the body of an ``if __name__ == "__main__":`` block (unknown
    source: assumed guarded)."""
    import ast  # deferred: only the check of a script's guard needs it

    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return True

    def is_guard(test: ast.expr) -> bool:
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            return False
        sides = [test.left, *test.comparators]
        return any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides) and \
            any(isinstance(x, ast.Constant) and x.value == "__main__" for x in sides)

    for node in ast.walk(tree):
        if isinstance(node, ast.If) and is_guard(node.test) and node.body:
            if node.body[0].lineno <= line <= (node.body[-1].end_lineno or node.body[-1].lineno):
                return True
    return False


def n_threads(client: Any) -> int:
    """Number of worker threads of the cluster (at least 1)."""
    return max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))


# ----------------------------------------------------------------------------------------------
# inputs -> per-partition pieces (futures)


def _is_dask_frame(obj: Any) -> bool:
    return type(obj).__module__.split(".", 1)[0] == "dask" and hasattr(obj, "to_delayed")


def _is_partitioned(obj: Any) -> bool:
    """A collection generated partition by partition (e.g. :func:`prefeval.data.simulate.recsys`)."""
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
        files = [(None, str(run)) for run in runs if isinstance(run, (str, os.PathLike))]
        memory = {list_run_name(run): run for run in runs if not isinstance(run, (str, os.PathLike))}  # ranx Runs
        return files, memory, []
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
        collection = Collection.of(qrels)
        frame, query_order = collection.frame, collection.queries.to_numpy()
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
        # keys of their own (hash=False): with keys from the content, a later plan on the same client scattering the
        # same piece shares its key, and the release of this plan's futures drops the data the later plan's tasks
        # depend on ("lost dependencies": the robust table's readings, one plan each, failed so)
        for i, f in enumerate(client.scatter(parts.split_by_query(frame, n), hash=False)):
            qrels_pieces[i].append(f)
    files, memory, dask_frames = _run_sources(runs)
    names: list[str] = []
    for name, path in files:
        names += parts.run_names_of(path) if name is None else [name]
        add(run_pieces, client.submit(_read_split, path, name, n, pure=False))
    if memory:
        names += list(memory)
        for i, f in enumerate(client.scatter(parts.split_by_query(parts.long_runs(memory), n), hash=False)):
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
    return [dataclasses.replace(m, measure=parse_measure(m.measure)) if dataclasses.is_dataclass(m)
            else parse_measure(m) for m in measures]

#: the input warnings a partition would give about itself; the driver gives them once for the whole input
_PARTITION_WARNINGS = r"run '.*' (covers \d+ of|shares no query|has none of)"


def _load(names: list[str], generated: Any, index: int, qrels_pieces: list[pd.DataFrame],
          run_pieces: list[pd.DataFrame]) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    if generated is not None:
        return generated.partition(index)
    return parts.block(qrels_pieces, run_pieces, names)


def _in_partition(compute: Any, names: list[str], generated: Any, index: int, qrels_pieces: list[pd.DataFrame],
                  run_pieces: list[pd.DataFrame]) -> tuple[Any, Any, list[str]]:
    """Load partition ``index`` and return ``compute(collection, runs)`` (``None`` without judged queries), its coverage
    counts and the warnings it gave other than the input warnings the driver gives for the whole input."""
    qrels, runs = _load(names, generated, index, qrels_pieces, run_pieces)
    collection = Collection(qrels)  # the partition's queries, coded once
    counts = parts.coverage(collection, runs)
    if not len(qrels):
        return None, counts, []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", message=_PARTITION_WARNINGS)
        value = compute(collection, runs)
    return value, counts, [str(w.message) for w in caught]


def _compare_task(names: list[str], generated: Any, index: int, qrels_pieces: list[pd.DataFrame],
                  run_pieces: list[pd.DataFrame], methods: list[Any], keep: bool, out: str | None,
                  written: list[str] | None = None) -> tuple[Any, Any, list[str]]:
    """One partition: its results (``None`` without judged queries), coverage counts and other warnings; the
    per-query values of the methods labelled ``written`` (all: None) written to ``out``."""

    def compute(collection: Collection, runs: dict[str, pd.DataFrame]) -> list[MethodResult]:
        results = evaluate_block(_restore(methods), runs, collection, keep=keep or out is not None, warn=False)
        if out is not None:
            frame = Comparison(names, [r for r in results if written is None or r.method.label in written]).per_query
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
    return _in_partition(lambda collection, runs: per_query_table(collection, runs, _restore(measures), rel),
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
    for future, outcome in as_completed(futures, with_results=True, raise_errors=False):
        if future.status != "finished":
            bar.close()
            with contextlib.suppress(Exception):
                client.cancel(futures)
            raise _failure(future, outcome, index[future.key])
        value, (judged, per_run), caught = outcome
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


def _failure(future: Any, outcome: Any, partition: int) -> BaseException:
    """The exception to raise for a partition task that did not finish (``outcome``: the task's ``(type,
    exception, traceback)`` or the cancellation): bad input found by the task as it is (a
    :class:`PrefevalError`); the cluster's failures (a worker killed or lost, a task cancelled) as a
    :class:`PrefevalError` that says so; anything else (a bug) as raised in the task, with its traceback."""
    exc, traceback = outcome, None
    if isinstance(outcome, tuple) and len(outcome) == 3 and isinstance(outcome[1], BaseException):
        _, exc, traceback = outcome
    if isinstance(exc, PrefevalError):
        return exc
    if type(exc).__name__ == "KilledWorker":
        return PrefevalError(f"the Dask cluster failed: the workers running partition {partition} died "
                             f"({_short(exc)}); the cluster's fault, not the input's: check the workers' memory "
                             "limits and logs, then run again")
    if future.status == "error" and isinstance(exc, BaseException):
        return exc.with_traceback(traceback)
    return PrefevalError(f"the Dask cluster failed: partition {partition} was {future.status} "
                         f"({_short(exc) if isinstance(exc, BaseException) else exc!r}); a worker or the scheduler "
                         "went away or the client was closed: the cluster's fault, not the input's; run again")


# ----------------------------------------------------------------------------------------------
# entry points


def compare(qrels: Any, runs: Any, methods: list[Any], *, client: Any = None, scheduler: str | None = None,
            workers: int | None = None, partitions: int | None = None, per_query: bool | str | None = None,
            progress: bool = False, stated: Sequence[Any] = ()) -> Any:
    """:func:`prefeval.compare` on Dask (module docstring); ``methods`` are parsed :class:`prefeval.engine.methods.Method`.

    ``partitions``: number of query partitions (default: 4 per worker thread, fewer for fewer than
    :data:`QUERIES_PER_PARTITION` queries each; a generated collection brings its own). ``per_query``: ``True``
    keeps the per-query pair values (collected on the driver), ``None`` keeps them when the qrels are known on
    the driver and they are small (as in-process), a path writes them as Parquet files ``part-NNNNN.parquet``
    (columns ``method, query_id, run_a, run_b, value``) into that folder, ``False`` keeps only the reductions
    and per-query scores. ``stated``: methods evaluated with ``methods`` and returned after them, whose per-query
    values are not written (Judged@k, stated beside a comparison).
    """
    written = [m.label for m in methods] if stated else None
    methods = [*methods, *stated]
    out = None
    if isinstance(per_query, (str, os.PathLike)):
        out = str(per_query)
        Path(out).mkdir(parents=True, exist_ok=True)
    with cluster(client, scheduler, workers) as c:
        plan = _plan(c, qrels, runs, partitions)
        if len(plan.names) < 2:
            raise PrefevalError(f"compare needs at least two runs; got {len(plan.names)} ({', '.join(plan.names) or '-'})")
        check_pairs(len(plan.names), len(methods))
        keep = per_query is True or (per_query is None and plan.query_order is not None
                                     and per_query_bytes(methods, len(plan.query_order), len(plan.names)) <= KEEP_BYTES)
        blocks, notes = _run(c, plan, _compare_task, _portable(methods), keep, out, written, progress=progress)
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
    in-process (:func:`prefeval.engine.evaluate.per_query_table`); :func:`prefeval.evaluate` aggregates them."""
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


