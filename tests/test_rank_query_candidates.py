"""Per-query candidates (``rank_run(..., candidates=Collection(qrels).query_candidates(1))``, the compare path): each block of whole
queries of a run is looked up among its own queries' relevant documents only. Every relevant document must still get
the rank of the definition -- 1 + the distinct documents of its query ranked above it (higher score, or equal score
and larger doc id string), a repeated document counted once at its best position -- in runs where a document is
relevant in one query and retrieved but not relevant in another, queries come in another order than in the qrels,
some queries are not judged, documents repeat and scores tie; for every block size, Arrow-backed, object and UTF-8
bytes (``Utf8Column``) ids."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from prefeval.data import ranking
from prefeval.data.collection import Collection
from prefeval.data.encoding import Ids
from prefeval.data.positions import PositionTable
from prefeval.data.ranking import QueryCandidates, rank_run


def brute_positions(frame: pd.DataFrame, table: PositionTable) -> np.ndarray:
    """The rank of each relevant (query, document) of ``table`` in ``frame``, from the definition (+inf: absent)."""
    best: dict[str, dict[str, float]] = {}
    for q, d, s in zip(frame["query_id"], frame["doc_id"], frame["score"]):
        docs = best.setdefault(q, {})
        docs[d] = max(docs.get(d, -np.inf), s)
    out = []
    for q, d in zip(table.relevant["query_id"], table.relevant["doc_id"]):
        docs = best.get(q, {})
        if d not in docs:
            out.append(np.inf)
            continue
        out.append(1 + sum(1 for e, t in docs.items() if t > docs[d] or (t == docs[d] and str(e) > str(d))))
    return np.array(out, dtype=float)


def collection(seed: int, ids: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels of 30 queries over a pool of 25 documents shared by all queries (so a document is often relevant in
    one query and judged non-relevant, or not judged, in another), and a run of 36 queries (6 not judged, 4 judged
    queries missing) in shuffled query order, grouped by query, scores non-increasing with ties, repeated docs."""
    rng = np.random.default_rng(seed)
    qrows = []
    for q in range(30):
        for d in rng.choice(25, size=int(rng.integers(1, 15)), replace=False):
            qrows.append((f"q{q}", f"d{d}", int(rng.choice([0, 0, 1, 2]))))
    qrels = pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"]).assign(iteration="0")
    rrows = []
    for q in rng.permutation([q for q in range(36) if q not in (3, 11, 17, 25)]):
        docs = rng.integers(0, 25, size=int(rng.integers(1, 30)))  # repeats likely
        scores = np.sort(rng.integers(0, 6, size=len(docs)))[::-1].astype(float)  # ties likely
        rrows += [(f"q{q}", f"d{d}", s) for d, s in zip(docs, scores)]
    run = pd.DataFrame(rrows, columns=["query_id", "doc_id", "score"])
    if ids == "arrow":
        pytest.importorskip("pyarrow")
        run = run.astype({"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"})
        qrels = qrels.astype({"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"})
    else:
        run = run.astype({"query_id": object, "doc_id": object})
        qrels = qrels.astype({"query_id": object, "doc_id": object})
    return qrels, run


@pytest.mark.parametrize("ids", ["arrow", "object"])
@pytest.mark.parametrize("block", [1, 7, 40, 1 << 14])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("part", [1, 1 << 20])
def test_relevant_ranks_with_per_query_candidates(monkeypatch, ids: str, block: int, seed: int, part: int) -> None:
    """``part``: the fewest rows per thread of the blocks' coding (1: as many parts as 3 cores and the blocks
    allow)."""
    monkeypatch.setattr(ranking, "_BLOCK_ROWS", block)
    monkeypatch.setattr(ranking, "_PART_ROWS", part)
    monkeypatch.setattr(ranking.os, "cpu_count", lambda: 3)
    qrels_frame, run = collection(seed, ids)
    qrels = qrels_frame
    table = PositionTable(qrels, 1, Collection(qrels).queries)
    expected = brute_positions(run, table)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # repeated documents are warned about
        per_query = rank_run(run, table.queries, Collection(qrels).query_candidates(1), "r", ties="candidates")
        shared = rank_run(run, table.queries, Collection(qrels).candidates(1), "r", ties="candidates")
    np.testing.assert_array_equal(table.locate(per_query), expected)
    np.testing.assert_array_equal(table.locate(shared), expected)
    # a candidate code names the row's document; every relevant (query, document) of the run got one
    names = table.queries.to_numpy()
    coded = per_query.doc_codes < len(per_query.candidates)
    assert np.all(per_query.candidates[per_query.doc_codes[coded]] == per_query.doc_ids[coded])
    # any other row's code is len(candidates) + its code in the names
    assert np.all(per_query.doc_codes[~coded] == len(per_query.candidates) + per_query.doc_raw[~coded])
    relevant = set(zip(table.relevant["query_id"], table.relevant["doc_id"]))
    pairs = list(zip(names[per_query.query_codes], per_query.doc_ids))
    assert all(c for c, pair in zip(coded, pairs) if pair in relevant)
    # the collection does what the docstring says
    assert np.isfinite(expected).sum() > 20 and np.isinf(expected).any()
    judged = qrels_frame.groupby("doc_id")["relevance"].agg(["min", "max"])
    assert ((judged["min"] == 0) & (judged["max"] >= 1)).any()


