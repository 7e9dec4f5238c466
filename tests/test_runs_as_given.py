"""``prefeval.evaluate`` gives dict-of-dicts runs to pytrec_eval as they are when every measure is pytrec_eval's:
the values are those of the canonical rankings (trec_eval orders ties by doc id descending, as prefeval does), and
bad ids, scores and names still go through the reader's checks."""

from __future__ import annotations

import importlib
import warnings
from collections import OrderedDict

import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval.errors import PrefevalError

evaluate_module = importlib.import_module("prefeval.engine.evaluate")  # the package's attribute is the function
parse = evaluate_module.parse_measures
MEASURES = ["nDCG@10", "AP", "P@5", "RR", "R@20", "NumRet", "Rprec", "NumRelRet"]


def collection(seed: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    docs = ["d0", "d1", "D1", "d10", "d2", "0012", "12", "é", "a-b", "z"] + [f"n{k}" for k in range(20)]
    qrels = {f"q{q}": {str(d): int(rng.integers(-1, 4)) for d in rng.choice(docs, 8, replace=False)} for q in range(6)}
    runs = {}
    for r in range(4):
        run = {}
        for q in range(7):  # q6 is not judged
            chosen = rng.choice(docs, int(rng.integers(1, 25)), replace=False)
            run[f"q{q}"] = {str(d): float(rng.integers(0, 4)) if r % 2 else float(rng.normal()) for d in chosen}
        if r == 3:
            run["q0"] = {d: float("inf") if k % 3 == 0 else 1.0 for k, d in enumerate(run["q0"])}
        runs[f"r{r}"] = run
    return qrels, runs


@pytest.mark.parametrize("seed", range(6))
def test_runs_as_given_equal_the_ranked_runs(seed) -> None:
    qrels, runs = collection(seed)
    ranked_path = {name: {q: OrderedDict(docs) for q, docs in run.items()} for name, run in runs.items()}
    assert evaluate_module._as_given(runs, parse(MEASURES)) is not None
    assert evaluate_module._as_given(ranked_path, parse(MEASURES)) is None
    with warnings.catch_warnings(record=True) as given_warnings:
        warnings.simplefilter("always")
        given = prefeval.evaluate(qrels, runs, MEASURES, per_query=True)
    with warnings.catch_warnings(record=True) as ranked_warnings:
        warnings.simplefilter("always")
        ranked = prefeval.evaluate(qrels, ranked_path, MEASURES, per_query=True)
    pd.testing.assert_frame_equal(given, ranked, check_exact=True)
    assert [str(w.message) for w in given_warnings] == [str(w.message) for w in ranked_warnings]
    means = prefeval.evaluate(qrels, runs, MEASURES)
    pd.testing.assert_frame_equal(means, prefeval.evaluate(qrels, ranked_path, MEASURES), check_exact=True)


def test_other_measures_and_bad_runs_take_the_ranked_path() -> None:
    qrels, runs = collection(0)
    assert evaluate_module._as_given(runs, parse(["nDCG@10", "RBU@20"])) is None  # a prefeval measure
    for bad in ({"q0": {"d\x00": 1.0}}, {"q0": {"d1": float("nan")}}, {"q0": {"d1": "1.0"}}, {1: {"d1": 1.0}},
                {"q0": {2: 1.0}}, {"q 0": {"d1": 1.0}}):
        assert evaluate_module._as_given({"r": bad}, parse(["AP"])) is None
    with pytest.raises(PrefevalError, match=r"doc_id 'd\\x00' \(query q0\) holds U\+0000"):
        prefeval.evaluate(qrels, {"r": {"q0": {"d\x00": 1.0}}}, ["AP"])
    with pytest.raises(PrefevalError, match="is not a number"):
        prefeval.evaluate(qrels, {"r": {"q0": {"d1": float("nan")}}}, ["AP"])
