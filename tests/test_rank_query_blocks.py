"""Large runs ranked together block of queries by block of queries (``ranking.rank_query_blocks``, which ``compare``
uses for runs in memory larger than ``ENCODE_ROWS`` rows when only preferences are asked for) must give exactly the
positions, coverage and repeat warnings of each run ranked alone -- with ties, repeated documents, shuffled rows,
missing and extra queries, other string types, and blocks of any size."""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tests.test_rank_encoded import random_runs

from prefeval import compare
from prefeval.data import positions, ranking
from prefeval.data.collection import Collection
from prefeval.errors import PrefevalError

pytest.importorskip("pyarrow")

METHODS = ["LexiRecall", "LexiPrecision", "RPP", "RPP(graded=False)@5", "LexiPrecision(magnitude='rr', rel=2)",
           "RPP(weighting='dcg')"]


def qrels_for(queries: list, candidates: np.ndarray) -> pd.DataFrame:
    n = 4 * len(queries)
    return pd.DataFrame({"query_id": np.repeat(queries, 4), "doc_id": np.resize(candidates, n),
                         "relevance": np.resize([1, 2, 0, 3], n), "iteration": "0"})


def alone(runs: dict, qrels: pd.DataFrame, table: positions.PositionTable, candidates, queries) -> tuple:
    """Per run ranked alone: located positions, covered queries, and the repeat warnings."""
    positions, covered = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name, run in runs.items():
            ranked = ranking.rank_run(run, queries, candidates, name, ties="candidates")
            positions.append(table.locate(ranked))
            covered.append(np.bincount(ranked.query_codes, minlength=len(queries)) > 0)
    return np.vstack(positions), np.vstack(covered), [str(w.message) for w in caught]


@pytest.mark.parametrize("block", [1, 40, 300, 1 << 18])
def test_query_blocks_locate_as_runs_alone(monkeypatch, block: int) -> None:
    runs, queries, _ = random_runs(block)
    qrels = qrels_for(queries, np.array([f"d{d}" for d in range(0, 30, 3)], dtype=object))
    queries = Collection(qrels).queries
    candidates = Collection(qrels).query_candidates(1)
    table = positions.PositionTable(qrels, 1, queries)
    expected, expected_covered, messages = alone(runs, qrels, table, candidates, queries)
    assert messages  # repeated documents
    monkeypatch.setattr(ranking, "ENCODE_ROWS", block)
    got = np.full_like(expected, np.inf)
    covered = np.zeros_like(expected_covered)
    repeated = np.zeros(len(runs), dtype=np.int64)
    rows = np.arange(len(runs))[::-1]  # the runs' rows in the output: any order
    widths = []
    for b in ranking.rank_query_blocks(runs, queries, candidates):
        table.locate_block(b, None, got, rows)
        covered[:, b.first:b.first + b.width] = b.covered
        repeated += b.repeated
        widths.append(b.width)
    assert sum(widths) == len(queries) and (block > 1000 or len(widths) > 1 or block == 300)
    np.testing.assert_array_equal(got[::-1], expected)
    np.testing.assert_array_equal(covered, expected_covered)
    assert [f"run {name!r}: {n} repeated document(s) within a query; each keeps its first (best) position"
            for name, n in zip(runs, repeated) if n] == messages


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compare_same_through_query_blocks(monkeypatch, seed: int) -> None:
    """Per-query values, summaries and warnings of compare: runs ranked by query blocks (tiny ENCODE_ROWS) as
    ranked one by one (the default at this size)."""
    runs, queries, _ = random_runs(seed, n_runs=7)
    qrels = qrels_for(queries, np.array([f"d{d}" for d in range(0, 30, 4)], dtype=object))
    results, messages = [], []
    for block in (1 << 18, 50, 1):
        monkeypatch.setattr(ranking, "ENCODE_ROWS", block)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results.append(compare(qrels, runs, METHODS, per_query=True))
        messages.append(sorted(str(w.message) for w in caught))
    for other, caught in zip(results[1:], messages[1:]):
        pd.testing.assert_frame_equal(other.per_query, results[0].per_query)
        pd.testing.assert_frame_equal(other.summary(), results[0].summary())
        assert caught == messages[0]
    assert any("repeated document" in m for m in messages[0]) and any("covers" in m for m in messages[0])


