"""``judged_only=True`` (condensed lists, Sakai (2007)) against its definition: the plain measure on runs stripped of
the documents the qrels do not judge for their query (at any grade), for every one of prefeval's methods and every
entry point (measure strings in evaluate, compare and the table, ir-measures' calc_aggregate, pt.Experiment)."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prefeval
from prefeval.engine.evaluate import evaluate

PREFERENCES = ["LexiRecall", "LexiPrecision", "LexiPrecision(magnitude='rr')", "RPP",
               "RPP(weighting='inverse')", "RPP(weighting='dcg')", "RPP(graded=False)",
               "RPP(weighting='dcg', graded=False)", "LexiRecall@3", "RPP(rel=2)"]
METRICS = ["TSE", "RBU@20", "RBU@3", "RBU(rel=2)"]
DIVERSITY = ["alpha_nDCG_graded@5", "ERR_IA_graded@5", "nDCG_IA@5", "S_Recall@5", "Prec_IA@3", "AveP_IA", "RR_IA",
             "RBP_IA", "D_sharp_nDCG@5", "EU@5", "CT@5", "ACT@5", "NRBP_graded", "RBP_graded", "S_RR",
             "RPP(subtopics=True)"]


def with_judged_only(measure: str) -> str:
    """``X`` -> ``X(judged_only=True)`` keeping X's parameters and cutoff."""
    head, at, cutoff = measure.partition("@")
    if head.endswith(")"):
        head = head[:-1] + ", judged_only=True)"
    else:
        head += "(judged_only=True)"
    return head + at + cutoff


def stripped(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """The definition: the run without the rows whose document the qrels do not judge for its query."""
    judged = set(zip(qrels["query_id"], qrels["doc_id"]))
    return run[[(q, d) in judged for q, d in zip(run["query_id"], run["doc_id"])]].reset_index(drop=True)


@st.composite
def collections(draw, subtopics: bool = False):
    """Qrels over a small pool (grades 0-3, some queries without a relevant document; with ``subtopics``, one line per
    subtopic) and three runs drawn from a larger pool (unjudged documents, tied scores, repeated documents)."""
    n_queries = draw(st.integers(1, 4))
    rows, runs = [], {name: [] for name in ("a", "b", "c")}
    for q in range(n_queries):
        judged = draw(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=6, unique=True))
        for doc in judged:
            for t in (draw(st.lists(st.sampled_from("123"), min_size=1, max_size=2, unique=True)) if subtopics
                      else ["0"]):
                rows.append((f"q{q}", t, doc, draw(st.integers(0, 3))))
        for name in runs:
            docs = draw(st.lists(st.sampled_from("abcdefghijklmn"), min_size=0, max_size=9))
            runs[name] += [(f"q{q}", doc, float(draw(st.integers(0, 4)))) for doc in docs]
    qrels = pd.DataFrame(rows, columns=["query_id", "iteration", "doc_id", "relevance"])
    qrels = qrels.drop_duplicates(["query_id", "iteration", "doc_id"], keep="last").reset_index(drop=True)
    if not (qrels["relevance"] >= 2).any():  # every rel of the measures below has a relevant document
        qrels.loc[0, "relevance"] = 2
    frames = {name: pd.DataFrame(r, columns=["query_id", "doc_id", "score"]) for name, r in runs.items()}
    return qrels, frames


def assert_same(got: pd.DataFrame, want: pd.DataFrame, measure: str) -> None:
    got = got.set_index(["run", "query_id"])["value"].sort_index()
    want = want.set_index(["run", "query_id"])["value"].sort_index()
    assert got.index.equals(want.index), measure
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12, err_msg=measure)


