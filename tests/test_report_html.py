"""report.html and the report's sentences: one self-contained page (no network resource), its numbers equal to
the CSV files, rendered again identically by `prefeval report`, opened in headless Chromium; every count stated
in summary.json, report.md, report.html and report.tex checked against the per-query data (a small collection
at rel=2 here, DL-Hard passage at rel=2 with the shared data)."""

from __future__ import annotations

import html as html_lib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from browser import Browser, chromium, png_colours
from conftest import write_trec_files
from prefeval.commands.cli import main
from prefeval.errors import PrefevalError
from prefeval.pipeline import Aggregate, Analyse, Compare, Evaluate, Pipeline, Qrels, Report, Runs
from prefeval.pipeline.output import MANIFEST, FolderLock, OutputFolder
from prefeval.report.html import frame_table
from prefeval.report.text import latex_inline, md_inline, plural
from test_pipeline import DL_HARD_WORKER

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "pipelines" / "demo.toml"

# q3 is judged but has no document of grade >= 2
QRELS = ("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d4 2\nq2 0 d5 0\nq2 0 d2 1\nq3 0 d6 1\nq3 0 d7 0\n"
         "q4 0 d8 3\nq4 0 d1 0\n")
ORDERS = {"base": "d1 d4 d6 d2 d8", "good": "d8 d1 d4 d2 d6", "bad": "d7 d3 d5 d2 d1", "mid": "d2 d8 d1 d4 d7"}


def _strip_tags(text: str) -> str:
    """The text of an HTML page (scripts and styles dropped)."""
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S)
    text = re.sub(r"</t[dh]>", " | ", text)  # cells stay apart
    return html_lib.unescape(re.sub(r"<[^>]+>", "", text))


def _tex_text(text: str) -> str:
    """report.tex's text with the report's marks read back (for comparing sentences)."""
    for mark, plain in ((r"$\geq$", "≥"), (r"\textless{}", "<"), (r"\textgreater{}", ">"), (r"\_", "_"),
                        (r"$\alpha$", "α"), (r"\textbar{}", "|"), ("--", "–")):
        text = text.replace(mark, plain)
    return re.sub(r"\\texttt\{([^}]*)\}", r"\1", text)


@pytest.fixture(scope="module")
def small_output(tmp_path_factory) -> Path:
    """A pipeline at rel=2 over 4 judged queries (3 with a grade-2 document), 4 runs, every format."""
    folder = tmp_path_factory.mktemp("small")
    qrels, runs = write_trec_files(folder, QRELS, ORDERS, ("q1", "q2", "q3", "q4"))
    out = folder / "out"
    Pipeline([Qrels(qrels, rel=2), Runs(runs), Evaluate(["AP", "nDCG@10", "RR"]), Compare(["LexiRecall", "RPP"]),
              Aggregate(baseline="base"), Analyse(["ties", "agreement"]), Report(out)], name="small").run(progress=False)
    return out


def _qrels_counts(path: Path, rel: int) -> tuple[int, int]:
    frame = pd.read_csv(path, sep=r"\s+", header=None, names=["q", "it", "doc", "grade"], dtype={"q": str})
    return frame["q"].nunique(), frame.loc[frame["grade"] >= rel, "q"].nunique()


