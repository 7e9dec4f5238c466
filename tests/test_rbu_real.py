"""RBU through ir-measures on TREC Web 2012 (diversity qrels, real runs) against an independent exact computation.

The reference below is written straight from Amigó et al. (2018) Eq. 11 in pure Python with exact fractions:
ranking = score desc, ties by doc id desc; r(d,t) = (2^max(g,0) - 1) / 2^gmax_t with gmax_t the highest grade
judged for subtopic t; weights uniform over the subtopics with at least one relevant (grade >= 1) document;
effort charged only for positions that hold a document.
"""

from __future__ import annotations

import gzip
import math
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

ir_measures = pytest.importorskip("ir_measures")
prefeval = pytest.importorskip("prefeval")

RUNS = ("rm-cata-filtered", "ql-catb")  # short per-topic depths (some < 20) / many score ties
P, E, K = Fraction(4, 5), Fraction(3, 100), 20


def read_diversity_qrels(path: Path) -> dict[str, dict[str, dict[str, int]]]:
    """query -> subtopic -> doc -> grade, from `topic subtopic docid grade` lines."""
    qrels: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    for line in path.read_text().splitlines():
        query_id, subtopic, doc_id, grade = line.split()
        qrels[query_id][subtopic][doc_id] = int(grade)
    return qrels


def read_ranked_run(path: Path) -> dict[str, list[str]]:
    """query -> doc ids in evaluation order (score desc, then doc id desc; the rank column is ignored)."""
    scored: dict[str, list[tuple[float, str]]] = defaultdict(list)
    with gzip.open(path, "rt") as handle:
        for line in handle:
            query_id, _, doc_id, _, score, _ = line.split()
            scored[query_id].append((float(score), doc_id))
    ranked = {q: [doc for _, doc in sorted(items, reverse=True)] for q, items in scored.items()}
    assert all(len(set(docs)) == len(docs) for docs in ranked.values())  # no duplicates in these runs
    return ranked


def reference_rbu(subtopics: dict[str, dict[str, int]], ranking: list[str]) -> Fraction:
    """Amigó et al. (2018) Eq. 11 at cutoff K, exact, for one query."""
    aspects = [t for t, judged in subtopics.items() if any(g >= 1 for g in judged.values())]
    weight = Fraction(1, len(aspects))
    gmax = {t: max(subtopics[t].values()) for t in aspects}

    def r(doc: str, t: str) -> Fraction:
        g = max(subtopics[t].get(doc, 0), 0)
        return Fraction(2**g - 1, 2 ** gmax[t])

    total = Fraction(0)
    top = ranking[:K]
    for i, doc in enumerate(top, start=1):
        gain = Fraction(0)
        for t in aspects:
            not_yet = Fraction(1)
            for earlier in top[: i - 1]:
                not_yet *= 1 - r(earlier, t)
            gain += weight * r(doc, t) * not_yet
        total += P**i * (gain - E)
    return total


@pytest.fixture(scope="module")
def web2012(shared_data: Path):
    folder = shared_data / "trec-web-2012"
    qrels_path = folder / "qrels.diversity.txt"
    return qrels_path, read_diversity_qrels(qrels_path), folder / "runs"


@pytest.mark.parametrize("run_name", RUNS)
def test_rbu_matches_exact_reference_per_query(web2012, run_name: str) -> None:
    qrels_path, qrels, runs_dir = web2012
    run_path = runs_dir / f"{run_name}.run.gz"
    ranked = read_ranked_run(run_path)
    paper = prefeval.RBU(p=0.8, e=0.03) @ K
    evall = prefeval.RBU(p=0.8, e=0.03, variant="evall") @ K
    got: dict[tuple[str, str], float] = {}
    for metric in ir_measures.iter_calc(
        [paper, evall], ir_measures.read_trec_qrels(str(qrels_path)), ir_measures.read_trec_run(str(run_path))
    ):
        key = (metric.query_id, "paper" if metric.measure == paper else "evall")
        assert key not in got, f"duplicate result for {key}"
        got[key] = metric.value

    assert len(qrels) == 50
    assert {q for q, _ in got} == set(qrels)  # every topic with a relevant document is evaluated
    for query_id, subtopics in qrels.items():
        expected = reference_rbu(subtopics, ranked.get(query_id, []))
        assert math.isclose(got[(query_id, "paper")], float(expected), rel_tol=1e-9, abs_tol=1e-12), query_id
        scaled = (1 - P) / P * expected
        assert math.isclose(got[(query_id, "evall")], float(scaled), rel_tol=1e-9, abs_tol=1e-12), query_id


def test_fixture_exercises_short_rankings_ties_and_spam(web2012) -> None:
    """The data cover the cases the reference must get right: depth < 20, score ties in the top 20, -2 grades."""
    qrels_path, qrels, runs_dir = web2012
    short = read_ranked_run(runs_dir / "rm-cata-filtered.run.gz")
    assert any(len(docs) < K for docs in short.values())
    tied = 0
    with gzip.open(runs_dir / "ql-catb.run.gz", "rt") as handle:
        by_query: dict[str, list[float]] = defaultdict(list)
        for line in handle:
            fields = line.split()
            by_query[fields[0]].append(float(fields[4]))
    for scores in by_query.values():
        top = sorted(scores, reverse=True)[:K]
        tied += len(top) - len(set(top))
    assert tied > 0
    assert any(
        g < 0 for subtopics in qrels.values() for judged in subtopics.values() for g in judged.values()
    )
