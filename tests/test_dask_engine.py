"""engine="dask" gives what the in-process engine gives (to 1e-12): per-query values, summaries, matrices,
rankings, p-values and evaluate(), on a 2-worker LocalCluster of processes, for every kind of input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval.data import simulate
from prefeval.data.trec_writer import write_run
from prefeval.errors import PrefevalError

pytest.importorskip("pyarrow")  # the dask extra installs pyarrow (dask.dataframe needs it)

TOL = 1e-12
PREFERENCES = ["LexiRecall", "LexiPrecision", "RPP", "RPP(graded=False)"]
METRICS = ["nDCG@10", "AP(rel=2)", "RBU@20"]
AGGREGATES = ["mc4", "borda", "copeland", "win_rate"]
TESTS = [("sign", None), ("t", None), ("randomized_tukey_hsd", "none")]


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")  # here, not at collection: the unit run does not need it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
    with cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def sim():
    """Pooled judgments with label noise (some queries without a relevant document at rel=2), one run missing
    some queries: exercises ties, empty rankings and the coverage warning."""
    c = simulate.collection(n_queries=60, n_runs=5, depth=20, n_docs=40, judged_depth=8, label_noise=0.1, seed=5)
    runs = dict(c.runs)
    runs["sim02"] = runs["sim02"][~runs["sim02"]["query_id"].isin(["q03", "q17", "q44"])].reset_index(drop=True)
    return c.qrels, runs


def caught(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        value = call()
    return value, sorted({str(w.message) for w in seen})


def assert_frames(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_exact=False,
                                  rtol=0, atol=TOL)


def assert_same_comparison(a, b, methods, resamples: int = 200) -> None:
    assert a.runs == b.runs and a.methods == b.methods
    assert_frames(a.per_query, b.per_query)
    assert_frames(a.summary(), b.summary())
    for m in methods:
        np.testing.assert_allclose(b.matrix(m).to_numpy(), a.matrix(m).to_numpy(), rtol=0, atol=TOL)
        for aggregate in AGGREGATES:
            assert_frames(a.ranking(m, aggregate=aggregate), b.ranking(m, aggregate=aggregate))
        for test, correction in TESTS:
            sa = a.significance(m, test=test, correction=correction, n_resamples=resamples, seed=3)
            sb = b.significance(m, test=test, correction=correction, n_resamples=resamples, seed=3)
            assert_frames(sa, sb)


@pytest.mark.integration  # a LocalCluster of worker processes
def test_simulated_collection_equals_in_process(client, sim):
    qrels, runs = sim
    methods = ["LexiPrecision", "RPP(graded=False)", "AP(rel=2)"]
    a, wa = caught(lambda: prefeval.compare(qrels, runs, methods))
    b, wb = caught(lambda: prefeval.compare(qrels, runs, methods, engine="dask", client=client, partitions=3))
    assert_same_comparison(a, b, methods)
    assert wa == wb and any("covers 57 of the 60" in w for w in wb)


@pytest.mark.integration
def test_simulated_collection_every_method_equals_in_process(client, sim):
    qrels, runs = sim
    methods = PREFERENCES + METRICS
    a = prefeval.compare(qrels, runs, methods)
    assert_same_comparison(a, prefeval.compare(qrels, runs, methods, engine="dask", client=client, partitions=4),
                           methods)


@pytest.mark.integration
@pytest.mark.parametrize("per_query", [False, True])
def test_evaluate_equals_in_process(client, sim, per_query):
    qrels, runs = sim
    measures = METRICS + ["LexiRecall", "RPP(baseline='sim01')"]
    a, wa = caught(lambda: prefeval.evaluate(qrels, runs, measures, per_query=per_query, rel=1))
    b, wb = caught(lambda: prefeval.evaluate(qrels, runs, measures, per_query=per_query, rel=1,
                                             engine="dask", client=client, partitions=3))
    assert_frames(a, b)
    assert wa == wb


@pytest.mark.integration
def test_every_input_kind_gives_the_same_values(client, sim, tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    qrels, runs = sim
    expected = prefeval.compare(qrels, runs, ["LexiRecall", "nDCG@10"]).per_query
    files = []
    for name, run in runs.items():
        write_run(run, tmp_path / f"{name}.run", tag=name)
        files.append(str(tmp_path / f"{name}.run"))
    folder = tmp_path / "parquet"
    folder.mkdir()
    for name, run in runs.items():
        run.to_parquet(folder / f"{name}.parquet")
    long = pd.concat([run.assign(run=name) for name, run in runs.items()], ignore_index=True)
    long.to_parquet(tmp_path / "all.parquet")
    inputs = {
        "TREC files": files,
        "folder of Parquet files": folder,
        "multi-run Parquet file": [tmp_path / "all.parquet"],
        "Dask DataFrame with a run column": dd.from_pandas(long, npartitions=3),
        "dict of Dask DataFrames and frames": {name: dd.from_pandas(run, npartitions=2) if i % 2 else run
                                               for i, (name, run) in enumerate(runs.items())},
    }
    qrels_inputs = [qrels, dd.from_pandas(qrels, npartitions=2)]
    for k, (label, source) in enumerate(inputs.items()):
        got = prefeval.compare(qrels_inputs[k % 2], source, ["LexiRecall", "nDCG@10"], engine="dask", client=client,
                               partitions=3, per_query=True)
        assert got.runs == list(runs), label
        assert_frames(expected, got.per_query)


@pytest.mark.integration  # a LocalCluster of worker processes
def test_per_query_values_written_to_parquet(client, sim, tmp_path):
    qrels, runs = sim
    expected = prefeval.compare(qrels, runs, ["LexiPrecision", "AP(rel=2)"])
    got = prefeval.compare(qrels, runs, ["LexiPrecision", "AP(rel=2)"], engine="dask", client=client,
                           partitions=3, per_query=str(tmp_path / "pq"))
    files = sorted((tmp_path / "pq").glob("part-*.parquet"))
    assert files
    written = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    order = ["method", "query_id", "run_a", "run_b"]
    assert_frames(expected.per_query.astype({c: str for c in order}).sort_values(order), written.sort_values(order))
    assert_frames(expected.summary(), got.summary())


@pytest.mark.integration  # a LocalCluster of worker processes
def test_generated_collection_equals_in_process_on_the_materialised_one(client):
    rec = simulate.recsys(n_users=300, n_models=4, items_per_list=8, n_candidates=20, n_items=2000,
                          users_per_partition=70, seed=2)
    qrels, runs = rec.materialise()
    methods = ["LexiRecall", "RPP", "nDCG@10"]
    a = prefeval.compare(qrels, runs, methods)
    b = prefeval.compare(None, rec, methods, engine="dask", client=client, per_query=True)
    assert_same_comparison(a, b, methods, resamples=100)
    assert_frames(prefeval.evaluate(qrels, runs, ["nDCG@10", "RBU@10"]),
                  prefeval.evaluate(None, rec, ["nDCG@10", "RBU@10"], engine="dask", client=client))


def test_engine_options_are_checked(sim):
    qrels, runs = sim
    with pytest.raises(PrefevalError, match="unknown engine 'spark'; choose one of inprocess, dask"):
        prefeval.compare(qrels, runs, "LexiRecall", engine="spark")
    with pytest.raises(PrefevalError, match="partitions apply to engine='dask' only"):
        prefeval.evaluate(qrels, runs, "nDCG@10", workers=2)
    with pytest.raises(PrefevalError, match="workers must be an integer >= 1"):
        prefeval.compare(qrels, runs, "LexiRecall", engine="dask", workers=0)


@pytest.mark.integration
def test_dl_hard_doc_runs_equal_in_process(client, shared_data):
    qrels = shared_data / "dl-hard" / "dl_hard-doc.qrels"
    runs = sorted(str(p) for p in (shared_data / "dl-hard" / "runs" / "doc").glob("*.run.gz"))
    assert len(runs) == 14
    methods = PREFERENCES + METRICS
    a, wa = caught(lambda: prefeval.compare(qrels, runs, methods))
    b, wb = caught(lambda: prefeval.compare(qrels, runs, methods, engine="dask", client=client, partitions=4))
    assert_same_comparison(a, b, methods, resamples=1000)
    assert wa == wb
    measures = METRICS + ["LexiPrecision"]
    assert_frames(prefeval.evaluate(qrels, runs, measures, per_query=True),
                  prefeval.evaluate(qrels, runs, measures, per_query=True, engine="dask", client=client,
                                    partitions=4))


@pytest.mark.integration
def test_scale_workload_summary_on_a_10k_user_subsample(client):
    """The scale workload's model (10 models x 20 items, graded labels) on 10^4 users: the summary, rankings and
    sign tests of the Dask engine (generated in the tasks) equal the in-process ones (materialised)."""
    rec = simulate.recsys(n_users=10_000, n_models=10, items_per_list=20, users_per_partition=2_500, seed=42)
    methods = ["LexiRecall", "LexiPrecision", "RPP"]
    qrels, runs = rec.materialise()
    a = prefeval.compare(qrels, runs, methods, per_query=False)
    b = prefeval.compare(None, rec, methods, engine="dask", client=client)
    assert_frames(a.summary(), b.summary())
    for m in methods:
        assert_frames(a.ranking(m, aggregate="mc4"), b.ranking(m, aggregate="mc4"))
        assert_frames(a.significance(m, test="sign"), b.significance(m, test="sign"))
