"""pt.Experiment on the six DL-Hard passage runs with prefeval and standard measures mixed: the same means as
prefeval.evaluate, ir_measures.calc_aggregate and prefeval.compare (README, "Input semantics")."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval.data.inputs import run_name
from prefeval.data.trec import read_qrels, read_run

pytestmark = pytest.mark.integration

TOL = 1e-12


@pytest.fixture(scope="module")
def pt():
    """PyTerrier, imported by the tests that run, not when the module is collected (0.6 s in every xdist worker)."""
    return pytest.importorskip("pyterrier")


@pytest.fixture(scope="module")
def dl_hard(shared_data, pt):
    folder = shared_data / "dl-hard"
    paths = sorted((folder / "runs" / "passage").glob("*.run.gz"), key=lambda p: (run_name(p) != "bm25", p.name))
    runs = {run_name(p): read_run(p) for p in paths}  # bm25 first: the Experiment's baseline=0
    qrels = read_qrels(folder / "dl_hard-passage.qrels")
    topics = pd.read_csv(folder / "topics.tsv", sep="\t", header=None, names=["qid", "query"], dtype=str)
    as_pt = {n: r.rename(columns={"query_id": "qid", "doc_id": "docno"}) for n, r in runs.items()}
    prefeval.register_run("bm25", as_pt["bm25"])
    measures = [ir_measures.nDCG @ 10, ir_measures.AP(rel=2), prefeval.RBU @ 20, prefeval.RBU(rel=2) @ 20,
                prefeval.TSE, prefeval.LexiRecall(baseline="bm25"), prefeval.LexiPrecision(baseline="bm25", rel=2),
                prefeval.RPP(baseline="bm25", weighting="dcg")]
    return {
        "runs": runs, "qrels": qrels, "topics": topics, "measures": measures, "names": list(runs),
        "systems": [pt.Transformer.from_df(f) for f in as_pt.values()],
        "pt_qrels": qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"}),
        "means": prefeval.evaluate(qrels, runs, measures).pivot(index="run", columns="measure", values="value"),
    }


def _assert_means(frame: pd.DataFrame, data: dict) -> None:
    frame = frame.set_index("name")
    for m in data["measures"]:
        got = frame.loc[data["names"], str(m)].to_numpy(dtype=float)
        np.testing.assert_allclose(got, data["means"].loc[data["names"], str(m)].to_numpy(), rtol=0, atol=TOL,
                                   err_msg=str(m))


def test_experiment_means_equal_evaluate(dl_hard, pt):
    args = (dl_hard["systems"], dl_hard["topics"], dl_hard["pt_qrels"], dl_hard["measures"])
    _assert_means(pt.Experiment(*args, names=dl_hard["names"]), dl_hard)
    with_baseline = pt.Experiment(*args, names=dl_hard["names"], baseline=0, correction="holm")
    _assert_means(with_baseline, dl_hard)
    assert all(f"{m} p-value corrected" in with_baseline.columns for m in dl_hard["measures"])
    per_query = pt.Experiment(*args, names=dl_hard["names"], perquery=True)
    expected = prefeval.evaluate(dl_hard["qrels"], dl_hard["runs"], dl_hard["measures"], per_query=True)
    assert len(per_query) == len(expected) == 6 * 50 * len(dl_hard["measures"])
    merged = per_query.rename(columns={"name": "run", "qid": "query_id"}).merge(
        expected, on=["run", "query_id", "measure"], validate="one_to_one")
    np.testing.assert_allclose(merged["value_x"], merged["value_y"], rtol=0, atol=TOL)
    means = per_query.groupby(["name", "measure"])["value"].mean().unstack()
    for m in dl_hard["measures"]:
        np.testing.assert_allclose(means.loc[dl_hard["names"], str(m)],
                                   dl_hard["means"].loc[dl_hard["names"], str(m)], rtol=0, atol=TOL)


def test_calc_aggregate_and_compare_give_the_same_means(dl_hard):
    for name, run in dl_hard["runs"].items():
        agg = ir_measures.calc_aggregate(dl_hard["measures"], dl_hard["qrels"], run)
        for m, value in agg.items():
            assert abs(value - dl_hard["means"].loc[name, str(m)]) <= TOL, (name, str(m))
    metrics = ["nDCG@10", "AP(rel=2)", "RBU@20", "RBU(rel=2)@20", "TSE"]
    preferences = {"LexiRecall": "LexiRecall(baseline='bm25')", "LexiPrecision(rel=2)":
                   "LexiPrecision(baseline='bm25',rel=2)", "RPP(weighting='dcg')": "RPP(baseline='bm25',weighting='dcg')"}
    res = prefeval.compare(dl_hard["qrels"], dl_hard["runs"], metrics + list(preferences))
    for m in metrics:
        scores = res.ranking(m, aggregate="mean").set_index("run")["score"]
        np.testing.assert_allclose(scores.loc[dl_hard["names"]], dl_hard["means"].loc[dl_hard["names"], m],
                                   rtol=0, atol=TOL, err_msg=m)
    for method, measure in preferences.items():
        over_bm25 = res.matrix(method).loc[dl_hard["names"], "bm25"]
        np.testing.assert_allclose(over_bm25, dl_hard["means"].loc[dl_hard["names"], measure], rtol=0, atol=TOL,
                                   err_msg=method)


def test_sign_test_p_values_equal_compare_significance(dl_hard, pt):
    from prefeval.integrations.interop import sign_test

    measure = prefeval.LexiRecall(baseline="bm25")
    frame = pt.Experiment(dl_hard["systems"], dl_hard["topics"], dl_hard["pt_qrels"], [measure],
                          names=dl_hard["names"], baseline=0, test=sign_test).set_index("name")
    sig = prefeval.compare(dl_hard["qrels"], dl_hard["runs"], ["LexiRecall"]).significance(
        "LexiRecall", test="sign", correction="none")
    vs_bm25 = sig[sig["run_a"] == "bm25"].set_index("run_b")["p_value"]
    others = dl_hard["names"][1:]
    np.testing.assert_allclose(frame.loc[others, f"{measure} p-value"], vs_bm25.loc[others], rtol=0, atol=TOL)
