"""rank_run(..., depth=k) orders tied scores only where they reach the top k ranks and keeps only those: its rows are
the top k of the full ranking, for runs with ties, repeated documents (within and across queries) and unsorted rows."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval.data.ranking import QueryCandidates, rank_run
from prefeval.engine.evaluate import parse_measures, top_k_depth


def _run(rng: random.Random, shuffle: bool) -> pd.DataFrame:
    rows = []
    for q in ("q1", "q2", "10", "010"):
        docs = [f"d{rng.randrange(40)}" for _ in range(rng.randint(1, 30))]  # repeats within and across queries
        rows += [(q, d, float(rng.choice([1, 2, 2, 3, 3, 3, 3, 5]))) for d in docs]
    if shuffle:
        rng.shuffle(rows)
    else:
        rows.sort(key=lambda r: (r[0], -r[2]))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def _qrels(rng: random.Random) -> pd.DataFrame:
    return pd.DataFrame([(q, f"d{k}", rng.choice([0, 1, 2])) for q in ("q1", "q2", "10", "010") for k in range(40)],
                        columns=["query_id", "doc_id", "relevance"])


def test_top_ranks_equal_the_full_ranking():
    partly = 0
    for seed in range(60):
        rng = random.Random(seed)
        partly += _check(_run(rng, shuffle=seed % 2 == 0))
    assert partly > 60  # most rankings are cut


def test_top_ranks_equal_the_full_ranking_with_query_candidates():
    """Ranked with per-query candidates, the documents are coded block by block, which tells whether a document
    repeats within a query (none repeats in half of these runs)."""
    partly = 0
    for seed in range(60):
        rng = random.Random(seed)
        run = _run(rng, shuffle=seed % 4 < 2)
        if seed % 2:
            run = run.drop_duplicates(["query_id", "doc_id"]).reset_index(drop=True)
        judged = run.sample(frac=0.3, random_state=seed)
        partly += _check(run, QueryCandidates(judged["query_id"], judged["doc_id"]),
                         set(zip(judged["query_id"], judged["doc_id"])))
    assert partly > 60


def _check(run: pd.DataFrame, candidates: QueryCandidates | None = None, pairs: set | None = None) -> int:
    partly = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = rank_run(run)
        for depth in (1, 3, 10, 50):
            partial = rank_run(run, candidates=candidates, depth=depth)
            partly += bool(partial.rank.max() < full.rank.max())
            assert partial.to_dict(depth) == full.to_dict(depth)
            assert partial.rows(depth).equals(full.rows(depth))
            # only the top depth ranks are held; every document is still counted
            assert not partial.full_order and partial.exact_depth == depth
            assert len(partial.rank) == np.count_nonzero(full.rank <= depth)
            assert np.array_equal(partial.query_sizes(), full.query_sizes())
            if pairs is not None:  # a candidate code names the row's document; every candidate row has one
                coded = partial.doc_codes < len(partial.candidates)
                assert np.array_equal(partial.candidates[partial.doc_codes[coded]], partial.doc_ids[coded])
                queries = partial.queries.to_numpy()[partial.query_codes]
                assert all(c for c, q, d in zip(coded, queries, partial.doc_ids) if (q, d) in pairs)
            with pytest.raises(ValueError, match="up to rank"):
                partial.to_dict(depth + 1)
            with pytest.raises(ValueError, match="up to rank"):
                partial.frame()
    return partly


def test_depth_needs_full_ties_and_a_positive_depth():
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    with pytest.raises(ValueError, match="depth needs"):
        rank_run(run, ties="candidates", depth=3)
    with pytest.raises(ValueError, match="depth needs"):
        rank_run(run, depth=0)


def test_evaluate_with_top_k_measures_only_gives_the_full_ranking_values():
    rng = random.Random(5)
    runs = {f"r{i}": _run(rng, shuffle=True) for i in range(3)}
    qrels = _qrels(rng)
    measures = ["nDCG@10", "P@5", "AP@3", "RR@10"]
    assert top_k_depth(parse_measures(measures, None)) == 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        top = prefeval.evaluate(qrels, runs, measures, per_query=True)
        # with a measure that reads whole rankings every tie is ordered: the top-k values must be the same
        whole = prefeval.evaluate(qrels, runs, [*measures, "AP"], per_query=True)
    assert top.equals(whole[whole["measure"] != "AP"].reset_index(drop=True))


def test_evaluate_with_top_k_measures_and_a_preference_without_baseline():
    """A preference without a baseline reads whole rankings: the runs are not cut at the metrics' depth."""
    rng = random.Random(7)
    runs = {f"r{i}": _run(rng, shuffle=i == 1) for i in range(3)}
    qrels = _qrels(rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = prefeval.evaluate(qrels, runs, ["P@2", "LexiPrecision"]).set_index(["run", "measure"])["value"]
        alone = pd.concat([prefeval.evaluate(qrels, runs, [m]) for m in ("P@2", "LexiPrecision")])
    assert both.to_dict() == alone.set_index(["run", "measure"])["value"].to_dict()
