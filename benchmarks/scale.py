"""Scale-out: ``prefeval.compare(..., engine="dask")`` on the simulated recommendation workload, 1 vs 2 workers.

The workload is :func:`prefeval.data.simulate.recsys` (users = queries, models = runs, ``--items`` per list, graded
labels), generated inside the tasks partition by partition (``users_per_partition`` users each), so no process
holds the collection. Every measurement starts a fresh ``LocalCluster`` of single-threaded worker processes
and reports:

* wall time and throughput in query-pairs per second (users x model pairs / seconds, all methods together);
* peak memory per worker (resident set size of the worker processes, sampled every 0.1 s) and of the driver;
* the seconds the tasks spent computing (Dask's task stream) and the CPU seconds of the workers: on a machine
  shared with other jobs, computing time well above CPU time means the workers waited for a core;
* the speed-up of 2 workers over 1 on the same workload (``--users-speedup`` users);
* the cost vs users (1 worker) and vs models (1 worker);
* the full workload (``--users``, default 10^6 x 10 models x 20 items = 2 x 10^8 run rows) on ``--workers``
  workers, unless ``--skip-full``;
* the check that on a ``--users-check``-user subsample the summary equals the in-process one (max abs diff).

Run: ``python benchmarks/scale.py`` (about 15 minutes on 2 cores); ``--quick`` for a smoke run.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import resource
import sys
import threading
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402
import psutil  # noqa: E402  (a dependency of distributed)

import prefeval  # noqa: E402
from prefeval import simulate  # noqa: E402

METHODS = ["LexiRecall", "LexiPrecision", "RPP"]


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class PeakMemory(threading.Thread):
    """Samples the resident memory of some processes every 0.1 s; ``peak`` is the largest seen per process (worker
    processes are forked, so their own ``ru_maxrss`` would start at the driver's)."""

    def __init__(self, pids: list[int]) -> None:
        super().__init__(daemon=True)
        self.processes = [psutil.Process(pid) for pid in pids]
        self.peak = [0] * len(pids)
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.1):
            for i, p in enumerate(self.processes):
                with contextlib.suppress(psutil.Error):
                    self.peak[i] = max(self.peak[i], p.memory_info().rss)

    def stop(self) -> float:
        """Stop sampling; the largest peak in MiB."""
        self.done.set()
        self.join()
        return max(self.peak) / 2**20


def run(users: int, models: int, items: int, workers: int, methods: list[str], per_partition: int) -> dict:
    """One measurement on a fresh LocalCluster; returns time, throughput and peak memory."""
    # a fresh cluster per measurement: its worker processes' peak RSS is this workload's
    from distributed import Client, LocalCluster, get_task_stream

    rec = simulate.recsys(n_users=users, n_models=models, items_per_list=items,
                          users_per_partition=min(per_partition, users), seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               memory_limit="4GiB")
    with cluster, Client(cluster) as client:
        client.run(importlib.import_module, "prefeval")  # workers up and warm before the clock starts
        pids = list(client.run(os.getpid).values())
        sampler = PeakMemory(pids)
        cpu_before = sum(_cpu(p) for p in sampler.processes)
        sampler.start()
        start = time.perf_counter()
        with get_task_stream(client) as stream:
            comparison = prefeval.compare(None, rec, methods, engine="dask", client=client)
        comparison.summary()
        seconds = time.perf_counter() - start
        worker_peak = sampler.stop()
        cpu = sum(_cpu(p) for p in sampler.processes) - cpu_before
        busy = sum(end - begin for task in stream.data for kind, begin, end in
                   ((s["action"], s["start"], s["stop"]) for s in task["startstops"]) if kind == "compute")
    pairs = users * models * (models - 1) // 2
    return {"users": users, "models": models, "workers": workers, "seconds": seconds,
            "throughput": pairs / seconds, "worker_peak_mib": worker_peak, "driver_peak_mib": _peak_rss_mib(),
            "cpu": cpu, "busy": busy, "comparison": comparison}


def _cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def line(r: dict) -> str:
    return (f"  {r['users']:>9,} users x {r['models']:>2} models, {r['workers']} worker(s): {r['seconds']:8.1f} s, "
            f"{r['throughput']:>12,.0f} query-pairs/s, peak worker {r['worker_peak_mib']:,.0f} MiB, "
            f"driver {r['driver_peak_mib']:,.0f} MiB; tasks computing {r['busy']:.0f} s, workers' CPU {r['cpu']:.0f} s")


def check(users: int, models: int, items: int, methods: list[str]) -> float:
    """Max abs difference of the summary computed both ways on a ``users``-user collection."""
    rec = simulate.recsys(n_users=users, n_models=models, items_per_list=items,
                          users_per_partition=max(1, users // 4), seed=7)
    qrels, runs = rec.materialise()
    inprocess = prefeval.compare(qrels, runs, methods).summary()
    dask = prefeval.compare(None, rec, methods, engine="dask", workers=2).summary()
    assert inprocess[["method", "run_a", "run_b"]].equals(dask[["method", "run_a", "run_b"]])
    numeric = inprocess.select_dtypes("number").columns
    return float(np.abs(inprocess[numeric].to_numpy(float) - dask[numeric].to_numpy(float)).max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1_000_000, help="users of the full workload")
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--items", type=int, default=20, help="items per recommendation list")
    parser.add_argument("--workers", type=int, default=2, help="workers of the full workload")
    parser.add_argument("--users-speedup", type=int, default=100_000, help="users of the 1 vs 2 worker comparison")
    parser.add_argument("--users-check", type=int, default=10_000)
    parser.add_argument("--per-partition", type=int, default=10_000, help="users per partition")
    parser.add_argument("--methods", nargs="+", default=METHODS)
    parser.add_argument("--skip-full", action="store_true")
    parser.add_argument("--skip-curves", action="store_true", help="no cost vs users / models")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.users, args.users_speedup, args.users_check, args.per_partition = 40_000, 20_000, 2_000, 2_500
    methods = args.methods
    print(f"methods: {', '.join(methods)}; {args.items} items per list; {args.per_partition:,} users per partition; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    print(f"\nsummary on a {args.users_check:,}-user subsample, dask vs in-process: max abs difference "
          f"{check(args.users_check, args.models, args.items, methods):.2e}")

    print("\n1 vs 2 workers (same workload):")
    one = run(args.users_speedup, args.models, args.items, 1, methods, args.per_partition)
    print(line(one))
    two = run(args.users_speedup, args.models, args.items, 2, methods, args.per_partition)
    print(line(two))
    print(f"  speed-up with 2 workers: {two['throughput'] / one['throughput']:.2f}x")

    if not args.skip_curves:
        print("\ncost vs users (1 worker):")
        for users in (args.users_speedup // 4, args.users_speedup // 2):
            print(line(run(users, args.models, args.items, 1, methods, args.per_partition)))
        print(line(one))
        print("\ncost vs models (1 worker):")
        for models in (5, 20):
            print(line(run(args.users_speedup // 2, models, args.items, 1, methods, args.per_partition)))

    if not args.skip_full:
        print(f"\nfull workload ({args.users * args.models * args.items:,} run rows), {args.workers} workers:")
        full = run(args.users, args.models, args.items, args.workers, methods, args.per_partition)
        print(line(full))
        print(full["comparison"].ranking(methods[0], aggregate="mc4").to_string(index=False))


if __name__ == "__main__":
    main()
