"""The cost of the holes' measurements (issue: Judged@k and --robust at most 3x the table; check at most 2x reading).

* **Table**: ``prefeval.table`` of the 14 DL-Hard document runs x 5 measures (nDCG@10, AP, RR, LexiRecall, RPP;
  rel=2, baseline bm25), as given (Judged@10 included: it is always computed) and with ``robust=True`` (two more
  readings of the holes), against the same table without Judged@k (``prefeval.engine.table.table`` with the judged
  column left out, i.e. the measures alone through :func:`prefeval.engine.compare.compare_methods`). Skipped without
  the data.
* **check**: :func:`prefeval.engine.check.check` of a simulated run of ``--lines`` lines (default 10,000,000:
  20,000 queries x 500 documents, scores rounded so that ties occur, written as a TREC file) against reading that file
  with prefeval's reader (:func:`prefeval.data.trec.read_run_columns`), which check does first.

``robust=True`` ranks each run once (:func:`prefeval.engine.holes.readings`) and computes the condensed and filled
readings again only for the columns with a significant cell (here nDCG@10 and LexiRecall).

Measured on the 2-core development machine (best of 5, the contenders taking turns, load average 1.1): measures alone
0.28 s, the table with Judged@10 1.10x, with ``robust=True`` 2.62x (0.74 s; it was 4.51x when every reading recomputed
the whole table and ranked every run again); ``check`` of a 10,000,000-line run, eighteen runs of ``--repeat 5`` at
load 1.1-1.6: the printed ratio (best check / best reading) has a median of 1.70x over the runs, a range of
1.49x-1.85x, none above 2x (best reading 0.87-1.10 s, best check 1.42-1.71 s); single rounds still go above 2x (each
run's largest per-round ratio 1.54x-2.56x), as the reading's own time varies from round to round. Before: medians of
1.87x (1.20x-2.21x, three of sixteen runs above 2x), 1.91x, 2.50x, 2.95x. Check's own work, timed step by step on a
run read already (outside this benchmark), is about 0.45 s: the ranking to depth 100 (the document ids coded in parts
on both cores, about 0.2 s; only the top 100 ranks of each query kept, and their candidates' codes found for those
rows alone), the query ids' codes (0.05 s, shared by the ranking and the tie count), Judged@k by trec_eval's kernels
(0.07 s), the tie count (0.02 s). The rest is the part of the qrels' reading (about 0.1 s) that its thread beside the
run's reading does not hide, and the machine: the kernel clearing fresh memory pages takes a fifth of the CPU time of
reading and of check alike (``perf``, before the ranking to a depth kept only its ranks), and its cost varies from run
to run on this virtual machine.

Each time is the best of ``--repeat`` rounds, the contenders taking turns; for check, the median and range of each
round's ratio too (the time of reading itself varies from round to round). Run:
``python benchmarks/holes.py [--data DIR] [--repeat 3] [--lines 10000000]``.
"""

from __future__ import annotations

import argparse
import glob
import os
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MEASURES = ["nDCG@10", "AP", "RR", "LexiRecall", "RPP"]


def rounds(contenders: dict, repeat: int) -> dict[str, list[float]]:
    """The times of ``repeat`` rounds, the contenders taking turns in each."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, call in contenders.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return times


def best(contenders: dict, repeat: int) -> dict[str, float]:
    return {name: min(t) for name, t in rounds(contenders, repeat).items()}


def table_without_judged(qrels: str, runs: list[str]):
    """The table's computation without the Judged@k column: the measures alone, one compare_methods pass."""
    from prefeval.engine.compare import compare_methods
    from prefeval.engine.methods import parse_methods

    return compare_methods(qrels, runs, parse_methods(MEASURES, 2), baseline=None)


def bench_table(data: Path, repeat: int) -> None:
    import prefeval

    folder = data / "dl-hard"
    runs = sorted(glob.glob(str(folder / "runs" / "doc" / "*.run.gz")))
    if not runs:
        print(f"table: skipped ({folder} not found)")
        return
    qrels, name = str(folder / "dl_hard-doc.qrels"), "bm25"
    t = best({
        "measures alone": lambda: table_without_judged(qrels, runs),
        "table (Judged@10)": lambda: prefeval.table(qrels, runs, MEASURES, baseline=name, rel=2),
        "table --robust": lambda: prefeval.table(qrels, runs, MEASURES, baseline=name, rel=2, robust=True),
    }, repeat)
    alone = t["measures alone"]
    print(f"table of {len(runs)} DL-Hard doc runs x {len(MEASURES)} measures (best of {repeat}):")
    for key, value in t.items():
        print(f"  {key:<20} {value:7.2f} s  {value / alone:5.2f}x")


def bench_check(lines: int, repeat: int) -> None:
    from prefeval.data.trec import read_run_columns
    from prefeval.engine.check import check

    per_query = 500
    n_queries = max(1, lines // per_query)
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        run = os.path.join(tmp, "big.run")
        qrels = os.path.join(tmp, "big.qrels")
        with open(run, "w") as f:
            for q in range(n_queries):
                docs = rng.choice(5 * per_query, per_query, replace=False)
                scores = np.round(np.sort(rng.random(per_query))[::-1], 3)
                f.write("".join(f"{q} Q0 d{d} {i + 1} {s} sim\n" for i, (d, s) in enumerate(zip(docs, scores))))
        with open(qrels, "w") as f:
            for q in range(n_queries):
                for d in rng.choice(5 * per_query, 40, replace=False):
                    f.write(f"{q} 0 d{d} {int(rng.integers(0, 3))}\n")
        times = rounds({"read the run": lambda: read_run_columns(run),
                        "prefeval check": lambda: check(qrels, [run])}, repeat)
    read = min(times["read the run"])
    print(f"check of a {n_queries * per_query:,}-line run (best of {repeat}):")
    for key, value in times.items():
        print(f"  {key:<20} {min(value):7.2f} s  {min(value) / read:5.2f}x")
    ratios = np.divide(times["prefeval check"], times["read the run"])
    print(f"  each round's check / reading: median {np.median(ratios):.2f}x, {ratios.min():.2f}x-{ratios.max():.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lines", type=int, default=10_000_000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"load average: {os.getloadavg()[0]:.1f}")
    bench_table(args.data, args.repeat)
    bench_check(args.lines, args.repeat)


if __name__ == "__main__":
    main()
