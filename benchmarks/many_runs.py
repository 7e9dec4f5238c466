"""All pairs of many runs without quadratic memory: time and peak RSS of ``prefeval.compare`` + summary, MC4
ranking and sign tests.

1. ``--runs 1000`` simulated runs x 50 queries x depth 100 (``prefeval.data.simulate.collection``), LexiRecall,
   LexiPrecision and RPP: ``compare(..., per_query=False)``, then ``summary()``, ``ranking(m, "mc4")`` and
   ``significance(m, "sign")`` for every method. Target (2 cores): < 5 s and < 1 GiB peak RSS.
2. ``--identical 10000`` copies of one run x 2 queries: ``compare(..., per_query=False)`` and ``summary()``
   (50 million pairs per method) must finish without MemoryError.

Each case runs in a fresh subprocess so that peak RSS (``ru_maxrss``) is its own; times exclude building the
collection.

    python benchmarks/many_runs.py [--runs 1000] [--identical 10000] [--case runs|identical|both]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

METHODS = ["LexiRecall", "LexiPrecision", "RPP"]

CHILD = r"""
import json, resource, sys, time
import prefeval
from prefeval.data import simulate
case, n, methods = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
if case == "runs":
    c = simulate.collection(n_queries=50, n_runs=n, depth=100, n_docs=200, seed=1)
    qrels, runs = c.qrels, c.runs
else:
    c = simulate.collection(n_queries=2, n_runs=1, depth=100, n_docs=200, seed=1)
    one = next(iter(c.runs.values()))
    qrels, runs = c.qrels, {f"r{k:05d}": one for k in range(n)}
built = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
res = prefeval.compare(qrels, runs, methods, per_query=False)
t1 = time.perf_counter()
summary = res.summary()
if case == "runs":
    for m in methods:
        res.ranking(m, "mc4")
        res.significance(m, test="sign")
t2 = time.perf_counter()
print(json.dumps({"compare": t1 - t0, "reports": t2 - t1, "pairs": len(summary) // len(methods),
                  "rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
                  "rss_inputs_gib": built / 2**20}))
"""


def run_case(case: str, n: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, case, str(n), json.dumps(METHODS)], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--identical", type=int, default=10_000)
    parser.add_argument("--case", choices=["runs", "identical", "both"], default="both")
    args = parser.parse_args()
    cases = [("runs", args.runs), ("identical", args.identical)]
    for case, n in cases:
        if args.case not in (case, "both"):
            continue
        r = run_case(case, n)
        label = f"{n} runs x 50 queries x depth 100" if case == "runs" else f"{n} identical runs x 2 queries"
        if "error" in r:
            print(f"{label}: FAILED: {r['error']}")
            continue
        target = " (target < 5 s, < 1 GiB)" if case == "runs" else " (target: no MemoryError)"
        print(f"{label}, {r['pairs']:,} pairs x {len(METHODS)} methods: compare {r['compare']:.2f} s, "
              f"summary/MC4/sign {r['reports']:.2f} s, total {r['compare'] + r['reports']:.2f} s; peak RSS "
              f"{r['rss_gib']:.2f} GiB (inputs alone {r['rss_inputs_gib']:.2f} GiB){target}")


if __name__ == "__main__":
    main()
