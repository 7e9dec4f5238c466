"""Pipelines: the demo at small size, retrieve steps, early validation, overrides, reports, DL-Hard end to end."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from prefeval.commands.cli import main
from prefeval.data import simulate
from prefeval.engine.evaluate import evaluate
from prefeval.errors import PrefevalError
from prefeval.pipeline import (
    SCHEMA,
    Aggregate,
    Compare,
    Evaluate,
    Pipeline,
    PipelineDefinitionError,
    Qrels,
    Report,
    Retrieve,
    Runs,
    Simulate,
)
from prefeval.pipeline.loader import apply_overrides

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "pipelines" / "demo.toml"
SMALL = {"n_queries": 30, "n_runs": 4, "n_docs": 60, "depth": 30}
SMALL_SET = [arg for key, value in SMALL.items() for arg in ("--set", f"simulate.{key}={value}")]
REPORT_FILES = {"report.md", "report.html", "report.tex", "summary.json", "per_query.csv", "preferences.csv",
                "means.png"}
SUMMARY_KEYS = {"format", "prefeval_version", "pipeline", "data", "settings", "baseline", "means",
                "versus_baseline", "preferences", "rankings", "disagreements", "kendall_tau", "analysis", "check", "files",
                "timings", "document"}


def run_cli(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------------------------------------------
# the demo


def test_demo_at_small_size_writes_every_report_file(tmp_path, capsys):
    out = tmp_path / "demo"
    code, stdout, stderr = run_cli(capsys, "run", str(DEMO), "--out", str(out), *SMALL_SET, "--progress")
    assert code == 0, stderr
    assert "evaluation" in stderr  # tqdm progress bars go to stderr (forced: stderr is no terminal here)
    names = {p.name for p in out.iterdir()}
    assert REPORT_FILES <= names
    methods = ["LexiRecall", "LexiPrecision", "LexiPrecision_magnitude_rr", "RPP", "RPP_weighting_dcg"]
    assert {f"heatmap_{m}.png" for m in methods} <= names

    import matplotlib.image

    for png in out.glob("*.png"):
        image = matplotlib.image.imread(png)
        assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100

    report = (out / "report.md").read_text(encoding="utf-8")
    assert "**Simulated data.**" in report.splitlines()[2]
    assert "SIMULATED" in (out / "report.tex").read_text(encoding="utf-8")
    assert "SIMULATED" in stdout and str(out) in stdout

    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert set(summary) == SUMMARY_KEYS
    assert summary["data"]["simulated"] is True
    assert set(summary["files"]) == names

    # the means equal an independent evaluation of the same simulated collection
    params = {k: v for k, v in SMALL.items()}
    sim = simulate.collection(**params, seed=42, judged_depth=20, label_noise=0.05)
    assert summary["data"]["simulation"]["quality"] == pytest.approx(sim.quality)
    measures = ["nDCG@10", "AP", "RR", "R@100", "RBU(p=0.8)@20"]
    direct = evaluate(sim.qrels, sim.runs, measures)
    for row in direct.itertuples():
        assert summary["means"][row.measure][row.run] == pytest.approx(row.value, abs=1e-12)

    per_query = pd.read_csv(out / "per_query.csv", dtype={"query_id": str})
    assert list(per_query.columns) == ["run", "query_id", "measure", "value"]
    prefs = pd.read_csv(out / "preferences.csv", dtype={"query_id": str})
    assert list(prefs.columns) == ["method", "query_id", "run_a", "run_b", "value"]
    assert len(prefs) == 5 * 6 * prefs["query_id"].nunique()

    # rankings of every method side by side, Kendall's tau between them, and the true order
    assert "(mc4)" in report and "(borda)" in report and "Kendall" in report
    assert "true quality (simulation)" in summary["kendall_tau"]


def test_check_only_validates(tmp_path, capsys):
    code, stdout, _ = run_cli(capsys, "run", str(DEMO), "--check", "--out", str(tmp_path / "x"), *SMALL_SET)
    assert code == 0 and "valid" in stdout and "sim01" in stdout
    assert not (tmp_path / "x").exists()


# ---------------------------------------------------------------------------------------------------
# retrieve steps

CORPUS = {
    "d1": "apple pie recipe with cinnamon",
    "d2": "apple orchard in autumn",
    "d3": "banana bread recipe",
    "d4": "bread baking for beginners",
    "d5": "cinnamon rolls and apple cider",
}
TOPICS = pd.DataFrame({"query_id": ["1", "2"], "text": ["apple recipe", "bread baking"]})
QRELS = pd.DataFrame({"query_id": ["1", "1", "1", "2", "2"], "doc_id": ["d1", "d2", "d5", "d4", "d3"],
                      "relevance": [2, 1, 0, 2, 1], "iteration": "0"})


def overlap_search(topics: pd.DataFrame, k: int = 10) -> pd.DataFrame:
    """A tiny retriever: score = number of query terms in the document; PyTerrier column names."""
    rows = []
    for qid, text in zip(topics["qid"], topics["query"]):
        terms = set(text.lower().split())
        scored = sorted(((len(terms & set(body.split())), doc) for doc, body in CORPUS.items()), reverse=True)
        rows += [(qid, doc, float(score)) for score, doc in scored[:k] if score > 0]
    return pd.DataFrame(rows, columns=["qid", "docno", "score"])


def test_retrieve_callable_in_python(tmp_path):
    other = {"1": {"d2": 3.0, "d1": 1.0}, "2": {"d3": 2.0}}
    result = Pipeline([
        Qrels(QRELS, topics=TOPICS),
        Runs({"other": other}),
        Retrieve(overlap_search, name="overlap", options={"k": 3}, batch_size=1),
        Evaluate(["nDCG@10", "RR"]),
        Compare(["LexiRecall", "RPP"]),
        Aggregate(baseline="other"),
        Report(tmp_path / "r", formats=["md", "json"]),
    ]).run(progress=False)
    run = result.runs["overlap"]
    expected = overlap_search(TOPICS.assign(qid=TOPICS["query_id"], query=TOPICS["text"]), k=3)
    assert len(run) == len(expected) and set(run["doc_id"]) == set(expected["docno"])
    direct = evaluate(QRELS, {"other": other, "overlap": expected.rename(
        columns={"qid": "query_id", "docno": "doc_id"})}, ["nDCG@10", "RR"])
    for row in direct.itertuples():
        assert result.means_table().loc[row.run, row.measure] == pytest.approx(row.value)
    assert result.comparison.matrix("LexiRecall").shape == (2, 2)
    assert (tmp_path / "r" / "report.md").exists()


def test_query_subset(tmp_path):
    other = {"1": {"d2": 3.0, "d1": 1.0}, "2": {"d3": 2.0}}
    mine = {"1": {"d1": 1.0}, "2": {"d4": 1.0}}
    (tmp_path / "ids.txt").write_text("# the queries to keep\n2 extra-field\n")
    for queries in (["2"], str(tmp_path / "ids.txt")):
        result = Pipeline([Qrels(QRELS, queries=queries), Runs({"other": other, "mine": mine}),
                           Evaluate(["RR"])]).run(progress=False)
        assert set(result.per_query["query_id"]) == {"2"}
        assert result.means_table().loc["mine", "RR"] == 1.0
    with pytest.raises(PrefevalError, match="qrels.queries"):
        Pipeline([Qrels(QRELS, queries=["9"]), Runs({"other": other}), Evaluate(["RR"])]).run(progress=False)


RETRIEVER_MODULE = textwrap.dedent('''
    import pandas as pd

    CORPUS = {"d1": "apple pie recipe", "d2": "apple orchard", "d3": "banana bread recipe", "d4": "bread baking"}

    def search(topics, k=10):
        rows = []
        for qid, text in zip(topics["query_id"], topics["text"]):
            terms = set(text.split())
            for doc, body in CORPUS.items():
                score = len(terms & set(body.split()))
                if score:
                    rows.append((qid, doc, float(score)))
        return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
''')


def test_retrieve_step_from_toml(tmp_path, capsys):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "tiny_retriever.py").write_text(RETRIEVER_MODULE)
    (tmp_path / "qrels.txt").write_text("1 0 d1 2\n1 0 d2 1\n2 0 d4 2\n2 0 d3 0\n")
    (tmp_path / "topics.tsv").write_text("1\tapple recipe\n2\tbread baking\n")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "base.run").write_text("1 Q0 d2 1 2.0 x\n1 Q0 d1 2 1.0 x\n2 Q0 d3 1 1.0 x\n")
    (tmp_path / "p.toml").write_text(textwrap.dedent('''
        [qrels]
        source = "qrels.txt"
        topics = "topics.tsv"
        [runs]
        paths = ["runs"]
        [[retrieve]]
        name = "tiny"
        callable = "tiny_retriever:search"
        path = "lib"
        options = { k = 5 }
        [evaluate]
        measures = ["nDCG@10", "RR"]
        [compare]
        methods = ["LexiPrecision"]
        [aggregate]
        baseline = "base"
        [report]
        formats = ["json", "csv"]
    '''))
    code, stdout, stderr = run_cli(capsys, "run", str(tmp_path / "p.toml"), "--out", str(tmp_path / "out"), "-q")
    assert code == 0, stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["data"]["runs"] == ["base", "tiny"]
    assert summary["data"]["simulated"] is False
    # query 1: tiny ranks d1 (2 terms), then d3 and d2 (1 term each; tie -> doc id descending), so its
    # relevant documents sit at [1, 3]; base has them at [1, 2]: LexiPrecision prefers base (-1).
    # query 2: tiny finds d4 at 1, base misses it: +1. Mean preference 0.
    assert summary["means"]["RR"]["tiny"] == pytest.approx(1.0)
    assert summary["means"]["RR"]["base"] == pytest.approx(0.5)
    assert summary["preferences"]["LexiPrecision"]["matrix"]["tiny"]["base"] == pytest.approx(0.0)
    prefs = pd.read_csv(tmp_path / "out" / "preferences.csv", dtype={"query_id": str}).set_index("query_id")
    assert (prefs.loc["1", "run_a"], prefs.loc["1", "value"]) == ("base", 1.0)
    assert (prefs.loc["2", "run_a"], prefs.loc["2", "value"]) == ("base", -1.0)


# ---------------------------------------------------------------------------------------------------
# validation before any work

SENTINEL_MODULE = textwrap.dedent('''
    import pathlib
    import pandas as pd

    def search(topics, marker):
        pathlib.Path(marker).write_text("called")
        return pd.DataFrame({"query_id": ["1"], "doc_id": ["d1"], "score": [1.0]})
''')

BASE = textwrap.dedent('''
    [qrels]
    source = "qrels.txt"
    topics = "topics.tsv"
    [runs]
    paths = ["runs/*.run"]
    [[retrieve]]
    name = "sentinel"
    callable = "sentinel_mod:search"
    path = "."
    options = { marker = "MARKER" }
    [evaluate]
    measures = ["nDCG@10", "AP"]
    [compare]
    methods = ["LexiRecall"]
    [aggregate]
    baseline = "a"
    [report]
    formats = ["json"]
''')


@pytest.fixture
def base_definition(tmp_path):
    (tmp_path / "sentinel_mod.py").write_text(SENTINEL_MODULE)
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "topics.tsv").write_text("1\tquery one\n")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.run").write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    (tmp_path / "runs" / "b.run").write_text("1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n")
    return tmp_path


def _write(tmp_path: Path, text: str) -> Path:
    marker = tmp_path / "called.txt"
    path = tmp_path / "p.toml"
    path.write_text(text.replace("MARKER", marker.as_posix()))
    return path


def test_base_definition_is_valid_and_calls_the_retriever(base_definition, capsys):
    path = _write(base_definition, BASE)
    code, _, stderr = run_cli(capsys, "run", str(path), "--out", str(base_definition / "out"), "-q")
    assert code == 0, stderr
    assert (base_definition / "called.txt").exists()


MALFORMED = [
    ("unknown step", ("[compare]", "[comparison]"), "comparison", "unknown step"),
    ("unknown key", ('measures = ["nDCG@10", "AP"]', 'measure = ["nDCG@10"]'), "evaluate.measure", "unknown key"),
    ("unknown measure", ('"nDCG@10", "AP"]', '"nDCG@10", "nDCGG@10"]'), "evaluate.measures[1]", "unknown measure"),
    ("unknown method", ('methods = ["LexiRecall"]', 'methods = ["LexiRecal"]'), "compare.methods[0]", "LexiRecal"),
    ("missing run file", ('paths = ["runs/*.run"]', 'paths = ["runs/a.run", "runs/nope.run"]'), "runs.paths[1]",
     "not found"),
    ("bad glob", ('paths = ["runs/*.run"]', 'paths = ["runs/*.trec"]'), "runs.paths[0]", "matches no file"),
    ("unknown baseline", ('baseline = "a"', 'baseline = "c"'), "aggregate.baseline", "no run is named 'c'"),
    ("wrong type", ('formats = ["json"]', 'formats = ["json"]\ndigits = "four"'), "report.digits", "integer"),
    ("bad choice", ('baseline = "a"', 'baseline = "a"\ntest = "z"'), "aggregate.test", "is not one of"),
    ("missing module", ('"sentinel_mod:search"', '"no_such_module:search"'), "retrieve.callable", "cannot import"),
    ("missing qrels", ('source = "qrels.txt"', 'source = "qrels.txt.missing"'), "qrels.source", "neither"),
    ("invalid toml", ("[aggregate]", "[aggregate"), None, "invalid TOML"),
]


@pytest.mark.parametrize("label, change, key, fragment", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_definitions_fail_before_any_work(base_definition, capsys, label, change, key, fragment):
    old, new = change
    assert old in BASE
    path = _write(base_definition, BASE.replace(old, new, 1))
    out = base_definition / "out"
    code, _, stderr = run_cli(capsys, "run", str(path), "--out", str(out), "-q")
    assert code == 1
    assert str(path) in stderr
    if key is not None:
        assert key in stderr
    assert fragment in stderr
    assert not (base_definition / "called.txt").exists()  # the retriever never ran
    assert not out.exists()  # nothing was written


def test_definition_errors_carry_file_and_key(base_definition):
    path = _write(base_definition, BASE.replace('baseline = "a"', 'baseline = "c"'))
    pipeline = Pipeline.from_toml(path)
    with pytest.raises(PipelineDefinitionError) as info:
        pipeline.validate()
    assert info.value.file == str(path) and info.value.key == "aggregate.baseline"


def test_pipeline_without_runs_or_work_is_rejected():
    with pytest.raises(PrefevalError, match="nothing to compute"):
        Pipeline([Simulate(**SMALL)]).validate()
    with pytest.raises(PrefevalError, match="no runs"):
        Pipeline([Simulate(runs=False, **SMALL), Evaluate(["AP"])]).validate()
    with pytest.raises(PrefevalError, match=r"runs\.paths"):
        Pipeline.from_toml(REPO / "pipelines" / "dl-hard-passage.toml").validate()


# ---------------------------------------------------------------------------------------------------
# overrides


def test_overrides(tmp_path):
    (tmp_path / "runs").mkdir()
    data = {"simulate": {"n_queries": 10}, "retrieve": [{"callable": "m:f"}]}
    got = apply_overrides(data, [
        "simulate.n_queries=50", "evaluate=AP", "aggregate.baseline=2019", "runs=runs",
        "retrieve.options.k=5", 'compare.methods=["RPP", "LexiRecall"]', "out=somewhere",
        "qrels=msmarco-passage/trec-dl-hard"], cwd=str(tmp_path))
    assert got["simulate"]["n_queries"] == 50
    assert got["evaluate"]["measures"] == "AP"
    assert got["aggregate"]["baseline"] == "2019"
    assert got["runs"]["paths"] == str(tmp_path / "runs")
    assert got["retrieve"][0]["options"] == {"k": 5}
    assert got["compare"]["methods"] == ["RPP", "LexiRecall"]
    assert got["report"]["out"] == "somewhere"
    assert got["qrels"]["source"] == "msmarco-passage/trec-dl-hard"  # not a file: kept as a dataset id
    assert data["simulate"]["n_queries"] == 10  # the input is not modified
    for bad, key in [("nokey", "nokey"), ("bogus.x=1", "bogus"), ("evaluate.nope=1", "evaluate.nope"),
                     ("aggregate=mc4", "aggregate")]:
        with pytest.raises(PipelineDefinitionError, match=re.escape(key)) as info:
            apply_overrides({}, [bad])
        assert info.value.file == "--set"


# ---------------------------------------------------------------------------------------------------
# aggregation against brute force


def test_baseline_tests_match_scipy_and_statsmodels():
    result = Pipeline([Simulate(n_queries=40, n_runs=5, n_docs=50, depth=20, seed=3), Evaluate(["AP"]),
                       Compare(["LexiRecall"]), Aggregate(baseline="sim02", metric_test="t", test="sign")]
                      ).run(progress=False)
    vs = result.versus_baseline.set_index(["method", "run"])
    others = [r for r in result.runs if r != "sim02"]
    # metric: paired t-test on per-query AP, Holm over the 4 comparisons
    ap = result.per_query[result.per_query["measure"] == "AP"].pivot(index="query_id", columns="run", values="value")
    raw = [sps.ttest_rel(ap[r], ap["sim02"]).pvalue for r in others]
    adjusted = multipletests(raw, method="holm")[1]
    for r, p, a in zip(others, raw, adjusted):
        assert vs.loc[("AP", r), "p_value"] == pytest.approx(p)
        assert vs.loc[("AP", r), "p_adjusted"] == pytest.approx(a)
        assert vs.loc[("AP", r), "wins"] == int((ap[r] > ap["sim02"]).sum())
        assert vs.loc[("AP", r), "value"] == pytest.approx(ap[r].mean())
    # preference: sign test on the per-query LexiRecall of the run over the baseline
    prefs = result.comparison.per_query
    for r in others:
        rows = prefs[((prefs["run_a"] == r) & (prefs["run_b"] == "sim02")) |
                     ((prefs["run_a"] == "sim02") & (prefs["run_b"] == r))]
        values = np.where(rows["run_a"] == r, rows["value"], -rows["value"])
        wins, losses = int((values > 0).sum()), int((values < 0).sum())
        assert vs.loc[("LexiRecall", r), "wins"] == wins
        assert vs.loc[("LexiRecall", r), "p_value"] == pytest.approx(sps.binomtest(wins, wins + losses).pvalue)
    # Kendall's tau between two rankings equals scipy's on their rank positions
    a, b = result.rankings["AP (mean)"], result.rankings["LexiRecall (mc4)"]
    pos_a = a.set_index("run")["rank"].reindex(sorted(result.runs))
    pos_b = b.set_index("run")["rank"].reindex(sorted(result.runs))
    assert result.kendall_tau.loc["AP (mean)", "LexiRecall (mc4)"] == pytest.approx(
        sps.kendalltau(pos_a, pos_b).statistic)


def test_schema_is_documented():
    doc = (REPO / "docs" / "pipelines.md").read_text(encoding="utf-8")
    for step, table in SCHEMA.items():
        assert f"[{step}]" in doc, step
        for key in table.keys:
            assert f"`{step}.{key}`" in doc, f"{step}.{key}"


# ---------------------------------------------------------------------------------------------------
# DL-Hard end to end with a seeded IR_DATASETS_HOME

DL_HARD_WORKER = textwrap.dedent(r'''
    import socket, sys
    from pathlib import Path

    def no_network(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "network cut off by the test")

    socket.getaddrinfo = no_network
    from prefeval.data import datasets
    from prefeval.commands.cli import main

    data, out = Path(sys.argv[1]), sys.argv[2]
    datasets.seed("msmarco-passage/trec-dl-hard", data / "dl-hard" / "dl_hard-passage.qrels")
    sys.exit(main(["run", sys.argv[3], "--set", f"runs={data / 'dl-hard' / 'runs' / 'passage'}",
                   "--set", f"report.formats={sys.argv[4]}", "--out", out, "--quiet"]))
''')  # argv: shared data, output folder, pipeline, report.formats (a TOML list); tests/test_report_html.py too


def _trec_eval_all(path: Path) -> dict[str, float]:
    values = {}
    with gzip.open(path, "rt") as handle:
        for line in handle:
            measure, qid, value = line.split()
            if qid == "all" and measure in ("ndcg_cut_10", "map", "recip_rank"):
                values[measure] = float(value)
    return values


def test_dl_hard_passage_pipeline_matches_trec_eval(shared_data, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("IR_DATASETS")}
    env.update(IR_DATASETS_HOME=str(tmp_path / "home"), PREFEVAL_OFFLINE="1")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", DL_HARD_WORKER, str(shared_data), str(out),
                           str(REPO / "pipelines" / "dl-hard-passage.toml"), '["json", "md"]'],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    runs_dir = shared_data / "dl-hard" / "runs" / "passage"
    runs = sorted(p.name.removesuffix(".run.gz") for p in runs_dir.glob("*.run.gz"))
    assert summary["data"]["runs"] == runs and summary["baseline"] == "bm25"
    names = {"ndcg_cut_10": "nDCG@10", "map": "AP(rel=2)", "recip_rank": "RR(rel=2)"}
    for run in runs:
        reference = _trec_eval_all(runs_dir / f"{run}.run.eval.gz")
        assert set(reference) == set(names)
        for trec_name, ours in names.items():
            # trec_eval prints 4 decimals
            assert summary["means"][ours][run] == pytest.approx(reference[trec_name], abs=5e-5), (run, ours)
    report = (out / "report.md").read_text()
    assert "Simulated data" not in report and "bm25 (baseline)" in report



def test_evaluate_step_gives_free_preferences_every_run():
    """A preference without baseline in `evaluate` is each run's mean preference over all the other runs."""
    result = Pipeline([Simulate(**SMALL), Evaluate(["LexiRecall", "AP"])]).run(progress=False)
    expected = evaluate(result.qrels, result.runs, ["LexiRecall"]).set_index("run")["value"]
    assert result.means_table()["LexiRecall"].to_dict() == pytest.approx(expected.to_dict())
