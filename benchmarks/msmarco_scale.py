"""``prefeval eval`` on an MS MARCO dev-sized run against the parse floor and a pytrec_eval script, in turns.

Writes a synthetic MS MARCO passage dev-sized collection into a temporary folder: a run of 6,980 queries x 1,000
documents (7M lines, about 240 MB; integer ids as MS MARCO's, scores with 4 decimals, so some ties) and qrels of
about 1.07 relevant documents per query (grade 1), 85% of them retrieved. Then, ``--repeat`` times in turns, each
as a subprocess whose wall time and peak RSS (``os.wait4``) are measured:

* ``prefeval eval QRELS RUN nDCG@10 AP R@1000 RR``;
* the parse floor: ``pyarrow.csv.read_csv`` of the run file alone (space-separated, types inferred, threads on);
* a 20-line script that reads both files into dicts and evaluates them with pytrec_eval (:data:`PYTREC_SCRIPT`).

Prints the medians, the ratios (goals: prefeval at most 2x the floor's time and 1.25x its peak memory, at most 0.4x
the pytrec_eval script's time) and checks that prefeval and pytrec_eval give the same means (to 1e-12: both average
the same per-query values, in a different order of summation).

    PYTHONPATH=src python benchmarks/msmarco_scale.py [--queries 6980 --depth 1000 --repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MEASURES = ["nDCG@10", "AP", "R@1000", "RR"]
TREC_NAMES = {"nDCG@10": "ndcg_cut_10", "AP": "map", "R@1000": "recall_1000", "RR": "recip_rank"}

FLOOR_SCRIPT = """
import sys, pyarrow.csv as c
c.read_csv(sys.argv[1], read_options=c.ReadOptions(column_names=["q", "it", "d", "rank", "score", "tag"]),
           parse_options=c.ParseOptions(delimiter=" "))
"""

PYTREC_SCRIPT = """
import json, sys, pytrec_eval
qrels, run = {}, {}
with open(sys.argv[1]) as lines:
    for line in lines:
        q, _, d, grade = line.split()
        qrels.setdefault(q, {})[d] = int(grade)
