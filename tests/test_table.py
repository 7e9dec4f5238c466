"""The run x measure table (``prefeval.table``, ``prefeval eval QRELS RUN... -m MEASURE...``): means equal to
``prefeval.evaluate`` and ``prefeval.compare``, p-values equal to an independent t-test / sign test and Holm's
correction, the pairs marked exactly those ``compare`` finds significant, and every format carrying the same."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import subprocess
import sys
import warnings
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest
import scipy.stats as st

import prefeval
from prefeval.commands.cli import main as cli_main
from prefeval.errors import PrefevalError

MEASURES = ["nDCG@10", "AP(rel=2)", "RBU@20", "RPP"]
METRICS = MEASURES[:3]


# ---------------------------------------------------------------------------------------------
# independent statistics


def holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, written from the definition (Holm 1979)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda k: pvalues[k])
    adjusted, running = [0.0] * m, 0.0
    for rank, k in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[k]))
        adjusted[k] = running
    return adjusted


def sign_test(values) -> float:
    """Two-sided exact sign test (ties |x| <= 1e-12 dropped), in integers."""
    wins = sum(1 for v in values if v > 1e-12)
    losses = sum(1 for v in values if v < -1e-12)
    n, low = wins + losses, min(wins, losses)
    if wins == losses:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, k) for k in range(low + 1)) / 2**n)


def cli(*args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(list(args)) == 0
    return out.getvalue()


def csv_records(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


# ---------------------------------------------------------------------------------------------
# DL-Hard passage runs


@pytest.fixture(scope="module")
def dl_hard(request):
    shared = request.getfixturevalue("shared_data")
    folder = shared / "dl-hard"
    runs = sorted(str(p) for p in (folder / "runs" / "passage").glob("*.run.gz"))
    assert len(runs) == 6
    return str(folder / "dl_hard-passage.qrels"), runs


@pytest.fixture(scope="module")
def references(dl_hard):
    qrels, runs = dl_hard
    per_query = prefeval.evaluate(qrels, runs, METRICS, per_query=True)
    means = prefeval.evaluate(qrels, runs, METRICS)
    comparison = prefeval.compare(qrels, runs, MEASURES, per_query=True)
    return per_query, means, comparison


@pytest.mark.integration
def test_baseline_table_equals_evaluate_compare_and_independent_tests(dl_hard, references):
    qrels, runs = dl_hard
    per_query, means, comparison = references
    rows = csv_records(cli("eval", qrels, *runs, "-m", *MEASURES, "--baseline", "bm25", "--format", "csv"))
    names = [prefeval.data.inputs.run_name(r) for r in runs]
    assert [r["run"] for r in rows] == [n for n in names for _ in MEASURES]
    got = {(r["run"], r["measure"]): r for r in rows}
    others = [n for n in names if n != "bm25"]
    for measure in METRICS:
        for name in names:
            expected = means.query("run == @name and given == @measure")["value"].item()
            assert float(got[name, measure]["mean"]) == pytest.approx(expected, abs=1e-12, rel=0)
        rows_of = per_query[per_query["given"] == measure].sort_values("query_id")
        values = {n: rows_of[rows_of["run"] == n]["value"].to_numpy() for n in names}
        raw = [st.ttest_rel(values[n], values["bm25"]).pvalue for n in others]
        for name, p, adjusted in zip(others, raw, holm(raw)):
            assert float(got[name, measure]["p_value"]) == pytest.approx(p, rel=1e-9)
            assert float(got[name, measure]["p_adjusted"]) == pytest.approx(adjusted, rel=1e-9)
            assert got[name, measure]["significant"] == str(adjusted <= 0.05)
            assert got[name, measure]["test"] == "t" and got[name, measure]["correction"] == "holm"
    matrix = comparison.matrix("RPP")
    prefs = comparison.per_query.query("method == 'RPP'")
    raw = []
    for name in others:
        assert float(got[name, "RPP"]["mean"]) == pytest.approx(matrix.loc[name, "bm25"], abs=1e-12, rel=0)
        a_first = prefs.query("run_a == @name and run_b == 'bm25'")["value"].to_numpy()
        b_first = prefs.query("run_a == 'bm25' and run_b == @name")["value"].to_numpy()
        raw.append(sign_test(np.concatenate([a_first, -b_first])))
    for name, p, adjusted in zip(others, raw, holm(raw)):
        assert float(got[name, "RPP"]["p_value"]) == pytest.approx(p, rel=1e-12)
        assert float(got[name, "RPP"]["p_adjusted"]) == pytest.approx(adjusted, rel=1e-12)
        assert got[name, "RPP"]["test"] == "sign"
    assert float(got["bm25", "RPP"]["mean"]) == 0.0 and got["bm25", "RPP"]["p_value"] == ""

    # the Python API gives the same numbers
    frame = prefeval.table(qrels, runs, MEASURES, baseline="bm25").to_frame()
    for row in frame.itertuples():
        record = got[row.run, row.measure]
        assert float(record["mean"]) == row.mean
        if row.run != "bm25":
            assert float(record["p_adjusted"]) == row.p_adjusted and str(row.significant) == record["significant"]


def _expected_better_than(comparison, measure: str) -> dict[str, set[str]]:
    """The pairs compare finds significant, each credited to the run its statistic favours."""
    sig = comparison.significance(measure)
    beaten: dict[str, set[str]] = {run: set() for run in comparison.runs}
    for row in sig.itertuples():
        if row.significant:
            winner, loser = (row.run_a, row.run_b) if row.statistic > 0 else (row.run_b, row.run_a)
            beaten[winner].add(loser)
    return beaten


@pytest.mark.integration
def test_table_without_baseline_marks_exactly_the_pairs_compare_finds_significant(dl_hard, references):
    qrels, runs = dl_hard
    _, means, comparison = references
    rows = csv_records(cli("eval", qrels, *runs, "-m", *MEASURES, "--format", "csv"))
    got = {(r["run"], r["measure"]): r for r in rows}
    marked = 0
    for measure in MEASURES:
        expected = _expected_better_than(comparison, measure)
        for run in comparison.runs:
            better = set(filter(None, got[run, measure]["better_than"].split(";")))
            assert better == expected[run], (run, measure)
            marked += len(better)
    assert marked > 10  # the data has significant differences to mark
    # a preference without baseline: each run's row mean of the preference matrix (what evaluate gives it)
    free = prefeval.evaluate(qrels, runs, ["RPP"])
    for run in comparison.runs:
        matrix = comparison.matrix("RPP")
        assert float(got[run, "RPP"]["mean"]) == pytest.approx(matrix.loc[run].sum() / 5, abs=1e-12, rel=0)
        assert float(got[run, "RPP"]["mean"]) == pytest.approx(free.query("run == @run")["value"].item(), abs=1e-12)
    table = prefeval.table(qrels, runs, MEASURES)
    assert [r["better_than"] for r in json.loads(table.to_text("json"))] == [
        [n for n in comparison.runs if n in set(filter(None, r["better_than"].split(";")))] for r in rows]


@pytest.mark.integration
def test_latex_of_the_table_compiles(dl_hard, tmp_path):
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    qrels, runs = dl_hard
    table = prefeval.table(qrels, runs, MEASURES, baseline="bm25", ci=True)
    free = prefeval.table(qrels, runs, MEASURES)
    body = table.to_latex() + "\n" + free.to_latex()
    document = "\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs}\n" \
               "\\usepackage[margin=1cm]{geometry}\n\\begin{document}\n" + body + "\\end{document}\n"
    (tmp_path / "t.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "t.pdf").stat().st_size > 1000


# ---------------------------------------------------------------------------------------------
# small inputs


QRELS = "q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 d 1\nq2 0 e 2\nq3 0 f 1\nq3 0 g 1\n"
ORDERS = {"good": ["a", "b", "d", "e", "f", "g"], "mid": ["b", "x", "a", "e", "d", "g", "f"],
          "bad_&_ugly": ["x", "y", "c", "b", "a", "z", "g", "e", "f", "d"]}


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "q.qrels").write_text(QRELS)
    paths = []
    for name, order in ORDERS.items():
        lines = [f"{q} Q0 {d} {i} {20 - i} {name}" for q in ("q1", "q2", "q3") for i, d in enumerate(order, 1)]
        (tmp_path / f"{name}.run").write_text("\n".join(lines) + "\n")
        paths.append(str(tmp_path / f"{name}.run"))
    return str(tmp_path / "q.qrels"), paths


def test_table_columns_and_renderings(files):
    qrels, runs = files
    table = prefeval.table(qrels, runs, ["nDCG@10", "map", "ndcg_cut_10", "LexiRecall"], baseline="good", ci=True)
    assert table.measures == ["nDCG@10", "map", "ndcg_cut_10", "LexiRecall"]  # labels as given, each once
    frame = table.to_frame()
    assert list(frame.columns) == ["run", "measure", "mean", "Judged@10", "ci_low", "ci_high", "baseline", "effect_size",
                                   "diff_ci_low", "diff_ci_high", "test", "correction", "p_value", "p_adjusted",
                                   "significant", "family", "family_size"]
    assert len(frame) == 3 * 4
    by = frame.set_index(["run", "measure"])
    assert by.loc[("mid", "nDCG@10"), "mean"] == by.loc[("mid", "ndcg_cut_10"), "mean"]
    evaluated = prefeval.evaluate(qrels, runs, ["nDCG@10", "AP"]).set_index(["run", "measure"])["value"]
    assert by.loc[("bad_&_ugly", "map"), "mean"] == pytest.approx(evaluated["bad_&_ugly", "AP"], abs=1e-12)
    assert by.loc[("good", "LexiRecall"), "mean"] == 0.0
    assert by.loc[("mid", "nDCG@10"), "ci_low"] < by.loc[("mid", "nDCG@10"), "mean"] < by.loc[("mid", "nDCG@10"),
                                                                                             "ci_high"]
    text = table.to_string()
    assert "bad_&_ugly" in text and "\\_" not in text and "±" in text
    md = table.to_markdown()
    assert "bad\\_&amp;\\_ugly" in md and "**" in md
    tex = table.to_latex()
    assert "\\toprule" in tex and "bad\\_\\&\\_ugly" in tex and "\\textbf{" in tex
    html = table._repr_html_()
    assert html.startswith('<div class="prefeval-table"><div class="tw"><table') and "<caption>" in html and "bad_&amp;_ugly" in html and "<b>" in html
    assert table.per_query["value"].notna().all() and len(table.per_query) == 3 * 3 * 4
    assert repr(table) == text


def test_best_value_is_emphasised_and_letters_name_the_runs_beaten(files):
    qrels, runs = files
    table = prefeval.table(qrels, runs, ["nDCG@10"], correction="none", alpha=0.5)
    grid = table.grid()
    assert grid.header == ["", "run", "nDCG@10"]
    cells = {row[1].text: row[2] for row in grid.rows}
    best = max(table.value(r, "nDCG@10") for r in table.runs)
    assert [run for run, cell in cells.items() if cell.best] == [r for r in table.runs
                                                                 if table.value(r, "nDCG@10") == best]
    letters = dict(zip(table.runs, table.letters))
    for record in table.to_frame().itertuples():
        assert cells[record.run].letters == "".join(letters[b] for b in record.better_than)


def test_one_run_is_a_table_of_means(files):
    qrels, runs = files
    table = prefeval.table(qrels, runs[:1], ["P@2", "RR"])
    assert list(table.to_frame().columns) == ["run", "measure", "mean", "Judged@2"]  # k: the deepest cutoff
    with pytest.raises(PrefevalError, match="at least two runs"):
        prefeval.table(qrels, runs[:1], ["RPP"])


def test_errors_name_the_problem(files):
    qrels, runs = files
    with pytest.raises(PrefevalError, match="baseline 'nope' is not one of the runs"):
        prefeval.table(qrels, runs, ["P@2"], baseline="nope")
    with pytest.raises(PrefevalError, match="known but|knows but"):
        prefeval.table(qrels, runs, ["gm_map"])


def test_eval_table_form_and_options_in_any_order(files):
    qrels, runs = files
    expected = cli("eval", qrels, *runs, "-m", "P@2", "RR", "--format", "csv")
    assert cli("eval", "-m", "P@2", "RR", qrels, *runs, "--format", "csv") == expected
    assert cli("eval", "--format", "csv", qrels, runs[0], "-m", "P@2", "RR", *runs[1:]) == expected
    # several runs without -m: the files are runs, the rest measures
    assert cli("eval", qrels, *runs, "P@2", "RR", "--format", "csv") == expected
    named = cli("eval", qrels, *[f"R{k}={p}" for k, p in enumerate(runs)], "-m", "P@2", "--format", "jsonl")
    assert [json.loads(line)["run"] for line in named.splitlines()] == ["R0", "R1", "R2"]
    doc = json.loads(cli("eval", qrels, *runs, "-m", "P@2", "--format", "json"))
    assert isinstance(doc, list) and len(doc) == 3


def test_eval_table_rejects_options_of_the_single_run_form(files, capsys):
    qrels, runs = files
    assert cli_main(["eval", qrels, *runs, "-m", "P@2", "-q"]) == 1
    assert "-q/--by_query applies to the form QRELS RUN MEASURE" in capsys.readouterr().err


def test_eval_by_query_is_grouped_by_query_and_labels_are_as_given(files):
    qrels, runs = files
    out = cli("eval", qrels, runs[1], "map", "ndcg_cut_10", "nDCG@10", "TSE", "-q")
    lines = [line.split("\t") for line in out.splitlines()]
    queries = [q for q, _, _ in lines if q != "all"]
    assert queries == sorted(queries, key=queries.index) and len(queries) == 3 * 4
    blocks = [queries[k:k + 4] for k in range(0, 12, 4)]
    assert all(len(set(block)) == 1 for block in blocks)  # each query's lines together
    assert [m for q, m, _ in lines if q == "all"] == ["map", "ndcg_cut_10", "nDCG@10", "TSE"]
    values = {(q, m): v for q, m, v in lines}
    assert all(values[q, "ndcg_cut_10"] == values[q, "nDCG@10"] for q in ("q1", "q2", "q3", "all"))


def test_compare_baseline_keeps_only_the_pairs_with_it(files):
    qrels, runs = files
    full = prefeval.compare(qrels, runs, ["LexiRecall", "nDCG@10"])
    versus = prefeval.compare(qrels, runs, ["LexiRecall", "nDCG@10"], baseline="good")
    assert versus.pairs == [("mid", "good"), ("bad_&_ugly", "good")]
    summary = versus.summary()
    matrix = full.matrix("LexiRecall")
    for row in summary.query("method == 'LexiRecall'").itertuples():
        assert row.mean == pytest.approx(matrix.loc[row.run_a, row.run_b], abs=1e-15)
    sig = versus.significance("nDCG@10", correction="bonferroni")
    raw = sig["p_value"].to_numpy()
    assert sig["p_adjusted"].tolist() == pytest.approx(np.minimum(1, raw * 2).tolist())  # family: the 2 pairs
    rows = csv_records(cli("compare", qrels, *runs, "-m", "LexiRecall", "--baseline", "good", "--format", "csv"))
    assert [(r["run_a"], r["run_b"]) for r in rows] == versus.pairs
    per_query = csv_records(cli("compare", qrels, *runs, "-m", "LexiRecall", "--baseline", "good", "--per-query",
                                "--format", "csv"))
    assert {(r["run_a"], r["run_b"]) for r in per_query} == set(versus.pairs) and len(per_query) == 2 * 3
    expected = versus.per_query.query("method == 'LexiRecall'")
    assert [float(r["value"]) for r in per_query] == expected["value"].tolist()
    header, report = versus.report_rows()
    assert isinstance(report, list) and all(isinstance(row, list) for row in report) and len(report) == 4


def test_compare_options_before_the_positionals_and_plain_default(files):
    qrels, runs = files
    expected = cli("compare", qrels, *runs, "-m", "RPP", "LexiRecall")
    assert cli("compare", "-m", "RPP", "LexiRecall", qrels, *runs) == expected
    assert expected.startswith("run_a") and "\\_" not in expected and "|" not in expected.splitlines()[0]


def test_comparison_repr_and_html(files):
    qrels, runs = files
    c = prefeval.compare(qrels, runs, ["RPP"])
    text = repr(c)
    assert text.startswith("Comparison of 3 runs on 3 queries by 1 method(s)") and "good, mid, bad_&_ugly" in text
    html = c._repr_html_()
    assert html.startswith('<div class="prefeval-table"><div class="tw"><table') and "<caption>" in html and "bad_&amp;_ugly" in html


@pytest.mark.integration  # a fresh Python process whose stderr is a file
def test_no_progress_bar_in_a_file(files, tmp_path):
    qrels, runs = files
    env_code = "import sys; from prefeval.commands.cli import main; sys.exit(main(sys.argv[1:]))"
    src = str(Path(prefeval.__file__).resolve().parent.parent)
    for args in (["compare", qrels, *runs, "-m", "RPP"], ["eval", qrels, *runs, "-m", "RPP", "P@2"]):
        err = tmp_path / "err.txt"
        with open(err, "w") as handle:
            subprocess.run([sys.executable, "-c", env_code, *args], stderr=handle, stdout=subprocess.DEVNULL,
                           check=True, env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"})
        assert b"\r" not in err.read_bytes() and b"it/s" not in err.read_bytes()
        with open(err, "w") as handle:  # --progress forces them
            subprocess.run([sys.executable, "-c", env_code, *args, "--progress"], stderr=handle,
                           stdout=subprocess.DEVNULL, check=True, env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"})
        assert b"\r" in err.read_bytes()
    small = [arg for key, value in {"n_queries": 20, "n_runs": 3, "n_docs": 40, "depth": 20}.items()
             for arg in ("--set", f"simulate.{key}={value}")]
    err = tmp_path / "err.txt"
    with open(err, "w") as handle:  # a whole pipeline: its bars (loading, evaluation, ...) stay off too
        subprocess.run([sys.executable, "-c", env_code, "run", "demo", "--out", str(tmp_path / "demo"), *small],
                       stderr=handle, stdout=subprocess.DEVNULL, check=True,
                       env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"})
    assert b"\r" not in err.read_bytes() and b"it/s" not in err.read_bytes()


def test_renderers_keep_every_text_inert():
    from prefeval.report.html import grid_table
    from prefeval.report.tables import Cell, Grid, latex, markdown, plain, row_text

    name = "a|b\n<i>*x*_&%$#{}~^\\"
    grid = Grid(["run", "m"], [[Cell(name), Cell("0.5", "up", best=True, number=True)]], caption=name, note=name)
    text = plain(grid)
    assert len(text.split("\n\n")[1].splitlines()) == 3  # header, rule, one row: the line break became a space
    md = markdown(grid)
    assert "<i>" not in md and "\\|" in md and "**0.5**▲" in md
    html = grid_table(grid)
    assert "<i>" not in html and "&lt;i&gt;" in html and "<b>0.5</b>▲" in html
    tex = latex(grid)
    assert "\\textbackslash{}" in tex and "\\&" in tex and "\\textbf{0.5}$^\\uparrow$" in tex
    assert row_text(["run", "runs"], [[name, ["x", "y"]]], "jsonl") == (
        '{"run": "a|b\\n<i>*x*_&%$#{}~^\\\\", "runs": ["x", "y"]}\n')
    assert row_text(["run", "runs"], [["a", ["x", "y"]], ["b", float("nan")]], "csv") == "run,runs\na,x;y\nb,\n"


def test_eval_rel_option_in_both_forms(files):
    qrels, runs = files
    out = cli("eval", qrels, runs[1], "AP", "P@2", "-l", "2", "-p", "17")
    expected = prefeval.evaluate(qrels, runs[1:2], ["AP", "P@2"], rel=2)
    # every measure printed as written, also one rel changes (as trec_eval -l 2 prints map)
    assert [line.split("\t")[0] for line in out.splitlines()] == ["AP", "P@2"]
    assert [float(line.split("\t")[1]) for line in out.splitlines()] == pytest.approx(
        expected["value"].tolist(), abs=1e-15)
    rows = csv_records(cli("eval", qrels, *runs, "-m", "AP", "-l", "2", "--format", "csv"))
    by_run = prefeval.evaluate(qrels, runs, ["AP"], rel=2).set_index("run")["value"]
    assert [float(r["mean"]) for r in rows] == pytest.approx(by_run.tolist(), abs=1e-12)


# ---------------------------------------------------------------------------------------------
# trec_eval's counts: summed over the judged queries (trec_eval -c), neither tested nor marked best

COUNT_QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1, "d5": 2, "d6": 2}, "q3": {"d7": 2, "d8": 0}}
COUNT_RUNS = {
    "a": {"q1": {"d1": 3.0, "d2": 2.0, "x": 1.0}, "q2": {"d4": 1.0, "d5": 0.5}},  # lacks judged query q3
    "b": {"q1": {"d3": 1.0}, "q2": {"d6": 2.0, "d5": 1.0, "y": 0.5}, "q3": {"d7": 1.0, "d8": 0.5}},
}


def _counts_by_definition(run: dict, rel: int) -> dict[str, int]:
    """num_q, num_ret, num_rel, num_rel_ret of ``trec_eval -c -l rel``, counted from their definitions."""
    return {"num_q": len(COUNT_QRELS),
            "num_ret": sum(len(docs) for q, docs in run.items() if q in COUNT_QRELS),
            "num_rel": sum(g >= rel for docs in COUNT_QRELS.values() for g in docs.values()),
            "num_rel_ret": sum(COUNT_QRELS[q].get(d, 0) >= rel for q, docs in run.items() if q in COUNT_QRELS
                               for d in docs)}


@pytest.mark.parametrize("rel", [None, 1, 2])
def test_table_sums_trec_eval_counts_at_every_rel(rel):
    counts = ["num_q", "num_ret", "num_rel", "num_rel_ret"]
    with pytest.warns(UserWarning, match="covers 2 of the 3"):
        t = prefeval.table(COUNT_QRELS, COUNT_RUNS, [*counts, "P@2"], rel=rel)
    frame = t.to_frame()
    for name, run in COUNT_RUNS.items():
        expected = _counts_by_definition(run, rel or 1)
        got = {m: t.value(name, m) for m in counts}
        assert got == expected
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the coverage warning, checked above
            evaluated = prefeval.evaluate(COUNT_QRELS, {name: run}, counts, rel=rel)
        assert dict(zip(evaluated["given"], evaluated["value"])) == expected
    rows = frame[frame["measure"].isin(counts)]
    assert rows["test"].isna().all() and rows["better_than"].map(len).eq(0).all()
    assert t.tests["num_q"] is None and t.tests["P@2"] == ("t", "holm")
    grid = t.grid()
    columns = grid.header.index("num_ret"), grid.header.index("P@2")
    best = [[row[k].best for row in grid.rows] for k in columns]
    assert best[0] == [False, False] and any(best[1])
    assert "num_q, num_ret, num_rel, num_rel_ret: sums over the queries" in t.note()
