"""Diversity kernels against ndeval (pyndeval), the TREC Web track's tool, where both compute the same quantity.

ndeval binarises every judgment (grade >= rel), weights the subtopics that have a relevant document uniformly,
and uses Clarke et al.'s J(d,t) in {0, 1} as gain. Conventions to match it (prefeval's defaults differ where the
RBU paper's graded, unnormalised forms are the point):

- alpha-nDCG@k, nNRBP: ``mapping="binary"`` (r = J) and ``normalise=True`` / ``"ideal"`` (greedy ideal ranking,
  ties by doc id descending as ndeval); with binary grades the default ERR mapping (r = 1/2) gives the same ratios.
- alpha-DCG@k: ndeval divides by the alpha-DCG of an "ideal ideal" ranking (every document relevant to all |T|
  subtopics), ``|T| sum_{i<=k} (1-alpha)^(i-1) / log2(i+1)``, a per-topic constant.
- NRBP: ``normalise="clarke"`` (Clarke et al.'s (1 - (1-alpha) beta) / |T|) with r = J.
- ERR-IA@k: ndeval's cascade uses (1-alpha)^c with alpha = 0.5, which is the graded ERR-IA on binary grades under
  the ERR mapping (r = (2^1 - 1)/2^1 = 1/2), divided by the "ideal ideal" ERR sum_{i<=k} 2^-i / i (k >= 2).
- P-IA@k, S-Recall@k (strec), AP-IA (MAP-IA): the same definitions, no option needed.

Rankings: both sides see prefeval's ranking (score desc, ties by doc id desc): pyndeval gets distinct scores
n - rank, because it breaks score ties by doc id ascending.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from prefeval.core import diversity
from prefeval.data.aspects import aspect_arrays
from prefeval.data.ranking import rank_run

pyndeval = pytest.importorskip("pyndeval")

CUTOFFS = (5, 10, 20)


def ndeval_values(qrels: pd.DataFrame, run: pd.DataFrame, alpha: float, beta: float) -> pd.DataFrame:
    """pyndeval's per-topic values (index query id, one column per ndeval measure)."""
    measures = [f"{m}@{k}" for m in ("alpha-nDCG", "alpha-DCG", "ERR-IA", "P-IA", "strec") for k in CUTOFFS]
    evaluator = pyndeval.RelevanceEvaluator(
        [(q, str(s), d, int(g)) for q, d, g, s in qrels[["query_id", "doc_id", "relevance", "iteration"]].itertuples(
            index=False)],
        measures + ["NRBP", "nNRBP", "MAP-IA"], relevance_level=1, alpha=alpha, beta=beta)
    records = list(evaluator.evaluate_iter(list(run.itertuples(index=False, name=None))))
    return pd.DataFrame(records).set_index("query_id").astype(float)


def distinct_scores(run: pd.DataFrame) -> pd.DataFrame:
    """prefeval's ranking of ``run`` with scores n - rank (no ties left for pyndeval to break its own way)."""
    ranked = rank_run(run).rows()
    return ranked.assign(score=(-ranked["rank"]).astype(float))[["query_id", "doc_id", "score"]]