with open(sys.argv[2]) as lines:
    for line in lines:
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
names = json.loads(sys.argv[3])
per_query = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(run)
means = {m: sum(v[n] for v in per_query.values()) / len(qrels) for m, n in names.items()}
print(json.dumps(means))
"""


def write_collection(folder: Path, queries: int, depth: int, seed: int = 0) -> tuple[Path, Path]:
    """The run and qrels files (module docstring); ids are distinct within a query."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    run_path, qrels_path = folder / "dev.run", folder / "dev.qrels"
    qids = np.sort(rng.choice(1_100_000, queries, replace=False)).astype(str)
    window = 3 * depth  # each query's documents come from a window of the 8.8M-passage corpus
    offset = rng.integers(0, 8_841_823 - window, queries)
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    schema = pa.schema([("q", pa.string()), ("it", pa.string()), ("d", pa.string()), ("rank", pa.int64()),
                        ("score", pa.float64()), ("tag", pa.string())])
    relevant_q, relevant_d = [], []
    with pacsv.CSVWriter(run_path, schema, write_options=options) as writer:
        block = max(1, 500_000 // depth)
        for start in range(0, queries, block):
            q = np.arange(start, min(start + block, queries))
            picked = np.argsort(rng.random((len(q), window)), axis=1)
            docs = offset[q, None] + picked[:, :depth]
            scores = -np.sort(-np.round(5 + rng.random((len(q), depth)) * 20, 4), axis=1)
            writer.write_table(pa.table({
                "q": np.repeat(qids[q], depth), "it": np.full(len(q) * depth, "Q0"),
                "d": docs.reshape(-1).astype(str), "rank": np.tile(np.arange(1, depth + 1), len(q)),
                "score": scores.reshape(-1), "tag": np.full(len(q) * depth, "bm25"),
            }))
            for i, query in enumerate(q):  # 1.07 relevant documents per query, 85% retrieved, near the top
                columns = {int(depth * rng.random() ** 3) if rng.random() < 0.85 else depth + j
                           for j in range(1 + int(rng.random() < 0.07))}
                relevant_q.extend([qids[query]] * len(columns))
                relevant_d.extend(str(offset[query] + picked[i, column]) for column in sorted(columns))
    qrels = pa.table({"q": relevant_q, "it": ["0"] * len(relevant_q), "d": relevant_d, "g": [1] * len(relevant_q)})
    pacsv.write_csv(qrels, qrels_path, write_options=options)
    return qrels_path, run_path


def measured(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in GiB, stdout) of one subprocess."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode()
    if process.returncode:
        raise SystemExit(f"{command[:3]} failed with exit code {process.returncode}")
    return seconds, usage.ru_maxrss / 2**20, text


def in_turns(commands: dict[str, list[str]], env: dict[str, str], repeat: int
             ) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, str]]:
    """Each command ``repeat`` times, in turns (each repetition runs every command once): the wall seconds and peak
    RSS (GiB) of every run per command, and each command's last output (:func:`measured`)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    memory: dict[str, list[float]] = {name: [] for name in commands}
    outputs: dict[str, str] = {}
    for _ in range(repeat):
        for name, command in commands.items():
            seconds, gib, outputs[name] = measured(command, env)
            times[name].append(seconds)
            memory[name].append(gib)
    return times, memory, outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=6980)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = write_collection(Path(tmp), args.queries, args.depth)
        print(f"run: {args.queries:,} queries x {args.depth:,} documents, {run.stat().st_size / 1e6:.0f} MB; "
              f"load average {os.getloadavg()[0]:.2f}")
        commands = {
            "prefeval eval": [sys.executable, "-m", "prefeval", "eval", str(qrels), str(run), *MEASURES, "-p", "-1"],
            "parse floor (pyarrow.csv)": [sys.executable, "-c", FLOOR_SCRIPT, str(run)],
            "pytrec_eval script": [sys.executable, "-c", PYTREC_SCRIPT, str(qrels), str(run), json.dumps(TREC_NAMES)],
        }
        times, memory, outputs = in_turns(commands, env, args.repeat)
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    median = {name: statistics.median(values) for name, values in times.items()}
    peak = {name: statistics.median(values) for name, values in memory.items()}
    print(f"{'':28s} {'seconds':>8s} {'peak GiB':>9s}   (median of {args.repeat}, in turns)")
    for name in commands:
        print(f"{name:28s} {median[name]:8.2f} {peak[name]:9.2f}   times {', '.join(f'{t:.2f}' for t in times[name])}")
    floor, script = "parse floor (pyarrow.csv)", "pytrec_eval script"
    best = {name: min(values) for name, values in times.items()}  # less moved by bursts of load than the medians
    print(f"prefeval eval / parse floor: time {median['prefeval eval'] / median[floor]:.2f}x (goal <= 2; best times "
          f"{best['prefeval eval'] / best[floor]:.2f}x), memory {peak['prefeval eval'] / peak[floor]:.2f}x (goal <= 1.25)")
    print(f"prefeval eval / pytrec_eval script: time {median['prefeval eval'] / median[script]:.2f}x (goal <= 0.4; "
          f"best times {best['prefeval eval'] / best[script]:.2f}x)")
    ours = dict(line.split("\t") for line in outputs["prefeval eval"].splitlines() if line.count("\t") == 1)
    ours = {name: float(value) for name, value in ours.items()}  # "measure<TAB>mean", as ir_measures prints it
    theirs = json.loads(outputs[script])
    worst = max(abs(ours[str(m)] - theirs[m]) for m in MEASURES if str(m) in ours) if ours else float("nan")
    missing = [m for m in MEASURES if m not in ours]
    same = not missing and worst <= 1e-12
    print(f"values {'equal' if same else 'DIFFER'}: " + ", ".join(f"{m} {ours.get(m, float('nan')):.6f} / "
                                                               f"{theirs[m]:.6f}" for m in MEASURES)
          + f" (largest difference {worst:.1e})")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
