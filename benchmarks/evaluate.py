"""Time ``prefeval.evaluate`` against ``ir_measures.calc_aggregate`` given dicts (its fastest input).

1. Real runs: ``evaluate(qrels, runs, "nDCG@10")`` on the 14 DL-Hard document runs (50 queries x 1000 documents
   each) against ``calc_aggregate([nDCG@10], qrels, run)`` per run, with qrels and runs already dicts of dicts
   (conversion untimed). Skipped with a message when the shared data folder is missing.
2. Scaling: 5 simulated runs x {50, 500, 5000} queries x 100 documents (4-level grades on 20 judged documents
   per query): ``evaluate(qrels, runs, ["nDCG@10", "RBU@20"])`` against ``calc_aggregate`` of nDCG@10 alone on
   the same runs given as dicts. Both sides start from DataFrames for ``evaluate`` and dicts for ir-measures.

Times are the best of ``--repeat``; the ratio is prefeval's time over ir-measures'. Measured on the 2-core
development machine (shared and loaded, +-30%): 5,000 queries 1.6-1.9 s vs 1.15-1.45 s, ratio 1.25-1.7 (before:
7.5 s, 4.2); DL-Hard nDCG@10 ratio 0.64-0.91 (1.1-1.4 before ties were ordered only where they reach
the top 10; 1.9 before that).

    python benchmarks/evaluate.py [--data ../shared/data] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd

import prefeval
from prefeval.data.trec import read_qrels, read_run

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def best(function, repeat: int) -> float:
    """Best wall-clock seconds of ``repeat`` calls of ``function``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def as_dict(frame: pd.DataFrame, value: str) -> dict[str, dict[str, float]]:
    """``{query_id: {doc_id: frame[value]}}`` (untimed setup for the ir-measures side)."""
    out: dict[str, dict[str, float]] = {}
    for q, d, v in zip(frame["query_id"].tolist(), frame["doc_id"].tolist(), frame[value].tolist()):
        out.setdefault(q, {})[d] = v
    return out


def reference(measures, qrels: dict, runs: dict) -> None:
    for run in runs.values():
        ir_measures.calc_aggregate(measures, qrels, run)


def real(folder: Path, repeat: int) -> None:
    if not (folder / "dl_hard-doc.qrels").exists():
        print(f"skipped the real runs: no DL-Hard data in {folder}")
        return
    qrels = read_qrels(folder / "dl_hard-doc.qrels")
    runs = {p.name.removesuffix(".run.gz"): read_run(p) for p in sorted((folder / "runs" / "doc").glob("*.run.gz"))}
    qrels_dict = as_dict(qrels, "relevance")
    run_dicts = {name: as_dict(run, "score") for name, run in runs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = best(lambda: prefeval.evaluate(qrels, runs, "nDCG@10"), repeat)
    theirs = best(lambda: reference([ir_measures.nDCG @ 10], qrels_dict, run_dicts), repeat)
    print(f"DL-Hard doc: {len(runs)} runs, {sum(map(len, runs.values())):,} lines, {len(qrels_dict)} queries")
    print(f"  evaluate(nDCG@10) {ours:.3f}s   calc_aggregate(nDCG@10, dicts) {theirs:.3f}s   "
          f"ratio {ours / theirs:.2f}")


def simulated(n_queries: int, n_runs: int = 5, depth: int = 100, judged: int = 20, seed: int = 0):
    """Qrels and runs as DataFrames: each query has ``judged`` graded documents among its ``depth`` candidates."""
    rng = np.random.default_rng(seed)
    queries = np.repeat(np.arange(n_queries).astype(str).astype(object), depth)
    docs = np.tile(np.array([f"d{i}" for i in range(depth)], dtype=object), n_queries)
    is_judged = np.tile(np.arange(depth) < judged, n_queries)
    qrels = pd.DataFrame({"query_id": queries[is_judged], "doc_id": docs[is_judged],
                          "relevance": rng.integers(0, 4, is_judged.sum())})
    runs = {f"run{i}": pd.DataFrame({"query_id": queries, "doc_id": docs, "score": rng.random(len(docs))})
            for i in range(n_runs)}
    return qrels, runs


def scaling(repeat: int) -> None:
    print("5 runs x 100 documents: evaluate(['nDCG@10', 'RBU@20']) vs calc_aggregate(nDCG@10, dicts)")
    print(f"{'queries':>8s} {'evaluate s':>11s} {'ir-measures s':>14s} {'ratio':>6s}")
    for n in (50, 500, 5000):
        qrels, runs = simulated(n)
        qrels_dict = as_dict(qrels, "relevance")
        run_dicts = {name: as_dict(run, "score") for name, run in runs.items()}
        ours = best(lambda q=qrels, r=runs: prefeval.evaluate(q, r, ["nDCG@10", "RBU@20"]), repeat)
        theirs = best(lambda q=qrels_dict, r=run_dicts: reference([ir_measures.nDCG @ 10], q, r), repeat)
        print(f"{n:8d} {ours:11.3f} {theirs:14.3f} {ours / theirs:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions (best kept)")
    args = parser.parse_args()
    real(args.data / "dl-hard", args.repeat)
    scaling(args.repeat)


if __name__ == "__main__":
    main()
