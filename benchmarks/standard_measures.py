"""Standard measures through prefeval against ir-measures and ranx alone, on the 14 DL-Hard document runs.

``prefeval.evaluate(qrels, runs, ["nDCG@10", "AP", "P@10", "RR"])`` (one call for all runs: the runs read, checked,
ranked once each -- ties by doc id, a repeated document at its first position -- and given to pytrec_eval) against
``ir_measures.calc_aggregate`` of the same measures given the same dicts of dicts, once per run (pytrec_eval on the
runs as they are), and ranx's ``evaluate`` on ``Qrels``/``Run`` objects built beforehand (warm: its numba functions
compiled by a first call). Each time is the best of ``--repeat``; the script prints the times and the ratios
(target of issue 24: prefeval at most 1.0x ir-measures). prefeval is timed given the dicts and given the files
(reading included). Measured on the 2-core development machine (shared, load 7-10): given dicts 1.16-1.31x
(before: 2.0-2.3x; dict runs now go to pytrec_eval as given when every measure is pytrec_eval's), given the files
3.0-3.3x; ranx warm 0.70-0.94x.
Run: ``python benchmarks/standard_measures.py [--data ../shared/data] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import ir_measures

import prefeval
from prefeval.data.trec import read_qrels, read_run

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MEASURES = ["nDCG@10", "AP", "P@10", "RR"]


def best(fn, repeat: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def nested(frame, value: str) -> dict:
    out: dict = {}
    for q, d, v in zip(frame["query_id"], frame["doc_id"], frame[value]):
        out.setdefault(q, {})[d] = v
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = args.data / "dl-hard"
    if not (folder / "dl_hard-doc.qrels").exists():
        print(f"skipped: no DL-Hard data in {folder}")
        return
    qrels_path = folder / "dl_hard-doc.qrels"
    paths = sorted((folder / "runs" / "doc").glob("*.run.gz"))
    qrels = nested(read_qrels(qrels_path), "relevance")
    qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()}
    runs = {p.name.split(".run")[0]: nested(read_run(p), "score") for p in paths}
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    print(f"{len(runs)} runs, {sum(sum(map(len, r.values())) for r in runs.values()):,} result lines")

    t_irm, irm = best(lambda: {n: ir_measures.calc_aggregate(measures, qrels, r) for n, r in runs.items()}, args.repeat)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_dicts, ours = best(lambda: prefeval.evaluate(qrels, runs, MEASURES), args.repeat)
        t_files, _ = best(lambda: prefeval.evaluate(str(qrels_path), [str(p) for p in paths], MEASURES), args.repeat)
    table = ours.pivot(index="run", columns="measure", values="value")
    gap = max(abs(table.loc[n, str(m)] - v) for n, values in irm.items() for m, v in values.items())
    print(f"ir_measures.calc_aggregate (dicts, per run)    {t_irm:6.3f} s")
    print(f"prefeval.evaluate (the same dicts)             {t_dicts:6.3f} s   {t_dicts / t_irm:5.2f}x ir-measures "
          "(target <= 1.0x)")
    print(f"prefeval.evaluate (the files, reading included) {t_files:6.3f} s   {t_files / t_irm:5.2f}x ir-measures")
    print(f"largest difference of a mean: {gap:.2e} (runs with tied scores are ranked by doc id in prefeval)")
    try:
        import ranx
    except ImportError:
        print("ranx                                        skipped (not installed)")
        return
    rq = ranx.Qrels(qrels)
    rruns = {n: ranx.Run(r, name=n) for n, r in runs.items()}
    names = ["ndcg@10", "map", "precision@10", "mrr"]
    ranx.evaluate(rq, next(iter(rruns.values())), names)  # compile (numba)
    t_ranx, _ = best(lambda: {n: ranx.evaluate(rq, r, names) for n, r in rruns.items()}, args.repeat)
    print(f"ranx.evaluate (warm, per run)                  {t_ranx:6.3f} s   {t_ranx / t_irm:5.2f}x ir-measures")


if __name__ == "__main__":
    main()
