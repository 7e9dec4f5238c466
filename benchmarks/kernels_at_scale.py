"""Time the all-pairs preference kernels at many runs (S = 1,000) and ``rank_run`` on many small runs.

Simulates a collection (``prefeval.data.simulate.collection``: 50 queries, 1,000 runs of depth 100 over 200
documents per query, graded qrels), locates the relevant documents of every run once, then times each
method's S x S ``matrix`` kernel over all queries (what ``prefeval.compare`` calls per query), best of
``--repeat``. It also times ``ranking.rank_run`` per run and, with ``--compare``, the whole
``prefeval.compare(qrels, runs, ["LexiRecall", "LexiPrecision", "RPP"])``.

    python benchmarks/kernels_at_scale.py [--queries 50 --runs 1000 --depth 100 --docs 200 --repeat 3 --compare]

Measured on the 2-core development machine (shared and loaded, so +-30%), 50 queries x 1,000 runs, kernels
timed over all 50 queries, the previous kernels in the same process (best of 3):

    kernel                         before    after
    RPP (graded, uniform)          6.3 s     0.58 s    exact (integer counts)
    RPP(graded=False)              4.6 s     0.74 s
    RPP(weighting='inverse')       5.6 s     3.6 s     within 1e-15
    LexiRecall                     0.49 s    0.32 s
    LexiPrecision                  0.45 s    0.34 s
    LexiPrecision(magnitude='rr')  2.5 s     1.8 s
    rank_run per run (5,000 rows)  2.8 ms    2.0 ms
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import prefeval
from prefeval.data.collection import Collection
from prefeval.data.positions import PositionTable
from prefeval.data.ranking import rank_run
from prefeval.data.simulate import collection
from prefeval.methods.registry import parse

METHODS = ["LexiRecall", "LexiPrecision", "LexiPrecision(magnitude='rr')", "RPP", "RPP(weighting='inverse')",
           "RPP(graded=False)"]


def best(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare", action="store_true", help="also time prefeval.compare end to end")
    args = parser.parse_args()

    c = collection(n_queries=args.queries, n_runs=args.runs, depth=args.depth, n_docs=args.docs, seed=args.seed)
    queries, candidates = Collection(c.qrels).queries, Collection(c.qrels).candidates(1)
    names = list(c.runs)

    def rank_all():
        return [rank_run(c.runs[name], queries, candidates, name, ties="candidates") for name in names]

    t_rank, ranked = best(rank_all, args.repeat)
    print(f"{args.queries} queries x {args.runs} runs, depth {args.depth}: "
          f"rank_run {1000 * t_rank / len(names):.2f} ms per run ({len(c.runs[names[0]])} rows)")
    table = PositionTable(c.qrels, 1, queries)
    doc_pos = np.vstack([table.locate(run) for run in ranked])
    positions = table.positions(doc_pos)
    print(f"{'kernel':<30}{'s (all queries)':>16}")
    for text in METHODS:
        decl, params = parse(text)
        t, _ = best(lambda d=decl, p=params: [d.matrix(q, p) for q in positions], args.repeat)
        print(f"{text:<30}{t:>16.3f}")
    if args.compare:
        t, _ = best(lambda: prefeval.compare(c.qrels, c.runs, ["LexiRecall", "LexiPrecision", "RPP"]), 1)
        print(f"{'compare (3 methods)':<30}{t:>16.3f}")


if __name__ == "__main__":
    main()
