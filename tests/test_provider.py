"""prefeval measures through ir-measures, checked per query against the naive reference on real runs."""

from __future__ import annotations

import math

import ir_measures
import pandas as pd
import pytest

import prefeval
import reference as ref
from prefeval.data.trec import read_qrels, read_run

RUNS = ["bm25+t5_zs_", "bm25+rm3"]


@pytest.fixture(scope="module")
def dl_hard(shared_data):
    folder = shared_data / "dl-hard"
    qrels_path = folder / "dl_hard-passage.qrels"
    baseline_path = folder / "runs" / "passage" / "bm25.run.gz"
    runs = {name: folder / "runs" / "passage" / f"{name}.run.gz" for name in RUNS}
    return {
        "qrels": read_qrels(qrels_path),
        "baseline_path": str(baseline_path),
        "runs": {name: read_run(path) for name, path in runs.items()},
        "ref_grades": ref.grades(ref.read_trec(qrels_path, 4)),
        "ref_base": ref.rankings(ref.read_trec(baseline_path, 6)),
        "ref_runs": {name: ref.rankings(ref.read_trec(path, 6)) for name, path in runs.items()},
    }


def _expected(name: str, ranking: list[str], base: list[str], grades: dict[str, int], rel: int, graded: bool):
    relevant = {d for d, g in grades.items() if g >= rel}
    a, b = ref.position_vector(ranking, relevant), ref.position_vector(base, relevant)
    if name == "LexiRecall":
        return ref.lexirecall(a, b)
    if name == "LexiPrecision":
        return ref.lexiprecision(a, b)
    if name == "LexiPrecision(rr)":
        return ref.lexiprecision(a, b, "rr")
    if name == "TSE":
        return ref.tse(a)
    weighting = name[4:-1] if name.startswith("RPP(") else "uniform"
    if graded:
        return ref.rpp_graded(ranking, base, grades, rel, weighting)
    return ref.rpp_binary(a, b, weighting)


@pytest.mark.parametrize("rel", [1, 2])
@pytest.mark.parametrize("graded", [True, False])
def test_per_query_values_match_reference(dl_hard, rel, graded):
    base = dl_hard["baseline_path"]
    measures = {
        "LexiRecall": prefeval.LexiRecall(baseline=base, rel=rel),
        "LexiPrecision": prefeval.LexiPrecision(baseline=base, rel=rel),
        "LexiPrecision(rr)": prefeval.LexiPrecision(baseline=base, rel=rel, magnitude="rr"),
        "TSE": prefeval.TSE(rel=rel),
        **{f"RPP({w})": prefeval.RPP(baseline=base, rel=rel, weighting=w, graded=graded)
           for w in ("uniform", "inverse", "dcg")},
    }
    evaluator = ir_measures.evaluator(list(measures.values()), dl_hard["qrels"])
    for run_name, run in dl_hard["runs"].items():
        values = {(m.query_id, m.measure): m.value for m in evaluator.iter_calc(run)}
        queries = [q for q, g in dl_hard["ref_grades"].items() if any(x >= rel for x in g.values())]
        # every judged query gets a value (README, "Input semantics"): 0 where none has grade >= rel
        assert len(values) == len(dl_hard["ref_grades"]) * len(measures)
        for qid in set(dl_hard["ref_grades"]) - set(queries):
            assert all(values[(qid, measure)] == 0 for measure in measures.values())
        for qid in queries:
            for name, measure in measures.items():
                expected = _expected(name, dl_hard["ref_runs"][run_name].get(qid, []),
                                     dl_hard["ref_base"].get(qid, []), dl_hard["ref_grades"][qid], rel, graded)
                assert values[(qid, measure)] == pytest.approx(float(expected), abs=1e-12), (run_name, qid, name)


def test_mixed_with_standard_measures_matches_trec_eval(dl_hard, shared_data):
    """nDCG@10 / AP / RR next to prefeval measures equal trec_eval's -l 2 -c -M1000 summary rows."""
    import gzip

    eval_path = shared_data / "dl-hard" / "runs" / "passage" / "bm25+t5_zs_.run.eval.gz"
    with gzip.open(eval_path, "rt") as handle:
        summary = {m: float(v) for m, q, v in (line.split() for line in handle) if q == "all" and m != "runid"}
    results = ir_measures.calc_aggregate(
        [ir_measures.nDCG @ 10, ir_measures.AP(rel=2), ir_measures.RR(rel=2), prefeval.RBU @ 20,
         prefeval.RPP(baseline=dl_hard["baseline_path"])], dl_hard["qrels"], dl_hard["runs"]["bm25+t5_zs_"])
    assert results[ir_measures.nDCG @ 10] == pytest.approx(summary["ndcg_cut_10"], abs=5e-5)
    assert results[ir_measures.AP(rel=2)] == pytest.approx(summary["map"], abs=5e-5)
    assert results[ir_measures.RR(rel=2)] == pytest.approx(summary["recip_rank"], abs=5e-5)
    assert -1 <= results[prefeval.RPP(baseline=dl_hard["baseline_path"])] <= 1