def prefeval_values(qrels: pd.DataFrame, run: pd.DataFrame, alpha: float, beta: float) -> pd.DataFrame:
    """The same quantities from prefeval's kernels, with the ndeval conventions of the module docstring."""
    binary = qrels.assign(relevance=(qrels["relevance"] >= 1).astype(np.int64))
    out: dict[str, dict[str, float]] = {}

    def put(column: str, ids: list[str], values: np.ndarray) -> None:
        out.setdefault(column, {}).update(zip(ids, np.asarray(values, dtype=float).tolist()))

    for a in aspect_arrays(qrels, run, mapping="binary"):
        n_topics = (a.weights > 0).sum(axis=1)
        common = {"length": a.length, "pool": a.pool}
        for k in CUTOFFS:
            dcg = diversity.alpha_ndcg(a.r, a.weights, k=k, alpha=alpha, **common)
            ideal_ideal = n_topics * sum((1 - alpha) ** (i - 1) / math.log2(i + 1) for i in range(1, k + 1))
            put(f"alpha-DCG@{k}", a.query_ids, dcg / ideal_ideal)
            put(f"alpha-nDCG@{k}", a.query_ids,
                diversity.alpha_ndcg(a.r, a.weights, k=k, alpha=alpha, normalise=True, **common))
            put(f"P-IA@{k}", a.query_ids, diversity.precision_ia(a.r, a.weights, k=k, **common))
            put(f"strec@{k}", a.query_ids, diversity.s_recall(a.r, a.weights, k=k, **common))
        put("NRBP", a.query_ids, diversity.nrbp(a.r, a.weights, p=beta, alpha=alpha, normalise="clarke", **common))
        put("nNRBP", a.query_ids, diversity.nrbp(a.r, a.weights, p=beta, alpha=alpha, normalise="ideal", **common))
        put("MAP-IA", a.query_ids, diversity.ap_ia(a.r, a.weights, **common))
    for a in aspect_arrays(binary, run):  # graded kernels on binary grades (ERR mapping: r = 1/2)
        common = {"length": a.length, "pool": a.pool}
        for k in CUTOFFS:
            if alpha == 0.5:
                put(f"ERR-IA@{k}", a.query_ids,
                    diversity.err_ia(a.r, a.weights, k=k, **common) / sum(0.5**i / i for i in range(1, k + 1)))
            put(f"alpha-nDCG@{k}/err", a.query_ids,
                diversity.alpha_ndcg(a.r, a.weights, k=k, alpha=alpha, normalise=True, **common))
        put("nNRBP/err", a.query_ids,
            diversity.nrbp(a.r, a.weights, p=beta, alpha=alpha, normalise="ideal", **common))
    return pd.DataFrame(out)


def max_differences(qrels: pd.DataFrame, run: pd.DataFrame, alpha: float = 0.5, beta: float = 0.5) -> pd.Series:
    run = distinct_scores(run)
    ours = prefeval_values(qrels, run, alpha, beta)
    theirs = ndeval_values(qrels, run, alpha, beta)
    missing = ours.index.difference(theirs.index)  # topics the run lacks: prefeval scores an empty ranking 0
    assert (ours.loc[missing].fillna(0) == 0).all().all()
    ours = ours.loc[ours.index.intersection(theirs.index)]
    assert len(ours) > 0
    diffs = {}
    for column in ours.columns:
        reference = theirs[column.split("/")[0]].reindex(ours.index)
        diffs[column] = float((ours[column] - reference).abs().max())
    return pd.Series(diffs)


def synthetic(seed: int, graded: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Diversity qrels (some subtopics without a relevant document, unjudged retrieved documents) and a run."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(1, 9):
        subtopics = rng.randint(1, 5)
        docs = [f"d{q}-{i:02d}" for i in range(rng.randint(3, 30))]
        for d in docs:
            for s in range(1, subtopics + 1):
                grade = rng.choice([0, 0, 0, 1, 2, 3] if graded else [0, 0, 1])
                qrels.append((str(q), d, grade if s != subtopics or subtopics == 1 else 0, str(s)))
        retrieved = rng.sample(docs + [f"u{q}-{i}" for i in range(10)], rng.randint(1, len(docs) + 5))
        run.extend((str(q), d, float(len(retrieved) - i)) for i, d in enumerate(retrieved))
    qrels_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance", "iteration"])
    return qrels_frame, pd.DataFrame(run, columns=["query_id", "doc_id", "score"])


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize(("alpha", "beta"), [(0.5, 0.5), (0.25, 0.8)])
@pytest.mark.parametrize("seed", range(3))
def test_kernels_match_ndeval_on_synthetic_qrels(seed: int, graded: bool, alpha: float, beta: float) -> None:
    diffs = max_differences(*synthetic(seed, graded), alpha=alpha, beta=beta)
    assert (diffs <= 1e-12).all(), diffs[diffs > 1e-12]


@pytest.mark.integration
def test_kernels_match_ndeval_on_trec_web_2012(shared_data: Path) -> None:
    """8 runs x 50 topics of TREC Web 2012 (NIST diversity qrels with -2 spam labels): max |diff| <= 1e-9."""
    from prefeval.data.trec import read_qrels, read_run

    folder = shared_data / "trec-web-2012"
    qrels = read_qrels(folder / "qrels.diversity.txt")
    runs = sorted((folder / "runs").glob("*.run.gz"))
    assert len(runs) == 8
    for path in runs:
        diffs = max_differences(qrels, read_run(path))
        assert len(diffs) >= 20
        assert (diffs <= 1e-9).all(), (path.name, diffs[diffs > 1e-9])