def test_a_document_relevant_elsewhere_is_located_only_where_relevant(monkeypatch) -> None:
    """d1 is relevant for q2 only; q1 ranks it first. With each query a block of its own, q1's block must not find
    it (q1 is not its query) and q2's must, though q2 comes first in the qrels and last in the run."""
    monkeypatch.setattr(ranking, "_BLOCK_ROWS", 1)
    qrels = pd.DataFrame({"query_id": ["q2", "q2", "q1", "q1"], "doc_id": ["d1", "d9", "d1", "d5"],
                          "relevance": [1, 0, 0, 1], "iteration": "0"})
    run = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q3", "q3", "q2", "q2", "q2"],
                        "doc_id": ["d1", "d7", "d5", "d1", "d5", "d8", "d5", "d1"],
                        "score": [3.0, 2.0, 1.0, 5.0, 4.0, 3.0, 2.0, 1.0]})
    table = PositionTable(qrels, 1, Collection(qrels).queries)
    ranked = rank_run(run, table.queries, Collection(qrels).query_candidates(1), "r", ties="candidates")
    located = dict(zip(zip(table.relevant["query_id"], table.relevant["doc_id"]), table.locate(ranked)))
    assert located == {("q1", "d5"): 3.0, ("q2", "d1"): 3.0}


def test_candidates_of_queries() -> None:
    """``QueryCandidates.of``: the documents of the given queries (codes into any query axis; -1 and unjudged
    queries give none), as indices into the distinct documents."""
    candidates = QueryCandidates(np.array(["a", "b", "a", "c"], dtype=object),
                                 np.array(["d1", "d2", "d3", "d1"], dtype=object))
    queries = Ids(["c", "x", "a", "b"])
    docs = candidates.documents.unique
    assert docs[candidates.of(queries, np.array([2]))].tolist() == ["d1", "d3"]
    assert docs[candidates.of(queries, np.array([-1, 1, 0, 3]))].tolist() == ["d1", "d2"]
    assert candidates.of(queries, np.array([1])).size == 0


@pytest.mark.parametrize("block", [1, 3, 1 << 14])
@pytest.mark.parametrize("part", [1, 1 << 20])
def test_pair_codes(monkeypatch, block: int, part: int) -> None:
    """Two rows have the same (query, document) exactly when they have the same pair of codes (also with the
    blocks coded in parts, ``part`` rows at least each)."""
    monkeypatch.setattr(ranking, "_BLOCK_ROWS", block)
    monkeypatch.setattr(ranking, "_PART_ROWS", part)
    monkeypatch.setattr(ranking.os, "cpu_count", lambda: 3)
    rng = np.random.default_rng(block)
    queries = [f"q{q}" for q in np.sort(rng.integers(0, 8, 120))]
    docs = [f"d{d}" for d in rng.integers(0, 10, 120)]
    query_codes, doc_codes, distinct = ranking.pair_codes(pd.Series(queries, dtype=object),
                                                          pd.Series(docs, dtype=object))
    pairs = list(zip(queries, docs))
    assert not distinct  # (120 rows of 80 pairs)
    codes = list(zip(query_codes.tolist(), doc_codes.tolist()))
    for i in range(len(pairs)):
        for j in range(len(pairs)):
            assert (pairs[i] == pairs[j]) == (codes[i] == codes[j])
