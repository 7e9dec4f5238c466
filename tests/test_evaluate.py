"""prefeval.evaluate: many runs x mixed ir-measures / prefeval measures, against brute force and trec_eval."""

from __future__ import annotations

import gzip
import math

import pandas as pd
import pytest

import prefeval
import reference as ref
from prefeval.data import runs as run_registry
from prefeval.engine.evaluate import evaluate, parse_measures
from prefeval.errors import PrefevalError

# q1: grades a=2, b=1, c=0, d=2 ; q2: e=1 ; q3: judged but nothing relevant
QRELS = {"q1": {"a": 2, "b": 1, "c": 0, "d": 2}, "q2": {"e": 1}, "q3": {"z": 0}}
RUNS = {
    "r1": {"q1": {"a": 3.0, "c": 2.0, "b": 2.0, "x": 1.0}, "q2": {"y": 5.0, "e": 4.0}},  # tie b/c at 2.0
    "r2": {"q1": {"d": 1.0, "b": 1.0, "a": 0.5}, "q2": {"e": 1.0}},                      # tie d/b at 1.0
    "r3": {"q1": {"c": 9.0, "x": 8.0}},                                                # misses q2
}


def ranking(run: dict, qid: str) -> list[str]:
    """trec_eval order: score descending, ties by doc id descending."""
    by_doc_desc = sorted(run.get(qid, {}).items(), key=lambda kv: kv[0], reverse=True)
    return [d for d, _ in sorted(by_doc_desc, key=lambda kv: -kv[1])]  # stable: ties keep doc_id desc


def relevant(qid: str, rel: int) -> set[str]:
    return {d for d, g in QRELS[qid].items() if g >= rel}


def brute_rr(run, qid, rel):
    for i, d in enumerate(ranking(run, qid), start=1):
        if d in relevant(qid, rel):
            return 1 / i
    return 0.0


def brute_ap(run, qid, rel):
    rels = relevant(qid, rel)
    if not rels:
        return 0.0
    hits, total = 0, 0.0
    for i, d in enumerate(ranking(run, qid), start=1):
        if d in rels:
            hits += 1
            total += hits / i
    return total / len(rels)


def brute_p(run, qid, k, rel):
    return sum(d in relevant(qid, rel) for d in ranking(run, qid)[:k]) / k


def positions(run, qid, rel):
    return ref.position_vector(ranking(run, qid), relevant(qid, rel))


def value(frame, run, measure, qid=None):
    rows = frame[(frame["run"] == run) & (frame["measure"] == measure)]
    if qid is not None:
        rows = rows[rows["query_id"] == qid]
    assert len(rows) == 1, (run, measure, qid, frame)
    return rows["value"].item()


def test_standard_measures_match_brute_force_with_trec_eval_ties():
    per_query = evaluate(QRELS, RUNS, ["RR", "AP", "P@2"], per_query=True)
    for name, run in RUNS.items():
        for qid in ("q1", "q2"):
            assert value(per_query, name, "RR", qid) == pytest.approx(brute_rr(run, qid, 1))
            assert value(per_query, name, "AP", qid) == pytest.approx(brute_ap(run, qid, 1))
            assert value(per_query, name, "P@2", qid) == pytest.approx(brute_p(run, qid, 2, 1))
    summary = evaluate(QRELS, RUNS, ["RR", "AP", "P@2"])
    assert list(summary.columns) == ["run", "measure", "value", "given"]
    assert summary["run"].tolist() == ["r1"] * 3 + ["r2"] * 3 + ["r3"] * 3
    assert summary["measure"].tolist() == ["RR", "AP", "P@2"] * 3
    for name in RUNS:
        for measure in ("RR", "AP", "P@2"):
            mean = per_query.loc[(per_query["run"] == name) & (per_query["measure"] == measure), "value"].mean()
            assert value(summary, name, measure) == pytest.approx(mean)


def test_rel_applies_where_the_measure_takes_it():
    out = evaluate(QRELS, {"r1": RUNS["r1"]}, ["AP", "RR(rel=1)", "nDCG@3"], per_query=True, rel=2)
    assert list(dict.fromkeys(out["measure"])) == ["AP(rel=2)", "RR", "nDCG@3"]
    assert value(out, "r1", "AP(rel=2)", "q1") == pytest.approx(brute_ap(RUNS["r1"], "q1", 2))
    assert value(out, "r1", "RR", "q1") == pytest.approx(brute_rr(RUNS["r1"], "q1", 1))
    plain = evaluate(QRELS, {"r1": RUNS["r1"]}, ["nDCG@3"], per_query=True)
    assert out.loc[out["measure"] == "nDCG@3", "value"].tolist() == plain["value"].tolist()
    assert [str(m) for m in parse_measures(["AP", "nDCG@10"], rel=2)] == ["AP(rel=2)", "nDCG@10"]


def test_mixes_prefeval_and_ir_measures():
    out = evaluate(QRELS, RUNS, ["TSE", prefeval.TSE(rel=2), "RR"], per_query=True)
    for name, run in RUNS.items():
        for rel, label in ((1, "TSE"), (2, "TSE(rel=2)")):
            for qid in ("q1", "q2") if rel == 1 else ("q1",):
                p = positions(run, qid, rel)
                assert value(out, name, label, qid) == pytest.approx(1 / p[-1] if math.isfinite(p[-1]) else 0.0)


