"""Hostile or sloppy inputs get one `prefeval CMD: error: ...` line (or a warning) and a non-zero exit, never a
traceback: unreadable and special files, broken pipes, bad numbers, negative measure literals, non-UTF-8
definitions, non-run files in a runs folder, and `datasets seed` with the wrong file."""

from __future__ import annotations

import errno
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import HOSTILE_RUN as RUN
from conftest import fails, hostile_files
from prefeval.commands.cli import main
from prefeval.data import datasets
from prefeval.data.datasets import seeding
from prefeval.errors import PrefevalError

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "pipelines" / "demo.toml"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    return hostile_files(tmp_path, "ab")


# ---------------------------------------------------------------------------------------------------
# files that cannot be read


@pytest.mark.parametrize("error, fragment", [
    (PermissionError(errno.EACCES, "Permission denied"), "Permission denied"),
    (OSError(errno.EIO, "Input/output error"), "Input/output error"),
])
def test_a_file_whose_read_fails_is_named(files, capsys, monkeypatch, error, fragment):
    original = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "qrels.txt":
            raise error
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    err = fails(capsys, "eval", str(files / "qrels.txt"), str(files / "a.run"), "nDCG@10")
    assert f"cannot read qrels file {files / 'qrels.txt'}: {fragment}" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_is_refused_instead_of_hanging(files, capsys):
    fifo = files / "pipe.run"
    os.mkfifo(fifo)
    err = fails(capsys, "eval", str(files / "qrels.txt"), str(fifo), "nDCG@10")
    assert "not a regular file" in err and str(fifo) in err


