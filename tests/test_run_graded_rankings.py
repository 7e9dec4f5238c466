"""run_graded_rankings (integer codes) equals graded_rankings of the run's ranked rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from prefeval.data.aspects import graded_rankings, qrels_side, run_graded_rankings
from prefeval.data.collection import Collection
from prefeval.data.ranking import rank_run


def case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 150))
    run = pd.DataFrame({"query_id": rng.choice(["q1", "q2", "q3", "q7"], n),
                        "doc_id": rng.choice([f"d{i}" for i in range(30)], n),
                        "score": rng.integers(0, 5, n).astype(float)})
    qrels = pd.DataFrame([(q, f"d{d}", int(rng.integers(0, 4)), str(rng.choice(["0", "1", "2"])))
                          for q in ("q2", "q1", "q9", "q7") for d in rng.choice(30, 8, replace=False)],
                         columns=["query_id", "doc_id", "relevance", "iteration"])
    return run, qrels


def equal(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f))
               for f in ("grades", "length", "gmax", "n_aspects", "n_relevant", "pool"))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.filterwarnings("ignore:run")
def test_codes_and_rows_agree(seed):
    run, qrels = case(seed)
    queries_index = Collection(qrels).queries
    for rel in (1, 2):
        side_queries = [q for q in sorted(Collection(qrels).queries) if (qrels.loc[qrels.query_id == q, "relevance"] >= rel).any()]
        side = qrels_side(qrels, side_queries, rel)
        for candidates in (Collection(qrels).candidates(1), Collection(qrels).candidates(3), None):
            ranked = rank_run(run, queries_index, candidates)
            for depth in (None, 3):
                expected = graded_rankings(ranked.rows(depth), qrels, side_queries, rel)
                got = run_graded_rankings(ranked, depth, qrels, side_queries, rel, side=side)
                assert equal(got, expected), (rel, depth)
