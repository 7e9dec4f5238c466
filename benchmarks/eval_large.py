"""Time ``prefeval eval QRELS RUN nDCG@10 RBU@20`` on a large TREC run (10M lines by default), with peak memory.

Writes a synthetic run (``--queries`` x ``--depth`` lines, TREC format, scores with ties) and graded qrels
(``--judged`` documents per query, about half of them retrieved) into a temporary folder, then runs the command
as a subprocess (``--repeat`` times) and prints its wall time and peak RSS (``getrusage(RUSAGE_CHILDREN)``).

    PYTHONPATH=src python benchmarks/eval_large.py [--queries 10000 --depth 1000 --judged 50 --repeat 1 --measures nDCG@10 RBU@20]

Measured on the 2-core development machine (shared and loaded, so +-30%), 10,000 queries x 1,000 documents
(10M lines, 328 MiB, 1M-document corpus, 4-decimal scores), ``prefeval eval QRELS RUN nDCG@10 RBU@20``:
before 138 s and 2.43 GiB peak RSS, after 19-24 s and 1.32-1.35 GiB. With ``--decimals 1`` (nearly every score
tied) and a document id per line (10M distinct ids): before 150 s and 4.07 GiB, after 29 s and 2.24 GiB.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_inputs(folder: Path, queries: int, depth: int, judged: int, corpus: int, decimals: int,
                 seed: int = 0) -> tuple[Path, Path]:
    """A run of ``queries x depth`` lines and qrels of ``judged`` documents per query (grades 0-3).

    Each query draws its documents from a window of ``2 * depth`` ids of a corpus of ``corpus`` ids (so queries
    share documents, as in a real collection); scores have ``decimals`` decimals (4: few ties, 1: many)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    run_path, qrels_path = folder / "large.run", folder / "large.qrels"
    pool = 2 * depth  # documents per query: the run retrieves half of them
    qids = np.char.add("q", np.arange(queries).astype(str))
    offset = rng.integers(0, max(corpus - pool, 1), queries)
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    with pacsv.CSVWriter(run_path, pa.schema([("q", pa.string()), ("it", pa.string()), ("d", pa.string()),
                                               ("rank", pa.int64()), ("score", pa.float64()), ("tag", pa.string())]),
                         write_options=options) as writer:
        block = max(1, 1_000_000 // depth)
        for start in range(0, queries, block):
            q = np.arange(start, min(start + block, queries))
            docs = offset[q, None] + np.argsort(rng.random((len(q), pool)), axis=1)[:, :depth]
            scores = -np.sort(-np.round(rng.random((len(q), depth)) * 50, decimals), axis=1)
            writer.write_table(pa.table({
                "q": np.repeat(qids[q], depth), "it": np.full(len(q) * depth, "Q0"),
                "d": np.char.add("D", docs.reshape(-1).astype(str)),
                "rank": np.tile(np.arange(1, depth + 1), len(q)), "score": scores.reshape(-1),
                "tag": np.full(len(q) * depth, "bench"),
            }))
    docs = offset[:, None] + np.argsort(rng.random((queries, pool)), axis=1)[:, :judged]
    grades = rng.choice([0, 0, 1, 1, 2, 3], size=(queries, judged))
    pacsv.write_csv(pa.table({
        "q": np.repeat(qids, judged), "it": np.zeros(queries * judged, dtype=np.int64),
        "d": np.char.add("D", docs.reshape(-1).astype(str)),
        "g": grades.reshape(-1),
    }), qrels_path, write_options=options)
    return qrels_path, run_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=50)
    parser.add_argument("--corpus", type=int, default=1_000_000, help="documents in the collection")
    parser.add_argument("--decimals", type=int, default=4, help="decimals of the scores (1: many ties)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--measures", nargs="+", default=["nDCG@10", "RBU@20"])
    parser.add_argument("--keep", type=Path, help="write the inputs into this folder and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        qrels, run = write_inputs(folder, args.queries, args.depth, args.judged, args.corpus, args.decimals)
        print(f"wrote {args.queries * args.depth:,} run lines ({run.stat().st_size / 2**20:.0f} MiB) in "
              f"{time.perf_counter() - start:.1f} s")
        cmd = [sys.executable, "-m", "prefeval", "eval", str(qrels), str(run), *args.measures]
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            out = subprocess.run(cmd, capture_output=True, text=True)  # inherits PYTHONPATH
            times.append(time.perf_counter() - start)
            if out.returncode:
                raise SystemExit(out.stderr)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20  # KiB -> GiB
        print(out.stdout.strip())
        print(f"prefeval eval {' '.join(args.measures)}: best {min(times):.1f} s of {args.repeat}, "
              f"peak RSS {peak:.2f} GiB")


if __name__ == "__main__":
    main()
