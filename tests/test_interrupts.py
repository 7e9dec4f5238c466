"""Ctrl-C at any point of `prefeval run pipelines/demo.toml --out DIR` leaves DIR absent/empty or one complete
output (the earlier one, or the new one when the signal came while the folder was being moved into place),
whose manifest matches its files and whose report.md links only to files that exist.

Each case starts a real `prefeval run` process and sends it a real SIGINT. To make the moment deterministic,
the process is run with ``PREFEVAL_TEST_POINTS`` (it prints ``prefeval-test-point NAME`` at named points of
the run) and ``PREFEVAL_TEST_PAUSE=NAME`` (it sleeps at that point); the test sends SIGINT once the point is
reached. "during evaluation" uses no pause: the signal is sent as the evaluation starts, at the demo's full
size, and the test checks the next step was never reached.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from test_outputs import assert_complete

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "pipelines" / "demo.toml"
SMALL = ["--set", "simulate.n_queries=20", "--set", "simulate.n_runs=3", "--set", "simulate.depth=20",
         "--set", "simulate.n_docs=40", "--set", "analyse.analyses=[\"ties\"]",
         "--set", "compare.methods=[\"LexiRecall\", \"RPP\"]"]
#: Without plots (the slowest part of the report); the earlier output and one case have them.
FAST = [*SMALL, "--set", "report.formats=[\"md\", \"csv\", \"json\", \"tex\"]"]


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def prefeval_run(out: Path, *extra: str, pause: str | None = None, interrupt_at: str | None = None,
                 timeout: float = 300) -> tuple[int, str]:
    """Run `prefeval run pipelines/demo.toml --out OUT -q EXTRA`; with ``interrupt_at``, send SIGINT when the
    run reaches that point (pausing there when ``pause``). Returns the exit code and stderr."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "PREFEVAL_TEST_POINTS": "1",
           "PREFEVAL_TEST_PAUSE": pause or ""}
    # SIGINT's default action restored in the child: a test process started with SIGINT ignored (`nohup`, `cmd &`
    # in a script) would pass the ignored signal on, and the child would never see the signal the test sends
    proc = subprocess.Popen([sys.executable, "-m", "prefeval", "run", str(DEMO), "--out", str(out), "-q", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=out.parent,
                            preexec_fn=_default_sigint)  # noqa: PLW1509 - only resets one signal's disposition
    lines = []
    if interrupt_at is not None:
        for line in proc.stderr:  # type: ignore[union-attr]
            lines.append(line)
            if line.strip() == f"prefeval-test-point {interrupt_at}":
                proc.send_signal(signal.SIGINT)
                break
        else:
            pytest.fail(f"the run never reached {interrupt_at}: {''.join(lines)[-2000:]}")
    try:
        _, rest = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return proc.returncode, "".join(lines) + rest


@pytest.fixture(scope="module")
def earlier_output(tmp_path_factory) -> Path:
    """A complete output of the small demo (seed 42, png plots included)."""
    out = tmp_path_factory.mktemp("earlier") / "out"
    code, err = prefeval_run(out, *SMALL)
    assert code == 0, err[-3000:]
    assert_complete(out)
    return out


def manifest_of(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


# (point, pause there?, extra settings of the interrupted run)
CASES = {
    "early, before validation": ("validate", True, FAST),
    "early, first step": ("step:simulate", True, FAST),
    "during evaluation": ("step:evaluate", False, ["--set", "analyse.analyses=[\"ties\"]"]),
    "report: plots written": ("report:text", True, SMALL),
    "report: tables written": ("report:json", True, FAST),
}


@pytest.mark.parametrize("start, case", [
    ("absent", "early, before validation"), ("absent", "during evaluation"),
    ("empty folder", "report: tables written"),
    ("earlier output", "early, first step"), ("earlier output", "during evaluation"),
    ("earlier output", "report: plots written"), ("earlier output", "report: tables written"),
])
def test_sigint_leaves_no_partial_output(tmp_path, earlier_output, start, case):
    point, pause, extra = CASES[case]
    out = tmp_path / "out"
    if start == "empty folder":
        out.mkdir()
    elif start == "earlier output":
        shutil.copytree(earlier_output, out)
    before = manifest_of(out) if start == "earlier output" else None

    code, err = prefeval_run(out, *extra, "--set", "simulate.seed=7", pause=point if pause else None,
                             interrupt_at=point)
    assert code == 130, err[-3000:]
    assert "prefeval run: interrupted" in err and "Traceback" not in err, err[-3000:]
    if point == "step:evaluate":
        assert "prefeval-test-point step:compare" not in err  # the signal came during the evaluation
    if before is None:
        assert not out.exists() or not any(out.iterdir())
    else:
        assert_complete(out)
        assert manifest_of(out) == before  # the earlier output, untouched
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")]
    assert leftovers == []  # no staging folder, no lock file


@pytest.mark.parametrize("start", ["absent", "earlier output"])
def test_sigint_while_the_folder_is_moved_into_place_completes_the_move(tmp_path, earlier_output, start):
    """Ctrl-C is held while the finished output replaces the folder: the run ends with the new output."""
    out = tmp_path / "out"
    if start == "earlier output":
        shutil.copytree(earlier_output, out)
    code, err = prefeval_run(out, *FAST, "--set", "simulate.seed=7", pause="commit:deferred",
                             interrupt_at="commit:deferred")
    assert code == 130 and "Traceback" not in err, err[-3000:]
    assert_complete(out)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["simulate"]["seed"] == 7  # the new output
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")] == []


def test_an_uninterrupted_rerun_replaces_the_earlier_output(tmp_path, earlier_output):
    out = tmp_path / "out"
    shutil.copytree(earlier_output, out)
    (out / "heatmap_Stale.png").write_bytes(b"x")  # not in the manifest: a foreign file
    code, err = prefeval_run(out, *FAST, "--set", "simulate.seed=7")
    assert code == 1 and "heatmap_Stale.png" in err and "--force" in err
    (out / "heatmap_Stale.png").unlink()
    code, err = prefeval_run(out, *FAST, "--set", "simulate.seed=7")
    assert code == 0, err[-3000:]
    assert_complete(out)
    assert manifest_of(out) != manifest_of(earlier_output)
    assert not list(out.glob("*.png"))  # the earlier run's plots are gone: this run made none
