"""The simulator: determinism, shapes, the documented model, and that known run quality is recoverable."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from prefeval.data import simulate
from prefeval.errors import PrefevalError

SMALL = dict(n_queries=40, n_runs=6, depth=30, n_docs=60)


def test_deterministic_for_a_seed() -> None:
    a = simulate.collection(**SMALL, seed=3)
    b = simulate.collection(**SMALL, seed=3)
    c = simulate.collection(**SMALL, seed=4)
    pd.testing.assert_frame_equal(a.qrels, b.qrels)
    for name in a.runs:
        pd.testing.assert_frame_equal(a.runs[name], b.runs[name])
    assert a.quality == b.quality
    assert not a.qrels.equals(c.qrels)


def test_canonical_frames_and_shapes() -> None:
    sim = simulate.collection(**SMALL, seed=1)
    assert list(sim.qrels.columns) == ["query_id", "doc_id", "relevance", "iteration"]
    assert sim.qrels["relevance"].dtype == np.int64
    assert set(sim.qrels["iteration"]) == {"0"}
    assert sim.qrels["relevance"].between(0, 3).all()
    assert len(sim.runs) == 6 and list(sim.runs) == simulate.run_names(6)
    assert list(sim.topics.columns) == ["query_id", "text"] and len(sim.topics) == 40
    for run in sim.runs.values():
        assert list(run.columns) == ["query_id", "doc_id", "score"]
        assert run.groupby("query_id").size().eq(30).all()
        assert not run.duplicated(["query_id", "doc_id"]).any()
    # complete judgments without label noise: every candidate judged with its latent grade
    assert len(sim.qrels) == 40 * 60
    pd.testing.assert_frame_equal(sim.qrels, sim.true_qrels)
    # every query has a relevant document
    assert sim.qrels[sim.qrels["relevance"] > 0]["query_id"].nunique() == 40


def test_runs_are_top_depth_by_documented_score_model() -> None:
    """With noise 0 and no per-query variation, a run of quality > 0 ranks candidates by latent grade,
    ties by doc id descending (trec_eval order), and returns its ``depth`` best."""
    sim = simulate.collection(**SMALL, noise=0.0, query_variation=0.0, quality_range=(1.0, 1.0), seed=2)
    truth = {q: dict(zip(g["doc_id"], g["relevance"])) for q, g in sim.true_qrels.groupby("query_id")}
    for run in sim.runs.values():
        for qid, ranking in run.groupby("query_id", sort=False):
            grades = truth[qid]
            expected = sorted(grades, key=lambda d: (-grades[d], tuple(-ord(ch) for ch in d)))[:30]
            assert list(ranking["doc_id"]) == expected
            assert np.allclose(ranking["score"].to_numpy(), [grades[d] for d in expected])


def test_quality_zero_is_a_random_ranking() -> None:
    sim = simulate.collection(n_queries=200, n_runs=2, depth=20, n_docs=40, quality_range=(0.0, 0.0),
                              query_variation=0.0, seed=5)
    rel = sim.qrels[sim.qrels["relevance"] > 0]
    run = sim.runs["sim01"]
    hits = run.merge(rel, on=["query_id", "doc_id"]).shape[0]
    expected = len(rel) * 20 / 40  # a random half of the candidates is retrieved
    assert abs(hits - expected) < 0.1 * expected


def test_label_noise_redraws_the_documented_share() -> None:
    eta = 0.3
    sim = simulate.collection(n_queries=100, n_runs=2, depth=10, n_docs=100, label_noise=eta, seed=7)
    merged = sim.qrels.merge(sim.true_qrels, on=["query_id", "doc_id"], suffixes=("", "_true"))
    changed = (merged["relevance"] != merged["relevance_true"]).mean()
    # a redrawn label keeps its value with probability 1/4 (uniform over 0..3)
    assert abs(changed - eta * 3 / 4) < 0.02


def test_pooling_judges_only_the_runs_top_documents() -> None:
    sim = simulate.collection(**SMALL, judged_depth=5, seed=8)
    pool = set()
    for run in sim.runs.values():
        pool |= set(map(tuple, run.groupby("query_id").head(5)[["query_id", "doc_id"]].to_numpy()))
    assert set(map(tuple, sim.qrels[["query_id", "doc_id"]].to_numpy())) == pool


def test_score_rounding_creates_ties() -> None:
    sim = simulate.collection(**SMALL, score_decimals=0, seed=9)
    run = sim.runs["sim01"]
    assert run.duplicated(["query_id", "score"]).any()


def test_quality_order_is_recovered_by_ndcg() -> None:
    """Known quality: the mean nDCG@10 order of the runs matches the quality order (default model)."""
    sim = simulate.collection(n_queries=300, n_runs=10, depth=50, n_docs=150, seed=11)
    names = list(sim.runs)
    means = [ir_measures.calc_aggregate([ir_measures.nDCG @ 10], sim.qrels, sim.runs[n])[ir_measures.nDCG @ 10]
             for n in names]
    tau = kendalltau([sim.quality[n] for n in names], means).statistic
    assert tau >= 0.9
    assert max(names, key=lambda n: means[names.index(n)]) == sim.true_order[0]
    assert min(names, key=lambda n: means[names.index(n)]) == sim.true_order[-1]
    assert sim.true_order == sorted(names, key=lambda n: -sim.quality[n])


def test_qualities_are_spread_and_shuffled() -> None:
    sim = simulate.collection(n_queries=5, n_runs=12, depth=5, n_docs=10, quality_range=(0.2, 1.2), seed=0)
    assert sorted(sim.quality.values()) == pytest.approx(list(np.linspace(0.2, 1.2, 12)))
    assert sim.true_order != list(sim.runs)  # the names do not give the order away
    assert "SIMULATED" in sim.describe()


@pytest.mark.parametrize("bad, fragment", [
    (dict(n_queries=0), "n_queries"),
    (dict(depth=300, n_docs=200), "depth"),
    (dict(label_noise=1.5), "label_noise"),
    (dict(quality_range=(1.0, 0.5)), "quality_range"),
    (dict(relevant_beta=(0.0, 1.0)), "relevant_beta"),
    (dict(bogus=1), "unknown parameter"),
])
def test_bad_parameters_are_named(bad: dict, fragment: str) -> None:
    with pytest.raises(PrefevalError, match=fragment):
        simulate.collection(**bad)
