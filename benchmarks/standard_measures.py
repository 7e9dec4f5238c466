"""Standard measures through prefeval against ir-measures and ranx alone (issue 31: prefeval at most 1.1x).

``prefeval.evaluate(qrels, runs, ["nDCG@10", "AP", "P@10", "RR"])`` (one call for all runs) against
``ir_measures.calc_aggregate`` of the same measures once per run, on two collections:

* the 14 DL-Hard document runs (TREC files; skipped without the data), and
* 5 simulated runs x ``--queries`` queries (default 10,000; the figures below at 2,000) x depth 100
  (:func:`prefeval.data.simulate.collection`, scores rounded to 3 decimals so that ties occur, 200 candidates per
  query, the pool of the top 20 judged), written as TREC files to a temporary folder.

Each collection is timed three ways: given dicts of dicts (``{query: {doc: score}}``, built beforehand, the same
for both), given DataFrames (prefeval; the reader's frames, built beforehand) against ir-measures given the dicts,
and given the TREC files (prefeval's reader against ir-measures' ``read_trec_qrels`` / ``read_trec_run``, reading
included). ranx's ``evaluate`` on ``Qrels``/``Run`` objects built beforehand is shown beside them (warm: its numba
functions compiled by a first call). Each time is the best of ``--repeat``, the contenders taking turns in each
round (so a change of the machine's load hits all of them; the simulated collection: at most 3 rounds). The largest
difference of a mean between prefeval and ir-measures is printed too (0 expected: trec_eval orders ties by doc id
descending, as prefeval does; prefeval computes these four measures with the numpy kernels of
:mod:`prefeval.core.trec_measures`, ir-measures with pytrec_eval).

Measured on the 2-core development machine (shared; load average 7.6; the figures are kept in
``docs/performance.md``), with the one evaluation path (:func:`prefeval.engine.values.measure_values`: trec_eval's
common measures by the numpy kernels of :mod:`prefeval.core.trec_measures`, every run read and ranked once by
prefeval; a dict of dicts ranked from its codes, :func:`prefeval.data.inputs.encoded_run`): DL-Hard given dicts
0.87x, given DataFrames 0.59x, given files 0.19x (ranx warm 0.56x); simulated (2,000 queries) given dicts 1.02x,
DataFrames 0.72x, files 0.16x; every mean equal to within 1.6e-15.

Run: ``python benchmarks/standard_measures.py [--data DIR] [--repeat 5] [--queries 10000]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path

import ir_measures

import prefeval
from prefeval.data import simulate
from prefeval.data.trec import read_qrels, read_run

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MEASURES = ["nDCG@10", "AP", "P@10", "RR"]
RANX_NAMES = ["ndcg@10", "map", "precision@10", "mrr"]


def nested(frame, value: str, kind=float) -> dict:
    out: dict = {}
    for q, d, v in zip(frame["query_id"].tolist(), frame["doc_id"].tolist(), frame[value].tolist()):
        out.setdefault(q, {})[d] = kind(v)
    return out


def rounds(contenders: dict, repeat: int) -> dict[str, tuple[float, object]]:
    """Best time (and last value) of each contender over ``repeat`` rounds, the contenders taking turns."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    values: dict[str, object] = {}
    for _ in range(repeat):
        for name, fn in contenders.items():
            start = time.perf_counter()
            values[name] = fn()
            times[name].append(time.perf_counter() - start)
    return {name: (min(times[name]), values[name]) for name in contenders}


def gap(table, reference: dict) -> float:
    """The largest difference between prefeval's means and ir-measures' (``{run: {measure: value}}``)."""
    pivot = table.pivot(index="run", columns="measure", values="value")
    return max(abs(pivot.loc[n, str(m)] - v) for n, values in reference.items() for m, v in values.items())