def test_preference_without_baseline_is_mean_preference_over_the_other_runs():
    out = evaluate(QRELS, RUNS, ["LexiPrecision", "LexiRecall"], per_query=True)
    names = list(RUNS)
    for label, brute in (("LexiPrecision", ref.lexiprecision), ("LexiRecall", ref.lexirecall)):
        for qid in ("q1", "q2"):  # q3 has no relevant document: a tie (0), as every measure gives it 0
            for name in names:
                others = [o for o in names if o != name]
                expected = sum(brute(positions(RUNS[name], qid, 1), positions(RUNS[o], qid, 1)) for o in others) / 2
                assert value(out, name, label, qid) == pytest.approx(expected)
        assert (out.loc[(out["measure"] == label) & (out["query_id"] == "q3"), "value"] == 0).sum() == len(names)
    summary = evaluate(QRELS, RUNS, ["LexiPrecision"])
    for name in names:
        assert value(summary, name, "LexiPrecision") == pytest.approx(
            out.loc[(out["run"] == name) & (out["measure"] == "LexiPrecision"), "value"].mean())


def test_baseline_may_name_a_run_of_the_call_and_registry_is_restored():
    out = evaluate(QRELS, RUNS, ["LexiRecall(baseline='r2')"], per_query=True)
    for name in RUNS:
        for qid in ("q1", "q2"):
            expected = ref.lexirecall(positions(RUNS[name], qid, 1), positions(RUNS["r2"], qid, 1))
            assert value(out, name, "LexiRecall(baseline='r2')", qid) == pytest.approx(expected)
    assert "r2" not in run_registry._REGISTERED


def test_runs_as_paths_and_output_order(tmp_path):
    paths = []
    for name in ("zeta", "alpha"):
        path = tmp_path / f"{name}.run.gz"
        lines = "".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in RUNS["r1" if name == "zeta" else "r2"].items()
                        for d, s in docs.items())
        path.write_bytes(gzip.compress(lines.encode()))
        paths.append(str(path))
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    out = evaluate(str(qrels_path), paths, ["RR", "AP"], per_query=True)
    assert list(out.columns) == ["run", "query_id", "measure", "value", "given"]
    assert list(dict.fromkeys(out["run"])) == ["zeta", "alpha"]  # the given order, names from file names
    block = out[out["run"] == "zeta"]
    assert block["query_id"].tolist() == ["q1", "q1", "q2", "q2", "q3", "q3"]
    assert block["measure"].tolist() == ["RR", "AP"] * 3
    assert value(out, "alpha", "RR", "q1") == pytest.approx(brute_rr(RUNS["r2"], "q1", 1))


def test_trec_eval_names_are_accepted():
    out = evaluate(QRELS, {"r1": RUNS["r1"]}, ["ndcg_cut_3", "recip_rank"])
    assert out["measure"].tolist() == ["nDCG@3", "RR"]


@pytest.mark.parametrize(("measures", "message"), [
    (["nDGC@10"], "unknown measure 'nDGC@10'.*did you mean nDCG"),
    (["RBU(p=0.8"], "cannot parse measure"),
    ([], "no measures given"),
    ([42], "cannot use 42 as a measure"),
    (["RPP(weighting='cubic')"], "RPP"),
])
def test_bad_measures(measures, message):
    with pytest.raises(PrefevalError, match=message):
        evaluate(QRELS, RUNS, measures)


def test_free_preference_needs_two_runs():
    with pytest.raises(PrefevalError, match="at least two runs"):
        evaluate(QRELS, {"r1": RUNS["r1"]}, ["RPP"])


def test_warns_when_a_run_shares_no_query_with_the_qrels():
    with pytest.warns(UserWarning, match="run 'other' shares no query id with the qrels"):
        evaluate(QRELS, {"other": {"999": {"a": 1.0}}}, ["RR"])


def test_dl_hard_file_route_matches_trec_eval(shared_data):
    runs = ["bm25", "bm25+t5_zs_"]
    paths = [shared_data / "dl-hard" / "runs" / "passage" / f"{r}.run.gz" for r in runs]
    out = evaluate(shared_data / "dl-hard" / "dl_hard-passage.qrels", [str(p) for p in paths],
                   ["nDCG@10", "AP", "RR"], rel=2)
    for run, path in zip(runs, paths):
        ref = pd.read_csv(str(path).replace(".run.gz", ".run.eval.gz"), sep="\t", header=None,
                          names=["measure", "query_id", "value"], dtype=str)
        ref["measure"] = ref["measure"].str.strip()
        ref = ref[ref["query_id"] == "all"].set_index("measure")["value"]
        for ours, theirs in (("nDCG@10", "ndcg_cut_10"), ("AP(rel=2)", "map"), ("RR(rel=2)", "recip_rank")):
            assert round(value(out, run, ours), 4) == pytest.approx(float(ref[theirs]), abs=1e-9), (run, ours)


def test_results_keep_the_measure_as_written_and_canonical():
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    written = "RBU(p=0.8,e=0.03,variant='evall')"
    out = prefeval.evaluate(qrels, {"x": run}, [written, "ndcg_cut_10"])
    assert out.set_index("given").loc[written, "measure"] == "RBU(variant='evall')"
    assert out.set_index("given").loc["ndcg_cut_10", "measure"] == "nDCG@10"
