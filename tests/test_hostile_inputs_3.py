"""Hostile inputs, third corpus: arguments that could be runs or measures, a report folder that was edited, measures
checked the same at every entry point, Python inputs, bounded inflation and nesting, names that are safe to print
and to open, messages that name the user's thing, signals, and what a new user expected.

Every case gets one ``prefeval CMD: error: ...`` line naming the thing at fault, or the documented result; never a
traceback, a hang, an unbounded allocation or a silently different result."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import HOSTILE_RUN as RUN
from conftest import fails, hostile_files, succeeds
from prefeval.commands.cli import main


@pytest.fixture
def files(tmp_path: Path) -> Path:
    return hostile_files(tmp_path, "abc")


# ---------------------------------------------------------------------------------------------------
# class 1: runs and measures on the command line, by one rule (prefeval.commands.common.ARGUMENT_RULE)


def test_a_file_named_like_a_measure_stays_a_measure(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    (files / "RR").write_text(RUN)
    (files / "P@1").write_text(RUN)
    out = succeeds(capsys, "eval", "qrels.txt", "a.run", "RR", "P@1")
    assert [line.split("\t")[0] for line in out.splitlines()] == ["RR", "P@1"]  # one run, two measures
    table = succeeds(capsys, "eval", "qrels.txt", "a.run", "b.run", "-m", "RR", "P@1")
    assert "2 runs x 2 measures" in table
    # with a path separator it is a run
    table = succeeds(capsys, "eval", "qrels.txt", "a.run", "./RR", "P@1")
    assert "2 runs x 1 measures" in table


def test_a_typo_in_a_run_name_names_the_file(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    err = fails(capsys, "eval", "qrels.txt", "a.run", "b.runn", "P@1")
    assert "run file not found: b.runn" in err
    err = fails(capsys, "eval", "qrels.txt", "a.runn", "P@1")
    assert "run file not found: a.runn" in err
    err = fails(capsys, "eval", "qrels.txt", "a.run", "-m", "P@1", "b.runn")
    assert "run file not found: b.runn" in err


def test_runs_after_measures_and_several_measures_in_one_argument(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    out = succeeds(capsys, "eval", "qrels.txt", "a.run", "nDCG@10 P@1")
    assert [line.split("\t")[0] for line in out.splitlines()] == ["nDCG@10", "P@1"]
    table = succeeds(capsys, "eval", "qrels.txt", "-m", "P@1", "a.run", "b.run", "c.run")
    assert "3 runs x 1 measures" in table


def test_the_rule_is_stated_in_help(capsys):
    from prefeval.commands.common import ARGUMENT_RULE

    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    assert " ".join(ARGUMENT_RULE.split()[:8]) in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("measure, fragment", [("Bogus@3", "unknown measure 'Bogus@3'"),
                                               ("nDCG@10 Bogus@3", "unknown measure 'Bogus@3'"),
                                               ("P@0", "P@0")])
def test_a_measure_with_a_problem_is_reported_as_a_measure(files, capsys, monkeypatch, measure, fragment):
    monkeypatch.chdir(files)
    err = fails(capsys, "eval", "qrels.txt", "a.run", "P@1", measure)
    assert fragment in err and "run file" not in err


# ---------------------------------------------------------------------------------------------------
# class 6: outputs that are safe to open (prefeval.core.text: printable, csv_cell)


def test_printable_escapes_every_control_and_keeps_the_rest():
    from prefeval.core.text import printable

    assert printable("a\x1b[2Jb\x07c\nd\u202ee\udcff") == "a\\x1b[2Jb\\x07c\\nd\\u202ee\\udcff"
    assert printable("line\nnext\x1b", keep="\n") == "line\nnext\\x1b"
    assert printable("bm25 é α ▲") == "bm25 é α ▲"


@pytest.mark.parametrize("text, cell", [("=1+1", "'=1+1"), ("+cmd", "'+cmd"), ("-x", "'-x"), ("@SUM(A1)", "'@SUM(A1)"),
                                        ("\tx", "'\tx"), ("-1", "-1"), ("+2.5e3", "+2.5e3"), ("bm25", "bm25"), (1.5, 1.5)])
def test_csv_cells_that_spreadsheets_read_as_formulas_get_a_quote(text, cell):
    from prefeval.core.text import csv_cell

    assert csv_cell(text) == cell


def _formula_runs(files: Path) -> list[str]:
    (files / "=cmd.run").write_text(RUN)
    (files / "@b.run").write_text(RUN.replace("d3", "d2"))
    return [str(files / "qrels.txt"), str(files / "=cmd.run"), str(files / "@b.run")]


@pytest.mark.parametrize("args", [["eval", "-m", "P@1", "--format", "csv"],
                                  ["compare", "-m", "LexiRecall", "--format", "csv", "-q"],
                                  ["compare", "-m", "LexiRecall", "--per-query", "--format", "csv", "-q"],
                                  ["analyse", "-m", "LexiRecall", "--metrics", "AP", "--analyses", "agreement", "--format", "csv"]])
def test_formula_run_names_reach_csv_quoted(files, capsys, args):
    import csv
    import io

    out = succeeds(capsys, args[0], *_formula_runs(files), *args[1:])
    cells = [cell for row in csv.reader(io.StringIO(out)) for cell in row]
    assert not any(cell.startswith(("=", "@", "+")) for cell in cells), out
    if args[0] != "analyse":  # its tables name methods and metrics, not runs
        assert any(cell.startswith("'=cmd") or cell.startswith("'@b") for cell in cells), out


def test_control_characters_in_names_are_escaped_in_errors_and_tables(files, capsys):
    evil = files / "x\x1b]0;owned\x07\x1b[2J.run"
    evil.write_text(RUN)
    err = fails(capsys, "eval", str(files / "qrels.txt"), str(files / "nothere\x1b[2J.run"), "P@1")
    assert "\x1b" not in err and "\\x1b[2J" in err
    out = succeeds(capsys, "eval", str(files / "qrels.txt"), str(evil), str(files / "a.run"), "-m", "P@1")
    assert "\x1b" not in out and "\x07" not in out and "\\x1b" in out
    latex = succeeds(capsys, "eval", str(files / "qrels.txt"), str(evil), str(files / "a.run"), "-m", "P@1",
                     "--format", "latex")
    assert "\x1b" not in latex and "\x07" not in latex
    markdown = succeeds(capsys, "compare", str(files / "qrels.txt"), str(evil), str(files / "a.run"), "-m", "P@1",
                        "--format", "markdown", "-q")
    assert "\x1b" not in markdown and "\x07" not in markdown


# ---------------------------------------------------------------------------------------------------
# class 7: measure names read as written, or refused (prefeval.methods.syntax.check_measure_syntax)


@pytest.mark.parametrize("measure, fragment", [
    ("RBU(p=0.8,p=0.9)", "parameter p given more than once"),
    ("LexiRecall(rel=1, rel=2)", "parameter rel given more than once"),
    ("RBU@0x4", "decimal digits"),
    ("nDCG@1_0", "decimal digits"),
    ("ＲＲ", "FULLWIDTH LATIN CAPITAL LETTER R"),
    ("ｎDCG@10", "FULLWIDTH"),
])
@pytest.mark.parametrize("command", ["eval", "compare"])
def test_measure_names_that_python_would_change_are_refused(files, capsys, measure, fragment, command):
    err = fails(capsys, command, *(str(files / n) for n in ("qrels.txt", "a.run", "b.run")), "-m", measure)
    assert fragment in err


def test_measure_syntax_in_the_api_and_names_kept():
    import prefeval
    from prefeval.errors import PrefevalError

    for bad in ("RBU(p=0.8,p=0.9)", "RBU@0x4", "ＲＲ"):
        with pytest.raises(PrefevalError):
            prefeval.evaluate({"1": {"d1": 1}}, {"r": {"1": {"d1": 1.0}}}, [bad])
    values = prefeval.evaluate({"1": {"d1": 1}}, {"r": {"1": {"d1": 1.0}}}, ["alpha_nDCG@10", "RBU(p=0.8)@4"])
    assert len(values) == 2


def test_a_quoted_id_with_a_blank_is_refused_in_runs_as_in_qrels(files, capsys):
    (files / "quoted.run").write_text('1 Q0 d1 1 3.0 a\n1 Q0 "d 2" 2 2.0 a\n')
    err = fails(capsys, "eval", str(files / "qrels.txt"), str(files / "quoted.run"), "P@1")
    assert "line 2" in err and "opens a quote" in err
    (files / "quoted.qrels").write_text('1 0 d1 1\n1 0 "d2 x" 1\n')
    err = fails(capsys, "eval", str(files / "quoted.qrels"), str(files / "a.run"), "P@1")
    assert "line 2" in err
    (files / "fine.run").write_text('1 Q0 "d1" 1 3.0 a\n1 Q0 d"2 2 2.0 a\n')  # quotes without a blank are data
    assert main(["eval", str(files / "qrels.txt"), str(files / "fine.run"), "P@1"]) == 0


# ---------------------------------------------------------------------------------------------------
# class 3: every entry point checks measures with the one validation (prefeval.methods.checks.validate)


@pytest.mark.parametrize("measure, fragment", [("P@0", "cutoff must be a positive integer"),
                                               ("nDCG(cutoff=0)", "cutoff must be a positive integer"),
                                               ("ERR@0", "cutoff must be a positive integer"),
                                               ("AP(rel=0)", "rel must be an integer from 1"),
                                               ("RBU@0", "cutoff must be a positive integer"),
                                               ("P@-1", "negative number")])
@pytest.mark.parametrize("options", [[], ["--table"], ["--balance", "3"]])
def test_axioms_check_measures_as_eval_does(capsys, measure, fragment, options):
    # before: SIGABRT inside pytrec_eval (the test process would die), or "not applicable" verdicts
    err = fails(capsys, "axioms", measure, "--cases", "5", *options)
    assert fragment in err


@pytest.mark.parametrize("measure", ["P@0", "ERR@0", "AP(rel=0)"])
def test_axioms_and_eval_give_the_same_message(files, capsys, measure):
    from prefeval.axioms.evaluate import resolve
    from prefeval.errors import PrefevalError

    with pytest.raises(PrefevalError) as from_axioms:
        resolve(measure)
    err = fails(capsys, "eval", str(files / "qrels.txt"), str(files / "a.run"), measure)
    assert str(from_axioms.value) in err


# ---------------------------------------------------------------------------------------------------
# class 4: Python inputs, one set of rules (prefeval.data.inputs)


def _qrels_dict():
    return {"1": {"a": 1, "b": 0}, "2": {"c": 2}}


def _run_dict():
    return {"1": {"a": 1.0, "b": 0.5}, "2": {"c": 1.0}}


@pytest.mark.parametrize("measures", [["P@1", "nDCG@10"], ["P@1", "RBU@2"]])
def test_numpy_scalar_scores_in_dicts_give_the_values_of_python_floats(measures):
    import numpy as np

    import prefeval

    numpy_run = {"1": {"a": np.float32(1.0), "b": np.float64(0.5)}, "2": {"c": np.int64(1)}}
    numpy_qrels = {"1": {"a": np.int64(1), "b": np.int8(0)}, "2": {"c": np.int32(2)}}
    got = prefeval.evaluate(numpy_qrels, {"r": numpy_run}, measures)
    want = prefeval.evaluate(_qrels_dict(), {"r": _run_dict()}, measures)
    assert got["value"].tolist() == want["value"].tolist()


def test_a_nullable_grade_with_na_is_one_error():
    import pandas as pd

    import prefeval
    from prefeval.errors import PrefevalError

    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"],
                          "relevance": pd.array([1, pd.NA], dtype="Int64")})
    with pytest.raises(PrefevalError, match="got a missing value .NA. for query 1, document b"):
        prefeval.evaluate(qrels, {"r": _run_dict()}, ["P@1"])
    qrels["relevance"] = pd.array([1, 0], dtype="Int64")  # a nullable column without NA is read
    assert prefeval.evaluate(qrels, {"r": _run_dict()}, ["P@1"])["value"].tolist() == [1.0]


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_a_frame_with_a_column_twice_names_it(which):
    import pandas as pd

    import prefeval
    from prefeval.errors import PrefevalError

    value = "relevance" if which == "qrels" else "score"
    frame = pd.DataFrame([["1", "a", "b", 1]], columns=["query_id", "doc_id", "doc_id", value])
    qrels, run = (frame, _run_dict()) if which == "qrels" else (_qrels_dict(), frame)
    for call in (lambda: prefeval.evaluate(qrels, {"r": run}, ["P@1"]),
                 lambda: prefeval.compare(qrels, {"r": run, "s": _run_dict()}, ["LexiRecall"])):
        with pytest.raises(PrefevalError, match="more than one column named 'doc_id'"):
            call()


@pytest.mark.parametrize("where", ["qrels query", "qrels doc", "run query", "run doc"])
@pytest.mark.parametrize("missing", [None, float("nan")])
def test_a_missing_key_in_a_dict_is_refused_as_in_a_frame(where, missing):
    import prefeval
    from prefeval.errors import PrefevalError

    qrels, run = _qrels_dict(), _run_dict()
    target = qrels if where.startswith("qrels") else run
    if where.endswith("query"):
        target[missing] = dict(target["1"])
    else:
        target["1"][missing] = 1
    for measures in (["P@1"], ["RBU@2"]):
        with pytest.raises(PrefevalError, match="a missing id"):
            prefeval.evaluate(qrels, {"r": run}, measures)
    with pytest.raises(PrefevalError, match="a missing id"):
        prefeval.compare(qrels, {"r": run, "s": _run_dict()}, ["LexiRecall"])


# ---------------------------------------------------------------------------------------------------
# class 5: bounds (gzip inflation, TOML nesting) and every file checked before any work


def test_a_gzip_bomb_is_refused_with_the_limit(files, capsys, monkeypatch):
    import gzip

    from prefeval.data import trec

    bomb = files / "bomb.run.gz"
    bomb.write_bytes(gzip.compress(RUN.encode() * 40_000))  # 1.9 MB inflated, a few KB compressed
    monkeypatch.setattr(trec, "MAX_INFLATED", 1 << 20)
    err = fails(capsys, "eval", str(files / "qrels.txt"), str(bomb), "P@1")
    assert "bomb.run.gz: it inflates to more than 1,048,576 bytes" in err and "decompress it first" in err
    monkeypatch.setattr(trec, "MAX_INFLATED", 4 << 20)
    assert main(["eval", str(files / "qrels.txt"), str(bomb), "P@1"]) == 0
    assert trec.MAX_INFLATED and trec._gunzip.__defaults__[-1] is None  # the limit is read at each call


@pytest.mark.parametrize("nested", ["[" * 50_000 + "]" * 50_000, "{a=" * 50_000 + "1" + "}" * 50_000,
                                    "[" * 40 + "]" * 40])
def test_deep_toml_fails_check_in_one_line(tmp_path, capsys, nested):
    definition = tmp_path / "deep.toml"
    definition.write_text(f'[pipeline]\nname = "x"\nx = {nested}\n')
    err = fails(capsys, "run", str(definition), "--check")
    assert "deep.toml" in err and "nested" in err


def test_deep_set_value_fails_check_in_one_line(files, capsys):
    from prefeval.data.simulate import write_example

    paths = write_example(files / "example")
    err = fails(capsys, "run", str(paths["pipeline"]), "--check", "--set", "runs.paths=" + "[" * 5000 + "]" * 5000)
    assert "--set: runs.paths: nested too deeply" in err


@pytest.mark.parametrize("budget", [None, 0])
@pytest.mark.parametrize("command", [["eval", "-m", "nDCG@10"], ["eval", "-m", "RBU@10", "LexiRecall"],
                                     ["compare", "-m", "LexiRecall", "AP", "-q"]])
def test_a_bad_last_line_of_the_last_run_is_reported_before_any_work(files, capsys, monkeypatch, budget, command):
    from prefeval.data.collection import Collection
    from prefeval.engine import blocks, evaluate

    if budget is not None:
        monkeypatch.setattr(blocks, "READ_AHEAD_BYTES", budget)
    for k in range(6):
        (files / f"r{k}.run").write_text(RUN + ("1 Q0 d9 9 notanumber a\n" if k == 5 else ""))

    def never(*args, **kwargs):
        raise AssertionError("a run was ranked before every file was read")

    monkeypatch.setattr(Collection, "rank", never)
    monkeypatch.setattr(evaluate, "rank_run", never)
    err = fails(capsys, command[0], str(files / "qrels.txt"), *(str(files / f"r{k}.run") for k in range(6)),
                *command[1:])
    assert "r5.run, line 4: score 'notanumber' is not a number" in err


def test_the_docs_state_the_limits_the_code_checks():
    from prefeval.data.trec import MAX_INFLATED
    from prefeval.pipeline.loader import MAX_DEPTH

    root = Path(__file__).resolve().parent.parent / "docs"
    semantics = " ".join((root / "input-semantics.md").read_text(encoding="utf-8").split())
    pipelines = " ".join((root / "pipelines.md").read_text(encoding="utf-8").split())
    assert f"more than {MAX_INFLATED >> 30} GiB is refused" in semantics
    assert f"nested more than {MAX_DEPTH} levels deep" in pipelines


# ---------------------------------------------------------------------------------------------------
# class 2: `prefeval report` renders only a folder as prefeval wrote it (prefeval.pipeline.verify)


@pytest.fixture(scope="module")
def output_folder(tmp_path_factory) -> Path:
    from prefeval.data.simulate import write_example

    root = tmp_path_factory.mktemp("report")
    paths = write_example(root / "example")
    out = root / "out"
    assert main(["run", str(paths["pipeline"]), "--out", str(out), "-q",
                 "--set", "report.formats=[\"md\", \"csv\", \"json\"]"]) == 0
    return out


def _copy(folder: Path, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / "copy"
    shutil.copytree(folder, target)
    return target


def _relisted(folder: Path, name: str, data: bytes) -> None:
    """Write ``data`` as ``name`` and list its size and SHA-256 in the manifest (an edit that hides itself)."""
    import hashlib
    import json

    (folder / name).write_bytes(data)
    manifest = json.loads((folder / "manifest.json").read_text())
    for entry in manifest["files"]:
        if entry["name"] == name:
            entry["bytes"], entry["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_report_renders_an_untouched_folder(output_folder, tmp_path, capsys):
    assert main(["report", str(output_folder), "-o", str(tmp_path / "page.html")]) == 0
    assert (tmp_path / "page.html").stat().st_size > 1000
    capsys.readouterr()


@pytest.mark.parametrize("edit, fragment", [
    (lambda f: (f / "per_query.csv").write_bytes((f / "per_query.csv").read_bytes()[:3000]),
     "per_query.csv: 3,000 bytes where manifest.json lists"),
    (lambda f: (f / "preferences.csv").unlink(), "preferences.csv: listed in manifest.json but missing"),
    (lambda f: (f / "means.csv").write_text((f / "means.csv").read_text().replace("0.", "1.", 1)),
     "means.csv: its SHA-256 differs"),
    (lambda f: _relisted(f, "per_query.csv", (f / "per_query.csv").read_bytes().replace(b",0.", b",x.", 1)),
     "per_query.csv: line 2: value"),
    (lambda f: _relisted(f, "means.csv", b"run,measure,value\n\xff\xfe,x,1\n"), "means.csv: not UTF-8"),
    (lambda f: _relisted(f, "summary.json", b"[1, 2]"), "summary.json: not a JSON object"),
    (lambda f: _relisted(f, "summary.json", b'{"means": [], "document": []}'), "'means' is not a JSON object"),
    (lambda f: _relisted(f, "summary.json", b"[" * 100_000 + b"]" * 100_000), "nested more than 64 levels"),
    (lambda f: (f / "manifest.json").write_text("{"), "manifest.json: not valid JSON"),
    (lambda f: (f / "manifest.json").unlink(), "no manifest.json"),
])
def test_report_refuses_an_edited_folder_naming_the_file(output_folder, tmp_path, capsys, edit, fragment):
    folder = _copy(output_folder, tmp_path)
    edit(folder)
    err = fails(capsys, "report", str(folder), "-o", str(tmp_path / "page.html"))
    assert fragment in err
    assert not (tmp_path / "page.html").exists()


@pytest.mark.parametrize("target, fragment", [("missing/page.html", "folder "), ("adir", "is a folder")])
def test_report_output_errors_name_the_users_path(output_folder, tmp_path, capsys, target, fragment):
    (tmp_path / "adir").mkdir()
    err = fails(capsys, "report", str(output_folder), "-o", str(tmp_path / target))
    assert fragment in err and target.split("/")[0] in err and ".tmp" not in err


# ---------------------------------------------------------------------------------------------------
# class 7: messages that name the user's thing


def test_a_provider_that_cannot_compute_a_measure_is_named(files, capsys):
    err = fails(capsys, "eval", str(files / "qrels.txt"), str(files / "a.run"), "RBU@10", "--provider", "pytrec_eval")
    assert "--provider pytrec_eval does not compute RBU@10; prefeval does" in err


def test_empty_fractions_are_an_error(files, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["analyse", str(files / "qrels.txt"), str(files / "a.run"), str(files / "b.run"), "-m", "LexiRecall",
              "--fractions", ""])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--fractions: expected at least one number" in err and "Empty DataFrame" not in err


def test_a_query_named_all_is_warned_about_with_q(tmp_path, capsys):
    (tmp_path / "q").write_text("all 0 d1 1\n2 0 d2 1\n")
    (tmp_path / "r").write_text("all Q0 d1 1 1.0 r\n2 Q0 d2 1 1.0 r\n")
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "P@1", "-q"]) == 0
    out, err = capsys.readouterr()
    assert "a query is named 'all'" in err and out.splitlines()[-1] == "all\tP@1\t1.0000"
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "P@1", "-q", "-n"]) == 0
    assert "named 'all'" not in capsys.readouterr().err


def test_a_retrieve_callable_returning_none_is_named(tmp_path, capsys, monkeypatch):
    import sys
    import types

    from prefeval.data.simulate import write_example

    paths = write_example(tmp_path / "example")
    module = types.ModuleType("hostile_retrieval")
    module.nothing = lambda topics, **options: None
    monkeypatch.setitem(sys.modules, "hostile_retrieval", module)
    definition = tmp_path / "p.toml"
    definition.write_text(f'[qrels]\nsource = "{paths["qrels"]}"\ntopics = "{paths["topics"]}"\n'
                          '[[retrieve]]\ncallable = "hostile_retrieval:nothing"\nname = "mine"\n'
                          '[evaluate]\nmeasures = ["P@1"]\n')
    err = fails(capsys, "run", str(definition), "--out", str(tmp_path / "out"), "-q")
    assert "hostile_retrieval:nothing" in err and "'mine'" in err and "returned None" in err


# ---------------------------------------------------------------------------------------------------
# class 8: signals


def _sigint_disposition() -> str:
    import signal

    handler = signal.getsignal(signal.SIGINT)
    return "ignored" if handler == signal.SIG_IGN else "default" if handler == signal.SIG_DFL else "handled"


@pytest.mark.integration  # a LocalCluster of worker processes
def test_local_dask_workers_leave_ctrl_c_to_the_command():
    """Ctrl-C signals every process of the terminal's group: the local cluster's workers ignore it (they are closed
    by the command, which prints its one "interrupted" line), and the command's own handling is back after start-up."""
    import signal

    pytest.importorskip("distributed")
    from prefeval.engine.dask_engine import cluster

    before = signal.getsignal(signal.SIGINT)
    with cluster(workers=1) as client:
        assert set(client.run(_sigint_disposition).values()) == {"ignored"}
        assert signal.getsignal(signal.SIGINT) is before
        levels = client.run(lambda: __import__("logging").getLogger("distributed").getEffectiveLevel())
        assert set(levels.values()) == {50}  # critical only: no log lines of a closing cluster
    assert signal.getsignal(signal.SIGINT) is before


