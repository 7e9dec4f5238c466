"""Three computations done once item by item in Python, timed against that way in one run (the old way is the
tests' definition of each, which the tests check the current code against to the last bit):

* ``findings``: :func:`prefeval.pipeline.findings.order_disagreements` (the pairs of runs a preference and a metric
  order oppositely) on ``--runs`` simulated runs (all pairs) x 3 preferences x 5 metrics, against the loop over
  pairs with a ``.loc`` lookup per pair (``tests/test_order_disagreements.py``);
* ``verify``: the shape check of a CSV table ``prefeval report`` renders from
  (``prefeval.pipeline.verify._check_csv``) on a ``per_query.csv`` of ``--rows`` rows as the pipeline writes it,
  against the csv module's row-by-row loop alone (``_check_rows``);
* ``reusability``: :func:`prefeval.analysis.reusability.leave_one_run_out` (AP, nDCG@10, RR, LexiRecall,
  LexiPrecision and RPP and their condensed variants, pool depth 10, rel 2) on the 6 DL-Hard passage runs and the
  14 DL-Hard document runs (``../shared/data``; skipped without it), against every run evaluated again on each
  left-out run's reduced qrels (``tests/test_reusability.py``).

Each result is checked equal to the old way's (``verify``: both accept the table, neither raises); the current
way's time is the best of ``--repeat``, the old way's that of one call.

    python benchmarks/loops.py [--case findings|verify|reusability|all] [--runs 100] [--rows 1000000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT / "tests"))


def best(repeat: int, function, *args, **kwargs) -> tuple[float, object]:
    """The best time of ``repeat`` calls of ``function(*args, **kwargs)`` and its result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return min(times), result


def report(what: str, new: float, old: float) -> None:
    print(f"{what}: {new:.3f} s, the old way {old:.3f} s: {old / new:.1f}x")


def findings(n_runs: int, repeat: int) -> None:
    import prefeval
    from prefeval.data import simulate
    from prefeval.pipeline.findings import order_disagreements
    from test_order_disagreements import pair_by_pair

    data = simulate.collection(n_queries=30, n_runs=n_runs, depth=50, n_docs=100, seed=1)
    methods, measures = ["LexiRecall", "LexiPrecision", "RPP"], ["AP", "nDCG@10", "RR", "P@10", "Rprec"]
    comparison = prefeval.compare(data.qrels, data.runs, methods, per_query=False)
    means = prefeval.evaluate(data.qrels, data.runs, measures).pivot(index="run", columns="measure", values="value")
    context = SimpleNamespace(comparison=comparison, methods=methods, measures=measures, means_table=lambda: means)
    new, rows = best(repeat, order_disagreements, context)
    old, expected = best(1, pair_by_pair, context)
    assert rows == expected
    pairs = len(comparison.pairs)
    opposite = sum(len(r["opposite"]) for r in rows)
    report(f"order_disagreements, {n_runs} runs ({pairs:,} pairs) x {len(methods)} preferences x {len(measures)} "
           f"metrics ({opposite:,} opposite)", new, old)


def verify(n_rows: int, repeat: int) -> None:
    from prefeval.pipeline.verify import CSV_COLUMNS, _check_csv, _check_rows

    rng = np.random.default_rng(1)
    n_runs, n_queries = 20, 1000
    frame = pd.DataFrame({"run": np.repeat([f"run{i}" for i in range(n_runs)], -(-n_rows // n_runs))[:n_rows],
                          "query_id": np.tile(np.arange(n_queries).astype(str), -(-n_rows // n_queries))[:n_rows],
                          "measure": "nDCG@10", "value": rng.random(n_rows)})
    columns, numbers = CSV_COLUMNS["per_query.csv"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "per_query.csv"
        frame.to_csv(path, index=False)
        size = path.stat().st_size
        new, _ = best(repeat, _check_csv, path, columns, numbers)
        old, _ = best(1, _check_rows, path, columns, numbers)
    report(f"verify per_query.csv, {n_rows:,} rows ({size / 2**20:.0f} MiB)", new, old)


def reusability(data: Path, repeat: int) -> None:
    from prefeval.analysis.reusability import leave_one_run_out
    from test_reusability import one_evaluation_per_run

    folder = data / "dl-hard"
    if not folder.is_dir():
        print(f"reusability: skipped ({folder} not found)")
        return
    measures = ["AP", "nDCG@10", "RR", "LexiRecall", "LexiPrecision", "RPP"]
    for kind in ("passage", "doc"):
        runs = sorted((folder / "runs" / kind).glob("*.run.gz"))
        qrels = folder / f"dl_hard-{kind}.qrels"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            new, rows = best(repeat, leave_one_run_out, qrels, runs, measures, depth=10, rel=2)
            old, expected = best(1, one_evaluation_per_run, qrels, runs, measures, depth=10, rel=2)
        pd.testing.assert_frame_equal(rows, expected, check_exact=True)
        report(f"leave_one_run_out, DL-Hard {kind}, {len(runs)} runs x {len(measures)} measures and their condensed "
               f"variants ({len(rows)} rows, equal)", new, old)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["findings", "verify", "reusability", "all"], default="all")
    parser.add_argument("--runs", type=int, default=100, help="simulated runs of the findings case")
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of the verify case's per_query.csv")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder (with dl-hard/)")
    args = parser.parse_args()
    if args.case in ("findings", "all"):
        findings(args.runs, args.repeat)
    if args.case in ("verify", "all"):
        verify(args.rows, args.repeat)
    if args.case in ("reusability", "all"):
        reusability(args.data, args.repeat)


if __name__ == "__main__":
    main()
