"""The examples users copy: ``prefeval example``'s collection, every command's ``--help`` example line, and the
shell blocks of README.md and docs/*.md, run in a temporary folder as a user would run them.

Shell blocks (```sh or ```bash) run in order, one temporary folder per page, with ``prefeval`` being this
checkout's code. A block right after ``<!-- no-run: REASON -->`` is only shown (it needs the network, data a user
does not have, or installs packages); ``<!-- run-test: NAME -->`` marks a block run by its own test below.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
BLOCK = re.compile(r"(?:<!-- (no-run|run-test): ?([^>]*?) ?-->\n)?```(?:sh|bash)\n(.*?)```", re.DOTALL)


def shell_blocks(page: Path) -> list[tuple[str | None, str, str]]:
    """``(marker, marker text, code)`` of every shell block of a page; the test-command block counts as
    ``no-run`` (it installs the package and runs this suite)."""
    text = page.read_text(encoding="utf-8").replace("<!-- test-command -->\n",
                                                    "<!-- no-run: the test command itself -->\n")
    return [(m.group(1), m.group(2) or "", m.group(3)) for m in BLOCK.finditer(text)]


def _environment(tmp_path: Path) -> dict[str, str]:
    """``prefeval`` on PATH as this checkout's code, offline, in a clean ir_datasets home."""
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "prefeval"
    script.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m prefeval \"$@\"\n", encoding="utf-8")
    script.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    env["PREFEVAL_OFFLINE"] = "1"
    env["IR_DATASETS_HOME"] = str(tmp_path / ".ir_datasets")
    return env


def _run(code: str, cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


# ---------------------------------------------------------------------------------------------------------
# unit: the example collection and the help texts


def test_write_example_writes_the_documented_files(tmp_path):
    from prefeval.data.simulate import EXAMPLE_PARAMS, EXAMPLE_RUNS, collection, write_example
    from prefeval.data.trec import read_qrels, read_run

    written = write_example(tmp_path / "ex")
    assert list(written) == ["qrels", "topics", *EXAMPLE_RUNS, "pipeline"]
    assert all(path.is_file() and path.parent == tmp_path / "ex" for path in written.values())
    simulated = collection(**EXAMPLE_PARAMS)
    # names follow the simulated quality: bm25 the lowest, monot5 the highest
    for name, simulated_name in zip(EXAMPLE_RUNS, reversed(simulated.true_order)):
        run = read_run(written[name])
        expected = simulated.runs[simulated_name]
        assert run["doc_id"].astype(str).tolist() == expected["doc_id"].astype(str).tolist()
        assert run["score"].tolist() == pytest.approx(expected["score"].tolist())
    qrels = read_qrels(written["qrels"])
    assert len(qrels) == len(simulated.qrels)
    assert qrels["query_id"].nunique() == EXAMPLE_PARAMS["n_queries"]
    assert write_example(tmp_path / "again")["bm25"].read_bytes() == written["bm25"].read_bytes()
    assert write_example(tmp_path / "other", seed=1)["bm25"].read_bytes() != written["bm25"].read_bytes()


def test_example_command_prints_what_it_wrote(tmp_path, capsys, monkeypatch):
    from prefeval.commands.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["example", "ex"]) == 0
    out = capsys.readouterr().out
    assert "SIMULATED" in out
    for name in ("qrels.txt", "topics.tsv", "bm25.run", "monot5.run", "pipeline.toml"):
        assert f"ex/{name}" in out and (tmp_path / "ex" / name).is_file()
    (tmp_path / "file").write_text("x")
    assert main(["example", "file"]) == 1
    assert "prefeval example: error: file: exists and is not a folder" in capsys.readouterr().err


def _help(argv: list[str], capsys) -> str:
    from prefeval.commands.cli import main

    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return capsys.readouterr().out


def test_help_is_written_for_users_with_one_example_per_command(capsys):
    from prefeval.commands.cli import COMMANDS, EXAMPLES

    top = _help([], capsys)
    assert "prefeval.commands" not in top and "subcommand lives" not in top
    assert "prefeval example" in top
    for name in COMMANDS:
        text = _help([name], capsys)
        assert name in EXAMPLES, f"{name} has no example line"
        assert text.rstrip().endswith("example:\n  " + EXAMPLES[name]), text[-300:]
        assert "README" not in text and "prefeval.commands" not in text, name


# ---------------------------------------------------------------------------------------------------------
# integration: the examples run


@pytest.mark.integration
def test_every_help_example_runs(tmp_path):
    from prefeval.commands.cli import COMMANDS, EXAMPLES

    env = _environment(tmp_path)
    assert _run("prefeval example example", tmp_path, env).returncode == 0
    for name, line in EXAMPLES.items():
        if name not in COMMANDS:
            continue
        done = _run(line, tmp_path, env)
        assert done.returncode == 0, f"{name}: {line}\n{done.stderr[-2000:]}"
        assert done.stdout.strip(), name


def _pages_with_blocks() -> list[Path]:
    return [page for page in PAGES if shell_blocks(page)]


@pytest.mark.integration
@pytest.mark.parametrize("page", _pages_with_blocks(), ids=lambda page: str(page.relative_to(REPO)))
def test_shell_examples_run_in_a_fresh_folder(page, tmp_path):
    env = _environment(tmp_path)
    for marker, note, code in shell_blocks(page):
        if marker == "no-run":
            assert note.strip(), f"{page.name}: a no-run block must say why"
            continue
        if marker == "run-test":
            continue
        done = _run(code, tmp_path, env)
        assert done.returncode == 0, f"{page.name}:\n{code}\n{done.stderr[-2000:]}"


@pytest.mark.integration
def test_readme_table_command_example(tmp_path):
    """The README's everyday command (issue 26's multi-run ``prefeval eval`` table)."""
    env = _environment(tmp_path)
    blocks = [code for marker, note, code in shell_blocks(REPO / "README.md")
              if marker == "run-test" and note == "table-command"]
    assert len(blocks) == 1
    done = _run(blocks[0], tmp_path, env)
    assert done.returncode == 0, done.stderr[-2000:]
    for run in ("bm25", "dense", "monot5"):
        assert run in done.stdout