def assert_condensed_equal_stripped(qrels, runs, bare, measures, condensed_measures) -> None:
    """One evaluation of ``condensed_measures`` on ``runs`` and of ``measures`` on the stripped runs ``bare``: the
    per-query values of each pair are equal."""
    got = evaluate(qrels, runs, condensed_measures, per_query=True)
    want = evaluate(qrels, bare, measures, per_query=True)
    for plain, condensed in zip(measures, condensed_measures):
        assert_same(got[got["measure"] == str(ir_measures.parse_measure(condensed))],
                    want[want["measure"] == str(ir_measures.parse_measure(plain))], condensed)


pytestmark = pytest.mark.filterwarnings("ignore:run '.*' (covers|has none):UserWarning")
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(collections())
def test_judged_only_equals_the_measure_on_stripped_runs(case):
    qrels, runs = case
    bare = {name: stripped(run, qrels) for name, run in runs.items()}
    prefeval.register_run("jo-base", runs["c"])
    prefeval.register_run("jo-base-stripped", bare["c"])
    measures = PREFERENCES + METRICS
    assert_condensed_equal_stripped(qrels, runs, bare, measures, [with_judged_only(m) for m in measures])
    # against one baseline: the baseline is condensed too
    assert_condensed_equal_stripped(qrels, runs, bare, [_with_baseline(m, "jo-base-stripped") for m in PREFERENCES],
                                    [with_judged_only(_with_baseline(m, "jo-base")) for m in PREFERENCES])


def _with_baseline(measure: str, baseline: str) -> str:
    head, at, cutoff = measure.partition("@")
    head = head[:-1] + f", baseline='{baseline}')" if head.endswith(")") else head + f"(baseline='{baseline}')"
    return head + at + cutoff


@SETTINGS
@given(collections(subtopics=True))
def test_judged_only_diversity_metrics_equal_them_on_stripped_runs(case):
    qrels, runs = case
    bare = {name: stripped(run, qrels) for name, run in runs.items()}
    assert_condensed_equal_stripped(qrels, runs, bare, DIVERSITY, [with_judged_only(m) for m in DIVERSITY])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from([None, 2, 4]))
def test_compare_with_judged_only_equals_compare_of_stripped_runs(case, depth):
    """Per-query preferences of every pair; the comparison's depth cuts the runs before their unjudged documents go
    (then the stripped runs are the cut runs stripped)."""
    qrels, runs = case
    cut = {name: _top(run, depth) for name, run in runs.items()}
    bare = {name: stripped(run, qrels) for name, run in cut.items()}
    methods = ["LexiRecall", "LexiPrecision", "RPP(weighting='dcg')", "RPP@2", "RBU@3", "TSE"]
    condensed = prefeval.compare(qrels, runs, [with_judged_only(m) for m in methods], depth=depth,
                                 per_query=True).per_query
    plain = prefeval.compare(qrels, bare, methods, per_query=True).per_query
    for m in methods:
        got = condensed[condensed["method"] == with_judged_only(m)]
        want = plain[plain["method"] == m]
        assert got[["query_id", "run_a", "run_b"]].astype(str).values.tolist() == \
            want[["query_id", "run_a", "run_b"]].astype(str).values.tolist()
        np.testing.assert_allclose(got["value"].to_numpy(), want["value"].to_numpy(), atol=1e-12, err_msg=m)


def _top(run: pd.DataFrame, depth: int | None) -> pd.DataFrame:
    """The run's top ``depth`` documents per query as prefeval ranks them (score descending, ties by doc id
    descending, a repeated document at its first position)."""
    ranked = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
    ranked = ranked.drop_duplicates(["query_id", "doc_id"])
    return ranked if depth is None else ranked.groupby("query_id").head(depth)


QRELS = pd.DataFrame({"query_id": ["1"] * 4 + ["2"] * 2, "doc_id": ["a", "b", "c", "d", "a", "e"],
                      "relevance": [1, 0, 2, 0, 1, 0]})
RUNS = {"r": pd.DataFrame({"query_id": ["1"] * 5 + ["2"] * 3, "doc_id": ["x", "a", "y", "b", "c", "z", "e", "a"],
                           "score": [9.0, 8, 7, 6, 5, 9, 8, 7]}),
        "s": pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["c", "q", "a"], "score": [3.0, 2, 1]})}
