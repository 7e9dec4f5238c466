"""Time the all-pairs kernels against a straightforward per-pair Python loop.

Builds random position matrices (queries x runs x recall levels; +inf = unretrieved)
and prints, per method, the time per query of the vectorised ``*_matrix`` kernel and of
a plain Python implementation that loops over all ordered pairs (the style of the
reference tools), with the ratio. The loop is timed on a subset of the queries
(``--loop-queries``) because it is slow; both are checked to give the same matrices.

    python benchmarks/kernels.py [--queries 100 --runs 100 --levels 100 --loop-queries 5]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from prefeval.core.lexicographic import lexiprecision_matrix, lexirecall_matrix
from prefeval.core.rpp import recall_level_weights, rpp_matrix

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import lexiprecision, lexirecall  # noqa: E402  (the tests' pure-Python definitions)

INF = math.inf


def random_positions(rng: np.random.Generator, queries: int, runs: int, levels: int, depth: int) -> np.ndarray:
    """(Q, S, m) ascending position vectors; ~30% of relevant docs unretrieved; a few duplicate runs."""
    pos = np.argsort(rng.random((queries, runs, depth)), axis=-1)[..., :levels] + 1.0
    pos[rng.random(pos.shape) < 0.3] = INF
    pos = np.sort(pos, axis=-1)
    pos[:, 1] = pos[:, 0]  # a tied pair in every query
    return pos


# ------------------------------------- per-pair Python loops (LexiRecall/LexiPrecision: tests/reference.py)


def loop_rpp(a: list[float], b: list[float], weights: list[float]) -> float:
    total = 0.0
    for w, x, y in zip(weights, a, b):
        if x < y:
            total += w
        elif x > y:
            total -= w
    return total


def loop_matrix(P: np.ndarray, method: str) -> np.ndarray:
    rows = P.tolist()
    S, m = P.shape
    weights = [1.0 / m] * m
    M = np.zeros((S, S))
    for i in range(S):
        for j in range(S):
            if method == "lexirecall":
                M[i, j] = lexirecall(rows[i], rows[j])
            elif method == "lexiprecision":
                M[i, j] = lexiprecision(rows[i], rows[j])
            else:
                M[i, j] = loop_rpp(rows[i], rows[j], weights)
    return M


VECTORISED = {
    "lexirecall": lexirecall_matrix,
    "lexiprecision": lexiprecision_matrix,
    "rpp": rpp_matrix,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--levels", type=int, default=100)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--loop-queries", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    data = random_positions(rng, args.queries, args.runs, args.levels, args.depth)
    n_loop = min(args.loop_queries, args.queries)
    assert np.allclose(recall_level_weights(args.levels).sum(), 1.0)
    print(f"{args.queries} queries, S={args.runs} runs, m={args.levels} levels; loop timed on {n_loop} queries")
    print(f"{'method':<15}{'vectorised s/query':>20}{'loop s/query':>15}{'ratio':>10}")
    for method, kernel in VECTORISED.items():
        t0 = time.perf_counter()
        mats = [kernel(P) for P in data]
        vec = (time.perf_counter() - t0) / args.queries
        t0 = time.perf_counter()
        loops = [loop_matrix(P, method) for P in data[:n_loop]]
        loop = (time.perf_counter() - t0) / max(n_loop, 1)
        for got, ref in zip(mats, loops):
            if not np.allclose(got, ref, rtol=0, atol=1e-12):
                raise SystemExit(f"{method}: vectorised and loop results differ")
        print(f"{method:<15}{vec:>20.5f}{loop:>15.5f}{loop / vec:>9.0f}x")


if __name__ == "__main__":
    main()
