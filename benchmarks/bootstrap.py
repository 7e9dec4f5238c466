"""The percentile bootstrap interval of every run's mean, vectorised over resamples, against scipy.stats.bootstrap.

Data: the 14 DL-Hard document runs x 4 measures (nDCG@10, AP, RR, R@100), per-query values from
``prefeval.evaluate`` (56 series over the judged queries), and the 52 differences of each run with the first
(``bm25`` when present). One call of ``prefeval.core.stats.bootstrap_interval`` computes the intervals of all
108 series on the same 10,000 resamples of the queries (a block of resamples is a matrix of query counts, the
means of all series on all its resamples one matrix product); the alternative is ``scipy.stats.bootstrap``
(``method="percentile"``, ``vectorized=True``), one call per series. Both are timed in one run (best of
``--repeat``), and the intervals are compared (they differ by resampling noise only: different random draws).

Run: ``python benchmarks/bootstrap.py [--data PATH] [--resamples 10000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
MEASURES = ["nDCG@10", "AP", "RR", "R@100"]


def series(data: Path) -> tuple[np.ndarray, int, int]:
    """(rows, Q) per-query values: each run's values per measure, then each run's difference with the first run."""
    import prefeval

    folder = data / "dl-hard"
    runs = {p.name.removesuffix(".run.gz"): str(p) for p in sorted((folder / "runs" / "doc").glob("*.run.gz"))}
    if not runs:
        raise SystemExit(f"no DL-Hard document runs under {folder}; pass --data")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_query = prefeval.evaluate(str(folder / "dl_hard-doc.qrels"), runs, MEASURES, per_query=True)
    names = list(runs)
    base = "bm25" if "bm25" in names else names[0]
    rows, diffs = [], []
    for measure in MEASURES:
        table = per_query[per_query["measure"] == measure].pivot(index="query_id", columns="run", values="value")
        table = table.reindex(columns=names).fillna(0.0)
        rows += [table[n].to_numpy() for n in names]
        diffs += [table[n].to_numpy() - table[base].to_numpy() for n in names if n != base]
    return np.array(rows + diffs), len(names), len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from scipy import stats as sps

    from prefeval.core import stats

    X, n_runs, n_means = series(args.data)
    print(f"DL-Hard doc: {n_runs} runs x {len(MEASURES)} measures = {n_means} means and {len(X) - n_means} "
          f"differences with the baseline, {X.shape[1]} queries, {args.resamples:,} resamples")

    def ours():
        return stats.bootstrap_interval(X, n_resamples=args.resamples, seed=7)

    def scipy_one_call_per_series():
        rng = np.random.default_rng(7)
        out = [sps.bootstrap((x,), np.mean, n_resamples=args.resamples, method="percentile", vectorized=True,
                             random_state=rng).confidence_interval for x in X]
        return np.array([c.low for c in out]), np.array([c.high for c in out])

    times: dict[str, list[float]] = {"prefeval": [], "scipy": []}
    results = {}
    for _ in range(args.repeat):
        for name, fn in (("prefeval", ours), ("scipy", scipy_one_call_per_series)):
            start = time.perf_counter()
            results[name] = fn()
            times[name].append(time.perf_counter() - start)
    t_ours, t_scipy = min(times["prefeval"]), min(times["scipy"])
    print(f"  prefeval.core.stats.bootstrap_interval (all series at once) {t_ours:7.3f} s   (target < 2 s)")
    print(f"  scipy.stats.bootstrap (percentile, one call per series)    {t_scipy:7.3f} s   "
          f"ratio scipy / prefeval {t_scipy / t_ours:5.2f}x")
    again = ours()
    print(f"  same seed, same intervals: {bool(np.array_equal(again[0], results['prefeval'][0]))}; "
          f"largest gap to scipy's (resampling noise): "
          f"{float(np.nanmax(np.abs(np.r_[results['prefeval'][0] - results['scipy'][0], results['prefeval'][1] - results['scipy'][1]]))):.4f}")


if __name__ == "__main__":
    main()
