"""recode_run: a run ranked once serves other query sets and candidates exactly as ranking it again would."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from prefeval.data.collection import Collection
from prefeval.data.positions import PositionTable
from prefeval.data.ranking import rank_run, recode_run


def random_case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    run = pd.DataFrame({"query_id": rng.choice(["q1", "q2", "q3", "q10"], n),
                        "doc_id": rng.choice([f"d{i}" for i in range(25)], n),
                        "score": rng.integers(0, 4, n).astype(float)})  # ties and repeated documents
    qrels = pd.DataFrame([(q, f"d{d}", int(rng.integers(0, 3)), "0") for q in ("q2", "q1", "q9", "q10")
                          for d in rng.choice(25, 6, replace=False)],
                         columns=["query_id", "doc_id", "relevance", "iteration"])
    return run, qrels


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("dtype", [object, "str"])
def test_recode_run_equals_rank_run(seed, dtype):
    run, qrels = random_case(seed)
    run = run.astype({"query_id": dtype, "doc_id": dtype})
    queries = pd.Index(["q10", "q2", "q9", "q1"], dtype=object)
    candidates = Collection(qrels).candidates(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        once = rank_run(run)
        fresh = rank_run(run, queries, candidates)
    got = recode_run(once, queries, candidates)
    assert got.queries.equals(fresh.queries)
    assert np.array_equal(got.query_codes, fresh.query_codes) and np.array_equal(got.rank, fresh.rank)
    assert got.doc_ids.tolist() == fresh.doc_ids.tolist()
    is_candidate = got.doc_codes < len(got.candidates)
    assert np.array_equal(is_candidate, fresh.doc_codes < len(fresh.candidates))
    assert np.array_equal(got.doc_codes[is_candidate], fresh.doc_codes[is_candidate])
    assert got.rows().values.tolist() == fresh.rows().values.tolist()
    for rel in (1, 2):
        table = PositionTable(qrels, rel, queries)
        for depth in (None, 2):
            assert np.array_equal(table.locate(got, depth), table.locate(fresh, depth))
    assert recode_run(once).rows().values.tolist() == once.rows().values.tolist()


def test_recode_run_needs_a_full_order():
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    with pytest.raises(ValueError, match="ties='all'"):
        recode_run(rank_run(run, candidates=np.array(["d"], dtype=object), ties="candidates"))
