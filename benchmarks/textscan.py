"""Time the numpy scanner of TREC text (``prefeval.textscan``) on real runs, against the usual alternatives.

Reads the run files given (default: the 14 DL-Hard document runs in ``../shared/data/dl-hard/runs/doc``),
decompresses them once, then times, summed over the files (best of ``--repeat``, one thread):

* the scanner: ``split_fields(data, 6)``, ``parse_floats`` of the score field and ``token_bytes`` of the query and
  document ids -- the work a pandas-free reader does; each stage is also shown on its own, and ``split_fields`` on
  the files with an empty line after each line (as blanked comment lines) and with every space doubled;
* ``bytes.split()`` (the pure-Python split, no conversion), ``numpy.loadtxt`` of the score column and
  ``S``-array ``astype(float)`` of the scores, and pandas' ``read_csv`` (C engine, whitespace separator, exact
  floats) of the whole file when pandas is installed.

The scanner's scores are checked bit for bit against Python's ``float`` and its ids against ``bytes.split``.

    python benchmarks/textscan.py [--repeat 7] [RUN ...]
"""

from __future__ import annotations

import argparse
import gzip
import io
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from prefeval.textscan import parse_floats, split_fields, token_bytes

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "dl-hard" / "runs" / "doc"


def best(fn: Callable[[bytes], object], datas: list[bytes], repeat: int) -> tuple[float, float]:
    """Best over ``repeat`` rounds of the time to call ``fn`` on every file: (elapsed, CPU time of the process)."""
    elapsed, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        for data in datas:
            fn(data)
        elapsed.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return min(elapsed), min(cpu)


def scan(data: bytes) -> tuple:
    starts, ends = split_fields(data, 6)
    return (parse_floats(data, starts[:, 4], ends[:, 4]), token_bytes(data, starts[:, 0], ends[:, 0]),
            token_bytes(data, starts[:, 2], ends[:, 2]))


def check(data: bytes) -> None:
    """The scanner's scores and ids are those of ``float`` and ``bytes.split`` (stops with an error if not)."""
    scores, queries, docs = scan(data)
    lines = [line.split() for line in data.splitlines() if line.strip()]
    expected = np.array([float(line[4]) for line in lines])
    assert scores.view(np.uint64).tolist() == expected.view(np.uint64).tolist(), "scores differ"
    assert queries.tolist() == [line[0] for line in lines], "query ids differ"
    assert docs.tolist() == [line[2] for line in lines], "document ids differ"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    paths = args.runs or sorted(p for p in DEFAULT.glob("*.run.gz"))
    if not paths:
        parser.error(f"no run files given and none found in {DEFAULT}")
    datas = [gzip.decompress(p.read_bytes()) if p.read_bytes()[:2] == b"\x1f\x8b" else p.read_bytes()
             for p in paths]
    size = sum(map(len, datas))
    lines = sum(data.count(b"\n") for data in datas)
    print(f"{len(datas)} files, {size / 1e6:.1f} MB, {lines:,} lines; best of {args.repeat}, seconds for all files")
    print(f"{'':45s} {'elapsed':>7s} {'CPU':>7s}")

    fields = [split_fields(data, 6) for data in datas]
    columns = {id(data): f for data, f in zip(datas, fields, strict=True)}

    def floats_only(data: bytes) -> None:
        starts, ends = columns[id(data)]
        parse_floats(data, starts[:, 4], ends[:, 4])

    def ids_only(data: bytes) -> None:
        starts, ends = columns[id(data)]
        token_bytes(data, starts[:, 0], ends[:, 0])
        token_bytes(data, starts[:, 2], ends[:, 2])

    def report(name: str, fn: Callable[[bytes], object]) -> None:
        elapsed, cpu = best(fn, datas, args.repeat)
        print(f"{name:45s} {elapsed:7.3f} {cpu:7.3f}", flush=True)

    # the scanner first: the alternatives below leave millions of Python objects behind
    report("textscan: split + scores + 2 id columns", scan)
    report("  split_fields only", lambda data: split_fields(data, 6))
    spaced = {id(data): b"\n\n" + data.replace(b"\n", b"\n\n") for data in datas}
    report("  split_fields, an empty line after each", lambda data: split_fields(spaced[id(data)], 6))
    doubled = {id(data): data.replace(b" ", b"  ") for data in datas}
    report("  split_fields, double spaces (general scan)", lambda data: split_fields(doubled[id(data)], 6))
    report("  parse_floats of the scores only", floats_only)
    report("  token_bytes of 2 id columns only", ids_only)
    report("bytes.split() (no conversion)", bytes.split)
    report("numpy.loadtxt of the scores", lambda data: np.loadtxt(io.BytesIO(data), usecols=4, dtype=np.float64))
    scores = {id(data): np.array([line.split()[4] for line in data.splitlines()]) for data in datas}
    report("S-array astype(float) of the scores", lambda data: scores[id(data)].astype(np.float64))
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        report("pandas read_csv (C engine, whole file)", lambda data: pd.read_csv(
            io.BytesIO(data), sep=r"\s+", header=None, dtype={0: str, 2: str, 4: np.float64, 5: str},
            na_filter=False, engine="c"))
    for data in datas:
        check(data)
    print("checked: scores bit for bit as float(), ids as bytes.split()")

if __name__ == "__main__":
    main()
