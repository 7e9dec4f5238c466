"""All-pairs comparison without the per-query table: pair sums streamed query by query (issue: all pairs without
quadratic memory). Every result that does not need per-query values must be the same whether they are kept."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ttest_1samp

import prefeval
from prefeval.core import stats
from prefeval.core.reduce import PairAccumulator, PairSums, upper_mask
from prefeval.data import simulate
from prefeval.data.collection import Collection
from prefeval.engine.blocks import evaluate_block
from prefeval.engine.methods import parse_method
from prefeval.engine.results import combine_results
from prefeval.errors import PrefevalError

METHODS = ["LexiRecall", "LexiPrecision", "RPP", "RPP(graded=False)", "nDCG@10", "AP(rel=2)"]


@pytest.fixture(scope="module")
def collection():
    return simulate.collection(n_queries=40, n_runs=7, depth=30, n_docs=60, score_decimals=1, seed=3)


@pytest.fixture(scope="module")
def both(collection):
    kept = prefeval.compare(collection.qrels, collection.runs, METHODS, per_query=True)
    streamed = prefeval.compare(collection.qrels, collection.runs, METHODS, per_query=False)
    return kept, streamed


# ----------------------------------------------------------------------------------------------
# the reductions against their definitions


def _brute(X: np.ndarray) -> dict[str, np.ndarray]:
    return {"n": X.shape[0], "mean": X.mean(axis=0), "m2": ((X - X.mean(axis=0)) ** 2).sum(axis=0),
            "wins": (X > 1e-12).sum(axis=0), "losses": (X < -1e-12).sum(axis=0)}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(1, 6), st.lists(st.integers(0, 30), max_size=4), st.integers(0, 2**31))
def test_merged_blocks_equal_the_definition(n_queries, n_pairs, cuts, seed):
    rng = np.random.default_rng(seed)
    X = rng.choice([-1.0, -0.5, 0.0, 1e-13, 0.25, 1.0], size=(n_queries, n_pairs))
    bounds = sorted({0, n_queries, *[c % (n_queries + 1) for c in cuts]})
    sums = PairSums.combine(PairSums.of_block(X[a:b]) for a, b in zip(bounds, bounds[1:]))
    want = _brute(X)
    assert sums.n == want["n"]
    np.testing.assert_allclose(sums.mean, want["mean"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(sums.m2, want["m2"], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(sums.wins, want["wins"])
    np.testing.assert_array_equal(sums.losses, want["losses"])
    np.testing.assert_array_equal(sums.ties, n_queries - want["wins"] - want["losses"])


def test_accumulator_pads_tied_queries_and_reads_the_upper_triangle():
    rng = np.random.default_rng(0)
    S = 5
    mats = []
    acc = PairAccumulator(S)
    for _ in range(4):
        A = rng.normal(size=(S, S))
        P = A - A.T
        mats.append(P)
        acc.add(P)
    sums = acc.sums(n_queries=6)  # two judged queries without a relevant document: ties
    i, j = np.triu_indices(S, 1)
    X = np.vstack([np.stack(mats)[:, i, j], np.zeros((2, len(i)))])
    want = _brute(X)
    np.testing.assert_allclose(sums.mean, want["mean"], atol=1e-12)
    np.testing.assert_allclose(sums.m2, want["m2"], atol=1e-12)
    assert sums.n == 6 and (sums.ties >= 2).all()
    assert (np.stack(mats)[0][upper_mask(S)] == np.stack(mats)[0][i, j]).all()
    with pytest.raises(ValueError):
        acc.sums(n_queries=3)


def test_t_test_from_moments_equals_scipy():
    rng = np.random.default_rng(1)
    X = rng.normal(0.1, 1.0, size=(50, 23))
    X[3] = 0.0  # all ties
    X[4] = 0.5  # zero variance, non-zero mean
    X[5, :] = rng.choice([-1.0, 1.0], size=23)
    got = stats.t_test(X)
    want = ttest_1samp(X, 0.0, axis=1)
    live = np.ones(len(X), dtype=bool)
    live[[3, 4]] = False
    np.testing.assert_allclose(got.statistic[live], want.statistic[live], rtol=1e-12)
    np.testing.assert_allclose(got.pvalue[live], want.pvalue[live], rtol=1e-10, atol=1e-300)
    # undefined (never a finding): every query tied, and zero variance (scipy's limit |t| = inf, p = 0)
    assert np.isnan(got.statistic[[3, 4]]).all() and np.isnan(got.pvalue[[3, 4]]).all()


# ----------------------------------------------------------------------------------------------
# compare(per_query=False) == compare(per_query=True)


def test_summary_matrix_rankings_and_tests_do_not_need_per_query_values(both):
    kept, streamed = both
    pd.testing.assert_frame_equal(kept.summary(), streamed.summary(), check_exact=False, rtol=0, atol=1e-12)
    for m in METHODS:
        pd.testing.assert_frame_equal(kept.matrix(m), streamed.matrix(m), check_exact=False, rtol=0, atol=1e-12)
        for aggregate in ("mc4", "borda", "copeland", "win_rate", "mean"):
            a, b = kept.ranking(m, aggregate), streamed.ranking(m, aggregate)
            assert a["run"].tolist() == b["run"].tolist(), (m, aggregate)
            np.testing.assert_allclose(a["score"], b["score"], atol=1e-12)
        for test in ("sign", "t", "randomized_tukey_hsd"):
            a = kept.significance(m, test=test, n_resamples=200)
            b = streamed.significance(m, test=test, n_resamples=200)
            pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=0, atol=1e-12)


def test_summary_equals_the_per_query_table(both):
    kept, _ = both
    pq = kept.per_query
    summary = kept.summary()
    grouped = pq.groupby(["method", "run_a", "run_b"], observed=True, sort=False)["value"]
    means = grouped.mean().reset_index()
    merged = summary.merge(means.astype({"method": str, "run_a": str, "run_b": str}), on=["method", "run_a", "run_b"])
    assert len(merged) == len(summary)
    np.testing.assert_allclose(merged["mean"], merged["value"], atol=1e-12)
    wins = grouped.apply(lambda v: int((v > 1e-12).sum())).to_numpy()
    np.testing.assert_array_equal(np.sort(wins), np.sort(summary["wins"].to_numpy()))


def test_per_query_table_is_compact_and_equal_to_the_tensor(both):
    kept, _ = both
    pq = kept.per_query
    for column in ("method", "query_id", "run_a", "run_b"):
        assert isinstance(pq[column].dtype, pd.CategoricalDtype), column
    r = kept.result("LexiRecall")
    i, j = np.triu_indices(len(kept.runs), 1)
    block = pq[pq["method"] == "LexiRecall"]
    np.testing.assert_array_equal(block["value"].to_numpy(), r.prefs[:, i, j].reshape(-1))
    assert kept.per_query_size() >= 24 * len(pq) * 0.99


def test_tests_needing_values_and_the_table_say_how_to_keep_them(both):
    _, streamed = both
    with pytest.raises(PrefevalError, match="per_query=True"):
        streamed.per_query  # noqa: B018
    with pytest.raises(PrefevalError, match="per_query=True"):
        streamed.significance("LexiRecall", test="wilcoxon")
    # a metric's per-query differences come from its values, which are always kept
    assert streamed.significance("nDCG@10", test="wilcoxon")["p_value"].notna().all()


def test_default_keeps_small_comparisons(collection):
    result = prefeval.compare(collection.qrels, collection.runs, ["LexiRecall"])
    assert result.result("LexiRecall").kept
    with pytest.raises(PrefevalError, match="per_query must be"):
        prefeval.compare(collection.qrels, collection.runs, ["LexiRecall"], per_query="yes")


def test_blocks_of_queries_combine_to_the_whole(collection, both):
    kept, _ = both
    methods = [parse_method(m) for m in METHODS]
    qrels = collection.qrels
    queries = sorted(qrels["query_id"].unique())
    parts = []
    for block in (queries[:7], queries[7:25], queries[25:]):
        sub_qrels = qrels[qrels["query_id"].isin(block)]
        sub_runs = {n: r[r["query_id"].isin(block)] for n, r in collection.runs.items()}
        parts.append(evaluate_block(methods, sub_runs, Collection(sub_qrels), keep=True, warn=False))
    combined = combine_results(parts)
    for whole, part in zip((kept.result(m) for m in METHODS), combined):
        np.testing.assert_array_equal(whole.query_ids, part.query_ids)
        np.testing.assert_allclose(whole.win_rates, part.win_rates, atol=1e-12)
        np.testing.assert_allclose(whole.prefs, part.prefs, atol=1e-12)
        np.testing.assert_allclose(whole.sums.mean, part.sums.mean, atol=1e-12)
        np.testing.assert_allclose(whole.sums.m2, part.sums.m2, atol=1e-12)
        np.testing.assert_array_equal(whole.sums.wins, part.sums.wins)
        assert whole.sums.n == part.sums.n


def test_many_identical_runs_are_summarised_without_the_tensor():
    c = simulate.collection(n_queries=2, n_runs=1, depth=20, n_docs=30, seed=0)
    run = c.runs[next(iter(c.runs))]
    runs = {f"r{k:04d}": run for k in range(600)}
    result = prefeval.compare(c.qrels, runs, ["LexiRecall", "RPP"], per_query=False)
    summary = result.summary()
    assert len(summary) == 2 * 600 * 599 // 2
    assert (summary["mean"] == 0).all() and (summary["ties"] == 2).all()


def test_pair_sums_of_any_pairs_are_the_sums_of_their_values(both):
    """``MethodResult.pair_sums`` of pairs in either orientation equals the sums of the per-query values of the same
    pairs (the orientation a baseline's pairs and the pipeline's comparisons with a baseline use)."""
    kept, _ = both
    S = len(kept.runs)
    pairs = (np.array([0, 3, 6, 2, 5]), np.array([4, 4, 1, 0, 6]))
    for method in kept.methods:
        r = kept.result(method)
        got, expected = r.pair_sums(pairs), PairSums.of_block(r.pair_values(pairs).T)
        assert got.n == expected.n == len(r.query_ids)
        np.testing.assert_allclose(got.mean, expected.mean, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got.m2, expected.m2, rtol=1e-9, atol=1e-9)
        assert got.wins.tolist() == expected.wins.tolist() and got.losses.tolist() == expected.losses.tolist()
        assert S == 7
