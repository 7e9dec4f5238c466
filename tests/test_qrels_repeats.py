"""Repeated qrels judgments are found by one integer sort of (query, document, subtopic) keys, the documents coded
in blocks of whole queries: the answer must be pandas' ``duplicated`` on the three columns, for grouped and
shuffled lines, any block size, and a document judged in several queries or subtopics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from prefeval.data import inputs, ranking


@pytest.mark.parametrize("block", [1, 5, 1 << 16])
@pytest.mark.parametrize("seed", range(6))
def test_repeats_found_as_pandas_duplicated(monkeypatch, block: int, seed: int) -> None:
    monkeypatch.setattr(ranking, "_BLOCK_ROWS", block)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 200))
    qrels = pd.DataFrame({"query_id": [f"q{q}" for q in np.sort(rng.integers(0, 12, n))],
                          "doc_id": [f"d{d}" for d in rng.integers(0, 40, n)],  # shared across queries
                          "relevance": rng.integers(0, 3, n),
                          "iteration": [str(t) for t in rng.integers(0, 2, n)]})
    qrels = qrels.drop_duplicates(["query_id", "doc_id", "iteration"]).reset_index(drop=True)
    if seed % 2:  # one repeated line, somewhere
        qrels = pd.concat([qrels, qrels.iloc[[int(rng.integers(0, len(qrels)))]]]).sort_values("query_id",
                                                                                             kind="stable")
    if seed % 3 == 0:  # lines not grouped by query
        qrels = qrels.sample(frac=1.0, random_state=seed)
    qrels = qrels.reset_index(drop=True)
    expected = bool(qrels.duplicated(["query_id", "doc_id", "iteration"]).any())
    assert expected == bool(seed % 2)
    assert inputs._has_repeats(qrels) == expected
