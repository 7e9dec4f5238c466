"""``rank_run(..., ties="candidates")`` (the compare path) gives every candidate document the rank the full
ranking gives it: 1 + the number of distinct documents of its query ranked above it (higher score, or equal score
and larger doc id), on runs full of tied scores and repeated documents."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from prefeval.data.ranking import rank_run


def brute_force_ranks(frame: pd.DataFrame, candidates: set[str]) -> dict[tuple[str, str], int]:
    """(query, candidate) -> 1 + number of distinct documents above it, from the definition."""
    out = {}
    for q, rows in frame.groupby("query_id"):
        best: dict[str, float] = {}
        for d, s in zip(rows["doc_id"], rows["score"]):  # first occurrence = best position (score desc, id desc)
            best[d] = max(best.get(d, -np.inf), s)
        for d in best:
            if d in candidates:
                out[q, d] = 1 + sum(1 for e, t in best.items() if t > best[d] or (t == best[d] and e > d))
    return out


@pytest.mark.parametrize("ids", ["default", "object"])
@pytest.mark.parametrize("seed", range(12))
def test_candidate_ranks_equal_full_ranking_and_definition(seed, ids):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    frame = pd.DataFrame({"query_id": rng.choice(["q1", "q2", "q3", "q10"], n),
                          "doc_id": [f"d{i}" for i in rng.integers(0, 60, n)],
                          "score": rng.integers(0, 6, n).astype(float)})
    if ids == "object":  # ids as Python objects (pandas without pyarrow), not Arrow-backed strings
        frame = frame.astype({"query_id": object, "doc_id": object})
    if seed % 2:
        frame = frame.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")
    candidates = np.array(sorted({f"d{i}" for i in rng.integers(0, 60, 12)}), dtype=object)
    with warnings.catch_warnings(record=True) as full_warnings:
        warnings.simplefilter("always")
        full = rank_run(frame, candidates=candidates)
    with warnings.catch_warnings(record=True) as part_warnings:
        warnings.simplefilter("always")
        part = rank_run(frame, candidates=candidates, ties="candidates")
    assert [str(w.message) for w in full_warnings] == [str(w.message) for w in part_warnings]

    def located(run):
        hit = run.doc_codes < len(run.candidates)
        names = run.queries.to_numpy(dtype=object)[run.query_codes[hit]]
        return dict(zip(zip(names, run.candidates[run.doc_codes[hit]]), run.rank[hit].tolist()))

    expected = brute_force_ranks(frame, set(candidates))
    assert located(full) == expected
    assert located(part) == expected
    assert full.rows()["doc_id"].tolist() == full.doc_ids.tolist()
    with pytest.raises(ValueError, match="ties='all'"):
        part.rows()