BARE = {name: stripped(run, QRELS) for name, run in RUNS.items()}


def test_condensed_lists_change_the_value():
    """The case the definition is about: unjudged documents above the relevant ones lower RBU; removed, they don't."""
    full = evaluate(QRELS, RUNS, ["RBU@2"]).set_index("run")["value"]
    condensed = evaluate(QRELS, RUNS, ["RBU(judged_only=True)@2"]).set_index("run")["value"]
    assert condensed["r"] > full["r"]


def test_calc_aggregate_and_the_table_read_judged_only():
    prefeval.register_run("jo-s", RUNS["s"])
    prefeval.register_run("jo-s-bare", BARE["s"])
    for measure, plain in [("RBU(judged_only=True)@2", "RBU@2"), ("TSE(judged_only=True)", "TSE"),
                           ("RPP(baseline='jo-s', judged_only=True)", "RPP(baseline='jo-s-bare')"),
                           ("LexiPrecision(baseline='jo-s', judged_only=True)", "LexiPrecision(baseline='jo-s-bare')")]:
        got = ir_measures.calc_aggregate([ir_measures.parse_measure(measure)], QRELS, RUNS["r"])
        want = ir_measures.calc_aggregate([ir_measures.parse_measure(plain)], QRELS, BARE["r"])
        assert list(got.values()) == pytest.approx(list(want.values()), abs=1e-12), measure
    table = prefeval.table(QRELS, RUNS, ["RBU(judged_only=True)@2", "LexiRecall(judged_only=True)"])
    plain = prefeval.table(QRELS, BARE, ["RBU@2", "LexiRecall"])
    for run in RUNS:
        assert table.value(run, "RBU(judged_only=True)@2") == pytest.approx(plain.value(run, "RBU@2"), abs=1e-12)
        assert table.value(run, "LexiRecall(judged_only=True)") == plain.value(run, "LexiRecall")


def test_judged_only_is_one_parameter_of_every_method():
    for declaration in prefeval.methods.declarations():
        assert declaration.params["judged_only"].default is False
        assert declaration.check({"judged_only": True})["judged_only"] is True
    with pytest.raises(prefeval.PrefevalError, match="judged_only"):
        evaluate(QRELS, RUNS, ["RBU(judged_only=1)@2"])
    assert str(ir_measures.parse_measure("LexiRecall(judged_only=True)")) == "LexiRecall(judged_only=True)"
    assert str(ir_measures.parse_measure("LexiRecall(judged_only=False)")) == "LexiRecall"


@pytest.mark.integration  # a whole pt.Experiment (PyTerrier's import takes a while)
def test_pt_experiment_reads_judged_only():
    pt = pytest.importorskip("pyterrier")
    systems = [pt.Transformer.from_df(RUNS[n].rename(columns={"query_id": "qid", "doc_id": "docno"})) for n in RUNS]
    topics = pd.DataFrame({"qid": ["1", "2"], "query": ["a", "b"]})
    qrels = QRELS.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    prefeval.register_run("jo-pt-s", RUNS["s"])
    prefeval.register_run("jo-pt-s-bare", BARE["s"])
    got = pt.Experiment(systems, topics, qrels, [prefeval.RBU(judged_only=True) @ 2,
                                                 prefeval.RPP(baseline="jo-pt-s", judged_only=True)],
                        names=list(RUNS)).set_index("name")
    want = evaluate(QRELS, BARE, ["RBU@2", "RPP(baseline='jo-pt-s-bare')"]).set_index(["run", "measure"])["value"]
    assert got.loc["r", "RBU(judged_only=True)@2"] == pytest.approx(want["r", "RBU@2"], abs=1e-12)
    assert got.loc["r", "RPP(baseline='jo-pt-s',judged_only=True)"] == pytest.approx(
        want["r", "RPP(baseline='jo-pt-s-bare')"], abs=1e-12)
