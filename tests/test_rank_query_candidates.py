"""``rank_run`` with per-query candidates (:class:`prefeval.ranking.QueryCandidates`, the compare path): each block of
whole queries is looked up among its own queries' candidates only. Every (query, document) pair must get the rank of
the definition -- 1 + the number of distinct documents of its query ranked above it (higher score, or equal score and
larger doc id string; a repeated document counted once, at its first position) -- whatever the block size, with
repeated documents, ties spanning candidates and non-candidates, a document relevant in one query and not in
another, and int, object or Arrow-backed ids; and the positions located from it equal those from all candidates."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prefeval import ranking


def brute_ranks(frame: pd.DataFrame) -> dict[tuple[object, object], int]:
    """(query, doc) -> rank of every distinct document of every query, straight from the definition."""
    out = {}
    for q, rows in frame.groupby("query_id", sort=False):
        best: dict = {}
        for d, s in zip(rows["doc_id"], rows["score"]):
            best[d] = max(best.get(d, -np.inf), s)  # a repeated document keeps its first (best) position
        for d in best:
            out[q, d] = 1 + sum(1 for e, t in best.items() if t > best[d] or (t == best[d] and str(e) > str(d)))
    return out


def pair_ranks(run: ranking.RankedRun, pairs: set) -> dict[tuple[object, object], int]:
    """(query, doc) -> rank for the rows coded as candidates whose (query, doc) is a pair; checks every candidate
    code names its document."""
    hit = np.flatnonzero(run.doc_codes < len(run.candidates))
    names = run.queries.to_numpy(dtype=object)
    out = {}
    for i in hit:
        q, d = names[run.query_codes[i]], run.candidates[run.doc_codes[i]]
        assert d == run.doc_ids[i]  # a candidate code is the row's own document
        if (q, d) in pairs:
            out[q, d] = int(run.rank[i])
    return out


def make_run(data, ids: str) -> tuple[pd.DataFrame, list[tuple]]:
    n_queries = data.draw(st.integers(1, 12), label="queries")
    parts, pairs = [], []
    for q in range(n_queries):
        n = data.draw(st.integers(0, 25), label="rows")
        docs = data.draw(st.lists(st.integers(0, 30), min_size=n, max_size=n), label="docs")  # repeats likely
        scores = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n), label="scores")  # many ties
        relevant = data.draw(st.sets(st.integers(0, 34), max_size=8), label="relevant")  # some never retrieved
        qid = f"q{q}" if ids != "int" else q
        order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")  # grouped, scores non-increasing
        parts.append(pd.DataFrame({"query_id": pd.Series([qid] * n, dtype=object),
                                   "doc_id": pd.Series([_doc(docs[i], ids) for i in order], dtype=object),
                                   "score": np.asarray(scores, dtype=float)[order]}))
        pairs += [(qid, _doc(d, ids)) for d in sorted(relevant)]
    frame = pd.concat(parts, ignore_index=True)
    if ids == "arrow":
        frame = frame.astype({"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"})
    return frame, pairs


def _doc(d: int, ids: str) -> object:
    return d if ids == "int" else f"d{d}"


@pytest.mark.parametrize("ids", ["arrow", "object", "int"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_pair_ranks_equal_definition_for_every_block_size(monkeypatch, ids: str, data) -> None:
    frame, pairs = make_run(data, ids)
    monkeypatch.setattr(ranking, "_BLOCK_ROWS", data.draw(st.sampled_from([1, 3, 16, 1 << 16]), label="block"))
    shuffle = data.draw(st.booleans(), label="shuffle")
    if shuffle:  # rows not grouped by query: every id is looked up among all candidates
        frame = frame.sample(frac=1.0, random_state=0).reset_index(drop=True)
    candidates = ranking.QueryCandidates([q for q, _ in pairs], [d for _, d in pairs])
    expected = {k: r for k, r in brute_ranks(frame).items() if k in set(pairs)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # repeated documents are warned about
        for ties in ("candidates", "all"):
            run = ranking.rank_run(frame, None, candidates, "r", ties=ties)
            assert pair_ranks(run, set(pairs)) == expected


def test_same_document_relevant_in_one_query_only_on_many_blocks(monkeypatch) -> None:
    """A document relevant for q0 only, retrieved by every query, tied with non-candidates and repeated: each query
    gets the definition's ranks, and located positions equal those from one set of all candidates."""
    monkeypatch.setattr(ranking, "_BLOCK_ROWS", 8)
    rows = []
    for q in range(40):
        docs = ["shared", "x1", "x2", "shared", f"own{q}", "x3", "z"]
        scores = [3.0, 3.0, 3.0, 2.0, 2.0, 2.0, 1.0]  # ties across candidates and non-candidates; a repeat
        rows += [(f"q{q:02d}", d, s) for d, s in zip(docs, scores)]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]).astype({"doc_id": "string[pyarrow]"})
    qrels = pd.DataFrame({"query_id": ["q00", "q00"] + [f"q{q:02d}" for q in range(1, 40)],
                          "doc_id": ["shared", "own0"] + [f"own{q}" for q in range(1, 40)],
                          "relevance": 1, "iteration": "0"})
    qrels = pd.concat([qrels, pd.DataFrame({"query_id": ["q05"], "doc_id": ["shared"], "relevance": [0],
                                            "iteration": ["0"]})], ignore_index=True)  # judged, not relevant
    table = ranking.PositionTable(qrels, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_query = ranking.rank_run(frame, table.queries, ranking.query_candidates(qrels, 1), "r",
                                     ties="candidates")
        everywhere = ranking.rank_run(frame, table.queries, ranking.candidate_documents(qrels, 1), "r",
                                      ties="candidates")
    assert len(per_query.doc_names) > 7  # blocks were used
    np.testing.assert_array_equal(table.locate(per_query), table.locate(everywhere))
    expected = brute_ranks(frame)
    judged = qrels[qrels["relevance"] >= 1]
    pairs = set(zip(judged["query_id"], judged["doc_id"]))
    assert pair_ranks(per_query, pairs) == {k: expected[k] for k in pairs}
    assert pair_ranks(per_query, pairs)["q00", "shared"] == 3  # after x2 and x1 (tied, larger ids)
    assert pair_ranks(per_query, pairs)["q07", "own7"] == 5  # x2, x1, shared, then x3 (tied, larger id); the
    # repeat of shared is not counted


def test_query_candidates_of_blocks() -> None:
    """The candidates of a block are the union of its queries' (distinct, sorted), for queries in any order; a
    query without candidates adds none."""
    candidates = ranking.QueryCandidates(["a", "b", "a", "c", "b"], ["d1", "d2", "d2", "d1", "d2"])
    assert candidates.documents.unique.tolist() == ["d1", "d2"]
    queries = pd.Index(["c", "x", "b", "a"], dtype=object)
    subset, _ = candidates.of(queries, np.array([0, 1]))
    assert candidates.documents.unique[subset].tolist() == ["d1"]
    subset, _ = candidates.of(queries, np.array([2, 3]))
    assert candidates.documents.unique[subset].tolist() == ["d1", "d2"]
    subset, _ = candidates.of(queries, np.array([1]))
    assert subset.tolist() == []