def compare(label: str, qrels_path: Path, run_paths: dict[str, Path], repeat: int) -> None:
    qrels_frame = read_qrels(qrels_path)
    run_frames = {name: read_run(path) for name, path in run_paths.items()}
    qrels = nested(qrels_frame, "relevance", int)
    runs = {name: nested(frame, "score") for name, frame in run_frames.items()}
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    lines = sum(sum(map(len, r.values())) for r in runs.values())
    print(f"\n{label}: {len(runs)} runs, {lines:,} result lines, {len(qrels):,} judged queries")

    def irm_files() -> dict:
        judged = list(ir_measures.read_trec_qrels(str(qrels_path)))  # read once, as a list of Qrel records
        return {n: ir_measures.calc_aggregate(measures, judged, ir_measures.read_trec_run(str(p)))
                for n, p in run_paths.items()}

    contenders = {
        "irm dicts": lambda: {n: ir_measures.calc_aggregate(measures, qrels, r) for n, r in runs.items()},
        "prefeval dicts": lambda: prefeval.evaluate(qrels, runs, MEASURES),
        "prefeval frames": lambda: prefeval.evaluate(qrels_frame, run_frames, MEASURES),
        "irm files": irm_files,
        "prefeval files": lambda: prefeval.evaluate(str(qrels_path), {n: str(p) for n, p in run_paths.items()},
                                                    MEASURES),
    }
    try:
        import ranx
    except ImportError:
        ranx = None
    if ranx is not None:
        ranx_qrels = ranx.Qrels(qrels)
        ranx_runs = {n: ranx.Run(r, name=n) for n, r in runs.items()}
        ranx.evaluate(ranx_qrels, next(iter(ranx_runs.values())), RANX_NAMES)  # compile (numba)
        contenders["ranx warm"] = lambda: {n: ranx.evaluate(ranx_qrels, r, RANX_NAMES) for n, r in ranx_runs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rounds(contenders, repeat)
    t = {name: seconds for name, (seconds, _) in result.items()}
    print(f"  given dicts: ir_measures.calc_aggregate {t['irm dicts']:6.3f} s   prefeval.evaluate "
          f"{t['prefeval dicts']:6.3f} s   ratio {t['prefeval dicts'] / t['irm dicts']:5.2f}x (target <= 1.1x)")
    print(f"  prefeval given DataFrames {t['prefeval frames']:6.3f} s   ratio to ir-measures given dicts "
          f"{t['prefeval frames'] / t['irm dicts']:5.2f}x (target <= 1.1x)")
    print(f"  given files: ir_measures (read_trec_*)  {t['irm files']:6.3f} s   prefeval.evaluate "
          f"{t['prefeval files']:6.3f} s   ratio {t['prefeval files'] / t['irm files']:5.2f}x (target <= 1.0x)")
    if ranx is not None:
        print(f"  ranx.evaluate (warm, dicts as Run objects) {t['ranx warm']:6.3f} s   "
              f"{t['ranx warm'] / t['irm dicts']:5.2f}x ir-measures given dicts")
    largest = max(gap(result["prefeval dicts"][1], result["irm dicts"][1]),
                  gap(result["prefeval frames"][1], result["irm dicts"][1]),
                  gap(result["prefeval files"][1], result["irm files"][1]))
    print(f"  largest difference of a mean (prefeval vs ir-measures): {largest:.2e}")


def write_trec(folder: Path, n_queries: int) -> tuple[Path, dict[str, Path]]:
    """The simulated collection as TREC files in ``folder``: qrels and one run file per run."""
    c = simulate.collection(n_queries=n_queries, n_runs=5, depth=100, n_docs=200, judged_depth=20,
                            score_decimals=3, seed=1)
    qrels_path = folder / "sim.qrels"
    q = c.qrels
    qrels_path.write_text("".join(f"{a} 0 {b} {g}\n" for a, b, g in
                                  zip(q["query_id"].tolist(), q["doc_id"].tolist(), q["relevance"].tolist())))
    paths = {}
    for name, run in c.runs.items():
        ranks = run.groupby("query_id", sort=False).cumcount().to_numpy() + 1
        lines = (f"{a} Q0 {b} {r} {s!r} sim\n" for a, b, r, s in
                 zip(run["query_id"].tolist(), run["doc_id"].tolist(), ranks.tolist(), run["score"].tolist()))
        paths[name] = folder / f"{name}.run"
        paths[name].write_text("".join(lines))
    return qrels_path, paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--queries", type=int, default=10_000, help="queries of the simulated collection")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}, "
          f"{os.cpu_count()} cores; best of {args.repeat}, contenders taking turns")
    folder = args.data / "dl-hard"
    if (folder / "dl_hard-doc.qrels").exists():
        paths = sorted((folder / "runs" / "doc").glob("*.run.gz"))
        compare("DL-Hard documents", folder / "dl_hard-doc.qrels", {p.name.split(".run")[0]: p for p in paths},
                args.repeat)
    else:
        print(f"DL-Hard skipped: no data in {folder}")
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, paths = write_trec(Path(tmp), args.queries)
        compare(f"simulated, 5 runs x {args.queries:,} queries x depth 100", qrels_path, paths,
                max(1, min(args.repeat, 3)))


if __name__ == "__main__":
    main()
