"""``ranking.pair_codes`` (the qrels' repeated-judgment check): equal codes exactly for equal (query, document) --
on qrels sorted by query and document (compared as neighbours, no hashing), with repeats, unsorted documents and
queries in several stretches (factorised by blocks)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from prefeval.data import ranking


@pytest.mark.parametrize("block", [4, 1 << 14])
@pytest.mark.parametrize("ids", ["string[pyarrow]", object])
def test_pair_codes_tell_pairs_apart(ids, block, monkeypatch) -> None:
    monkeypatch.setattr(ranking, "_BLOCK_ROWS", block)  # 4: factorised in blocks (which tell whether a pair repeats)
    rng = np.random.default_rng(5)
    fast = known = 0
    for trial in range(300):
        n = int(rng.integers(2, 60))
        q = np.sort(rng.integers(0, 4, n)) if trial % 3 else rng.integers(0, 4, n)
        d = rng.integers(0, 12, n)
        if trial % 2:  # documents sorted within queries, strictly in half of these
            order = np.lexsort((d, q))
            q, d = q[order], d[order]
            if trial % 4 == 1:
                keep = np.r_[True, (q[1:] != q[:-1]) | (d[1:] != d[:-1])]
                q, d = q[keep], d[keep]
        queries = pd.Series([f"q{x}" for x in q], dtype=ids)
        docs = pd.Series([f"d{x:02d}" for x in d], dtype=ids)
        qc, dc, distinct = ranking.pair_codes(queries, docs)
        fast += ranking._increasing_within_queries(qc, docs)
        pairs = list(zip(q.tolist(), d.tolist()))
        same = np.array([[a == b for b in pairs] for a in pairs])
        np.testing.assert_array_equal(same, (qc[:, None] == qc[None, :]) & (dc[:, None] == dc[None, :]))
        assert not distinct or len(set(pairs)) == len(pairs)
        known += distinct and not ranking._increasing_within_queries(qc, docs)
    assert fast > 20  # sorted qrels take the comparison of neighbours (ids of every form are Arrow strings inside)
    assert (known > 0) == (block == 4)  # distinct pairs of unsorted qrels known from the blocks
