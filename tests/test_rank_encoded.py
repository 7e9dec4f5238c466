"""Runs encoded together (``ranking.encoded_runs``: one factorisation of the ids of a block of runs) must rank exactly
as each run ranked alone: the same candidate ranks, the same ranked rows, the same repeat warnings, and the same
error for a missing id -- with ties, repeated documents, unsorted rows, missing and extra queries, Arrow-backed,
object and UTF-8 bytes ids, and blocks of any size."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from prefeval import compare
from prefeval.data import positions, ranking
from prefeval.errors import PrefevalError


def random_runs(seed: int, n_runs: int = 12, ids: str = "arrow") -> tuple[dict[str, pd.DataFrame], list, np.ndarray]:
    """Runs with many score ties, repeated documents, shuffled rows, a missing query, a query absent from the qrels."""
    rng = np.random.default_rng(seed)
    runs = {}
    for r in range(n_runs):
        parts = []
        for q in range(8):
            if (r + q) % 7 == 3:
                continue  # this run lacks the query
            n = int(rng.integers(1, 25))
            docs = [f"d{d}" for d in rng.integers(0, 30, size=n)]  # repeats likely
            scores = rng.integers(0, 4, size=n).astype(float)  # ties likely
            parts.append(pd.DataFrame({"query_id": f"q{q}", "doc_id": docs, "score": scores}))
        frame = pd.concat(parts, ignore_index=True)
        if r % 2:
            frame = frame.sample(frac=1.0, random_state=r).reset_index(drop=True)
        dtype = "string[pyarrow]" if ids == "arrow" else object
        runs[f"r{r}"] = pd.DataFrame({"query_id": frame["query_id"].astype(dtype),
                                      "doc_id": frame["doc_id"].astype(dtype), "score": frame["score"]})
    queries = [f"q{q}" for q in range(7)]  # q7 is not in the qrels: its rows are dropped
    candidates = np.array([f"d{d}" for d in range(0, 30, 4)], dtype=object)
    return runs, queries, candidates


def ranked(runs, queries, candidates, ties: str, encode: bool) -> tuple[list, list[str]]:
    items = ranking.encoded_runs(runs, queries) if encode else runs.items()
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name, run in items:
            out.append((name, ranking.rank_run(run, queries, candidates, name, ties=ties)))
    return out, [str(w.message) for w in caught]


def candidate_ranks(run: ranking.RankedRun) -> dict:
    rows = np.flatnonzero(run.doc_codes < len(run.candidates))
    names = run.queries.to_numpy(dtype=object)
    return {(names[run.query_codes[i]], run.candidates[run.doc_codes[i]]): int(run.rank[i]) for i in rows}


@pytest.mark.parametrize("ids", ["arrow", "object"])
@pytest.mark.parametrize("block", [1, 40, 300, 1 << 18])
@pytest.mark.parametrize("ties", ["candidates", "all"])
def test_encoded_runs_rank_as_runs_alone(monkeypatch, ids: str, block: int, ties: str) -> None:
    if ids == "arrow":
        pytest.importorskip("pyarrow")
    monkeypatch.setattr(ranking, "ENCODE_ROWS", block)
    runs, queries, candidates = random_runs(block + (ids == "arrow"), ids=ids)
    alone, alone_warnings = ranked(runs, queries, candidates, ties, encode=False)
    together, together_warnings = ranked(runs, queries, candidates, ties, encode=True)
    assert [name for name, _ in together] == list(runs)
    assert together_warnings == alone_warnings and alone_warnings  # repeats are warned about, run by run
    qrels = pd.DataFrame({"query_id": np.repeat(queries, 3), "doc_id": np.resize(candidates, 3 * len(queries)),
                          "relevance": 1, "iteration": "0"})
    table = positions.PositionTable(qrels, 1, queries)
    for (_, a), (_, b) in zip(alone, together):
        assert candidate_ranks(b) == candidate_ranks(a)
        np.testing.assert_array_equal(table.locate(b), table.locate(a))
        if ties == "all":
            pd.testing.assert_frame_equal(b.rows(), a.rows())
            assert b.to_dict(5) == a.to_dict(5)
    if block == 1 << 18:  # one block: the runs share their document names
        assert all(r.doc_names is together[0][1].doc_names for _, r in together)


def test_a_block_with_a_missing_id_is_given_as_is() -> None:
    """Each run of such a block is encoded alone by rank_run, whose error names the run."""
    pytest.importorskip("pyarrow")
    runs, queries, candidates = random_runs(3, n_runs=4)
    runs["r2"] = runs["r2"].copy()
    runs["r2"].loc[3, "doc_id"] = None
    items = list(ranking.encoded_runs(runs, queries))
    assert [run is runs[name] for name, run in items] == [True] * 4
    with pytest.raises(PrefevalError, match="run 'r2' has a missing doc id"):
        for name, run in items:
            ranking.rank_run(run, queries, candidates, name, ties="candidates")


def test_mixed_runs_join_blocks_of_one_kind() -> None:
    """Arrow-backed frames, object frames, Arrow columns and paths, interleaved: each run comes once, in order; the
    runs in memory between two paths are encoded together (their ids are of one kind: Arrow strings)."""
    pa = pytest.importorskip("pyarrow")
    arrow, queries, candidates = random_runs(4, n_runs=3)
    objects, _, _ = random_runs(4, n_runs=3, ids="object")
    columns = {"query_id": pa.array(arrow["r0"]["query_id"].tolist(), pa.string()),
               "doc_id": pa.array(arrow["r0"]["doc_id"].tolist(), pa.string()), "score": arrow["r0"]["score"].to_numpy()}
    from prefeval.data.trec import Columns

    runs = {"a0": arrow["r0"], "c0": Columns(columns), "a1": arrow["r1"], "p": "some/path.run", "o0": objects["r0"],
            "o1": objects["r1"], "a2": arrow["r2"]}
    items = list(ranking.encoded_runs(runs, queries))
    assert [name for name, _ in items] == list(runs)
    kinds = [type(run).__name__ for _, run in items]
    assert kinds == ["EncodedRun"] * 3 + ["str"] + ["EncodedRun"] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # repeated documents
        for (name, run), original in zip(items, runs.values()):
            if name != "p":
                assert candidate_ranks(ranking.rank_run(run, queries, candidates, name)) == \
                    candidate_ranks(ranking.rank_run(original, queries, candidates, name))


def test_compare_same_with_any_block_size(monkeypatch) -> None:
    pytest.importorskip("pyarrow")
    runs, queries, candidates = random_runs(7, n_runs=9)
    qrels = pd.DataFrame({"query_id": np.repeat(queries, 3), "doc_id": np.resize(candidates, 3 * len(queries)),
                          "relevance": [1, 2, 0] * len(queries), "iteration": "0"})
    methods = ["LexiRecall", "LexiPrecision", "RPP", "RPP(graded=False)@5", "nDCG@5"]
    results = []
    for block in (1, 100, 1 << 18):
        monkeypatch.setattr(ranking, "ENCODE_ROWS", block)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.append(compare(qrels, runs, methods, per_query=True))
    for other in results[1:]:
        pd.testing.assert_frame_equal(other.per_query, results[0].per_query)
        pd.testing.assert_frame_equal(other.summary(), results[0].summary())