def check_every_count(out: Path, qrels: Path, rel: int, baseline: str) -> dict[str, int]:
    """Every count the outputs state, against the data: the query counts (qrels, per_query.csv, preferences.csv),
    the overview sentence in report.md/.html/.tex, and every wins/ties/losses cell against the per-query values."""
    judged, relevant = _qrels_counts(qrels, rel)
    per_query = pd.read_csv(out / "per_query.csv", dtype={"run": str, "query_id": str, "measure": str})
    prefs = pd.read_csv(out / "preferences.csv", dtype={"method": str, "query_id": str, "run_a": str, "run_b": str})
    by_measure = per_query.groupby("measure")["query_id"].nunique().to_dict()
    by_method = prefs.groupby("method")["query_id"].nunique().to_dict()
    summary = json.loads((out / "summary.json").read_text())
    counts = summary["data"]["query_counts"]
    assert counts["judged"] == judged == summary["data"]["queries"]
    assert counts["with_relevant"] == relevant
    assert counts["measures"] == by_measure and counts["methods"] == by_method
    everything = {**by_measure, **by_method}
    assert set(everything.values()) == {judged}  # every figure is over all judged queries (README: input semantics)
    missing = judged - relevant
    sentence = (f"{judged} judged, {relevant} of them with a relevant document (grade ≥ {rel}); every mean and every "
                f"wins/ties/losses count is over all {judged} judged queries"
                + (f" (the {plural(missing, 'query', 'queries')} without a relevant document included)" if missing
                   else ""))
    md = (out / "report.md").read_text()
    page = _strip_tags((out / "report.html").read_text())
    tex = _tex_text((out / "report.tex").read_text())
    for name, text in (("report.md", md), ("report.html", page), ("report.tex", tex)):
        assert sentence in text, name
        assert f"Mean of each measure over all {judged} judged queries." in text, name
        assert f"over all {judged} judged queries (positive: the run is preferred" in text, name
        assert "over which preferences are computed" not in text and "queries with a relevant document)" not in text
    # every wins/ties/losses cell, in every format, against the per-query values
    expected: dict[tuple[str, str], tuple[int, int, int]] = {}
    metric = per_query.pivot_table(index="query_id", columns=["measure", "run"], values="value")
    for measure in by_measure:
        for run in metric[measure].columns:
            if run != baseline:
                d = (metric[measure][run] - metric[measure][baseline]).to_numpy()
                expected[(measure, run)] = (int((d > 1e-12).sum()), int((np.abs(d) <= 1e-12).sum()),
                                            int((d < -1e-12).sum()))
    for method, part in prefs.groupby("method"):
        for run in set(part["run_a"]) | set(part["run_b"]):
            if run == baseline:
                continue
            ab = part[(part["run_a"] == run) & (part["run_b"] == baseline)]["value"].to_numpy()
            ba = -part[(part["run_a"] == baseline) & (part["run_b"] == run)]["value"].to_numpy()
            v = np.concatenate([ab, ba])
            expected[(method, run)] = (int((v > 1e-12).sum()), int((np.abs(v) <= 1e-12).sum()),
                                       int((v < -1e-12).sum()))
    versus = pd.read_csv(out / "versus_baseline.csv", dtype={"method": str, "run": str})
    for row in versus.itertuples():
        assert (row.wins, row.ties, row.losses) == expected[(row.method, row.run)], (row.method, row.run)
        assert row.queries == judged
    cells = {}
    for table in re.findall(r"\*Table \d+: Wins/ties/losses[^*]*\*\n\n(.*?)(?:\n\n|\Z)", md, flags=re.S):
        lines = table.splitlines()
        header = [h.strip().replace("\\", "") for h in lines[0].strip("|").split("|")]
        for line in lines[2:]:
            row = [c.strip().replace("\\", "") for c in line.strip("|").split("|")]
            for name, cell in zip(header[1:], row[1:]):
                cells[(name, row[0])] = tuple(int(x) for x in re.match(r"(\d+)/(\d+)/(\d+)", cell).groups())
    assert cells == expected
    found = {name: sorted(tuple(map(int, m)) for m in re.findall(r"(\d+)/(\d+)/(\d+) \(p", text))
             for name, text in (("md", md), ("html", page), ("tex", tex))}
    assert found["md"] == found["html"] == found["tex"] == sorted(expected.values())
    # runs, comparisons with the baseline, pairs, significant pairs and ties, against the data
    runs = sorted(set(per_query["run"]) | set(prefs["run_a"]) | set(prefs["run_b"]))
    assert sorted(summary["data"]["runs"]) == runs
    pairs = len(runs) * (len(runs) - 1) // 2
    pair_summary = pd.read_csv(out / "preference_summary.csv", dtype={"method": str, "run_a": str, "run_b": str})
    stated = []
    for method, part in pair_summary.groupby("method", sort=False):
        assert len(part) == pairs
        values = prefs[prefs["method"] == method]
        ties = int((values["value"].abs() <= 1e-12).sum())
        assert int(part["ties"].sum()) == ties and int(part["queries"].sum()) == len(values)
        significant = int(part["significant"].sum())
        entry = summary["preferences"][method]
        assert (entry["significant_pairs"], entry["pairs"]) == (significant, pairs)
        assert entry["ties"] == pytest.approx(ties / len(values))
        stated.append((significant, pairs, f"{ties / len(values):.3f}"))
    for name, text in (("report.md", md), ("report.html", page), ("report.tex", tex)):
        assert f"runs | {len(runs)}: " in text.replace("\n", " ") or f"runs {len(runs)}: " in text or \
            f"runs & {len(runs)}: " in text, name
        assert f"over the {plural(len(runs) - 1, 'comparison')} with the baseline" in text, name
        assert f"over all {plural(pairs, 'pair')}," in text, name
        rows = re.findall(r"(\d+) of (\d+) (?:\||&) (\d\.\d{3})", text)
        assert sorted((int(a), int(b), t) for a, b, t in rows) == sorted(stated), name
    return {"judged": judged, "relevant": relevant}


