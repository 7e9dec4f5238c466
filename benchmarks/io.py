"""Read speed of ``prefeval.data.trec.read_run`` against ``pyarrow.csv.read_csv`` and ``ir_measures.read_trec_run``.

Writes a synthetic TREC run of about 100 MB (1,700 queries x 1,000 documents, 6 fields) to a
temporary directory, reads it with each reader (best of ``--repeat``, the readers taking turns in each round) and
prints the times and ratios: ``read_run_columns`` (the columns every engine reads) and ``read_run`` (a DataFrame).
``pyarrow.csv.read_csv`` (space delimiter, types inferred, no validation) is the parser's floor: prefeval reads with
it too, after the format's checks (BOM, CRLF, comments, every character of the ids) -- target within 2x.
``ir_measures.read_trec_run`` yields one named tuple per line, so the comparison materialises the
tuples into a DataFrame as a user of ir-measures would. Run: ``python benchmarks/io.py``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd

from prefeval.data.trec import read_run, read_run_columns


def write_synthetic_run(path: Path, queries: int, depth: int, seed: int = 0) -> None:
    """A run with MS MARCO-like ids and decreasing float scores (vectorised, no per-line loop)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(1000, 1000 + queries), depth)
    rank = np.tile(np.arange(1, depth + 1), queries)
    doc = rng.integers(0, 8_841_823, size=queries * depth)
    score = np.sort(rng.normal(10.0, 3.0, size=(queries, depth)), axis=1)[:, ::-1].ravel()
    frame = pd.DataFrame({"q": qid, "Q0": "Q0", "d": np.char.add("msmarco_passage_", doc.astype(str)),
                          "r": rank, "s": np.round(score, 6), "t": "bm25_synthetic"})
    frame.to_csv(path, sep=" ", header=False, index=False)


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    """Best time of ``repeat`` calls, and the last value."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def pyarrow_reader():
    """``pyarrow.csv.read_csv`` on a space-separated file without header."""
    import pyarrow.csv as pacsv

    options = {"read_options": pacsv.ReadOptions(autogenerate_column_names=True),
               "parse_options": pacsv.ParseOptions(delimiter=" ")}
    return lambda path: pacsv.read_csv(path, **options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1700)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.run"
        write_synthetic_run(path, args.queries, args.depth)
        size_mb = path.stat().st_size / 1e6
        arrow = pyarrow_reader()
        times: dict[str, list[float]] = {"columns": [], "frame": [], "arrow": []}
        for _ in range(args.repeat):  # in turns: a change of the machine's load hits every reader
            t, columns = timed(lambda: read_run_columns(path))
            times["columns"].append(t)
            t, ours = timed(lambda: read_run(path))
            times["frame"].append(t)
            t, table = timed(lambda: arrow(path))
            times["arrow"].append(t)
        t_cols, t_ours, t_arrow = min(times["columns"]), min(times["frame"]), min(times["arrow"])
        assert table.num_rows == len(ours) == len(columns)
        print(f"run file: {size_mb:.1f} MB, {len(ours):,} lines; load average {os.getloadavg()[0]:.1f}")
        print(f"prefeval.data.trec.read_run_columns {t_cols:6.2f} s  ({size_mb / t_cols:5.1f} MB/s)")
        print(f"prefeval.data.trec.read_run         {t_ours:6.2f} s  ({size_mb / t_ours:5.1f} MB/s)")
        print(f"pyarrow.csv.read_csv                {t_arrow:6.2f} s  ({size_mb / t_arrow:5.1f} MB/s)")
        print(f"ratio (prefeval / pyarrow.csv): columns {t_cols / t_arrow:.2f}x, DataFrame {t_ours / t_arrow:.2f}x "
              "(target: within 2x)")
        t_irm, theirs = timed(lambda: pd.DataFrame(ir_measures.read_trec_run(str(path))))
        assert len(ours) == len(theirs) == args.queries * args.depth
        print(f"ir_measures.read_trec_run    {t_irm:6.2f} s  ({size_mb / t_irm:5.1f} MB/s)")
        print(f"ratio (ir_measures / prefeval): {t_irm / t_ours:.1f}x")


if __name__ == "__main__":
    main()
