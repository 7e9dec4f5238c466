"""A per-pair stdlib-only Python script: LexiRecall, LexiPrecision and binary RPP per query from TREC files.

The straightforward implementation a user could write from the papers' definitions (Diaz, Ferraro & Bhaskar
(2023), "Best-Case Retrieval Evaluation", and Diaz & Ferraro (2022), "Offline Retrieval Evaluation Without
Evaluation Metrics"): every run is ranked once (score descending, doc id descending, first occurrence of a
document kept) and its position vector of each query's relevant documents (grade >= ``rel``) built once; then
for every pair of runs and every query with a relevant document the two vectors are compared. RPP is the binary
one, uniform weights (``RPP(graded=False)``: the mean over the recall levels of the sign), as the authors'
``pref_eval.py`` computes its ``rpp``. Output: CSV ``method,query_id,run_a,run_b,value`` like
``prefeval compare --per-query --format csv``.

Run: ``python benchmarks/naive_compare.py QRELS RUN... [--rel 1]``. Used by ``benchmarks/cli.py``.
"""

from __future__ import annotations

import gzip
import sys
from itertools import combinations

INF = float("inf")


def lines(path: str):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if fields:
                yield fields


def read_qrels(path: str) -> dict[str, dict[str, int]]:
    grades: dict[str, dict[str, int]] = {}
    for q, _, d, g in lines(path):
        docs = grades.setdefault(q, {})
        docs[d] = max(int(g), docs.get(d, int(g)))
    return grades


def read_ranking(path: str) -> dict[str, list[str]]:
    """query -> doc ids by score desc, doc id desc; first occurrence of a document kept."""
    by_query: dict[str, list[tuple[float, str]]] = {}
    seen: dict[str, set[str]] = {}
    for q, _, d, _, s, *_ in lines(path):
        if d in seen.setdefault(q, set()):
            continue
        seen[q].add(d)
        by_query.setdefault(q, []).append((float(s), d))
    return {q: [d for _, d in sorted(docs, reverse=True)] for q, docs in by_query.items()}


def positions(ranking: list[str], relevant: set[str]) -> list[float]:
    found = [i for i, d in enumerate(ranking, start=1) if d in relevant]
    return found + [INF] * (len(relevant) - len(found))


def lexirecall(a: list[float], b: list[float]) -> int:
    """Worst-off user first: compare the positions from the last relevant document upwards."""
    for x, y in zip(reversed(a), reversed(b)):
        if x != y:
            return 1 if x < y else -1
    return 0


def lexiprecision(a: list[float], b: list[float]) -> int:
    """Best-off user first: compare the positions from the first relevant document downwards."""
    for x, y in zip(a, b):
        if x != y:
            return 1 if x < y else -1
    return 0


def rpp(a: list[float], b: list[float]) -> float:
    """Binary RPP, uniform: the mean over the recall levels of the sign of the position difference."""
    return sum(1 if x < y else -1 if x > y else 0 for x, y in zip(a, b)) / len(a)


def main(argv: list[str]) -> None:
    rel = 1
    if "--rel" in argv:
        i = argv.index("--rel")
        rel = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    qrels_path, *run_paths = argv
    grades = read_qrels(qrels_path)
    queries = sorted(q for q, docs in grades.items() if any(g >= rel for g in docs.values()))
    binary = {q: {d for d, g in grades[q].items() if g >= rel} for q in queries}
    names = [p.rsplit("/", 1)[-1].removesuffix(".gz").removesuffix(".run") for p in run_paths]
    vectors = {}
    for name, path in zip(names, run_paths):
        ranking = read_ranking(path)
        vectors[name] = {q: positions(ranking.get(q, []), binary[q]) for q in queries}
    rows = []
    for a, b in combinations(names, 2):
        for q in queries:
            va, vb = vectors[a][q], vectors[b][q]
            rows.append(("LexiRecall", q, a, b, lexirecall(va, vb)))
            rows.append(("LexiPrecision", q, a, b, lexiprecision(va, vb)))
            rows.append(("RPP(graded=False)", q, a, b, rpp(va, vb)))
    out = ["method,query_id,run_a,run_b,value"]
    out += [f"{m},{q},{a},{b},{float(v)!r}" for m, q, a, b, v in rows]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
