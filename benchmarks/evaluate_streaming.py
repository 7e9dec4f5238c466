"""``prefeval.evaluate`` of several large runs holds one run at a time: peak memory of N runs against one, in turns.

Writes the synthetic MS MARCO dev-sized collection of ``msmarco_scale.py`` (``--queries`` x ``--depth`` lines) and
``--runs`` copies of its run file, then, ``--repeat`` times in turns, each as a subprocess whose wall time and peak
RSS (``os.wait4``) are measured:

* ``prefeval.evaluate(QRELS, [run], ["nDCG@10", "AP", "R@1000", "RR"])`` with one run;
* the same with the ``--runs`` runs.

Prints the medians and the ratios: with runs evaluated one at a time, N runs take about N times as long and about
the memory of one (goal: peak memory at most 1.25x one run's; run files up to
:data:`prefeval.engine.blocks.READ_AHEAD_BYTES` in all are read ahead, to report a bad line before any work, and
stay in memory until their turn); the N runs' means must all equal the one run's.

    PYTHONPATH=src python benchmarks/evaluate_streaming.py [--queries 3000 --depth 1000 --runs 3 --repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from msmarco_scale import MEASURES, in_turns, write_collection  # noqa: E402

EVALUATE = """
import json, sys, warnings, prefeval
warnings.simplefilter("ignore")
measures = json.loads(sys.argv[1])
table = prefeval.evaluate(sys.argv[2], sys.argv[3:], measures)
print(json.dumps([[row.run, row.measure, row.value] for row in table.itertuples()]))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=3000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = write_collection(Path(tmp), args.queries, args.depth)
        copies = [run]
        for k in range(1, args.runs):
            copies.append(Path(tmp) / f"copy{k}.run")
            shutil.copyfile(run, copies[-1])
        print(f"{args.runs} runs of {args.queries:,} queries x {args.depth:,} documents, "
              f"{run.stat().st_size / 1e6:.0f} MB each; load average {os.getloadavg()[0]:.2f}")
        commands = {
            "evaluate, 1 run": [sys.executable, "-c", EVALUATE, json.dumps(MEASURES), str(qrels), str(run)],
            f"evaluate, {args.runs} runs": [sys.executable, "-c", EVALUATE, json.dumps(MEASURES), str(qrels),
                                            *map(str, copies)],
        }
        times, memory, outputs = in_turns(commands, env, args.repeat)
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    median = {name: statistics.median(values) for name, values in times.items()}
    peak = {name: statistics.median(values) for name, values in memory.items()}
    print(f"{'':20s} {'seconds':>8s} {'peak GiB':>9s}   (median of {args.repeat}, in turns)")
    for name in commands:
        print(f"{name:20s} {median[name]:8.2f} {peak[name]:9.2f}")
    one, many = commands
    print(f"{args.runs} runs / 1 run: time {median[many] / median[one]:.2f}x, peak memory "
          f"{peak[many] / peak[one]:.2f}x (goal <= 1.25x)")
    single = {measure: value for _, measure, value in json.loads(outputs[one])}
    rows = json.loads(outputs[many])
    same = all(value == single[measure] for _, measure, value in rows) and len(rows) == args.runs * len(single)
    print(f"every run's means equal the one run's: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