def test_the_interrupt_tests_restore_sigint_in_the_child():
    """tests/test_interrupts.py sends SIGINT to a child; a test process started with SIGINT ignored (nohup, `cmd &`)
    would pass the ignored disposition on: the child's is reset to the default."""
    import signal
    import subprocess
    import sys

    import test_interrupts

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        code = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                              preexec_fn=test_interrupts._default_sigint)  # noqa: PLW1509 - as the tests do
    finally:
        signal.signal(signal.SIGINT, previous)
    assert done.stdout.strip() == "True"


# ---------------------------------------------------------------------------------------------------
# class 9: what a new user expected


def test_q_with_several_runs_prints_every_run_named(files, capsys):
    out = succeeds(capsys, "eval", *(str(files / n) for n in ("qrels.txt", "a.run", "b.run")), "P@1", "RR", "-q")
    lines = [line.split("\t") for line in out.splitlines()]
    assert {line[0] for line in lines} == {"a", "b"} and all(len(line) == 4 for line in lines)
    for run in ("a", "b"):
        single = succeeds(capsys, "eval", str(files / "qrels.txt"), str(files / f"{run}.run"), "P@1", "RR", "-q")
        assert ["\t".join(line[1:]) for line in lines if line[0] == run] == single.splitlines()
    jsonl = succeeds(capsys, "eval", *(str(files / n) for n in ("qrels.txt", "a.run", "b.run")), "P@1", "-q",
                     "-o", "jsonl")
    assert '"run": "b"' in jsonl.splitlines()[-1] and '"query_id": "all"' in jsonl.splitlines()[-1]


