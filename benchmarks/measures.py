"""Time prefeval's measures through ``ir_measures.calc_aggregate`` against nDCG@10 via pytrec_eval.

On the largest shared run set (the 14 DL-Hard document runs, 50 queries x 1000 documents each), every
run is evaluated with RBU@20, with RPP against the bm25 baseline and with nDCG@10 (pytrec_eval), each
measure in its own ``calc_aggregate`` call; the script prints seconds per run and the ratio to nDCG@10.

    python benchmarks/measures.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import ir_measures

import prefeval
from prefeval.io import read_qrels, read_run

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def best_time(measure, qrels, runs, repeat: int = 3) -> float:
    """Best of ``repeat`` wall-clock times to evaluate every run (seconds per run)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for run in runs:
            ir_measures.calc_aggregate([measure], qrels, run)
        times.append((time.perf_counter() - start) / len(runs))
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    args = parser.parse_args()
    folder = args.data / "dl-hard"
    qrels = read_qrels(folder / "dl_hard-doc.qrels")
    paths = sorted((folder / "runs" / "doc").glob("*.run.gz"))
    runs = [read_run(p) for p in paths]
    prefeval.register_run("bm25", runs[[p.name for p in paths].index("bm25.run.gz")])
    print(f"{len(runs)} runs, {sum(len(r) for r in runs):,} result lines, {qrels['query_id'].nunique()} queries")
    reference = best_time(ir_measures.nDCG @ 10, qrels, runs)
    print(f"{'measure':45s} {'s/run':>8s} {'x nDCG@10':>10s}")
    print(f"{'nDCG@10 (pytrec_eval)':45s} {reference:8.3f} {1.0:10.2f}")
    for measure in (prefeval.RBU(p=0.8, e=0.03) @ 20, prefeval.RPP(baseline="bm25"),
                    prefeval.RPP(baseline="bm25", weighting="dcg", graded=False),
                    prefeval.LexiRecall(baseline="bm25"), prefeval.LexiPrecision(baseline="bm25"), prefeval.TSE):
        seconds = best_time(measure, qrels, runs)
        print(f"{str(measure):45s} {seconds:8.3f} {seconds / reference:10.2f}")


if __name__ == "__main__":
    main()
