"""Ties, agreement, discriminative power, the position engine and label degradation on simulated runs
(prefeval.data.simulate), checked against direct implementations of the definitions and against compare()."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from prefeval.analysis import (
    discriminative_power,
    evaluate_positions,
    keep_mask,
    kendall_tau,
    label_degradation,
    load_positions,
    query_subsampling,
    sign_agreement,
    summarise,
    system_agreement,
    tie_rates,
)
from prefeval.analysis.agreement import kendall_tau_a
from prefeval.analysis.degradation import keep_count
from prefeval.data.simulate import collection
from prefeval.engine.compare import compare
from prefeval.errors import PrefevalError

METHODS = ["LexiRecall", "LexiPrecision", "LexiPrecision(magnitude='rr')", "RPP", "RPP(weighting='dcg')",
           "RPP(graded=False)", "AP", "nDCG", "nDCG@10", "RR", "R@20", "P@5", "Rprec", "AP(rel=2)",
           "LexiRecall(rel=2)", "RPP@10", "TSE"]


@pytest.fixture(scope="module")
def sim():
    return collection(n_queries=25, n_runs=6, depth=40, n_docs=80, seed=3, score_decimals=1)


@pytest.fixture(scope="module")
def comparison(sim):
    return compare(sim.qrels, sim.runs, ["LexiRecall", "LexiPrecision", "RPP", "AP", "nDCG", "RR", "R@20", "Rprec"])


def _assert_same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    merged = a.merge(b, on=["method", "query_id", "run_a", "run_b"], how="outer", indicator=True)
    assert (merged["_merge"] == "both").all()
    np.testing.assert_allclose(merged["value_x"], merged["value_y"], rtol=0, atol=1e-12)


def test_position_engine_equals_compare(sim):
    data = load_positions(sim.qrels, sim.runs)
    _assert_same(evaluate_positions(data, METHODS).per_query, compare(sim.qrels, sim.runs, METHODS).per_query)


def test_position_engine_with_removed_labels_equals_compare_on_reduced_qrels(sim):
    data = load_positions(sim.qrels, sim.runs)
    rng = np.random.default_rng(0)
    keep = {q.query_id: keep_mask(q, 0.5, "uniform", rng) for q in data.queries}
    removed = {(q.query_id, d) for q in data.queries for d, k in zip(q.doc_ids, keep[q.query_id]) if not k}
    reduced = sim.qrels[[(q, d) not in removed for q, d in zip(sim.qrels["query_id"], sim.qrels["doc_id"])]]
    assert len(removed) > 0 and len(reduced) == len(sim.qrels) - len(removed)
    _assert_same(evaluate_positions(data, METHODS, keep=keep).per_query,
                 compare(reduced, sim.runs, METHODS).per_query)


def test_position_engine_rejects_unsupported(sim):
    data = load_positions(sim.qrels, sim.runs)
    with pytest.raises(PrefevalError, match="cannot evaluate"):
        evaluate_positions(data, ["RBU@10"])


def test_tie_rates(comparison):
    table = tie_rates(comparison).set_index("method")
    pq = comparison.per_query
    for method in comparison.methods:
        values = pq.loc[pq["method"] == method, "value"].to_numpy()
        assert table.loc[method, "pairs"] == len(values) == 25 * 15
        assert table.loc[method, "ties"] == int((values == 0).sum())
    # LexiRecall and LexiPrecision tie exactly when the position vectors are identical
    assert table.loc["LexiRecall", "ties"] == table.loc["LexiPrecision", "ties"]
    assert table.loc["LexiRecall", "ties"] <= table.loc["RR", "ties"]
    by_query = tie_rates(comparison, ["RR"], by_query=True)
    assert by_query["ties"].sum() == table.loc["RR", "ties"] and len(by_query) == 25


def _agreement_by_loop(pq: pd.DataFrame, method: str, ref: str) -> tuple[int, int]:
    a = pq[pq["method"] == method].set_index(["query_id", "run_a", "run_b"])["value"]
    b = pq[pq["method"] == ref].set_index(["query_id", "run_a", "run_b"])["value"]
    agree = pairs = 0
    for key, r in b.items():
        if r != 0:
            pairs += 1
            agree += int(np.sign(a[key]) == np.sign(r))
    return agree, pairs


def test_sign_agreement_matches_definition(comparison):
    table = sign_agreement(comparison)
    assert set(table["method"]) == {"LexiRecall", "LexiPrecision", "RPP"}
    assert set(table["reference"]) == {"AP", "nDCG", "RR", "R@20", "Rprec"}
    pq = comparison.per_query
    for row in table.itertuples():
        agree, pairs = _agreement_by_loop(pq, row.method, row.reference)
        assert (row.agree, row.pairs) == (agree, pairs)
        assert row.agreement == pytest.approx(agree / pairs)
    # LexiPrecision extends RR (Diaz (2023) §3.2): it agrees with every strict RR preference
    lp_rr = table[(table["method"] == "LexiPrecision") & (table["reference"] == "RR")].iloc[0]
    assert lp_rr.agreement == 1.0
    excluded = sign_agreement(comparison, "RPP", "AP", method_ties="exclude").iloc[0]
    assert excluded.agreement == pytest.approx(excluded.agree / (excluded.pairs - excluded.method_ties))


def test_system_agreement(comparison):
    table = system_agreement(comparison, ["LexiPrecision"], ["RR", "AP"]).set_index("reference")
    M = comparison.matrix("LexiPrecision").to_numpy()
    R = comparison.matrix("AP").to_numpy()
    i, j = np.triu_indices(len(M), 1)
    strict = R[i, j] != 0
    assert table.loc["AP", "pairs"] == strict.sum()
    assert table.loc["AP", "agree"] == int((np.sign(M[i, j]) == np.sign(R[i, j]))[strict].sum())


def test_kendall_tau(comparison):
    table = kendall_tau(comparison)
    assert len(table) == 15 and (table["systems"] == 6).all()
    row = table[(table["method"] == "RPP") & (table["reference"] == "AP")].iloc[0]
    rpp = comparison.ranking("RPP").set_index("run")["rank"]
    ap = comparison.ranking("AP").set_index("run")["score"]
    assert row.tau == pytest.approx(stats.kendalltau(-rpp, ap.reindex(rpp.index)).statistic)
    everything = kendall_tau(comparison, ["AP", "nDCG", "RR"], "all", variant="a")
    assert len(everything) == 3
    x, y = comparison.ranking("AP").set_index("run")["score"], comparison.ranking("RR").set_index("run")["score"]
    assert everything.iloc[1].tau == pytest.approx(kendall_tau_a(x.to_numpy(), y.reindex(x.index).to_numpy()))
    with pytest.raises(PrefevalError, match="Comparison"):
        kendall_tau(comparison.per_query)


def test_kendall_tau_a_by_definition():
    x, y = np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, 2])
    # pairs: (1,2)+ (1,3)+ (1,4)+ (2,3)- (2,4)- (3,4) tie -> (3 - 2) / 6
    assert kendall_tau_a(x, y) == pytest.approx(1 / 6)


def test_discriminative_power(comparison):
    table = discriminative_power(comparison, n_resamples=500)
    assert len(table) == 2 * len(comparison.methods)
    for row in table.itertuples():
        test = None if row.test in ("sign", "t") else row.test
        sig = comparison.significance(row.method, test=test, correction=row.correction, n_resamples=500)
        assert row.pairs == 15 and row.significant == int(sig["significant"].sum())
        assert row.test == ("sign" if row.kind == "preference" else "t") or row.test == "randomized_tukey_hsd"
    hsd = table[table["test"] == "randomized_tukey_hsd"]
    assert (hsd["correction"] == "none").all()
    # runs of very different simulated quality: the paired tests separate some pairs
    assert table.loc[table["test"] != "randomized_tukey_hsd", "fraction"].max() > 0


def test_keep_mask_policies(sim):
    data = load_positions(sim.qrels, sim.runs)
    query = max(data.queries, key=lambda q: len(q.doc_ids))
    m = len(query.doc_ids)
    freq = np.isfinite(query.doc_pos).sum(axis=0)
    rng = np.random.default_rng(0)
    for policy in ("uniform", "popularity-weighted", "keep-most-popular"):
        mask = keep_mask(query, 0.6, policy, rng)
        assert mask.sum() == keep_count(m, 0.6)
    kept = keep_mask(query, 0.6, "keep-most-popular", rng)
    assert freq[kept].min() >= freq[~kept].max()
    # popularity-weighted removal: popular documents are removed more often than under uniform removal
    removed_freq = {p: np.mean([freq[~keep_mask(query, 0.5, p, rng)].mean() for _ in range(300)])
                    for p in ("uniform", "popularity-weighted")}
    assert removed_freq["popularity-weighted"] > removed_freq["uniform"]
    assert keep_count(10, 0.2) == 8 and keep_count(3, 0.9) == 1 and keep_count(7, 0.0) == 7
    with pytest.raises(PrefevalError):
        keep_mask(query, 0.5, "sometimes", rng)


def test_label_degradation(sim):
    methods = ["LexiRecall", "RPP", "AP", "RR"]
    out = label_degradation(sim.qrels, sim.runs, methods, fractions=(0.0, 0.5), samples=3, seed=1)
    assert len(out) == (3 + 3 + 1) * 2 * len(methods)
    zero = out[out["fraction_removed"] == 0.0]
    assert (zero["agreement"] == 1.0).all() and np.allclose(zero["tau"], 1.0)
    full = compare(sim.qrels, sim.runs, methods)
    ties = tie_rates(full).set_index("method")["fraction_tied"]
    for row in zero.itertuples():
        assert row.fraction_tied == pytest.approx(ties[row.method])
    again = label_degradation(sim.qrels, sim.runs, methods, fractions=(0.0, 0.5), samples=3, seed=1)
    pd.testing.assert_frame_equal(out, again)  # seeded
    half = summarise(out[out["fraction_removed"] == 0.5])
    assert (half["agreement_mean"] < 1).all() and set(half["samples"]) == {1, 3}


def test_query_subsampling(comparison):
    out = query_subsampling(comparison, fractions=(0.0, 0.6), samples=2, seed=0)
    zero = out[out["fraction_removed"] == 0.0]
    assert np.allclose(zero["tau"], 1.0) and (zero["system_agreement"] == 1.0).all()
    assert set(out.loc[out["fraction_removed"] == 0.6, "queries"]) == {10}


def test_label_degradation_falls_back_to_compare(sim):
    # RBU is outside the position engine: every sample goes through compare() on reduced qrels, which must
    # give the engine's values for the methods both can evaluate
    fast = label_degradation(sim.qrels, sim.runs, ["LexiRecall", "AP"], fractions=(0.5,), samples=1,
                             policies=("uniform",), seed=2)
    slow = label_degradation(sim.qrels, sim.runs, ["LexiRecall", "AP", "RBU@10"], fractions=(0.5,), samples=1,
                             policies=("uniform",), seed=2)
    pd.testing.assert_frame_equal(fast, slow[slow["method"] != "RBU@10"].reset_index(drop=True))
    assert (slow["method"] == "RBU@10").sum() == 1


def test_position_engine_on_subtopic_qrels(sim):
    # diversity qrels: one row per (doc, subtopic); preferences use the max grade, metrics stay with compare()
    first = sim.qrels.assign(iteration="1")
    second = sim.qrels.assign(iteration="2", relevance=np.maximum(sim.qrels["relevance"] - 1, 0))
    qrels = pd.concat([first, second], ignore_index=True)
    data = load_positions(qrels, sim.runs)
    prefs = ["LexiRecall", "RPP(subtopics=True)", "LexiPrecision(rel=2)"]
    _assert_same(evaluate_positions(data, prefs).per_query, compare(qrels, sim.runs, prefs).per_query)
    with pytest.raises(PrefevalError, match="subtopics"):
        evaluate_positions(data, ["AP"])


def _tau_cases():
    """Vectors with and without ties, at most 33 systems and more, with 0, 1, 2 and many discordant pairs."""
    rng = np.random.default_rng(12)
    cases = []
    for n in (2, 3, 5, 20, 33, 34, 40, 60):
        base = np.arange(n, dtype=float)
        cases.append((base, base.copy()))  # no discordant pair
        cases.append((base, base[::-1].copy()))  # every pair discordant
        one = base.copy()
        one[[0, 1]] = one[[1, 0]]  # one discordant pair
        cases.append((base, one))
        if n >= 4:
            two = one.copy()
            two[[2, 3]] = two[[3, 2]]  # two discordant pairs
            cases.append((base, two))
        cases.append((base, rng.permutation(n).astype(float)))
        cases.append((base, rng.integers(0, max(2, n // 3), n).astype(float)))  # ties in y
    return cases


@pytest.mark.parametrize("x, y", _tau_cases())
def test_tau_b_and_its_p_value_are_scipys_own_choice(x, y):
    """tau-b and its p-value equal scipy.stats.kendalltau's default; the method stated is the one scipy used."""
    from prefeval.analysis.agreement import _tau, tau_p_method

    tau, p = _tau(x, y, "b")
    ref = stats.kendalltau(x, y)
    np.testing.assert_equal((tau, p), (ref.statistic, ref.pvalue))  # NaN (a constant vector) equals NaN
    how = tau_p_method(x, y)
    named = stats.kendalltau(x, y, method="exact" if how == "exact" else "asymptotic")
    np.testing.assert_equal(p, named.pvalue)
    ties = len(np.unique(y)) < len(y)
    assert how == ("approximate (ties)" if ties else "exact" if len(x) <= 33 or min(
        kendall_discordant(x, y), len(x) * (len(x) - 1) // 2 - kendall_discordant(x, y)) <= 1 else "approximate")


def kendall_discordant(x, y):
    return sum((x[i] - x[j]) * (y[i] - y[j]) < 0 for i in range(len(x)) for j in range(i + 1, len(x)))


def test_tau_p_exact_beyond_33_systems_differs_from_the_approximation():
    """With 40 systems and one discordant pair scipy takes the exact p-value; the normal one differs."""
    from prefeval.analysis.agreement import _tau, tau_p_method

    x = np.arange(40, dtype=float)
    y = x.copy()
    y[[5, 6]] = y[[6, 5]]
    assert tau_p_method(x, y) == "exact"
    p = _tau(x, y, "b")[1]
    assert p == stats.kendalltau(x, y, method="exact").pvalue != stats.kendalltau(x, y, method="asymptotic").pvalue
