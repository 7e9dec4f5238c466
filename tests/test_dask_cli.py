"""`--engine dask` on `prefeval compare` and `prefeval eval`: the same output as in-process; bad engine options
are one-line errors."""

from __future__ import annotations

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


#: a script that runs `prefeval eval --engine dask` and says when the cluster's worker processes run (the cluster is
#: still starting: the client is not connected yet) and when the cluster runs, waiting a little at each point
INTERRUPTED = """
import contextlib, sys, time
import distributed
from prefeval.engine import dask_engine

started, opened = distributed.LocalCluster.__init__, dask_engine.cluster


def starting(self, *args, **kwargs):
    started(self, *args, **kwargs)
    print("workers started", file=sys.stderr, flush=True)
    time.sleep(2)


@contextlib.contextmanager
def running(*args, **kwargs):
    with opened(*args, **kwargs) as client:
        print("cluster running", file=sys.stderr, flush=True)
        time.sleep(20)
        yield client


distributed.LocalCluster.__init__, dask_engine.cluster = starting, running
if __name__ == "__main__":
    from prefeval.commands.cli import main

    sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.integration
@pytest.mark.skipif(not hasattr(__import__("os"), "killpg"), reason="POSIX process groups")
def test_ctrl_c_while_the_cluster_starts_and_runs(dask, files, tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while the local cluster starts is ignored
    (the worker processes start with SIGINT ignored, and print nothing); once it runs, Ctrl-C closes it and the
    command prints its one "interrupted" line."""
    import os
    import signal
    import subprocess
    import sys

    qrels, runs = files
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED)
    proc = subprocess.Popen([sys.executable, str(script), "eval", qrels, runs[0], "nDCG@10", "--engine", "dask",
                             "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509
    try:
        assert proc.stderr.readline() == "workers started\n"
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.stderr.readline() == "cluster running\n"  # nothing printed between: the start went on
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and out == "" and err == "prefeval eval: interrupted\n", err
