"""Partitioning by query (prefeval.engine.partitions) and the recommendation simulator generated partition by
partition (prefeval.data.simulate.recsys): pandas only, no cluster."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from prefeval.data import simulate
from prefeval.data.collection import Collection
from prefeval.engine import partitions as parts
from prefeval.errors import PrefevalError


@pytest.mark.integration  # a fresh Python process
def test_query_bucket_is_the_same_in_a_fresh_process():
    ids = [f"q{i}" for i in range(50)]
    here = parts.query_bucket(ids, 7).tolist()
    code = ("import sys; sys.path.insert(0, 'src'); from prefeval.engine.partitions import query_bucket; "
            f"print(query_bucket({ids!r}, 7).tolist())")
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "123"}, cwd=Path(__file__).resolve().parents[1]).stdout
    assert str(here) == there.strip()
    assert set(here) == set(range(7))  # 50 ids spread over all 7 partitions
    assert parts.query_bucket([1, "1"], 3)[0] == parts.query_bucket([1, "1"], 3)[1]  # ids compared as str


def test_split_keeps_every_row_once_and_each_query_in_one_partition():
    frame = pd.DataFrame({"query_id": list("abcabcdd"), "doc_id": [f"d{i}" for i in range(8)], "score": range(8)})
    pieces = parts.split_by_query(frame, 3)
    assert len(pieces) == 3
    together = pd.concat(pieces).sort_values("doc_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(together, frame.sort_values("doc_id").reset_index(drop=True))
    owners = {q: i for i, p in enumerate(pieces) for q in p["query_id"]}
    for i, p in enumerate(pieces):
        assert all(owners[q] == i for q in p["query_id"])
        assert list(p["doc_id"]) == sorted(p["doc_id"], key=lambda d: int(d[1:]))  # input order kept


def test_block_gives_every_run_even_without_rows():
    qrels = pd.DataFrame({"query_id": ["a"], "doc_id": ["d1"], "relevance": [1], "iteration": ["0"]})
    long = parts.long_frame("x", pd.DataFrame({"query_id": ["a"], "doc_id": ["d1"], "score": [1.0]}))
    q, runs = parts.block([qrels], [long], ["x", "y"])
    assert list(runs) == ["x", "y"] and len(runs["x"]) == 1 and len(runs["y"]) == 0
    assert list(runs["y"].columns) == ["query_id", "doc_id", "score"]
    assert list(q.columns) == ["query_id", "doc_id", "relevance", "iteration"]


def test_coverage_counts_summed_over_partitions_give_the_whole_input_warnings():
    sim = simulate.collection(n_queries=30, n_runs=3, depth=5, n_docs=10, seed=1)
    runs = dict(sim.runs)
    runs["sim01"] = runs["sim01"][~runs["sim01"]["query_id"].isin(["q01", "q07", "q12"])]
    runs["other"] = pd.DataFrame({"query_id": ["zz"], "doc_id": ["d"], "score": [1.0]})
    qpieces = parts.split_by_query(sim.qrels, 4)
    rpieces = parts.split_by_query(parts.long_runs(runs), 4)
    total, counts = 0, {name: (0, 0) for name in runs}
    for qp, rp in zip(qpieces, rpieces):
        q, block_runs = parts.block([qp], [rp], list(runs))
        judged, per_run = parts.coverage(Collection(q), block_runs)
        total += judged
        counts = {n: (counts[n][0] + per_run[n][0], counts[n][1] + per_run[n][1]) for n in runs}
    notes = parts.coverage_warnings(total, counts)
    whole = Collection(sim.qrels).coverage_note("sim01", runs["sim01"]["query_id"].unique())
    assert notes[0] == whole and "covers 27 of the 30" in notes[0]
    assert notes[1].startswith("run 'other' shares no query id with the qrels; it counts as an empty ranking for "
                               "each of the 30 judged queries")
    assert len(notes) == 2


def test_parquet_sources_single_and_multi_run(tmp_path):
    pytest.importorskip("pyarrow")  # Parquet sources are read with pyarrow (the dask extra installs it)
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    run.to_parquet(tmp_path / "bm25.parquet")
    pd.concat([run.assign(run="x"), run.assign(run="y")]).to_parquet(tmp_path / "many.parquet")
    assert parts.run_names_of(tmp_path / "bm25.parquet") == ["bm25"]
    assert parts.run_names_of(tmp_path / "many.parquet") == ["x", "y"]
    long = parts.read_run_source(tmp_path / "many.parquet")
    assert list(long.columns) == parts.LONG_COLUMNS and list(pd.unique(long["run"])) == ["x", "y"]
    assert parts.read_run_source(tmp_path / "bm25.parquet", "mine")["run"].unique().tolist() == ["mine"]
    assert [f.name for f in parts.parquet_files(tmp_path)] == ["bm25.parquet", "many.parquet"]
    pd.DataFrame({"query_id": ["1"], "doc": ["a"]}).to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(PrefevalError, match="bad.parquet: Parquet runs need columns .*missing doc_id, score"):
        parts.read_run_source(tmp_path / "bad.parquet")
    assert parts.parquet_files(tmp_path / "bm25.parquet") == [tmp_path / "bm25.parquet"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(PrefevalError, match="no \\*.parquet files"):
        parts.parquet_files(tmp_path / "empty")


# ----------------------------------------------------------------------------------------------
# simulate.recsys

SMALL = dict(n_users=250, n_models=4, items_per_list=5, n_candidates=12, n_items=500, users_per_partition=100)


def test_recsys_partitions_are_pure_and_disjoint():
    sim = simulate.recsys(**SMALL, seed=3)
    assert sim.n_partitions == 3 and sim.run_names == ["model01", "model02", "model03", "model04"]
    q1, r1 = sim.partition(1)
    q1b, r1b = simulate.recsys(**SMALL, seed=3).partition(1)
    pd.testing.assert_frame_equal(q1, q1b)
    for name in r1:
        pd.testing.assert_frame_equal(r1[name], r1b[name])
    assert not q1.equals(simulate.recsys(**SMALL, seed=4).partition(1)[0])
    users = [set(sim.partition(i)[0]["query_id"]) for i in range(3)]
    assert [len(u) for u in users] == [100, 100, 50] and not (users[0] & users[1]) and not (users[1] & users[2])
    qrels, runs = sim.materialise()
    assert qrels["query_id"].nunique() == 250 and qrels["relevance"].between(1, 3).all()
    for run in runs.values():
        assert len(run) == 250 * 5 and run.groupby("query_id").size().eq(5).all()
        assert not run.duplicated(["query_id", "doc_id"]).any()
        assert run.groupby("query_id")["score"].apply(lambda s: s.is_monotonic_decreasing).all()
    assert list(qrels.columns) == ["query_id", "doc_id", "relevance", "iteration"]


def test_recsys_models_of_higher_quality_rank_better():
    import prefeval

    sim = simulate.recsys(n_users=2000, n_models=4, items_per_list=10, users_per_partition=2000, seed=0,
                          quality_range=(0.0, 2.0))
    qrels, runs = sim.materialise()
    means = prefeval.evaluate(qrels, runs, ["nDCG@10"]).set_index("run")["value"]
    assert list(means.sort_values(ascending=False).index) == sim.true_order


@pytest.mark.parametrize("bad, message", [
    (dict(n_users=0), "n_users must be an integer >= 1"),
    (dict(items_per_list=60), "items_per_list <= n_candidates <= n_items"),
    (dict(noise=-1.0), "noise must be >= 0"),
    (dict(colour=1), "unknown parameter"),
])
def test_recsys_rejects_bad_parameters(bad, message):
    with pytest.raises(PrefevalError, match=message):
        simulate.recsys(**bad)


@pytest.mark.integration  # a fresh Python process
def test_import_prefeval_and_the_cli_do_not_import_dask():
    code = ("import sys; sys.path.insert(0, 'src'); import prefeval\n"
            "from prefeval.commands.cli import main\n"
            "try:\n    main(['compare', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout
    assert out.strip().endswith("[]"), out[-300:]
    assert "--engine {inprocess,dask}" in out and "--scheduler ADDRESS" in out and "--workers N" in out


def test_engines_are_found_by_name():
    from prefeval.engine import dask_engine, registry

    dask = registry.options("dask")
    assert dask.compare is dask_engine.compare and dask.evaluate is dask_engine.evaluate
    assert registry.names() == ["inprocess", "dask"] and registry.options("inprocess") is None
    with pytest.raises(PrefevalError, match="unknown engine 'spark'"):
        registry.options("spark")
