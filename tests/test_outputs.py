"""What a pipeline leaves behind: atomic report folders with a manifest, a lock, escaped Markdown, and a
``--check`` that runs no code (prefeval.pipeline.output, report, render; `prefeval run`)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

import pytest

from prefeval.commands.cli import main
from prefeval.pipeline.output import MANIFEST, OutputFolder
from prefeval.report.text import md_escape, md_inline, path_slug

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "pipelines" / "demo.toml"
SMALL_SET = ["--set", "simulate.n_queries=20", "--set", "simulate.n_runs=3", "--set", "simulate.depth=20",
             "--set", "simulate.n_docs=40"]
FAST = [*SMALL_SET, "--set", "analyse.analyses=[\"ties\"]", "--set", "report.formats=[\"md\", \"csv\", \"json\"]",
        "-q"]

QRELS = "1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n2 0 d4 1\n2 0 d5 0\n"
RUN_A = "1 Q0 d1 1 3.0 a\n1 Q0 d3 2 2.0 a\n2 Q0 d4 1 1.0 a\n"
RUN_B = "1 Q0 d3 1 3.0 b\n1 Q0 d2 2 2.0 b\n2 Q0 d5 1 1.0 b\n"


def run_cli(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_complete(folder: Path) -> dict:
    """The folder is one complete output: its manifest lists exactly its files, with their sizes and hashes,
    and every file report.md links to exists."""
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    listed = {f["name"]: f for f in manifest["files"]}
    present = {p.name for p in folder.iterdir()} - {MANIFEST}
    assert present == set(listed), (present ^ set(listed))
    for name, entry in listed.items():
        data = (folder / name).read_bytes()
        assert len(data) == entry["bytes"] and hashlib.sha256(data).hexdigest() == entry["sha256"], name
    report = folder / "report.md"
    if report.exists():
        text = report.read_text(encoding="utf-8")
        links = re.findall(r"(?<!\\)\]\(<?([^)>]+)>?\)", text)  # an escaped \] is no link
        for link in links:
            assert (folder / link).exists(), link
        for name in re.findall(r"[\w.-]+\.(?:csv|json|png)", text):
            if name in ("preferences.csv", "summary.json", "kendall_tau.csv"):
                assert (folder / name).exists(), name
    return manifest


@pytest.fixture
def trec_files(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.run").write_text(RUN_A)
    (runs / "b.run").write_text(RUN_B)
    return tmp_path


def pipeline_file(folder: Path, body: str = "", name: str = "p") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(f'[pipeline]\nname = "{name}"\n\n[qrels]\nsource = "qrels.txt"\n\n[runs]\npaths = ["runs"]\n\n'
                    f'[evaluate]\nmeasures = ["nDCG@10", "RR"]\n\n[compare]\nmethods = ["LexiRecall"]\n\n'
                    f'[report]\nformats = ["md", "csv", "json"]\n{body}')
    return path


# ---------------------------------------------------------------------------------------------------
# escaping


def test_md_escape_makes_markup_inert():
    assert md_escape("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
    assert md_escape("[x](javascript:alert(1))") == "\\[x\\](javascript:alert(1))"
    assert md_escape("a|b `c` *d* e_f ~g~ &amp;\nh") == "a\\|b \\`c\\` \\*d\\* e\\_f \\~g\\~ &amp;amp; h"
    # the report's own markup survives; a code span that would hold markup becomes escaped text
    assert md_inline("**Simulated data.** run `bm25` <b>") == "**Simulated data.** run `bm25` &lt;b&gt;"
    assert md_inline("baseline `<img src=x>`") == "baseline &lt;img src=x&gt;"
    # inside a code span Markdown reads _ and * literally: a run name keeps its code span
    assert md_inline("`bm25` and `bm25_rm3` (x_y)") == "`bm25` and `bm25_rm3` (x\\_y)"
    assert md_inline("`a|b` `c`d`") == "a\\|b `c`d\\`"
    assert path_slug("../../x") == "x" and path_slug("..") == "pipeline" and path_slug("dl hard/2") == "dl_hard_2"


def test_run_names_and_title_reach_report_md_escaped(trec_files, capsys):
    hostile_run = "<img src=x onerror=alert(1)>"
    (trec_files / "runs" / f"{hostile_run}.run").write_text(RUN_A)
    title = "[x](javascript:alert(1))"
    description = "<script>alert(2)</script> | `x` *y*"
    definition = pipeline_file(trec_files, f'title = "{title}"\n').read_text()
    definition = definition.replace('name = "p"', f'name = "p"\ndescription = "{description}"')
    (trec_files / "p.toml").write_text(definition)
    out = trec_files / "out"
    code, _, err = run_cli(capsys, "run", str(trec_files / "p.toml"), "--out", str(out), "-q",
                           "--set", "aggregate.baseline=a")
    assert code == 0, err
    report = (out / "report.md").read_text(encoding="utf-8")
    for raw in (hostile_run, title, "<script>", "*y*"):
        assert raw not in report
    assert "<" not in report.replace("&lt;", "")  # no HTML at all
    assert "&lt;img src=x onerror=alert(1)&gt;" in report and "\\[x\\](javascript:alert(1))" in report
    # every table row still has the same number of cells as its header (no injected '|')
    for table in re.findall(r"(?:^\|.*\|\n)+", report, flags=re.M):
        widths = {len(re.split(r"(?<!\\)\|", line)) for line in table.splitlines()}
        assert len(widths) == 1, table
    assert_complete(out)


def test_pipeline_name_is_slugged_for_the_default_folder(trec_files, capsys, monkeypatch):
    monkeypatch.chdir(trec_files)
    path = pipeline_file(trec_files)
    code, _, err = run_cli(capsys, "run", str(path), "-q", "--set", "pipeline.name=../../escape")
    assert code == 0, err
    assert (trec_files / "out" / "escape" / MANIFEST).exists()
    assert not (trec_files.parent / "escape").exists() and not (trec_files.parent.parent / "escape").exists()


# ---------------------------------------------------------------------------------------------------
# the output folder


def test_manifest_lists_every_file_and_a_rerun_replaces_only_prefevals_files(trec_files, capsys):
    path = pipeline_file(trec_files)
    out = trec_files / "out"
    code, stdout, err = run_cli(capsys, "run", str(path), "--out", str(out), "-q",
                                "--set", 'compare.methods=["LexiRecall", "RPP"]', "--set", "report.formats=[\"md\", \"csv\", \"json\", \"png\"]")
    assert code == 0, err
    first = assert_complete(out)
    assert {"heatmap_LexiRecall.png", "heatmap_RPP.png", "report.md", "summary.json"} <= {f["name"] for f in first["files"]}
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["files"]) == {p.name for p in out.iterdir()}
    # a re-run with fewer methods: the stale heatmap of the first run is gone, nothing else left behind
    code, _, err = run_cli(capsys, "run", str(path), "--out", str(out), "-q",
                           "--set", "report.formats=[\"md\", \"csv\", \"json\", \"png\"]")
    assert code == 0, err
    assert_complete(out)
    assert not (out / "heatmap_RPP.png").exists() and (out / "heatmap_LexiRecall.png").exists()
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".out.prefeval")]


def test_report_md_names_only_files_that_were_written(trec_files, capsys):
    out = trec_files / "out"
    code, _, err = run_cli(capsys, "run", str(pipeline_file(trec_files)), "--out", str(out), "-q",
                           "--set", "report.formats=[\"md\"]")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "report.md"]
    report = (out / "report.md").read_text()
    assert ".csv" not in report and "summary.json" not in report
    assert_complete(out)


def test_a_folder_with_foreign_files_is_refused_unless_forced(trec_files, capsys):
    path = pipeline_file(trec_files)
    out = trec_files / "out"
    out.mkdir()
    (out / "report.md").write_text("my own notes\n")
    (out / "keep.txt").write_text("mine\n")
    code, _, err = run_cli(capsys, "run", str(path), "--out", str(out), "-q")
    assert code == 1 and "prefeval run: error:" in err and "did not write" in err and "--force" in err
    assert "keep.txt" in err and "Traceback" not in err
    assert (out / "report.md").read_text() == "my own notes\n"  # untouched
    code, _, err = run_cli(capsys, "run", str(path), "--out", str(out), "-q", "--force")
    assert code == 0, err
    assert (out / "keep.txt").read_text() == "mine\n"
    manifest = json.loads((out / MANIFEST).read_text())
    assert "keep.txt" not in {f["name"] for f in manifest["files"]}
    assert "prefeval report" in (out / "report.md").read_text()
    # the folder now holds prefeval's files and keep.txt: a re-run needs --force again, and keeps keep.txt
    code, _, err = run_cli(capsys, "run", str(path), "--out", str(out), "-q", "--force",
                           "--set", "report.formats=[\"md\"]")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt", MANIFEST, "report.md"]


def test_a_link_is_followed_and_the_current_folder_updated_in_place(trec_files, capsys, monkeypatch):
    real = trec_files / "real"
    real.mkdir()
    (trec_files / "link").symlink_to(real)
    path = pipeline_file(trec_files)
    code, _, err = run_cli(capsys, "run", str(path), "--out", str(trec_files / "link"), "-q")
    assert code == 0, err
    assert (trec_files / "link").is_symlink() and (real / MANIFEST).exists()
    assert oct(real.stat().st_mode & 0o777) == oct(0o777 & ~_umask())  # not mkdtemp's owner-only mode
    assert_complete(real)
    # `--out .` from inside the folder: its files are replaced in place, the folder itself stays
    monkeypatch.chdir(real)
    inode = real.stat().st_ino
    code, _, err = run_cli(capsys, "run", str(path), "--out", ".", "-q", "--set", "report.formats=[\"md\"]")
    assert code == 0, err
    assert real.stat().st_ino == inode and sorted(p.name for p in real.iterdir()) == [MANIFEST, "report.md"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("where, fragment", [
    ("", "empty string"),
    ("afile.txt/sub", "is a file, not a folder"),
    ("afile.txt", "exists and is not a folder"),
])
def test_bad_output_paths_fail_before_any_work(trec_files, capsys, monkeypatch, where, fragment):
    (trec_files / "afile.txt").write_text("x\n")
    monkeypatch.chdir(trec_files)
    monkeypatch.setenv("PREFEVAL_TEST_POINTS", "1")
    code, stdout, err = run_cli(capsys, "run", str(pipeline_file(trec_files)), "--out", where, "-q")
    assert code == 1 and "prefeval run: error:" in err and fragment in err, err
    assert "prefeval-test-point step:" not in err  # no step ran
    assert "Traceback" not in err and sorted(p.name for p in trec_files.iterdir()) == ["afile.txt", "p.toml",
                                                                                       "qrels.txt", "runs"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_parent_fails_before_any_work(trec_files, capsys):
    locked = trec_files / "locked"
    locked.mkdir(mode=0o500)
    try:
        code, _, err = run_cli(capsys, "run", str(pipeline_file(trec_files)), "--out", str(locked / "out"), "-q")
    finally:
        locked.chmod(0o700)
    assert code == 1 and "not writable" in err


def test_a_second_run_into_a_locked_folder_gets_a_clear_error(trec_files, capsys):
    out = trec_files / "out"
    with OutputFolder(out) as held:
        assert held.staging is not None and held.staging.parent == trec_files
        code, _, err = run_cli(capsys, "run", str(pipeline_file(trec_files)), "--out", str(out), "-q")
        assert code == 1 and "another prefeval run" in err and f"process {os.getpid()}" in err
    assert not out.exists()  # the holder wrote nothing
    code, _, err = run_cli(capsys, "run", str(pipeline_file(trec_files)), "--out", str(out), "-q")
    assert code == 0, err
    assert not (trec_files / ".out.prefeval-lock").exists()
    assert_complete(out)


def test_an_output_of_prefeval_0_1_is_recognised_by_its_summary(trec_files, capsys):
    out = trec_files / "out"
    out.mkdir()
    (out / "summary.json").write_text(json.dumps({"format": "prefeval-pipeline-summary/1",
                                                  "files": ["report.md", "old_heatmap.png", "summary.json"]}))
    (out / "report.md").write_text("old\n")
    (out / "old_heatmap.png").write_bytes(b"\x89PNG")
    code, _, err = run_cli(capsys, "run", str(pipeline_file(trec_files)), "--out", str(out), "-q")
    assert code == 0, err
    assert not (out / "old_heatmap.png").exists()
    assert_complete(out)


# ---------------------------------------------------------------------------------------------------
# --check runs no code


def test_check_imports_nothing(tmp_path, capsys, monkeypatch, trec_files):
    sentinel = tmp_path / "SENTINEL"
    code_dir = tmp_path / "code"
    code_dir.mkdir()
    (code_dir / "sentinel_mod.py").write_text(
        f"from pathlib import Path\nPath({str(sentinel)!r}).write_text('imported')\n"
        "def search(topics, **kw):\n    return {}\n"
        "def analysis(context, **kw):\n    return {}\n")
    (trec_files / "topics.tsv").write_text("1\tapple\n2\tbread\n")
    path = pipeline_file(trec_files, name="code")
    text = path.read_text().replace('source = "qrels.txt"', 'source = "qrels.txt"\ntopics = "topics.tsv"')
    text += ('\n[[retrieve]]\ncallable = "sentinel_mod:search"\npath = "code_dir"\n'
             '\n[analyse]\ncallables = ["sentinel_mod:analysis"]\n').replace("code_dir", str(code_dir))
    path.write_text(text)
    monkeypatch.syspath_prepend(str(code_dir))
    code, stdout, err = run_cli(capsys, "run", str(path), "--check", "--out", str(tmp_path / "o"))
    assert code == 0, err
    assert "valid" in stdout and not sentinel.exists()
    assert "sentinel_mod" not in sys.modules
    # a module that cannot be found, and a malformed spec, are still errors
    for spec, fragment in (("no_such_module_xyz:f", "cannot find module 'no_such_module_xyz'"),
                           ("sentinel_mod:", "expected \"module:function\""),
                           ("sentinel mod:f", "expected \"module:function\"")):
        path.write_text(text.replace('callables = ["sentinel_mod:analysis"]', f'callables = ["{spec}"]'))
        code, _, err = run_cli(capsys, "run", str(path), "--check")
        assert code == 1 and fragment in err, err
    assert not sentinel.exists()


def test_run_help_says_a_pipeline_file_can_run_code(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "A pipeline file can run code, as a Makefile can" in text
    docs = " ".join((REPO / "docs" / "pipelines.md").read_text(encoding="utf-8").split())
    assert "can run code, as a Makefile can" in docs
