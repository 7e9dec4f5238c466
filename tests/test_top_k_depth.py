"""Standard measures at a cutoff get rankings cut at that depth: the values equal those on the full rankings."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval.data.ranking import canonical_run
from prefeval.engine.evaluate import top_k_depth

CUT = ["nDCG@5", "P@3", "R@10", "AP@4", "RR@2", "Success@3", "Judged@5", "P(rel=2)@5", "nDCG(judged_only=False)@3"]
FULL = ["nDCG(judged_only=True)@5", "AP", "nDCG", "Rprec", "Bpref", "NumRet", "P(judged_only=True)@5"]


def inputs(seed: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    rng = np.random.default_rng(seed)
    qrels = pd.DataFrame([(f"q{q}", f"d{d}", int(rng.integers(0, 3))) for q in range(6)
                          for d in rng.choice(30, 12, replace=False)], columns=["query_id", "doc_id", "relevance"])
    runs = {f"r{s}": pd.DataFrame([(f"q{q}", f"d{d}", float(rng.integers(0, 5))) for q in range(7)
                                   for d in rng.choice(30, int(rng.integers(1, 25)), replace=False)],
                                  columns=["query_id", "doc_id", "score"]) for s in range(3)}
    return qrels, runs


def test_depth_only_for_top_k_measures():
    parse = ir_measures.parse_measure
    assert top_k_depth([parse("nDCG@10"), parse("P@20"), parse("R(rel=2)@5")]) == 20
    for text in FULL:
        assert top_k_depth([parse("nDCG@10"), parse(text)]) is None, text
    assert top_k_depth([]) is None


@pytest.mark.parametrize("seed", range(4))
def test_cut_rankings_give_the_values_of_full_rankings(seed):
    qrels, runs = inputs(seed)
    for measures in (CUT, CUT[:1], CUT + FULL[:2]):
        got = prefeval.evaluate(qrels, runs, measures, per_query=True)
        for name, run in runs.items():
            full = canonical_run(run, name)
            parsed = [ir_measures.parse_measure(m) for m in measures]
            expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(parsed, qrels, full)}
            mine = got[got["run"] == name]
            assert {(q, m): v for q, m, v in zip(mine["query_id"], mine["measure"], mine["value"])} == \
                pytest.approx(expected, abs=1e-12)