def test_missing_query_gets_worst_case():
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 2, 1]})
    baseline = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "c"], "score": [1.0, 1.0]})
    empty_baseline = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    prefeval.register_run("test-missing-base", baseline)
    prefeval.register_run("test-missing-empty", empty_baseline)
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "score": [1.0]})  # lacks q2
    measures = [prefeval.LexiRecall(baseline="test-missing-base"), prefeval.RPP(baseline="test-missing-base"),
                prefeval.LexiPrecision(baseline="test-missing-empty"), prefeval.TSE, prefeval.RBU]
    values = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    assert values[("q2", "LexiRecall(baseline='test-missing-base')")] == -1
    assert values[("q2", "RPP(baseline='test-missing-base')")] == -1
    assert values[("q2", "LexiPrecision(baseline='test-missing-empty')")] == 0  # both retrieved nothing
    assert values[("q2", "TSE")] == 0
    assert values[("q2", "RBU")] == 0
    assert values[("q1", "TSE")] == 0  # a is missed
    assert values[("q1", "LexiRecall(baseline='test-missing-base')")] == 0  # one relevant each, both at 1


def test_queries_without_relevant_documents_score_zero_and_run_only_queries_are_ignored():
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})
    result = list(ir_measures.iter_calc([prefeval.TSE], qrels, run))
    assert [(m.query_id, m.value) for m in result] == [("q1", 1.0), ("q2", 0.0)]  # as AP gives q2 0


def test_score_ties_break_by_doc_id_descending():
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    for order in (["a", "b"], ["b", "a"]):
        run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": order, "score": [1.0, 1.0]})
        assert ir_measures.calc_aggregate([prefeval.TSE], qrels, run)[prefeval.TSE] == 0.5  # b ranks first


def test_cutoff_truncates_the_run_and_the_baseline():
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "x", "b"], "score": [3.0, 2.0, 1.0]})
    prefeval.register_run("test-cut-base", pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["y", "a"],
                                                         "score": [2.0, 1.0]}))
    full = ir_measures.calc_aggregate([prefeval.TSE, prefeval.LexiRecall(baseline="test-cut-base")], qrels, run)
    cut = ir_measures.calc_aggregate([prefeval.TSE @ 2, prefeval.LexiRecall(baseline="test-cut-base") @ 1], qrels, run)
    assert full[prefeval.TSE] == pytest.approx(1 / 3)
    assert full[prefeval.LexiRecall(baseline="test-cut-base")] == 1
    assert cut[prefeval.TSE @ 2] == 0
    assert cut[prefeval.LexiRecall(baseline="test-cut-base") @ 1] == 1  # 1 relevant retrieved vs 0


def test_calc_and_evaluator_agree_with_iter_calc(dl_hard):
    measure = prefeval.RPP(baseline=dl_hard["baseline_path"], weighting="inverse")
    run = dl_hard["runs"]["bm25+rm3"]
    aggregated, per_query = ir_measures.calc([measure], dl_hard["qrels"], run)
    mean = sum(m.value for m in per_query) / len(per_query)
    assert math.isclose(aggregated[measure], mean)
    assert ir_measures.evaluator([measure], dl_hard["qrels"]).calc_aggregate(run)[measure] == aggregated[measure]


def test_subtopic_rpp_weights_subtopics_and_background_by_size():
    # subtopic 1 = {a, b}, subtopic 2 = {c}; background = {a, b, c}
    qrels = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "x"], "relevance": [1, 1, 1, 0],
                          "iteration": ["1", "1", "2", "1"]})
    run = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "c", "x", "b"], "score": [4.0, 3.0, 2.0, 1.0]})
    prefeval.register_run("test-st-base", pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["c", "b", "a"],
                                                        "score": [3.0, 2.0, 1.0]}))
    st = prefeval.RPP(baseline="test-st-base", subtopics=True)
    plain = prefeval.RPP(baseline="test-st-base")
    values = ir_measures.calc_aggregate([st, plain], qrels, run)
    # subtopic 1: (+1 - 1)/2 = 0 (m=2); subtopic 2: -1 (m=1); background: (0 + 0 - 1)/3 (m=3)
    assert values[st] == pytest.approx((2 * 0 + 1 * -1 + 3 * (-1 / 3)) / 6)
    assert values[plain] == pytest.approx(-1 / 3)  # one grade: binary RPP on the background
