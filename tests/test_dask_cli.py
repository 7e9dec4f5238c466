"""`--engine dask` on `prefeval compare` and `prefeval eval`: the same output as in-process; bad engine options
are one-line errors."""

from __future__ import annotations

import contextlib

import pytest

from prefeval.commands.cli import main
from prefeval.data import simulate
from prefeval.data.trec_writer import write_qrels, write_run

pytest.importorskip("pyarrow")  # the dask extra installs pyarrow (dask.dataframe needs it)


@pytest.fixture(scope="module")
def dask():
    """Skips without distributed; imported by the tests on a cluster only (the option checks do not need it)."""
    pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    sim = simulate.collection(n_queries=40, n_runs=3, depth=10, n_docs=20, judged_depth=5, seed=8)
    write_qrels(sim.qrels, folder / "qrels.txt")
    runs = []
    for name, run in sim.runs.items():
        write_run(run, folder / f"{name}.run", tag=name)
        runs.append(str(folder / f"{name}.run"))
    return str(folder / "qrels.txt"), runs


def cli(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.integration
def test_compare_and_eval_on_dask_print_what_in_process_prints(dask, files, capsys):
    qrels, runs = files
    args = ["compare", qrels, *runs, "-m", "LexiRecall", "RPP", "nDCG@10", "--format", "csv", "-q",
            "--aggregate", "borda"]
    code, expected, _ = cli(capsys, *args)
    assert code == 0
    code, got, _ = cli(capsys, *args, "--engine", "dask", "--workers", "2")
    assert code == 0 and got == expected
    args = ["eval", qrels, runs[0], "nDCG@10", "AP", "RBU@20", "-q"]
    code, expected, _ = cli(capsys, *args)
    code2, got, _ = cli(capsys, *args, "--engine", "dask", "--workers", "1")
    assert code == code2 == 0 and sorted(got.splitlines()) == sorted(expected.splitlines())


@pytest.mark.parametrize("extra, message", [
    (["--workers", "2"], "--scheduler and --workers need --engine dask"),
    (["--engine", "dask", "--scheduler", "tcp://127.0.0.1:9", "--workers", "2"], "with --scheduler the cluster has its own workers"),
])
def test_engine_option_errors(files, capsys, extra, message):
    qrels, runs = files
    code, _, err = cli(capsys, "compare", qrels, *runs, "-m", "LexiRecall", "-q", *extra)
    assert code == 1 and message in err and err.startswith("prefeval compare: error:")


@pytest.mark.integration
def test_unreachable_scheduler_is_a_one_line_error(dask, files, capsys):
    qrels, runs = files
    code, _, err = cli(capsys, "eval", qrels, runs[0], "nDCG@10", "--engine", "dask", "--scheduler",
                       "tcp://127.0.0.1:9")
    assert code == 1 and "cannot reach the Dask scheduler 'tcp://127.0.0.1:9'" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.integration
def test_a_local_cluster_has_no_dashboard_and_no_port_warning(dask, files, capsys):
    """The local cluster's scheduler serves no dashboard and takes a free port for its HTTP routes: with port 8787
    (the dashboard's default) in use, one run's eval prints its values and no warning."""
    import socket

    qrels, runs = files
    with socket.socket() as taken:
        try:
            taken.bind(("127.0.0.1", 8787))
            taken.listen()
        except OSError:
            pass  # in use already
        code, out, err = cli(capsys, "eval", qrels, runs[0], "nDCG@10", "--engine", "dask", "--workers", "1")
    assert code == 0 and out.startswith("nDCG@10\t") and err == "", err


#: a script that runs `prefeval eval --engine dask` whose worker processes take 30 seconds to start: each says when
#: it starts (as a preload of dask's workers)
STARTING = """
import sys
import dask

SLOW = '''
import sys, time


def dask_setup(worker):
    print("worker starting", file=sys.stderr, flush=True)
    time.sleep(30)
'''
if __name__ == "__main__":
    from prefeval.commands.cli import main

    dask.config.set({"distributed.worker.preload": [SLOW]})
    sys.exit(main(sys.argv[1:]))
"""

#: a script that runs `prefeval eval --engine dask` and says when its cluster runs, then waits
RUNNING = """
import contextlib, sys, time
from prefeval.engine import dask_engine

opened = dask_engine.cluster


@contextlib.contextmanager
def running(*args, **kwargs):
    with opened(*args, **kwargs) as client:
        print("cluster running", file=sys.stderr, flush=True)
        time.sleep(30)
        yield client


dask_engine.cluster = running
if __name__ == "__main__":
    from prefeval.commands.cli import main

    sys.exit(main(sys.argv[1:]))
"""


def _interrupted(files, tmp_path, script: str, when: str, workers: int) -> tuple[float, str]:
    """Run ``script`` (the command `prefeval eval --engine dask` on ``workers`` workers) in a new process group, send the
    group SIGINT (Ctrl-C in a terminal signals every process of its group) once the script prints ``when``; the
    seconds from the signal to the command's end and its standard error. The command must end with code 130, print
    nothing on standard output, and leave no process of its group (no worker) running."""
    import os
    import signal
    import subprocess
    import sys
    import time

    qrels, runs = files
    path = tmp_path / "interrupted.py"
    path.write_text(script)
    proc = subprocess.Popen([sys.executable, str(path), "eval", qrels, runs[0], "nDCG@10", "--engine", "dask",
                             "--workers", str(workers)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509
    try:
        for line in proc.stderr:  # the script's lines before ``when``
            if line == when:
                break
        else:
            raise AssertionError(f"the command ended before {when!r}")
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        took = time.monotonic() - sent
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the workers end with their parent
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("worker processes outlived the interrupted command")
    finally:
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130 and out == "", err
    return took, err


@pytest.mark.integration
@pytest.mark.skipif(not hasattr(__import__("os"), "killpg"), reason="POSIX process groups")
def test_ctrl_c_while_the_cluster_starts_stops_the_command(dask, files, tmp_path):
    """Ctrl-C while the local cluster starts (its worker process runs a preload that takes 30 seconds) stops the
    command at once with its one "interrupted" line: the worker process, spawned with SIGINT ignored, prints
    nothing, and ends."""
    took, err = _interrupted(files, tmp_path, STARTING, "worker starting\n", 1)
    assert err == "prefeval eval: interrupted\n" and took < 20, (took, err)


@pytest.mark.integration
@pytest.mark.skipif(not hasattr(__import__("os"), "killpg"), reason="POSIX process groups")
def test_ctrl_c_while_the_cluster_runs_stops_the_command(dask, files, tmp_path):
    """Once the cluster runs, Ctrl-C closes it and the command prints its one "interrupted" line."""
    took, err = _interrupted(files, tmp_path, RUNNING, "cluster running\n", 2)
    assert err == "prefeval eval: interrupted\n" and took < 20, (took, err)