@pytest.mark.integration  # a LocalCluster of worker processes
@pytest.mark.parametrize("options", [["--format", "table"], ["--format", "csv", "-p", "-1"],
                                     ["--baseline", "a", "--ci", "--format", "json"]])
def test_the_dask_table_is_the_in_process_table_byte_for_byte(files, capsys, options):
    pytest.importorskip("distributed")
    args = [*(str(files / n) for n in ("qrels.txt", "a.run", "b.run", "c.run")), "-m", "nDCG@10", "AP", "RPP",
            *options]
    here = succeeds(capsys, "eval", *args)
    assert succeeds(capsys, "eval", *args, "--engine", "dask", "--workers", "1") == here


def test_summary_json_has_no_negative_zero():
    import json

    import numpy as np

    from prefeval.pipeline.summary import jsonable

    text = json.dumps(jsonable({"a": -0.0, "b": np.float64(-0.0), "c": [np.float32(-0.0), -1.5]}))
    assert "-0.0" not in text and json.loads(text) == {"a": 0.0, "b": 0.0, "c": [0.0, -1.5]}


def test_the_last_histogram_bin_is_closed_at_its_upper_end():
    import re

    import numpy as np

    from prefeval.report import svg

    drawn = svg.histogram(np.array([-1.0, 0.0, 0.5, 1.0, 1.0]), "values")
    labels = re.findall(r"queries in (\[[^<]*)</title>", drawn)
    assert labels[-1].endswith(", 1]") and all(label.endswith(")") for label in labels[:-1])
    assert drawn.count("2 queries in") == 1  # the two 1s are in the last bin, labelled [x, 1]


