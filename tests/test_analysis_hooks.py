"""The pipeline hooks of prefeval.analysis (PIPELINE_ANALYSES) on a small simulated collection."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from prefeval.analysis import PIPELINE_ANALYSES, tie_rates
from prefeval.data.simulate import collection
from prefeval.engine.compare import compare
from prefeval.engine.evaluate import evaluate
from prefeval.errors import PrefevalError

METRICS = ["AP", "RR", "nDCG@10"]
PREFS = ["LexiRecall", "RPP"]


@pytest.fixture(scope="module")
def context():
    sim = collection(n_queries=15, n_runs=5, depth=30, n_docs=60, seed=7)
    per_query = evaluate(sim.qrels, sim.runs, METRICS, per_query=True)
    return SimpleNamespace(qrels=sim.qrels, runs=sim.runs, methods=PREFS, measures=METRICS, rel=1,
                           settings={}, per_query=per_query)


def test_registry_names():
    assert set(PIPELINE_ANALYSES) == {"ties", "agreement", "power", "robustness", "tie_probability", "worst_case",
                                      "unanimity", "unanimity_grid", "balancing", "reusability"}


def test_ties_and_agreement_hooks(context):
    ties = PIPELINE_ANALYSES["ties"](context)
    expected = tie_rates(compare(context.qrels, context.runs, PREFS + METRICS))
    pd.testing.assert_frame_equal(ties["ties"], expected)
    agreement = PIPELINE_ANALYSES["agreement"](context)
    assert set(agreement["sign_agreement"]["method"]) == set(PREFS)
    assert set(agreement["kendall_tau"]["reference"]) == set(METRICS)


def test_power_and_robustness_hooks(context):
    power = PIPELINE_ANALYSES["power"](context, n_resamples=200)["discriminative_power"]
    assert len(power) == 3 * len(PREFS + METRICS) and (power["pairs"] == 10).all()
    assert set(power["correction"]) == {"holm", "none"}
    robust = PIPELINE_ANALYSES["robustness"](context, fractions=[0.5], samples=2, policies=["uniform"])
    labels = robust["label_degradation"]
    assert set(labels["method"]) == set(PREFS + METRICS) and (labels["samples"] == 2).all()
    assert np.isfinite(robust["query_subsampling"]["tau_mean"]).all()


def test_data_free_hooks(context):
    probs = PIPELINE_ANALYSES["tie_probability"](context)
    assert probs["by_corpus_size"].loc[1, "R@1000"] == pytest.approx(0.31267, abs=5e-6)
    sim = PIPELINE_ANALYSES["worst_case"](context, n_queries=500)["worst_case_agreement"]
    assert (sim["TSE"] == 1.0).all()
    mu = PIPELINE_ANALYSES["unanimity"](context)["metric_unanimity"]
    assert set(mu["measure"]) == set(METRICS) and (mu["pairs"] == 15 * 20).all()
    balance = PIPELINE_ANALYSES["balancing"](context, lengths=[21])["balancing_index"].set_index("measure")
    assert balance.loc["RR", "B(21)"] == 1 and balance.loc["AP", "B(21)"] == 16
    with pytest.raises(PrefevalError, match="two metrics"):
        PIPELINE_ANALYSES["unanimity"](context, metrics=["AP"])
