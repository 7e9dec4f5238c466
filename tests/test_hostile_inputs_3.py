"""Hostile inputs, third corpus: arguments that could be runs or measures, a report folder that was edited, measures
checked the same at every entry point, Python inputs, bounded inflation and nesting, names that are safe to print
and to open, messages that name the user's thing, signals, and what a new user expected.

Every case gets one ``prefeval CMD: error: ...`` line naming the thing at fault, or the documented result; never a
traceback, a hang, an unbounded allocation or a silently different result."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefeval.commands.cli import main

QRELS = "1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n2 0 d4 1\n2 0 d5 0\n"
RUN = "1 Q0 d1 1 3.0 a\n1 Q0 d3 2 2.0 a\n2 Q0 d4 1 1.0 a\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "b.run").write_text(RUN.replace("d3", "d2"))
    (tmp_path / "c.run").write_text(RUN.replace("d1", "d5"))
    return tmp_path


def fails(capsys: pytest.CaptureFixture, command: str, *args: str) -> str:
    """Run the CLI, expect exit code 1 with one `prefeval COMMAND: error:` line; return it."""
    code = main([command, *args])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith(f"prefeval {command}: error: "), err
    assert "Traceback" not in err and "unexpected" not in err and "please report" not in err, err
    assert err.count("\n") == 1, err
    return err


def succeeds(capsys: pytest.CaptureFixture, command: str, *args: str) -> str:
    code = main([command, *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


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
