"""One input semantics for every measure and entry point (README, "Input semantics"): repeated documents, conflicting
qrels lines, score ties, the query set, column conventions (PyTerrier, ranx), parameter checks, query coverage."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval.commands.cli import main
from prefeval.engine.evaluate import evaluate
from prefeval.errors import PrefevalError

REPO = Path(__file__).resolve().parent.parent
STANDARD = ["RR", "AP", "P@2", "nDCG@3", "ERR_IA@3", "alpha_nDCG@3", "R@3"]
OURS = ["RBU@3", "TSE", "RBU(rel=2)@3"]


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def by_query(text: str) -> dict[tuple[str, str], float]:
    return {(q, m): float(v) for q, m, v in (line.split("\t") for line in text.strip().splitlines())}


def means(frame: pd.DataFrame) -> dict[tuple[str, str], float]:
    return {(r.run, r.measure): r.value for r in frame.itertuples()}


# ----------------------------------------------------------------------------------------------
# 1. a document repeated in a run


def test_repeated_document_keeps_its_first_position_for_every_measure(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 2\n")
    (tmp_path / "dup.run").write_text("q1 Q0 d9 1 3.0 x\nq1 Q0 d1 2 2.0 x\nq1 Q0 d9 3 1.0 x\nq1 Q0 d2 4 0.5 x\n")
    (tmp_path / "b.run").write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\n")
    run, base = str(tmp_path / "dup.run"), str(tmp_path / "b.run")
    code, out, err = cli(capsys, "eval", "-q", "-p", "-1", str(tmp_path / "qrels"), run, "RR", "AP",
                         f"LexiRecall(baseline='{base}')")
    assert f"prefeval eval: warning: run '{run}': 1 repeated document" in err  # one line, named as given
    values = by_query(out)
    assert code == 0
    assert values["q1", "RR"] == 0.5  # d9 first, d1 second: the first occurrence (the last would give RR 1)
    assert values["q1", "AP"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert values["q1", f"LexiRecall(baseline='{base}')"] == -1  # same count, deepest position 3 vs 2
    # every measure equals its value on the input resolved by the rule (first occurrence kept)
    dup = {"q1": {"d9": 3.0, "d1": 2.0, "d2": 0.5}}
    frame = pd.DataFrame({"query_id": "q1", "doc_id": ["d9", "d1", "d9", "d2"], "score": [3.0, 2.0, 1.0, 0.5]})
    measures = STANDARD + OURS + [f"LexiRecall(baseline='{base}')", f"RPP(baseline='{base}')",
                                  f"LexiPrecision(baseline='{base}')"]
    qrels = str(tmp_path / "qrels")
    with pytest.warns(UserWarning, match="run 'mine': 1 repeated document"):
        got = evaluate(qrels, {"mine": frame}, measures, per_query=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = evaluate(qrels, {"mine": dup}, measures, per_query=True)
    pd.testing.assert_frame_equal(got, expected)


# ----------------------------------------------------------------------------------------------
# 2. conflicting qrels lines


def test_conflicting_qrels_last_line_wins_for_every_measure_and_entry_point(tmp_path):
    (tmp_path / "conflict.qrels").write_text("q1 0 d1 1\nq1 0 d2 1\nq1 0 d1 0\nq2 0 d3 3\nq2 0 d4 2\nq2 0 d3 1\n")
    (tmp_path / "resolved.qrels").write_text("q1 0 d2 1\nq1 0 d1 0\nq2 0 d4 2\nq2 0 d3 1\n")
    runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 2.0, "d4": 1.0}},
            "b": {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d4": 2.0, "d3": 1.0}}}
    prefeval.register_run("conflict-b", runs["b"])
    measures = STANDARD + OURS + ["LexiRecall(baseline='conflict-b')", "RPP(baseline='conflict-b')", "LexiPrecision"]
    with pytest.warns(UserWarning, match=r"query q1, document d1: grades 1 then 0, kept 0"):
        got = evaluate(tmp_path / "conflict.qrels", runs, measures, per_query=True)
    expected = evaluate(tmp_path / "resolved.qrels", runs, measures, per_query=True)
    pd.testing.assert_frame_equal(got, expected)
    # RBU: grade 1 from the last line, and gmax 2 (not 3) in its normalisation
    rbu = got[(got["run"] == "a") & (got["query_id"] == "q2") & (got["measure"] == "RBU@3")]["value"].item()
    r1, r2 = (2 ** 1 - 1) / 2 ** 2, (2 ** 2 - 1) / 2 ** 2
    assert rbu == pytest.approx(0.8 * (r1 - 0.03) + 0.8 ** 2 * (r2 * (1 - r1) - 0.03))
    # compare: LexiRecall and AP see d1 non-relevant alike
    with pytest.warns(UserWarning, match="the last line wins"):
        res = prefeval.compare(tmp_path / "conflict.qrels", runs, ["LexiRecall", "AP"])
    ref = prefeval.compare(tmp_path / "resolved.qrels", runs, ["LexiRecall", "AP"])
    pd.testing.assert_frame_equal(res.per_query, ref.per_query)
    # diversity qrels: the conflict is per subtopic; the warning names it
    div = pd.DataFrame({"query_id": "q1", "doc_id": ["d1", "d1", "d1"], "relevance": [1, 0, 1],
                        "iteration": ["1", "1", "2"]})
    with pytest.warns(UserWarning, match="document d1, subtopic 1: grades 1 then 0"):
        assert len(prefeval.data.inputs.qrels_frame(div)) == 2


# ----------------------------------------------------------------------------------------------
# 3. score ties


@pytest.mark.parametrize("relevant", ["d1", "d2"])
def test_score_ties_are_broken_alike_by_every_provider(relevant):
    qrels = pd.DataFrame({"query_id": "q", "doc_id": [relevant], "relevance": [1], "iteration": ["1"]})
    for order in (["d1", "d2"], ["d2", "d1"]):
        run = pd.DataFrame({"query_id": "q", "doc_id": order, "score": [1.0, 1.0]})
        out = means(evaluate(qrels, {"r": run}, ["P@1", "RBU@1", "alpha_nDCG@1", "ERR_IA@1", "RR"]))
        first = relevant == "d2"  # ties: doc id descending puts d2 first
        assert out["r", "P@1"] == float(first)
        assert out["r", "RR"] == (1.0 if first else 0.5)
        assert out["r", "alpha_nDCG@1"] == float(first)
        assert (out["r", "ERR_IA@1"] > 0) == first
        assert out["r", "RBU@1"] == pytest.approx(0.8 * ((0.5 if first else 0.0) - 0.03))


# ----------------------------------------------------------------------------------------------
# 4. the query set: every judged query, for every measure (pt.Experiment, calc_aggregate, evaluate, compare)

QRELS4 = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2", "q3"], "doc_id": ["a", "b", "c", "d", "e"],
                       "relevance": [2, 1, 1, 0, 0]})
RUNS4 = {"x": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"d": 2.0, "c": 1.0}, "q3": {"e": 1.0}},
         "y": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"c": 1.0}, "q3": {"f": 1.0}}}


def test_every_judged_query_counts_for_every_measure():
    prefeval.register_run("qs-y", RUNS4["y"])
    measures = ["RBU(rel=2)@5", "RBU@5", "TSE(rel=2)", "LexiRecall(baseline='qs-y', rel=2)", "nDCG@5", "AP(rel=2)"]
    out = evaluate(QRELS4, {"x": RUNS4["x"]}, measures, per_query=True)
    assert out.groupby("measure").size().to_dict() == {str(ir_measures.parse_measure(m)): 3 for m in measures}
    no_relevant = out[out["query_id"].isin(["q2", "q3"]) & out["measure"].str.contains("rel=2")]
    assert (no_relevant["value"] == 0).all() and len(no_relevant) == 8
    summary = means(evaluate(QRELS4, {"x": RUNS4["x"]}, measures))
    agg = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in measures], QRELS4, RUNS4["x"])
    for m, v in agg.items():
        assert summary["x", str(m)] == pytest.approx(v, abs=1e-12)
    res = prefeval.compare(QRELS4, RUNS4, ["LexiRecall(rel=2)", "nDCG@5"])
    assert res.matrix("LexiRecall(rel=2)").loc["x", "y"] == pytest.approx(summary["x", "LexiRecall(baseline='qs-y',rel=2)"])
    assert res.ranking("nDCG@5", aggregate="mean").set_index("run").loc["x", "score"] == pytest.approx(
        summary["x", "nDCG@5"])


def _pt_frames():
    pt = pytest.importorskip("pyterrier")
    systems = [pt.Transformer.from_df(pd.DataFrame(
        [(q, d, s) for q, docs in RUNS4[n].items() for d, s in docs.items()], columns=["qid", "docno", "score"]))
        for n in RUNS4]
    topics = pd.DataFrame({"qid": ["q1", "q2", "q3"], "query": ["a", "b", "c"]})
    qrels = QRELS4.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    return pt, systems, topics, qrels


@pytest.mark.integration  # a whole pt.Experiment (PyTerrier's import alone takes 0.6 s)
def test_pt_experiment_mixing_prefeval_and_standard_measures():
    pt, systems, topics, qrels = _pt_frames()
    prefeval.register_run("qs-y", RUNS4["y"])
    metrics = [prefeval.LexiRecall(baseline="qs-y", rel=2), ir_measures.nDCG @ 10, prefeval.RBU(rel=2) @ 20,
               prefeval.RBU @ 20]
    got = pt.Experiment(systems, topics, qrels, metrics, names=list(RUNS4)).set_index("name")
    expected = means(evaluate(QRELS4, RUNS4, metrics))
    for m in metrics:
        for name in RUNS4:
            assert got.loc[name, str(m)] == pytest.approx(expected[name, str(m)], abs=1e-12)


def test_pt_experiment_column_order_does_not_depend_on_the_hash_seed():
    pytest.importorskip("pyterrier")
    script = textwrap.dedent('''
        import pandas as pd, pyterrier as pt, prefeval
        from prefeval.integrations.interop import experiment
        qrels = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "label": [2, 1]})
        run = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "score": [2.0, 1.0]})
        prefeval.register_run("b", run)
        topics = pd.DataFrame({"qid": ["q1"], "query": ["x"]})
        ours = [prefeval.RBU @ 5, prefeval.TSE, prefeval.LexiRecall(baseline="b"), prefeval.RBU(rel=2) @ 5]
        plain = pt.Experiment([pt.Transformer.from_df(run)], topics, qrels, ours, names=["r"])
        mixed = experiment([pt.Transformer.from_df(run)], topics, qrels, ["AP(rel=2)", "nDCG@5", *ours, "P@1"],
                           names=["r"])
        print(list(plain.columns), list(mixed.columns), "java started:", pt.java.started())
    ''')
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO / "src")}
        proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        outputs.add(proc.stdout)
    assert len(outputs) == 1
    output = outputs.pop()
    assert "'AP(rel=2)', 'nDCG@5', 'RBU@5', 'TSE'" in output and "java started: False" in output


def test_sign_test_for_pt_experiment_reproduces_prefeval_significance():
    from prefeval.integrations.interop import sign_test

    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 3, 40).astype(float), rng.integers(0, 3, 40).astype(float)
    stat, p = sign_test(a, b)
    wins, losses = int((a > b).sum()), int((a < b).sum())
    from scipy.stats import binomtest

    assert stat == wins - losses and p == pytest.approx(binomtest(wins, wins + losses, 0.5).pvalue, abs=1e-15)


@pytest.mark.integration  # a whole pt.Experiment (PyTerrier's import alone takes 0.6 s)
def test_experiment_warns_when_a_preference_baseline_is_not_the_experiment_baseline():
    pt, systems, topics, qrels = _pt_frames()
    from prefeval.integrations.interop import experiment, sign_test

    prefeval.register_run("qs-y", RUNS4["y"])
    with pytest.warns(UserWarning, match="Experiment's baseline is 'x'"):
        experiment(systems, topics, qrels, ["LexiRecall(baseline='qs-y')"], names=["x", "qs-y"], baseline=0,
                   test=sign_test)


# ----------------------------------------------------------------------------------------------
# 5. column conventions: PyTerrier, ranx, ir-measures


def test_pyterrier_and_ranx_inputs_are_accepted_everywhere():
    ranx = pytest.importorskip("ranx")
    pt_qrels = QRELS4.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    pt_runs = {n: pd.DataFrame([(q, d, s, "x") for q, docs in r.items() for d, s in docs.items()],
                               columns=["qid", "docno", "score", "query"]) for n, r in RUNS4.items()}
    measures = ["nDCG@5", "RBU@5", "LexiRecall(baseline='y')"]
    expected = evaluate(QRELS4, RUNS4, measures)
    pd.testing.assert_frame_equal(evaluate(pt_qrels, pt_runs, measures), expected)
    ranx_runs = {n: ranx.Run(r, name=n) for n, r in RUNS4.items()}
    ranx_qrels = ranx.Qrels({q: {d: int(g) for d, g in zip(f["doc_id"], f["relevance"])}
                             for q, f in QRELS4.groupby("query_id")})
    pd.testing.assert_frame_equal(evaluate(ranx_qrels, ranx_runs, measures), expected)
    pd.testing.assert_frame_equal(evaluate(ranx_qrels.to_dataframe(), {n: r.to_dataframe() for n, r in
                                                                        ranx_runs.items()}, measures), expected)
    a = prefeval.compare(pt_qrels, pt_runs, ["LexiRecall", "AP"]).per_query
    pd.testing.assert_frame_equal(a, prefeval.compare(QRELS4, RUNS4, ["LexiRecall", "AP"]).per_query)
    prefeval.register_run("pt-y", pt_runs["y"])  # e.g. pt.io.read_results(...)
    agg = ir_measures.calc_aggregate([prefeval.LexiRecall(baseline="pt-y")], pt_qrels, pt_runs["x"])
    assert agg[prefeval.LexiRecall(baseline="pt-y")] == pytest.approx(expected.set_index(["run", "measure"]).loc[
        ("x", "LexiRecall(baseline='y')"), "value"])
    # a PyTerrier result that passes query_id through (canonical column wins)
    both = pt_runs["x"].assign(query_id=pt_runs["x"]["qid"])
    pd.testing.assert_frame_equal(evaluate(QRELS4, {"x": both}, ["nDCG@5"]), evaluate(QRELS4, {"x": RUNS4["x"]},
                                                                                          ["nDCG@5"]))


def test_ranx_conversion_keeps_prefeval_order():
    ranx = pytest.importorskip("ranx")
    from prefeval.integrations.interop import to_ranx_qrels, to_ranx_run

    run = {"q1": {"a": 1.0, "b": 1.0, "c": 0.5}}
    qrels = {"q1": {"a": 1, "c": 2}}
    converted = to_ranx_run(run, "r")
    assert converted.name == "r" and list(converted.to_dict()["q1"]) == ["b", "a", "c"]
    mrr = ranx.evaluate(to_ranx_qrels(qrels), converted, "mrr")
    assert mrr == pytest.approx(evaluate(qrels, {"r": run}, ["RR"])["value"].item())


def test_wrong_columns_name_only_what_the_user_gave():
    with pytest.raises(PrefevalError) as info:
        evaluate(pd.DataFrame({"q": ["1"], "doc_id": ["a"], "relevance": [1]}), {"r": {"1": {"a": 1.0}}}, ["AP"])
    assert "lacks column(s) ['query_id'] or qid/q_id" in str(info.value) and "iteration" not in str(info.value)


# ----------------------------------------------------------------------------------------------
# 6. the retrieve step with a real PyTerrier transformer


@pytest.mark.integration  # a whole pipeline through PyTerrier (its import alone takes 0.6 s)
def test_retrieve_step_with_a_pyterrier_transformer(tmp_path):
    pt = pytest.importorskip("pyterrier")
    from prefeval.pipeline import Evaluate, Pipeline, Qrels, Retrieve

    qrels = QRELS4.assign(iteration="0")
    topics = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "text": ["a", "b", "c"]})
    frame = pd.DataFrame([(q, d, s) for q, docs in RUNS4["x"].items() for d, s in docs.items()],
                         columns=["qid", "docno", "score"])
    transformer = pt.Transformer.from_df(frame)
    result = Pipeline([Qrels(qrels, topics=topics), Retrieve(transformer, name="bm25"),
                       Evaluate(["nDCG@5", "RBU@5"])]).run(progress=False)
    expected = evaluate(QRELS4, {"bm25": RUNS4["x"]}, ["nDCG@5", "RBU@5"])
    for row in expected.itertuples():
        assert result.means_table().loc[row.run, row.measure] == pytest.approx(row.value)


# ----------------------------------------------------------------------------------------------
# 7. ir_datasets subsets whose records have more fields than declared (offline, DL-Hard folds)

FOLDS_WORKER = textwrap.dedent(r'''
    import socket, sys
    def no_network(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "network cut off by the test")
    socket.getaddrinfo = no_network
    import prefeval
    from prefeval.data import datasets
    from prefeval.commands.cli import main
    assert main(["datasets", "seed", "msmarco-passage/trec-dl-hard", sys.argv[1]]) == 0
    for fold in range(1, 6):
        qrels = datasets.load(f"irds:msmarco-passage/trec-dl-hard/fold{fold}").qrels
        print(fold, len(qrels), qrels["query_id"].nunique(), sorted(set(qrels["iteration"])))
    out = prefeval.evaluate("irds:msmarco-passage/trec-dl-hard/fold1", [sys.argv[2]], ["nDCG@10", "RBU@10"])
    print(out.to_csv(index=False))
''')


@pytest.mark.integration
def test_dl_hard_fold_subsets_load_offline(shared_data, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IR_DATASETS", "PREFEVAL_OFFLINE"))}
    env.update(IR_DATASETS_HOME=str(tmp_path / "home"), IR_DATASETS_DL_DISABLE_PBAR="true",
               PYTHONPATH=str(REPO / "src"))
    qrels_path = shared_data / "dl-hard" / "dl_hard-passage.qrels"
    run_path = shared_data / "dl-hard" / "runs" / "passage" / "bm25.run.gz"
    proc = subprocess.run([sys.executable, "-c", FOLDS_WORKER, str(qrels_path), str(run_path)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    folds = [line.split(" ", 3) for line in lines if line[:1].isdigit() and " " in line][:5]
    full = prefeval.data.inputs.qrels_frame(qrels_path)
    assert sum(int(n) for _, n, _, _ in folds) == len(full)
    assert sum(int(q) for _, _, q, _ in folds) == full["query_id"].nunique()
    assert "bm25,nDCG@10," in proc.stdout and "bm25,RBU@10," in proc.stdout


# ----------------------------------------------------------------------------------------------
# 8. impossible parameters: a clear error before any provider runs (never an abort)


def test_impossible_parameters_are_errors_not_crashes(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1.0 x\n")
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    for args, message in ((["eval", "nDCG@0"], "nDCG@0: the cutoff must be a positive integer"),
                          (["eval", "AP(rel=0)"], "AP(rel=0): rel must be an integer from 1 to 1000"),
                          (["compare", "--rel", "0", "-m", "AP"], "rel must be an integer from 1 to 1000")):
        files = [str(tmp_path / "qrels"), str(tmp_path / "r.run")]
        if args[0] == "compare":
            (tmp_path / "s.run").write_text("q1 Q0 d1 1 1.0 x\n")
            files.append(str(tmp_path / "s.run"))
        proc = subprocess.run([sys.executable, "-m", "prefeval", args[0], *files, *args[1:]], env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 1 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    for bad in (ir_measures.AP(rel=-3), ir_measures.nDCG @ 0, "P@0", "RBU(rel=0)@5"):
        with pytest.raises(PrefevalError, match="positive integer|rel must be"):
            evaluate({"q1": {"d1": 1}}, {"r": {"q1": {"d1": 1.0}}}, [bad])
    with pytest.raises(PrefevalError, match="rel must be an integer from 1 to 1000"):
        evaluate({"q1": {"d1": 1}}, {"r": {"q1": {"d1": 1.0}}}, ["AP"], rel=-3)


# ----------------------------------------------------------------------------------------------
# 9. query coverage


def test_runs_covering_few_judged_queries_are_reported(tmp_path, capsys):
    qrels = pd.DataFrame({"query_id": [f"q{i}" for i in range(5)], "doc_id": "a", "relevance": 1})
    partial = {"q0": {"a": 1.0}, "q1": {"a": 1.0}, "zz": {"a": 1.0}}
    with pytest.warns(UserWarning, match="run 'partial' covers 2 of the 5 judged queries; the other 3"):
        evaluate(qrels, {"partial": partial}, ["AP"])
    with pytest.warns(UserWarning, match="run 'partial' covers 2 of the 5 judged queries"):
        prefeval.compare(qrels, {"partial": partial, "full": {f"q{i}": {"a": 1.0} for i in range(5)}}, ["AP"])
    qrels.assign(iteration="0")[["query_id", "iteration", "doc_id", "relevance"]].to_csv(
        tmp_path / "qrels", sep=" ", header=False, index=False)
    (tmp_path / "p.run").write_text("q0 Q0 a 1 1.0 x\n")
    code, _, err = cli(capsys, "eval", str(tmp_path / "qrels"), str(tmp_path / "p.run"), "AP")
    assert code == 0 and "prefeval eval: warning: run" in err and "covers 1 of the 5 judged queries" in err
    from prefeval.pipeline import Evaluate, Pipeline, Qrels, Report, Runs

    with pytest.warns(UserWarning, match="covers 2 of the 5"):
        Pipeline([Qrels(qrels.assign(iteration="0")), Runs({"partial": partial}), Evaluate(["AP"]),
                  Report(tmp_path / "r", formats=["md"])]).run(progress=False)
    assert "run 'partial' covers 2 of the 5 judged queries" in (tmp_path / "r" / "report.md").read_text()


# ----------------------------------------------------------------------------------------------
# 10. trec_eval names and "did you mean" in `prefeval eval`


def test_eval_accepts_trec_eval_names_and_suggests_close_names(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 2\n")
    (tmp_path / "r.run").write_text("q1 Q0 d2 1 2.0 x\nq1 Q0 d1 2 1.0 x\n")
    code, out, _ = cli(capsys, "eval", str(tmp_path / "qrels"), str(tmp_path / "r.run"), "ndcg_cut_10", "P_5 map")
    # printed as given, as trec_eval users write them
    assert code == 0 and [line.split("\t")[0] for line in out.splitlines()] == ["ndcg_cut_10", "P_5", "map"]
    code, _, err = cli(capsys, "eval", str(tmp_path / "qrels"), str(tmp_path / "r.run"), "nDGC@10", "LexiRecal")
    assert code == 1 and "did you mean nDCG" in err and "did you mean LexiRecall" in err
    with pytest.raises(PrefevalError, match="did you mean LexiRecall"):
        prefeval.compare({"q": {"a": 1}}, {"x": {"q": {"a": 1.0}}, "y": {"q": {"a": 1.0}}}, ["LexiRecal"])


def test_direct_ir_measures_call_warns_that_other_providers_read_the_run_as_given():
    run = pd.DataFrame({"query_id": "q1", "doc_id": ["d9", "d1", "d9"], "score": [3.0, 2.0, 1.0]})
    with pytest.warns(UserWarning, match="pytrec_eval: the last occurrence"):
        ir_measures.calc_aggregate([prefeval.TSE, ir_measures.RR], {"q1": {"d1": 1}}, run)