def test_prefeval_run_names_the_best_run_of_every_measure_and_no_nan_for_one_run(tmp_path, capsys):
    import warnings

    from prefeval.data.simulate import write_example

    paths = write_example(tmp_path / "example")
    measures = ["nDCG@10", "AP", "RR", "RBU@20", "P@5", "R@100"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy warning (mean of nothing) fails the test
        out = succeeds(capsys, "run", str(paths["pipeline"]), "--out", str(tmp_path / "out"), "-q",
                       "--set", f"evaluate.measures={measures!r}".replace("'", '"'),
                       "--set", 'report.formats=["md"]')
    best = next(line for line in out.splitlines() if "best by mean" in line)
    assert all(f"{m} " in best for m in measures)
    one = tmp_path / "one.toml"
    one.write_text(f'[qrels]\nsource = "{paths["qrels"]}"\n[runs]\npaths = ["{paths["bm25"]}"]\n'
                   '[evaluate]\nmeasures = ["nDCG@10"]\n[report]\nformats = ["md"]\n')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = succeeds(capsys, "run", str(one), "--out", str(tmp_path / "one"), "-q")
    import re

    assert not re.search(r"\bnan\b", out), out
    assert all("undefined (1 run)" in line for line in out.splitlines() if "Kendall's tau" in line), out