def test_every_count_stated_matches_the_data(small_output):
    assert check_every_count(small_output, small_output.parent / "q.qrels", 2, "base") == {"judged": 4, "relevant": 3}


def test_report_html_is_self_contained(small_output):
    text = (small_output / "report.html").read_text()
    # the only http URL is the SVG namespace name the script passes to createElementNS
    assert set(re.findall(r"https?://[^\s\"'<>)]*", text)) <= {"http://www.w3.org/2000/svg"}
    targets = re.findall(r"""\b(?:src|href|action|poster|srcset)\s*=\s*["']([^"']*)["']""", text, flags=re.I)
    assert targets and all(t.startswith(("data:", "#")) for t in targets), targets
    assert "@import" not in text and "url(" not in text
    assert "<table" in text and text.count("<caption>") == text.count("<table")
    assert "SIMULATED" not in text  # real (non-simulated) data: no banner


def test_same_sections_and_tables_in_every_format(small_output):
    md = (small_output / "report.md").read_text()
    page = (small_output / "report.html").read_text()
    tex = (small_output / "report.tex").read_text()
    md_heads = re.findall(r"^#{2,3} (.+)$", md, flags=re.M)
    html_heads = [html_lib.unescape(h) for h in re.findall(r"<h[23] id=\"[^\"]+\">(.*?)</h[23]>", page)]
    views = ("Per-query view", "Disagreement view")  # the page's interactive views
    assert not set(views) & set(md_heads) and set(views) <= set(html_heads)
    assert [h.replace("\\", "") for h in md_heads] == [h for h in html_heads if h not in views]
    md_captions = re.findall(r"^\*(Table \d+: .+)\*$", md, flags=re.M)
    html_captions = [html_lib.unescape(c) for c in re.findall(r"<caption>(.*?)</caption>", page)]
    assert [c.replace("\\", "") for c in md_captions] == html_captions
    rules = [line for line in md.splitlines() if re.fullmatch(r"\|(---:?\|)+", line)]
    assert len(md_captions) == len(rules) == page.count("<table")
    assert tex.count(r"\caption{") >= len(md_captions) and "`" not in tex
    assert "&lt;" not in md and "1 comparisons" not in md + tex and "1 pairs" not in md + tex


def test_each_analysis_table_has_a_sentence_on_its_columns(small_output):
    md = (small_output / "report.md").read_text()
    analyses = md[md.index("## Analyses"):]
    tables = re.findall(r"\*Table \d+: [^*]+\*\n\n(\|.*?)\n\n(.*?)(?:\n\n|\Z)", analyses, flags=re.S)
    assert len(tables) == 4  # ties; sign agreement, system agreement, Kendall's tau
    for table, sentence in tables:
        header = [h.strip().replace("\\", "") for h in table.splitlines()[0].strip("|").split("|")]
        assert sentence.startswith("Columns. ")
        for column in header:
            assert f"{md_inline(column)}:" in sentence or md_inline(column) in sentence, (column, sentence)


