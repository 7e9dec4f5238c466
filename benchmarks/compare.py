"""Speed and memory of ``prefeval.compare`` on 100 runs x 50 queries x depth 1000 (4,950 pairs).

The runs are derived from the real DL-Hard runs (document task by default) so that relevance is realistic:
run ``i`` mixes two real runs A and B per query, ``score(d) = -(w rank_A(d) + (1 - w) rank_B(d)) + noise`` (a
document missing from one run takes rank 1001 there), with ``w`` and the noise level drawn per run, and keeps the
top 1,000. They are written as TREC files and read back with ``prefeval.data.trec.read_run`` (untimed), as users load runs.

Timed: ``prefeval.compare(qrels, runs, ["LexiRecall", "LexiPrecision", "RPP"])`` on the loaded DataFrames (file
parsing excluded), best of ``--repeat``. Against it, two pure-Python implementations of the papers' definitions,
both starting from the same DataFrames and ranking every run once (score desc, doc id desc):

* *per pair* (the straightforward one, the speed-up target): for every pair and query the two position vectors
  are built from the rankings and compared -- a function ``preference(ranking_a, ranking_b, qrels)`` called per
  pair; the pair loop is timed on ``--naive-pairs`` pairs and scaled to all pairs;
* *cached*: position vectors computed once per run and query, then the pair loop (all pairs).

Values of both are checked against prefeval's. Peak memory: ``tracemalloc`` peak during a further ``compare`` +
``per_query`` (numpy reports its buffers to tracemalloc) and the process's peak RSS.

With ``--real``, the 14 real DL-Hard doc runs themselves (700k rows, 91 pairs) as read by ``read_run``.

With ``--queries-scaling``, instead, the time of the same ``compare`` on simulated collections
(``prefeval.data.simulate.collection``: 20 runs, depth 1000) of 50, 500 and 5,000 queries, and the ratio of the
5,000-query time to the 50-query one (target: at most 100x, linear in queries).

Run: ``python benchmarks/compare.py [--data PATH] [--runs 100 | --real | --queries-scaling] [--naive-pairs N]``;
``--data`` defaults to ``../shared/data`` beside the checkout.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

import prefeval
from prefeval.data.trec import read_qrels, read_run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import lexiprecision, lexirecall, position_vector  # noqa: E402  (the tests' pure-Python definitions)

METHODS = ["LexiRecall", "LexiPrecision", "RPP"]
DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


# ----------------------------------------------------------------------------------------------
# data


def derive_runs(base: list[pd.DataFrame], n_runs: int, depth: int, seed: int = 0) -> dict[str, pd.DataFrame]:
    """``n_runs`` runs mixing pairs of real runs with noise (see module docstring)."""
    rng = np.random.default_rng(seed)
    ranked = []
    for frame in base:
        f = frame.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
        ranked.append(f.assign(rank=f.groupby("query_id").cumcount() + 1)[["query_id", "doc_id", "rank"]])
    runs = {}
    for i in range(n_runs):
        a, b = rng.choice(len(ranked), size=2, replace=False)
        w, noise = rng.uniform(0.3, 1.0), rng.uniform(0.0, 60.0)
        both = ranked[a].merge(ranked[b], on=["query_id", "doc_id"], how="outer", suffixes=("_a", "_b"))
        ra = both["rank_a"].fillna(1001).to_numpy()
        rb = both["rank_b"].fillna(1001).to_numpy()
        score = -(w * ra + (1 - w) * rb) + noise * rng.standard_normal(len(both))
        run = pd.DataFrame({"query_id": both["query_id"], "doc_id": both["doc_id"], "score": score})
        run = run.sort_values(["query_id", "score"], ascending=[True, False])
        runs[f"run{i:03d}"] = run.groupby("query_id", sort=False).head(depth).reset_index(drop=True)
    return runs


# ----------------------------------------------------------------------------------------------
# straightforward per-pair implementation (the papers' definitions, pure Python; LexiRecall, LexiPrecision and
# position vectors from tests/reference.py)


def naive_rankings(run: pd.DataFrame) -> dict[str, list[str]]:
    """query -> doc ids by score desc, doc id desc; first occurrence kept."""
    by_query: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for q, d, s in zip(run["query_id"], run["doc_id"], run["score"]):
        by_query[q].append((s, d))
    out = {}
    for q, docs in by_query.items():
        seen, ordered = set(), []
        for _, d in sorted(docs, reverse=True):
            if d not in seen:
                seen.add(d)
                ordered.append(d)
        out[q] = ordered
    return out


def naive_rpp(vectors_a: list[list[float]], vectors_b: list[list[float]]) -> float:
    """Graded uniform RPP: binary RPP per grade threshold, weighted by population size."""
    total, weight = 0.0, 0
    for a, b in zip(vectors_a, vectors_b):
        m = len(a)
        signs = sum((1 if x < y else -1 if x > y else 0) for x, y in zip(a, b))
        total += m * (signs / m)
        weight += m
    return total / weight


class Naive:
    """The three preferences from their papers' definitions in plain Python (dicts, lists, loops)."""

    def __init__(self, qrels: pd.DataFrame, rel: int = 1) -> None:
        grades: dict[str, dict[str, int]] = defaultdict(dict)
        for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"]):
            grades[q][d] = max(g, grades[q].get(d, g))
        self.queries = sorted(q for q, docs in grades.items() if any(g >= rel for g in docs.values()))
        # relevant sets per query: the binary one (grade >= rel) and one per grade threshold >= rel (graded RPP)
        self.binary = {q: {d for d, g in grades[q].items() if g >= rel} for q in self.queries}
        self.graded = {q: [{d for d, g in grades[q].items() if g >= t}
                           for t in sorted({g for g in grades[q].values() if g >= rel})] for q in self.queries}

    def rank(self, runs: dict[str, pd.DataFrame]) -> dict[str, dict[str, list[str]]]:
        return {name: naive_rankings(run) for name, run in runs.items()}

    def _pair(self, out: dict, q: str, a: str, b: str, va: list[float], vb: list[float], ga: list, gb: list) -> None:
        out["LexiRecall"][q, a, b] = lexirecall(va, vb)
        out["LexiPrecision"][q, a, b] = lexiprecision(va, vb)
        out["RPP"][q, a, b] = naive_rpp(ga, gb)

    def per_pair(self, rankings: dict[str, dict[str, list[str]]], pairs: list[tuple[int, int]]) -> dict:
        """Every pair from the two rankings: position vectors built per pair and query (as a function
        ``preference(ranking_a, ranking_b, qrels)`` does; the authors' tool did so before its 2024 vector cache)."""
        names = list(rankings)
        out: dict[str, dict] = {m: {} for m in METHODS}
        for i, j in pairs:
            a, b = names[i], names[j]
            for q in self.queries:
                ra, rb = rankings[a].get(q, []), rankings[b].get(q, [])
                self._pair(out, q, a, b, position_vector(ra, self.binary[q]), position_vector(rb, self.binary[q]),
                           [position_vector(ra, r) for r in self.graded[q]], [position_vector(rb, r) for r in self.graded[q]])
        return out

    def vectors(self, rankings: dict[str, dict[str, list[str]]]) -> dict:
        """Position vectors once per run and query (binary, and one per grade threshold)."""
        return {(name, q): (position_vector(r.get(q, []), self.binary[q]),
                            [position_vector(r.get(q, []), rel) for rel in self.graded[q]])
                for name, r in rankings.items() for q in self.queries}

    def cached(self, names: list[str], vectors: dict, pairs: list[tuple[int, int]]) -> dict:
        """Every pair from precomputed position vectors."""
        out: dict[str, dict] = {m: {} for m in METHODS}
        for i, j in pairs:
            a, b = names[i], names[j]
            for q in self.queries:
                (va, ga), (vb, gb) = vectors[a, q], vectors[b, q]
                self._pair(out, q, a, b, va, vb, ga, gb)
        return out


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def read_back(runs: dict[str, pd.DataFrame], folder: Path) -> dict[str, pd.DataFrame]:
    """Write the runs as TREC files and read them with prefeval.data.trec (untimed), as users load runs."""
    out = {}
    for name, run in runs.items():
        path = folder / f"{name}.run"
        run.assign(Q0="Q0", rank=run.groupby("query_id").cumcount() + 1, tag=name)[
            ["query_id", "Q0", "doc_id", "rank", "score", "tag"]].to_csv(path, sep=" ", header=False, index=False)
        out[name] = read_run(path)
    return out


