"""Straightforward pure-Python reference implementations written from the papers and the input semantics of the README.

Deliberately naive (dicts, loops, Fractions) so that the vectorised code can be checked against them.
"""

from __future__ import annotations

import gzip
import math
from collections import defaultdict
from fractions import Fraction

INF = math.inf


def read_trec(path: str, columns: int) -> list[list[str]]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as handle:
        return [line.split() for line in handle if line.strip() and not line.startswith("#")]


def rankings(run_rows: list[list[str]]) -> dict[str, list[str]]:
    """query -> doc ids ordered by score desc, doc id desc (trec_eval); first occurrence kept."""
    by_query: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for qid, _, doc, _, score, *_ in run_rows:
        by_query[qid].append((float(score), doc))
    result = {}
    for qid, docs in by_query.items():
        ordered, seen = [], set()
        for _, doc in sorted(docs, key=lambda x: (x[0], x[1]), reverse=True):
            if doc not in seen:
                seen.add(doc)
                ordered.append(doc)
        result[qid] = ordered
    return result


def grades(qrels_rows: list[list[str]]) -> dict[str, dict[str, int]]:
    """query -> doc -> grade (max over subtopics)."""
    result: dict[str, dict[str, int]] = defaultdict(dict)
    for qid, _, doc, grade in qrels_rows:
        result[qid][doc] = max(int(grade), result[qid].get(doc, -(10**9)))
    return result


def position_vector(ranking: list[str], relevant: set[str]) -> list[float]:
    positions = [i for i, d in enumerate(ranking, start=1) if d in relevant]
    return positions + [INF] * (len(relevant) - len(positions))


def lexirecall(a: list[float], b: list[float]) -> int:
    na, nb = sum(x != INF for x in a), sum(x != INF for x in b)
    if na != nb:
        return 1 if na > nb else -1
    for x, y in zip(reversed(a[:na]), reversed(b[:nb])):
        if x != y:
            return 1 if x < y else -1
    return 0


def lexiprecision(a: list[float], b: list[float], magnitude: str = "sgn") -> float:
    for x, y in zip(a, b):
        if x != y:
            if magnitude == "sgn":
                return 1 if x < y else -1
            return (0 if x == INF else Fraction(1, int(x))) - (0 if y == INF else Fraction(1, int(y)))
    return 0


def level_weights(m: int, weighting: str) -> list[float]:
    raw = {"uniform": lambda i: 1.0, "inverse": lambda i: 1.0 / i, "dcg": lambda i: 1.0 / math.log2(i + 1)}[weighting]
    w = [raw(i) for i in range(1, m + 1)]
    return [x / sum(w) for x in w]


def rpp_binary(a: list[float], b: list[float], weighting: str = "uniform") -> float:
    sign = [(1 if x < y else -1 if x > y else 0) for x, y in zip(a, b)]
    if weighting == "uniform":
        return Fraction(sum(sign), len(sign))
    return sum(w * s for w, s in zip(level_weights(len(sign), weighting), sign))


def rpp_graded(ranking_a: list[str], ranking_b: list[str], query_grades: dict[str, int], rel: int = 1,
               weighting: str = "uniform") -> float:
    """Graded RPP: binary RPP per distinct grade threshold >= rel, weighted by the population size m_lambda."""
    thresholds = sorted({g for g in query_grades.values() if g >= rel})
    total, weight = 0, 0
    for lam in thresholds:
        relevant = {d for d, g in query_grades.items() if g >= lam}
        value = rpp_binary(position_vector(ranking_a, relevant), position_vector(ranking_b, relevant), weighting)
        total += len(relevant) * value
        weight += len(relevant)
    return total / weight


def tse(vector: list[float]) -> float:
    return 0.0 if vector[-1] == INF else 1.0 / vector[-1]