def test_an_os_error_anywhere_is_one_line(files, capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", "secret.toml")

    secret = files / "secret.toml"
    secret.write_text("")
    monkeypatch.setattr("prefeval.pipeline.runner.load", refuse)
    err = fails(capsys, "run", str(secret))
    assert err == "prefeval run: error: secret.toml: Permission denied\n"


def test_a_non_utf8_pipeline_file(tmp_path, capsys):
    path = tmp_path / "latin1.toml"
    path.write_bytes('[pipeline]\nname = "caf\u00e9"\n'.encode("latin-1"))
    err = fails(capsys, "run", str(path), "--check")
    assert str(path) in err and "not UTF-8" in err


def test_an_error_echoing_a_huge_line_stays_one_short_line(files, capsys):
    (files / "bad.qrels").write_text("x" * 100_000 + "\n")
    err = fails(capsys, "eval", str(files / "bad.qrels"), str(files / "a.run"), "nDCG@10")
    assert err.count("\n") == 1 and len(err) < 400


# ---------------------------------------------------------------------------------------------------
# numbers and measures


@pytest.mark.parametrize("measure", ["RBU(e=-1)", "RBU@-1", "RBU(p=-0.5)@10"])
def test_negative_literals_in_measures(files, capsys, measure):
    err = fails(capsys, "eval", str(files / "qrels.txt"), str(files / "a.run"), measure)
    assert "negative number" in err and measure in err and "values must be" not in err
    err = fails(capsys, "compare", str(files / "qrels.txt"), str(files / "a.run"), str(files / "b.run"),
                "-m", measure, "-q")
    assert "negative number" in err and "values must be" not in err
    err = fails(capsys, "run", str(DEMO), "--check", "--set", f"evaluate.measures=[\"{measure}\"]")
    assert "evaluate.measures" in err and "negative number" in err


def test_permutation_test_with_zero_resamples(files, capsys):
    err = fails(capsys, "compare", str(files / "qrels.txt"), str(files / "a.run"), str(files / "b.run"),
                "-m", "LexiRecall", "--test", "permutation", "--resamples", "0", "-q")
    assert "--resamples must be at least 1" in err


def test_analyse_with_zero_resamples(files, capsys):
    err = fails(capsys, "analyse", str(files / "qrels.txt"), str(files / "a.run"), str(files / "b.run"),
                "-m", "LexiRecall", "--resamples", "0")
    assert "--resamples must be at least 1" in err


def test_an_unexpected_exception_is_one_line_unless_asked(files, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(sys.modules["prefeval.data.collection"], "qrels_table", broken)  # the module, not the function
    assert main(["eval", str(files / "qrels.txt"), str(files / "a.run"), "nDCG@10"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("prefeval eval: error: unexpected RuntimeError: boom") and err.count("\n") == 1, err
    assert "PREFEVAL_TRACEBACK=1" in err and "Traceback" not in err
    monkeypatch.setenv("PREFEVAL_TRACEBACK", "1")
    with pytest.raises(RuntimeError, match="boom"):
        main(["eval", str(files / "qrels.txt"), str(files / "a.run"), "nDCG@10"])


def test_digits_and_places_are_bounded(files, capsys):
    err = fails(capsys, "eval", str(files / "qrels.txt"), str(files / "a.run"), "nDCG@10", "--places", "100000")
    assert "--places" in err
    err = fails(capsys, "run", str(DEMO), "--check", "--set", "report.digits=100000")
    assert "report.digits" in err and "0 to 15" in err


# ---------------------------------------------------------------------------------------------------
# eval explains what it prints


def test_eval_explains_nan_and_warns_about_disjoint_queries(files, capsys):
    (files / "none.qrels").write_text("1 0 d1 0\n1 0 d2 0\n")
    code = main(["eval", str(files / "none.qrels"), str(files / "a.run"), "RBU@10"])
    captured = capsys.readouterr()
    assert code == 0 and captured.out == "RBU@10\t0.0000\n"  # every judged query counts (README, Input semantics)
    assert "prefeval eval: warning: RBU@10 is 0.0: no query has a relevant document (grade >= 1)" in captured.err
    (files / "other.run").write_text("9 Q0 d1 1 1.0 x\n")
    code = main(["eval", str(files / "qrels.txt"), str(files / "other.run"), "nDCG@10"])
    captured = capsys.readouterr()
    assert code == 0 and "warning: run" in captured.err and "shares no query id with the qrels" in captured.err
    code = main(["eval", str(files / "qrels.txt"), str(files / "a.run"), "nDCG@10"])
    assert code == 0 and capsys.readouterr().err == ""


@pytest.mark.integration  # the command in a shell pipeline (fresh processes)
def test_broken_pipe_ends_quietly_like_a_unix_tool(tmp_path):
    lines = [f"{q} Q0 d{d} {d} {10 - d}.0 r" for q in range(3000) for d in range(3)]
    (tmp_path / "big.run").write_text("\n".join(lines) + "\n")
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 d1 1\n" for q in range(3000)))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    command = (f"{sys.executable} -m prefeval eval -q {tmp_path / 'qrels.txt'} {tmp_path / 'big.run'} "
               "nDCG@10 RR P@1 | head -n 2")
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.stdout.count("\n") == 2
    assert proc.stderr == ""  # no traceback, no "Exception ignored"
    assert proc.returncode == 141  # as `yes | head` under pipefail: ended by a closed pipe


# ---------------------------------------------------------------------------------------------------
# pipelines


def test_a_readme_in_a_runs_folder_fails_the_check(files, capsys):
    runs = files / "runs"
    runs.mkdir()
    (runs / "a.run").write_text(RUN)
    (runs / "README.txt").write_text("These are the runs of our 2024 submission.\n")
    definition = files / "p.toml"
    definition.write_text('[qrels]\nsource = "qrels.txt"\n[runs]\npaths = ["runs"]\n[evaluate]\nmeasures = ["RR"]\n')
    err = fails(capsys, "run", str(definition), "--check")
    assert "runs.paths[0]" in err and "README.txt is not a TREC run file" in err and "runs.exclude" in err
    definition.write_text(definition.read_text().replace('paths = ["runs"]', 'paths = ["runs"]\nexclude = ["README*"]'))
    assert main(["run", str(definition), "--check"]) == 0


# ---------------------------------------------------------------------------------------------------
# datasets seed


@pytest.fixture
def seed_target(tmp_path, monkeypatch) -> Path:
    """`datasets.seed` pointed at one fake qrels file whose recorded md5 is that of b"good\\n"."""
    target = tmp_path / "home" / "qrels"
    target.parent.mkdir()
    target.write_bytes(b"good\n")
    needed = datasets.NeededFile("qrels", target, md5=hashlib.md5(b"good\n").hexdigest())  # noqa: S324
    monkeypatch.setattr(seeding, "needed_files", lambda key, *a, **k: [needed])
    monkeypatch.setattr(datasets, "normalise_id", lambda x: x)
    return target


def test_seed_refuses_an_md5_mismatch_unless_forced(seed_target, tmp_path, capsys):
    wrong = tmp_path / "wrong.qrels"
    wrong.write_bytes(b"wrong\n")
    with pytest.raises(PrefevalError, match="not seeded.*--force"):
        datasets.seed("x/y", wrong)
    assert seed_target.read_bytes() == b"good\n"
    err = fails(capsys, "datasets", "seed", "x/y", str(wrong))
    assert "differs from" in err and "--force" in err
    assert seed_target.read_bytes() == b"good\n"
    assert main(["datasets", "seed", "x/y", str(wrong), "--force"]) == 0
    assert "warning:" in capsys.readouterr().out
    assert seed_target.read_bytes() == b"wrong\n"
    assert sorted(p.name for p in seed_target.parent.iterdir()) == ["qrels"]


def test_seed_never_leaves_a_half_written_file(seed_target, tmp_path, monkeypatch):
    good = tmp_path / "good.qrels"
    good.write_bytes(b"good\n")

    def interrupted_copy(src, dst, length=0):
        dst.write(src.read(2))
        raise KeyboardInterrupt

    seed_target.write_bytes(b"old but complete\n")
    monkeypatch.setattr(seeding.shutil, "copyfileobj", interrupted_copy)
    with pytest.raises(KeyboardInterrupt):
        datasets.seed("x/y", good)
    assert seed_target.read_bytes() == b"old but complete\n"
    assert sorted(p.name for p in seed_target.parent.iterdir()) == ["qrels"]