# ----------------------------------------------------------------------------------------------


def queries_scaling(sizes: tuple[int, ...] = (50, 500, 5000), n_runs: int = 20, depth: int = 1000) -> None:
    """Linear in queries: ``compare`` on ``prefeval.data.simulate.collection`` at each number of queries (best of 3
    below 5,000 queries, one run at 5,000), and the ratio of the largest to the smallest time."""
    from prefeval.data import simulate

    times = {}
    for nq in sizes:
        c = simulate.collection(n_queries=nq, n_runs=n_runs, depth=depth, n_docs=1000, seed=1)
        if not times:
            prefeval.compare(c.qrels, c.runs, METHODS)  # warm-up (imports)
        times[nq] = min(timed(lambda c=c: prefeval.compare(c.qrels, c.runs, METHODS))[0]
                        for _ in range(3 if nq < 5000 else 1))
        print(f"{nq:>6,} queries x {n_runs} runs x depth {depth}: {times[nq]:.2f} s", flush=True)
    small, large = sizes[0], sizes[-1]
    print(f"{large:,} / {small:,} queries: {times[large] / times[small]:.0f}x the time for {large // small}x the "
          f"queries (target <= {large // small}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder (with dl-hard/)")
    parser.add_argument("--task", choices=["doc", "passage"], default="doc")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--real", action="store_true",
                        help="compare the real DL-Hard runs themselves (14 doc runs, 91 pairs) as parsed by "
                             "prefeval.data.trec.read_run, instead of derived ones")
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions of compare (best is reported)")
    parser.add_argument("--naive-pairs", type=int, default=500,
                        help="time the per-pair pure-Python loop on this many pairs and scale up (0: all pairs)")
    parser.add_argument("--queries-scaling", action="store_true",
                        help="instead: time compare on simulated collections of 50, 500 and 5,000 queries (20 runs, "
                             "depth 1000) and the ratio of the 5,000-query time to the 50-query one (target <= 100)")
    args = parser.parse_args()
    if args.queries_scaling:
        queries_scaling()
        return
    folder = args.data / "dl-hard"
    if not folder.is_dir():
        sys.exit(f"DL-Hard data not found under {args.data}; pass --data")
    qrels_path = folder / ("dl_hard-doc.qrels" if args.task == "doc" else "dl_hard-passage.qrels")
    base = [read_run(p) for p in sorted((folder / "runs" / args.task).glob("*.run.gz"))]
    qrels = read_qrels(qrels_path)
    if args.real:
        names = [p.name.split(".run")[0] for p in sorted((folder / "runs" / args.task).glob("*.run.gz"))]
        runs = dict(zip(names, base))
    else:
        print(f"deriving {args.runs} runs from {len(base)} DL-Hard {args.task} runs (written to and read from "
              "TREC files, untimed) ...", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            runs = read_back(derive_runs(base, args.runs, args.depth), Path(tmp))
    rows = sum(len(r) for r in runs.values())
    S = len(runs)
    n_pairs = S * (S - 1) // 2
    print(f"{S} runs, {rows:,} rows, {next(iter(runs.values()))['query_id'].nunique()} queries, {n_pairs:,} pairs; "
          f"methods {', '.join(METHODS)}")

    prefeval.compare(qrels, runs, METHODS)  # warm-up (imports)
    times = [timed(lambda: prefeval.compare(qrels, runs, METHODS))[0] for _ in range(args.repeat)]
    t_fast = min(times)
    res = prefeval.compare(qrels, runs, METHODS)
    t_tables, per_query = timed(lambda: (res.summary(), res.per_query)[1])
    print(f"prefeval.compare: {t_fast:.2f} s (best of {args.repeat}: {', '.join(f'{t:.2f}' for t in times)}); "
          f"then per_query ({len(per_query):,} rows) + summary(): {t_tables:.2f} s")

    tracemalloc.start()
    prefeval.compare(qrels, runs, METHODS).per_query  # noqa: B018
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak memory of compare + per_query (tracemalloc): {peak / 2**30:.3f} GiB; "
          f"process peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.3f} GiB")

    naive = Naive(qrels)
    all_pairs = [(i, j) for i in range(S) for j in range(i + 1, S)]
    sample = all_pairs[:args.naive_pairs] if args.naive_pairs else all_pairs
    scale = len(all_pairs) / len(sample)
    t_rank, rankings = timed(lambda: naive.rank(runs))
    t_pairs, values = timed(lambda: naive.per_pair(rankings, sample))
    t_per_pair = t_rank + t_pairs * scale
    t_vec, vectors = timed(lambda: naive.vectors(rankings))
    t_loop, cached_values = timed(lambda: naive.cached(list(runs), vectors, all_pairs))
    t_cached = t_rank + t_vec + t_loop
    note = "" if scale == 1 else f" (pair loop timed on {len(sample):,} pairs, scaled x{scale:.1f})"
    print(f"pure Python, per pair: {t_per_pair:.1f} s = ranking {t_rank:.1f} s + pairs {t_pairs * scale:.1f} s{note}")
    print(f"pure Python, position vectors cached per run and query: {t_cached:.1f} s "
          f"= ranking {t_rank:.1f} s + vectors {t_vec:.1f} s + pairs {t_loop:.1f} s")

    frame = per_query.set_index(["method", "query_id", "run_a", "run_b"])["value"]
    worst = 0.0
    for results in (values, cached_values):
        for method, vals in results.items():
            keys = [(method, q, a, b) for (q, a, b) in vals]
            worst = max(worst, float(np.max(np.abs(frame.loc[keys].to_numpy() - np.fromiter(vals.values(), float)))))
    print(f"max |prefeval - pure Python| over all compared values: {worst:.2e}")
    print(f"{n_pairs:,} pairs in {t_fast:.3f} s; speed-up {t_per_pair / t_fast:.1f}x over the per-pair "
          f"implementation (targets: >= 50x at S = 100, >= 15x on the 14 real runs), {t_cached / t_fast:.0f}x over the cached one; "
          f"peak {peak / 2**30:.2f} GiB (target < 2 GiB)")


if __name__ == "__main__":
    main()