def test_numbers_in_report_html_equal_the_csv_files(small_output):
    check_numbers(small_output, runs=4, methods=2)


def check_numbers(out: Path, runs: int, methods: int) -> None:
    """The means table, every heatmap cell and the per-query view's data of report.html against means.csv,
    preference_summary.csv, preferences.csv and per_query.csv."""
    page = (out / "report.html").read_text()
    means = pd.read_csv(out / "means.csv", dtype={"run": str, "measure": str})
    prefs = pd.read_csv(out / "preferences.csv", dtype={"method": str, "query_id": str, "run_a": str, "run_b": str})
    summary = pd.read_csv(out / "preference_summary.csv", dtype={"method": str, "run_a": str, "run_b": str})
    # the means table: each cell is the CSV value with 4 decimals (Judged@k, from summary.json's check, beside them)
    table = re.search(r"<caption>Table \d+: Mean effectiveness per run</caption>(.*?)</table>", page,
                      flags=re.S).group(1)
    check = json.loads((out / "summary.json").read_text())["check"]
    header = [_strip_tags(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
    for row in re.findall(r"<tr>(.*?)</tr>", table.split("</thead>")[1]):
        cells = [_strip_tags(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        run = cells[0].removesuffix(" (baseline)")
        for measure, cell in zip(header[1:], cells[1:]):
            if measure == "true quality":  # simulated data: the simulation's, not a mean
                continue
            if measure.startswith("Judged@"):
                judged = {r["name"]: r["judged_at"][measure.removeprefix("Judged@")] for r in check["runs"]}
                assert cell == f"{judged[run]:.3f}", (run, measure)
                continue
            value = means[(means["run"] == run) & (means["measure"] == measure)]["value"].item()
            assert cell.split()[0] == f"{value:.4f}", (run, measure)
    # the heatmaps: every cell's mean and wins/ties/losses, from preference_summary.csv and preferences.csv
    cells = re.findall(r'<svg class="heatmap".*?data-method="([^"]+)"|<rect [^>]*data-a="([^"]+)" data-b="([^"]+)" '
                       r'data-mean="([^"]+)" data-wins="(\d+)" data-ties="(\d+)" data-losses="(\d+)" data-p="([^"]+)"',
                       page)
    method, checked = None, 0
    for m, a, b, mean, wins, ties, losses, p in cells:
        if m:
            method = html_lib.unescape(m)
            continue
        a, b = html_lib.unescape(a), html_lib.unescape(b)
        row = summary[(summary["method"] == method) & (summary["run_a"] == a) & (summary["run_b"] == b)]
        sign = 1
        if row.empty:
            row, sign = summary[(summary["method"] == method) & (summary["run_a"] == b) & (summary["run_b"] == a)], -1
        values = prefs[(prefs["method"] == method) & (prefs["run_a"] == (a if sign == 1 else b))
                       & (prefs["run_b"] == (b if sign == 1 else a))]["value"].to_numpy() * sign
        assert float(mean) == pytest.approx(sign * row["mean"].item(), abs=1e-15)
        assert float(mean) == pytest.approx(values.mean(), abs=1e-12)
        assert (int(wins), int(ties), int(losses)) == (int((values > 1e-12).sum()), int((np.abs(values) <= 1e-12).sum()),
                                                       int((values < -1e-12).sum()))
        assert float(p) == pytest.approx(row["p_adjusted"].item(), rel=1e-15)
        checked += 1
    assert checked == methods * runs * (runs - 1)  # every ordered pair of every method
    # the per-query view's data: every preference of preferences.csv, to 6 significant digits
    data = json.loads(re.search(r'<script type="application/json" id="pq-data">(.*?)</script>', page,
                                flags=re.S).group(1))
    position = {q: k for k, q in enumerate(data["queries"])}
    index = {r: k for k, r in enumerate(data["runs"])}
    shown = [data["prefs"][m][f"{index[a]},{index[b]}"][position[q]]
             for m, a, b, q in zip(prefs["method"], prefs["run_a"], prefs["run_b"], prefs["query_id"])]
    assert np.allclose(np.array(shown, dtype=float), prefs["value"].to_numpy(), rtol=1e-5, atol=1e-12)
    per_query = pd.read_csv(out / "per_query.csv", dtype={"run": str, "query_id": str, "measure": str})
    shown = [data["metrics"][m][index[r]][position[q]]
             for m, r, q in zip(per_query["measure"], per_query["run"], per_query["query_id"])]
    assert np.allclose(np.array(shown, dtype=float), per_query["value"].to_numpy(), rtol=1e-5, atol=1e-12)


def test_prefeval_report_renders_the_page_again_identically(small_output, tmp_path, capsys):
    first = (small_output / "report.html").read_bytes()
    copy = tmp_path / "moved"
    copy.mkdir()
    for path in small_output.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    (copy / "report.html").unlink()
    assert main(["report", str(copy)]) == 0
    assert (copy / "report.html").read_bytes() == first
    manifest = json.loads((copy / MANIFEST).read_text())
    entry = next(f for f in manifest["files"] if f["name"] == "report.html")
    assert entry["bytes"] == len(first)
    assert main(["report", str(copy), "-o", str(tmp_path / "elsewhere.html")]) == 0
    assert (tmp_path / "elsewhere.html").read_bytes() == first
    capsys.readouterr()
    (copy / "summary.json").unlink()
    assert main(["report", str(copy)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("prefeval report: error: ") and "summary.json" in err and "\n" not in err
    assert main(["report", str(tmp_path / "absent")]) == 1
    assert "no such folder" in capsys.readouterr().err


def test_prefeval_report_takes_the_folders_lock_like_prefeval_run(small_output, tmp_path, capsys):
    """A folder a run is writing (its lock held) is refused at once, with one line naming the folder; the page is
    left as it was; once the run is done the report renders; while the report holds the lock, a run is refused."""
    copy = tmp_path / "out"
    copy.mkdir()
    for path in small_output.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    before = (copy / "report.html").read_bytes()
    capsys.readouterr()
    with OutputFolder(copy) as held:  # what `prefeval run --out out` holds while it works
        assert held.staging is not None
        for args in (["report", str(copy)], ["report", str(copy), "-o", str(tmp_path / "page.html")]):
            assert main(args) == 1
            err = capsys.readouterr().err
            assert err.startswith("prefeval report: error: ") and err.count("\n") == 1, err
            assert f"is writing {str(copy)!r}" in err and f"process {os.getpid()}" in err
        assert (copy / "report.html").read_bytes() == before and not (tmp_path / "page.html").exists()
    assert not (tmp_path / ".out.prefeval-lock").exists()
    assert main(["report", str(copy)]) == 0
    assert not (tmp_path / ".out.prefeval-lock").exists()
    with FolderLock(copy):  # the report's hold: a run into the folder is refused before any work
        with pytest.raises(PrefevalError, match="another prefeval run .* is writing"):
            OutputFolder(copy).__enter__()


def test_prefeval_report_refuses_a_folder_another_process_is_writing(small_output, tmp_path):
    """The lock across processes: a process holding the folder as `prefeval run` does (OutputFolder) makes
    `prefeval report` (a fresh process) fail at once with one line naming the folder and that process."""
    copy = tmp_path / "out"
    shutil.copytree(small_output, copy)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from prefeval.pipeline.output import OutputFolder\n"
         "with OutputFolder(sys.argv[1]):\n    print('held', flush=True); sys.stdin.read()", str(copy)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout.readline().strip() == "held"
        done = subprocess.run([sys.executable, "-m", "prefeval", "report", str(copy)], capture_output=True,
                              text=True, env=env, timeout=120)
    finally:
        holder.communicate("", timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("prefeval report: error: ")
    assert f"is writing {str(copy)!r}" in done.stderr and f"process {holder.pid}" in done.stderr
    assert not (tmp_path / ".out.prefeval-lock").exists()


def test_docs_name_every_summary_key_and_report_format(small_output):
    """docs/pipelines.md's summary.json paragraph names every key a run writes (top level, ``data`` and
    ``data.query_counts``), and its ``report.formats`` row every format the Report step accepts."""
    from prefeval.pipeline.report import FORMATS

    page = (REPO / "docs" / "pipelines.md").read_text(encoding="utf-8")
    paragraph = " ".join(page.split("`summary.json` keys", 1)[1].split("\n\n", 1)[0].split())
    summary = json.loads((small_output / "summary.json").read_text())
    keys = [*summary, *summary["data"], *summary["data"]["query_counts"]]
    assert not [k for k in keys if f"`{k}`" not in paragraph]
    row = next(line for line in page.splitlines() if line.startswith("| `report.formats`"))
    assert sorted(re.findall(r"`(\w+)`", row.split("|")[4])) == sorted(FORMATS)


def test_html_table_has_a_caption_escapes_and_sorts_by_value():
    frame = pd.DataFrame({"run": ["<script>x</script>", "b"], "AP": [0.123456, 0.5]}).set_index("run")
    text = frame_table(frame, "Means of `AP`")
    assert "<caption>Means of <code>AP</code></caption>" in text
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert 'class="sortable"' in text and 'data-sort="0.123456"' in text and ">0.1235<" in text


def test_inline_marks_in_markdown_and_latex():
    assert md_inline("p<0.001") == "p<0.001"
    assert md_inline("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"
    assert latex_inline("`a_b` **c**") == r"\texttt{a\_b} \textbf{c}"
    assert latex_inline("p<0.001") == r"p\textless{}0.001"
    assert plural(1, "degradation") == "1 degradation" and plural(2, "query", "queries") == "2 queries"


def test_means_plot_keeps_one_run_order_in_every_panel(small_output):
    page = (small_output / "report.html").read_text()
    svg = re.search(r'<svg class="means".*?</svg>', page, flags=re.S).group(0)
    orders: dict[str, list[str]] = {}
    for run, measure in re.findall(r'<g data-run="([^"]+)" data-measure="([^"]+)"', svg):
        orders.setdefault(measure, []).append(run)
    assert len(orders) == 3 and len({tuple(o) for o in orders.values()}) == 1
    means = pd.read_csv(small_output / "means.csv", dtype={"run": str})
    first = means[means["measure"] == means["measure"].iloc[0]].set_index("run")["value"]  # AP(rel=2)
    assert next(iter(orders.values())) == sorted(first.index, key=lambda r: (-first[r], r))


@pytest.mark.integration
def test_demo_report_html_in_headless_chromium(tmp_path):
    executable = chromium()
    if executable is None:
        pytest.skip("chromium is not installed (.ci/run installs it)")
    out = tmp_path / "demo"
    assert main(["run", str(DEMO), "--out", str(out), "-q"]) == 0
    page = out / "report.html"
    text = page.read_text()
    check_numbers(out, runs=12, methods=5)
    assert set(re.findall(r"https?://[^\s\"'<>)]*", text)) <= {"http://www.w3.org/2000/svg"}
    assert page.stat().st_size < 4_000_000
    with Browser(executable, tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        assert browser.errors() == []
        assert all(url.startswith(("file:", "data:")) for url in browser.requests()), browser.requests()
        assert browser.evaluate("document.querySelector('.banner').textContent").startswith("SIMULATED DATA")
        # sort the means table by nDCG@10: the rows' order in the DOM changes to the values' order
        script = textwrap.dedent("""
            (function () {
              var table = Array.prototype.find.call(document.querySelectorAll("table"),
                function (t) { return t.caption.textContent.indexOf("Mean effectiveness per run") >= 0; });
              var col = Array.prototype.findIndex.call(table.tHead.rows[0].cells,
                function (c) { return c.textContent.trim() === "nDCG@10"; });
              var rows = function () { return Array.prototype.map.call(table.tBodies[0].rows,
                function (r) { return [r.cells[0].textContent, parseFloat(r.cells[col].textContent)]; }); };
              var before = rows();
              table.tHead.rows[0].cells[col].querySelector("button").click();
              var ascending = rows();
              table.tHead.rows[0].cells[col].querySelector("button").click();
              return [before, ascending, rows(), table.tHead.rows[0].cells[col].getAttribute("aria-sort")];
            })()""")
        before, ascending, descending, state = browser.evaluate(script)
        values = [v for _, v in before]
        assert [v for _, v in ascending] == sorted(values) and [v for _, v in descending] == sorted(values, reverse=True)
        assert ascending != before and sorted(ascending) == sorted(before) and state == "descending"
        # hover a heatmap cell: the tooltip names the pair and its numbers
        x, y = browser.evaluate("""(function () {
            var c = document.querySelector('svg.heatmap rect[data-a="sim11"][data-b="sim01"]');
            c.scrollIntoView({block: "center"}); var r = c.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2]; })()""")
        browser.move_mouse(x, y)
        tip = browser.evaluate("[document.getElementById('tip').hidden, document.getElementById('tip').textContent]")
        assert tip[0] is False and "sim11 over sim01" in tip[1] and "wins/ties/losses" in tip[1]
        assert "adjusted p-value" in tip[1]
        # the per-query view follows a choice (its form is shown by the script)
        assert browser.evaluate("document.getElementById('pq-form').hidden") is False
        summary = browser.evaluate("""(function () {
            var k = document.getElementById('pq-kind'); k.value = 'metric:AP'; k.dispatchEvent(new Event('change'));
            return document.getElementById('pq-summary').textContent; })()""")
        assert summary.startswith("300 queries; mean ")
        assert png_colours(browser.screenshot()) > 32  # not blank
        assert browser.errors() == []




def test_dl_hard_passage_rel_2_every_count_stated_matches_the_data(shared_data, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("IR_DATASETS")}
    env.update(IR_DATASETS_HOME=str(tmp_path / "home"), PREFEVAL_OFFLINE="1")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", DL_HARD_WORKER, str(shared_data), str(out),
                           str(REPO / "pipelines" / "dl-hard-passage.toml"), '["json", "md", "html", "tex", "csv"]'],
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    counts = check_every_count(out, shared_data / "dl-hard" / "dl_hard-passage.qrels", 2, "bm25")
    assert counts == {"judged": 50, "relevant": 49}
    assert math.isfinite(json.loads((out / "summary.json").read_text())["means"]["nDCG@10"]["bm25"])


@pytest.mark.parametrize("steps", ["evaluate", "compare", "both"])
def test_run_names_cannot_inject_markup_and_every_combination_has_a_view(tmp_path, steps):
    orders = {"a<b>&\"x'": "d1 d4 d6 d2", "<!--<script>x": "d2 d6 d1 d4", "c": "d7 d3 d5 d1"}
    qrels, runs = write_trec_files(tmp_path, "q1 0 d1 2\nq1 0 d2 1\nq2 0 d4 2\nq3 0 d6 1\n", orders,
                                   ("q1", "q2", "q3"))
    work = {"evaluate": [Evaluate(["AP"])], "compare": [Compare(["LexiRecall"])],
            "both": [Evaluate(["AP"]), Compare(["RPP"]), Aggregate(baseline="c")]}[steps]
    out = tmp_path / "out"
    Pipeline([Qrels(qrels, rel=2), Runs(runs), *work, Report(out)], name="names").run(progress=False)
    text = (out / "report.html").read_text()
    assert text.count("<script") == 2 and text.count("</script>") == 2 and "<!--" not in text
    assert "<b>" not in text and "a&lt;b&gt;&amp;&quot;x&#x27;" in text
    data = json.loads(re.search(r'id="pq-data">(.*?)</script>', text, flags=re.S).group(1))
    assert set(data["runs"]) == set(orders) and (data["prefs"] or data["metrics"])


@pytest.mark.integration
def test_report_tex_compiles_without_markdown_marks(small_output, tmp_path):
    """report.tex is LaTeX only (no Markdown backtick or ``**``) and compiles; skipped without pdflatex."""
    text = (small_output / "report.tex").read_text()
    assert "`" not in text and "**" not in text
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.skip("pdflatex is not installed")
    for path in small_output.iterdir():
        if path.suffix in (".tex", ".png"):
            (tmp_path / path.name).write_bytes(path.read_bytes())
    proc = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "report.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "report.pdf").stat().st_size > 10_000
