"""``evaluate`` hands standard providers dicts of dicts: same values as the canonical frames give them."""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval.data.inputs import qrels_frame
from prefeval.data.ranking import canonical_run, nested_dict


def test_nested_dict_groups_rows_and_keeps_the_last_value():
    outer = np.array(["b", "a", "b", "a", "b"], dtype=object)
    inner = np.array(["x", "y", "z", "y", "x"], dtype=object)
    values = np.array([1, 2, 3, 4, 5])
    out = nested_dict(outer, inner, values)
    expected: dict = {}
    for o, i, v in zip(outer, inner, values.tolist()):
        expected.setdefault(o, {})[i] = v
    assert out == expected and list(out) == ["b", "a"] and list(out["b"]) == ["x", "z"]
    assert nested_dict(np.zeros(0, object), np.zeros(0, object), np.zeros(0)) == {}


def _random_inputs(seed: int, subtopics: bool):
    rng = np.random.default_rng(seed)
    qrels = pd.DataFrame({"query_id": rng.integers(0, 6, 60).astype(str), "doc_id": "d" + pd.Series(rng.integers(0, 15, 60)).astype(str),
                          "relevance": rng.integers(0, 4, 60),
                          "iteration": rng.integers(1, 3, 60).astype(str) if subtopics else "0"})
    runs = {f"r{i}": pd.DataFrame({"query_id": rng.integers(0, 7, 80).astype(str),
                                   "doc_id": "d" + pd.Series(rng.integers(0, 15, 80)).astype(str),
                                   "score": rng.integers(0, 4, 80).astype(float)}) for i in range(3)}
    return qrels, runs


@pytest.mark.parametrize("seed", range(4))
def test_standard_measures_equal_their_providers_on_the_canonical_frames(seed):
    qrels, runs = _random_inputs(seed, subtopics=False)
    measures = ["nDCG@10", "AP(rel=2)", "P@5", "RR", "R@10", "RBU@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = prefeval.evaluate(qrels, runs, measures, per_query=True)
        canonical_qrels = qrels_frame(qrels)
        for name, run in runs.items():
            frame = canonical_run(prefeval.data.inputs.run_frame(run), name)
            parsed = [ir_measures.parse_measure(m) for m in measures]
            for metric in ir_measures.iter_calc(parsed, canonical_qrels, frame):
                row = got[(got["run"] == name) & (got["query_id"] == metric.query_id)
                          & (got["measure"] == str(metric.measure))]
                assert len(row) == 1 and row["value"].iloc[0] == pytest.approx(metric.value, abs=1e-12)


def test_subtopic_qrels_still_reach_the_diversity_provider():
    pytest.importorskip("pyndeval")
    qrels, runs = _random_inputs(7, subtopics=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = prefeval.evaluate(qrels, runs, ["alpha_nDCG@10", "nDCG@10"], per_query=True)
        canonical_qrels = qrels_frame(qrels)
        for name, run in runs.items():
            frame = canonical_run(prefeval.data.inputs.run_frame(run), name)
            for metric in ir_measures.iter_calc([ir_measures.alpha_nDCG @ 10, ir_measures.nDCG @ 10],
                                                canonical_qrels, frame):
                row = got[(got["run"] == name) & (got["query_id"] == metric.query_id)
                          & (got["measure"] == str(metric.measure))]
                assert len(row) == 1 and row["value"].iloc[0] == pytest.approx(metric.value, abs=1e-12)
