"""Time prefeval's measures through ``ir_measures.calc_aggregate`` against nDCG@10 via pytrec_eval.

On the largest shared run set (the 14 DL-Hard document runs, 50 queries x 1000 documents each), every
run is evaluated with RBU@20, with RPP against the bm25 baseline and with nDCG@10 (pytrec_eval), each
measure in its own ``calc_aggregate`` call (one per run, as a loop over runs does); the script prints seconds
per run and the ratio to nDCG@10.

``--forms`` (the default) repeats nDCG@10, RBU@20 and RPP for each input form ir-measures accepts, qrels and runs
given in the same form: DataFrames (:func:`prefeval.data.trec.read_qrels` / :func:`~prefeval.data.trec.read_run`), lists of
``ir_measures.Qrel`` / ``ScoredDoc``, generators over those lists (a fresh one per call, as
``ir_measures.read_trec_run(...)`` gives) and dicts of dicts. Conversions between forms are untimed; each run's
time is the best of ``--repeat`` calls, the measures timed in turn on the same run, so the ratios compare calls
made under the same load. Measured on the 2-core development machine (shared, load 2.5-4, several runs), RBU@20
and RPP over nDCG@10: DataFrames 0.05-0.06, lists and generators 0.42-0.51 (RBU@20: read down to rank 20) and
0.74-0.82 (RPP) -- records read straight into integer codes; before that 0.77-0.83 --, dicts 0.34-0.42 and
0.70-0.84 -- dicts read straight into integer codes; before that 1.34-1.37; at first 0.26-0.28, 3.3-3.8, 4.2-4.5,
6.0-6.1.

    python benchmarks/measures.py [--data ../shared/data] [--runs 14] [--repeat 3] [--forms | --all-measures]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ir_measures
import pandas as pd

import prefeval
from prefeval.data.trec import read_qrels, read_run

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def best_times(measures: list, qrels: Callable[[], Any], runs: list[Callable[[], Any]],
               repeat: int = 3) -> list[float]:
    """Seconds per run to evaluate every run with each of ``measures`` (one ``calc_aggregate`` call per run and
    measure): for each run the best of ``repeat`` calls, the measures timed one after the other on the same run
    (so that the load of a shared machine affects them alike). ``qrels`` and each run are functions giving the
    input (a generator is made afresh for each call, outside the timed region)."""
    best = [[float("inf")] * len(runs) for _ in measures]
    for _ in range(repeat):
        for r, run in enumerate(runs):
            for m, measure in enumerate(measures):
                q, data = qrels(), run()
                start = time.perf_counter()
                ir_measures.calc_aggregate([measure], q, data)
                best[m][r] = min(best[m][r], time.perf_counter() - start)
    return [sum(row) / len(runs) for row in best]


def as_dict(frame: pd.DataFrame, value: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for q, d, v in zip(frame["query_id"].tolist(), frame["doc_id"].tolist(), frame[value].tolist()):
        out.setdefault(q, {})[d] = v
    return out


def forms(qrels: pd.DataFrame, run: pd.DataFrame) -> dict[str, tuple[Callable[[], Any], Callable[[], Any]]]:
    """For each input form, functions giving the qrels and the run in that form."""
    qrels_list = [ir_measures.Qrel(*row) for row in zip(qrels["query_id"].tolist(), qrels["doc_id"].tolist(),
                                                        qrels["relevance"].tolist(), qrels["iteration"].tolist())]
    run_list = [ir_measures.ScoredDoc(*row) for row in zip(run["query_id"].tolist(), run["doc_id"].tolist(),
                                                           run["score"].tolist())]
    qrels_dict, run_dict = as_dict(qrels, "relevance"), as_dict(run, "score")
    return {
        "DataFrame": (lambda: qrels, lambda: run),
        "list": (lambda: qrels_list, lambda: run_list),
        "generator": (lambda: (r for r in qrels_list), lambda: (r for r in run_list)),
        "dict": (lambda: qrels_dict, lambda: run_dict),
    }


def by_form(qrels: pd.DataFrame, runs: list[pd.DataFrame], repeat: int) -> None:
    measures = {"RBU@20": prefeval.RBU(p=0.8, e=0.03) @ 20, "RPP": prefeval.RPP(baseline="bm25")}
    per_run = [forms(qrels, run) for run in runs]
    print(f"{'input form':12s} {'nDCG@10 s/run':>14s} " + " ".join(f"{n + ' s/run':>13s} {'ratio':>6s}"
                                                                    for n in measures))
    for form in per_run[0]:
        reference, *seconds = best_times([ir_measures.nDCG @ 10, *measures.values()], per_run[0][form][0],
                                         [p[form][1] for p in per_run], repeat)
        print(f"{form:12s} {reference:14.4f} " + " ".join(f"{s:13.4f} {s / reference:6.2f}" for s in seconds),
              flush=True)


def all_measures(qrels: pd.DataFrame, runs: list[pd.DataFrame], repeat: int) -> None:
    measures = [ir_measures.nDCG @ 10, prefeval.RBU(p=0.8, e=0.03) @ 20, prefeval.RPP(baseline="bm25"),
                prefeval.RPP(baseline="bm25", weighting="dcg", graded=False),
                prefeval.LexiRecall(baseline="bm25"), prefeval.LexiPrecision(baseline="bm25"), prefeval.TSE]
    reference, *seconds = best_times(measures, lambda: qrels, [lambda r=r: r for r in runs], repeat)
    print(f"{'measure (DataFrames)':45s} {'s/run':>8s} {'x nDCG@10':>10s}")
    print(f"{'nDCG@10 (pytrec_eval)':45s} {reference:8.3f} {1.0:10.2f}")
    for measure, value in zip(measures[1:], seconds):
        print(f"{str(measure):45s} {value:8.3f} {value / reference:10.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument("--runs", type=int, default=14, help="how many of the 14 runs (default all)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many (default 3)")
    parser.add_argument("--all-measures", action="store_true",
                        help="every prefeval measure, DataFrame inputs only (instead of the input forms)")
    args = parser.parse_args()
    folder = args.data / "dl-hard"
    if not (folder / "dl_hard-doc.qrels").exists():
        print(f"skipped: no DL-Hard data in {folder}")
        return
    qrels = read_qrels(folder / "dl_hard-doc.qrels")
    paths = sorted((folder / "runs" / "doc").glob("*.run.gz"))
    prefeval.register_run("bm25", read_run(folder / "runs" / "doc" / "bm25.run.gz"))
    runs = [read_run(p) for p in paths[:args.runs]]
    print(f"{len(runs)} runs, {sum(len(r) for r in runs):,} result lines, {qrels['query_id'].nunique()} queries, "
          f"best of {args.repeat}")
    (all_measures if args.all_measures else by_form)(qrels, runs, args.repeat)


if __name__ == "__main__":
    main()