def test_only_large_arrow_runs_in_memory_are_blocked(monkeypatch, tmp_path: Path) -> None:
    """Paths and small runs take the run-by-run path; a run with a missing doc id too (its error names it); runs
    with ids of every form (Arrow, objects: one id kind inside) are blocked together; the results do not change."""
    pa = pytest.importorskip("pyarrow")
    from prefeval.data.trec import Columns

    arrow, queries, _ = random_runs(5, n_runs=4)
    objects, _, _ = random_runs(6, n_runs=2, ids="object")
    qrels = qrels_for(queries, np.array([f"d{d}" for d in range(0, 30, 5)], dtype=object))
    small = arrow["r3"].head(3)
    path = tmp_path / "p.run"
    arrow["r2"].assign(Q0="Q0", rank=1, tag="t")[["query_id", "Q0", "doc_id", "rank", "score", "tag"]].to_csv(
        path, sep=" ", header=False, index=False)
    columns = Columns({"query_id": pa.array(arrow["r1"]["query_id"].tolist(), pa.string()),
                       "doc_id": pa.array(arrow["r1"]["doc_id"].tolist(), pa.string()),
                       "score": arrow["r1"]["score"].to_numpy()})
    runs = {"a0": arrow["r0"], "c1": columns, "p": str(path), "o0": objects["r0"], "small": small, "a3": arrow["r3"]}
    monkeypatch.setattr(ranking, "ENCODE_ROWS", 20)
    assert ranking.query_block_runs(runs, Collection(qrels).query_candidates(1)) == ["a0", "c1", "o0", "a3"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        blocked = compare(qrels, runs, METHODS, per_query=True)
        monkeypatch.setattr(ranking, "ENCODE_ROWS", 1 << 18)
        plain = compare(qrels, runs, METHODS, per_query=True)
    pd.testing.assert_frame_equal(blocked.per_query, plain.per_query)
    missing = arrow["r0"].copy()
    missing.loc[2, "doc_id"] = None
    monkeypatch.setattr(ranking, "ENCODE_ROWS", 20)
    assert ranking.query_block_runs({"m": missing}, Collection(qrels).query_candidates(1)) == []
    with pytest.raises(PrefevalError, match=r"run 'm' \(DataFrame\): doc_id \(none\) \(query q0\) is missing"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(qrels, {"a0": arrow["r0"], "m": missing}, ["LexiRecall"])


def test_metrics_keep_runs_ranked_one_by_one(monkeypatch) -> None:
    """A metric needs full rankings: no run is ranked by query blocks, and the preferences are the same."""
    runs, queries, _ = random_runs(9, n_runs=5)
    qrels = qrels_for(queries, np.array([f"d{d}" for d in range(0, 30, 4)], dtype=object))
    monkeypatch.setattr(ranking, "ENCODE_ROWS", 10)
    calls = []
    original = ranking.rank_query_blocks
    module = importlib.import_module("prefeval.engine.blocks")  # the module that ranks the runs
    monkeypatch.setattr(module, "rank_query_blocks", lambda *a: calls.append(1) or original(*a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with_metric = compare(qrels, runs, ["LexiRecall", "nDCG@5"], per_query=True)
        without = compare(qrels, runs, ["LexiRecall"], per_query=True)
    assert len(calls) == 1  # the second comparison only
    pd.testing.assert_frame_equal(with_metric.per_query[with_metric.per_query["method"] == "LexiRecall"]
                                  .reset_index(drop=True).astype({"method": str}),
                                  without.per_query.astype({"method": str}))


@pytest.mark.integration
@pytest.mark.parametrize("task,qrels_name", [("doc", "dl_hard-doc.qrels"), ("passage", "dl_hard-passage.qrels")])
def test_dl_hard_same_through_query_blocks(shared_data, monkeypatch, task: str, qrels_name: str) -> None:
    """The real DL-Hard runs (read as DataFrames) ranked by query blocks of 2^14 rows give the per-query values of the
    run-by-run path, for every method and for ``rel=2``."""
    from prefeval.data.trec import read_qrels, read_run

    folder = shared_data / "dl-hard"
    qrels = read_qrels(folder / qrels_name)
    runs = {p.name: read_run(p) for p in sorted((folder / "runs" / task).glob("*.run.gz"))[:6]}
    results = []
    for block in (1 << 30, 1 << 14):
        monkeypatch.setattr(ranking, "ENCODE_ROWS", block)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert bool(ranking.query_block_runs(runs, Collection(qrels).query_candidates(1))) == (block < 1 << 20)
            results.append([compare(qrels, runs, METHODS, rel=rel, per_query=True).per_query for rel in (1, 2)])
    for got, expected in zip(results[1], results[0]):
        pd.testing.assert_frame_equal(got, expected)


@pytest.mark.parametrize("decimals", [None, 1])
def test_runs_in_score_order_ranked_by_place(monkeypatch, decimals) -> None:
    """Runs in score order without ties or repeats (simulated) take the ranks from the rows' places; with rounded
    scores (ties) the blocks are sorted as usual: the same per-query values as run by run."""
    from prefeval.data import simulate

    c = simulate.collection(n_queries=30, n_runs=5, depth=25, n_docs=40, score_decimals=decimals, seed=3)
    runs = {name: run.astype({"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"})
            for name, run in c.runs.items()}
    calls = []
    original = ranking._ranks_in_order
    monkeypatch.setattr(ranking, "_ranks_in_order", lambda *a: calls.append(original(*a)) or calls[-1])
    results = []
    for block in (1 << 18, 200):
        monkeypatch.setattr(ranking, "ENCODE_ROWS", block)
        results.append(compare(c.qrels, runs, METHODS, per_query=True).per_query)
    pd.testing.assert_frame_equal(results[1], results[0])
    assert len(calls) > 3 and all((found is not None) == (decimals is None) for found in calls)
