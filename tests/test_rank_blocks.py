"""``rank_run(..., ties="candidates")`` factorises the document ids of a run grouped by query in blocks of whole
queries: the candidates' ranks must be those of the definition (1 + distinct documents of the query ranked above:
higher score, or equal score and larger doc id string; a repeated document counted once, at its best position),
whatever the block size, for Arrow-backed, object and UTF-8 bytes ids, with repeats and ties around candidates."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from prefeval.data import ranking


def brute_ranks(frame: pd.DataFrame, candidates: set) -> dict[tuple[str, object], int]:
    """(query, candidate) -> rank, straight from the definition."""
    out = {}
    for q, rows in frame.groupby("query_id", sort=False):
        # score descending, then doc id descending in string order
        order = sorted(zip(rows["score"], rows["doc_id"]), key=lambda t: (t[0], str(t[1])), reverse=True)
        seen: list = []
        for _, d in order:
            if d not in seen:
                seen.append(d)
        for r, d in enumerate(seen, 1):
            if d in candidates:
                out[(q, d)] = r
    return out


def ranked_candidates(run: ranking.RankedRun) -> dict[tuple[str, object], int]:
    rows = np.flatnonzero(run.doc_codes < len(run.candidates))
    names = run.queries.to_numpy(dtype=object)
    return {(names[run.query_codes[i]], run.candidates[run.doc_codes[i]]): int(run.rank[i]) for i in rows}


def random_run(rng: np.random.Generator, n_queries: int, ints: bool) -> tuple[pd.DataFrame, list]:
    parts = []
    for q in range(n_queries):
        n = int(rng.integers(1, 30))
        pool = [int(d) for d in rng.integers(0, 40, size=n)] if ints else [f"d{d}" for d in rng.integers(0, 40, size=n)]
        scores = rng.integers(0, 5, size=n).astype(float)  # many ties; repeats (same doc drawn twice) likely
        order = np.argsort(-scores, kind="stable")  # grouped by query, scores non-increasing (as TREC files)
        parts.append(pd.DataFrame({"query_id": f"q{q:03d}", "doc_id": pd.Series([pool[i] for i in order],
                                                                               dtype=object),
                                   "score": scores[order]}))
    frame = pd.concat(parts, ignore_index=True)
    candidates = [int(d) for d in range(0, 40, 3)] if ints else [f"d{d}" for d in range(0, 40, 3)]
    return frame, candidates


@pytest.mark.parametrize("ids", ["arrow", "object", "int"])
@pytest.mark.parametrize("block", [1, 7, 50, 1 << 16])
@pytest.mark.parametrize("shuffle", [False, True])
def test_candidate_ranks_by_blocks(monkeypatch, ids: str, block: int, shuffle: bool) -> None:
    monkeypatch.setattr(ranking, "_BLOCK_ROWS", block)
    rng = np.random.default_rng(block + 3 * shuffle)
    frame, candidates = random_run(rng, 60, ints=ids == "int")
    if ids == "arrow":
        pytest.importorskip("pyarrow")
        frame["doc_id"] = frame["doc_id"].astype("string[pyarrow]")
        frame["query_id"] = frame["query_id"].astype("string[pyarrow]")
    if shuffle:  # rows not grouped by query: the whole column is factorised at once
        frame = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    expected = brute_ranks(frame, set(candidates))
    run = frame
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # repeated documents are warned about
        fast = ranking.rank_run(run, None, np.array(candidates, dtype=object), "r", ties="candidates")
        full = ranking.rank_run(run, None, np.array(candidates, dtype=object), "r", ties="all")
    assert ranked_candidates(fast) == expected
    assert ranked_candidates(full) == expected
    assert frame.duplicated(["query_id", "doc_id"]).any() and len(expected) > 50  # repeats and candidates occur


def test_blocks_give_same_ranks_on_a_large_grouped_run(monkeypatch) -> None:
    """Against the single factorisation (one block), on a run large enough for many default-sized blocks."""
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(5)
    n_q, depth = 300, 500
    docs = rng.integers(0, 800, size=(n_q, depth))
    docs[:, 10] = docs[:, 3]  # one repeat per query above most candidates
    scores = np.sort(rng.integers(0, 50, size=(n_q, depth)), axis=1)[:, ::-1].astype(float)
    frame = pd.DataFrame({"query_id": np.repeat([f"q{q}" for q in range(n_q)], depth),
                          "doc_id": pd.array([f"d{d}" for d in docs.ravel()], dtype="string[pyarrow]"),
                          "score": scores.ravel()})
    candidates = np.array([f"d{d}" for d in range(0, 800, 5)], dtype=object)
    monkeypatch.setattr(ranking, "_BLOCK_ROWS", 4096)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        blocks = ranking.rank_run(frame, None, candidates, "r", ties="candidates")
        monkeypatch.setattr(ranking, "_BLOCK_ROWS", len(frame))
        single = ranking.rank_run(frame, None, candidates, "r", ties="candidates")
    assert len(blocks.doc_names) > len(single.doc_names)  # the blocks were used
    assert ranked_candidates(blocks) == ranked_candidates(single)
