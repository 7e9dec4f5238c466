"""Tie order by doc id in Python string order, for Arrow-backed and object ids alike (non-ASCII ids included)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from prefeval.data.ranking import rank_run

IDS = ["d1", "d10", "d2", "D", "a b", "ä", "z\u00ff", "\U0001F600", "ab", "a"]


@pytest.mark.parametrize("dtype", [object, "str"])
@pytest.mark.parametrize("seed", range(5))
def test_ties_by_doc_id_descending(dtype, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for q in ("q1", "q2", "é"):
        for doc in rng.permutation(IDS)[: int(rng.integers(3, len(IDS) + 1))]:
            rows.append((q, str(doc), float(rng.integers(0, 3))))
    rng.shuffle(rows)
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]).astype({"query_id": dtype, "doc_id": dtype})
    ranked = rank_run(frame)
    got = list(zip(ranked.queries.to_numpy(dtype=object)[ranked.query_codes], ranked.doc_ids))
    expected = []
    for q in pd.unique(frame["query_id"].to_numpy(dtype=object)):  # queries in order of appearance
        docs = [(d, s) for qq, d, s in rows if qq == q]
        expected += [(q, d) for d, _ in sorted(docs, key=lambda ds: (ds[1], ds[0]), reverse=True)]
    assert got == expected
