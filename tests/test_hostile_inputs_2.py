"""Hostile inputs, second corpus: parameters whose cost is bounded before the work, pipeline output that never
loses another run's work or leaves files behind, errors that are one short line, validation at ``--check``.

Every case gets one ``prefeval CMD: error: ...`` line naming the parameter (or a bounded run, or the documented
result), never a traceback, a hang or an unbounded allocation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import fails, hostile_files
from prefeval.commands.cli import main
from prefeval.core import aggregate, stats
from prefeval.errors import PrefevalError


@pytest.fixture
def files(tmp_path: Path) -> Path:
    return hostile_files(tmp_path, "abc")


def runs(files: Path) -> list[str]:
    return [str(files / "qrels.txt"), *(str(files / f"{n}.run") for n in "abc")]


# ---------------------------------------------------------------------------------------------------
# bounds and cost estimates, checked before the work


@pytest.mark.parametrize("options, fragment", [
    (["--aggregate", "mc4", "--iterations", str(10**12)], "--iterations="),
    (["--aggregate", "mc4", "--iterations", "-1"], "--iterations must be a non-negative integer"),
    (["--test", "permutation", "--seed", "-1"], "--seed must be a non-negative integer"),
    (["--test", "permutation", "--resamples", str(10**12)], "--resamples must be an integer between 1 and"),
    (["--test", "randomized_tukey_hsd", "--resamples", str(10**12)], "--resamples must be an integer between 1"),
])
def test_compare_bounds_are_checked_before_reading_the_runs(files, capsys, monkeypatch, options, fragment):
    import importlib

    def never(*args, **kwargs):
        raise AssertionError("the comparison ran before the bound was checked")

    monkeypatch.setattr(importlib.import_module("prefeval.engine.compare"), "compare", never)
    err = fails(capsys, "compare", *runs(files), "-m", "LexiRecall", "-q", *options)
    assert fragment in err


def test_stats_functions_bound_their_resamples_and_seed():
    X = np.random.default_rng(0).normal(size=(3, 40))
    with pytest.raises(PrefevalError, match="n_resamples must be an integer between 1 and"):
        stats.permutation_test(X, n_resamples=10**12)
    with pytest.raises(PrefevalError, match="n_resamples must be an integer"):
        stats.permutation_test(X, n_resamples=0)
    with pytest.raises(PrefevalError, match="seed must be a non-negative integer; got -1"):
        stats.permutation_test(X, seed=-1)
    with pytest.raises(PrefevalError, match="n_resamples must be an integer between 1 and"):
        stats.randomized_tukey_hsd(X.T, n_resamples=10**12)
    with pytest.raises(PrefevalError, match="seed must be a non-negative integer"):
        stats.randomized_tukey_hsd(X.T, seed=-3)
    # the work estimate: below the absolute cap, still too much for these many queries and pairs
    big = np.zeros((10_000, 100))
    with pytest.raises(PrefevalError, match=r"too many for the permutation test on 100 queries and 10,000 pairs"):
        stats.permutation_test(big, n_resamples=stats.MAX_RESAMPLES)
    with pytest.raises(PrefevalError, match=r"too many for the randomized_tukey_hsd test"):
        stats.randomized_tukey_hsd(np.zeros((1000, 100)), n_resamples=stats.MAX_RESAMPLES)


def test_permutation_signs_drawn_block_by_block_are_the_one_draw():
    """The sign vectors are drawn in blocks (memory of one block); the p-values are those of one draw of all."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2, 30)) + 0.1
    full = np.random.default_rng(7).choice(np.array([-1.0, 1.0]), size=(5000, 30))
    observed = np.abs(X.mean(axis=1))
    count = (np.abs(full @ X.T / 30) >= observed - 1e-12 * np.maximum(1.0, observed)).sum(axis=0)
    expected = (count + 1) / (5000 + 1)
    old = stats._BLOCK_ENTRIES
    try:
        stats._BLOCK_ENTRIES = 30 * 7  # blocks of 7 sign vectors
        blocked = stats.permutation_test(X, n_resamples=5000, seed=7).pvalue
    finally:
        stats._BLOCK_ENTRIES = old
    np.testing.assert_array_equal(blocked, expected)
    np.testing.assert_array_equal(stats.permutation_test(X, n_resamples=5000, seed=7).pvalue, expected)


def test_mc4_fixed_steps_are_bounded_by_a_cost_estimate():
    W = np.random.default_rng(0).random((5, 4))
    for iterations in (10**12, aggregate.max_iterations(4) + 1):
        with pytest.raises(PrefevalError, match="too many MC4 steps for 4 systems"):
            aggregate.mc4(W, iterations=iterations)
    for bad in (-1, 2.5, True):
        with pytest.raises(PrefevalError, match="iterations must be a non-negative integer"):
            aggregate.mc4(W, iterations=bad)
    assert aggregate.max_iterations(10) >= 10_000 and aggregate.max_iterations(10_000) >= 10
    aggregate.mc4(W, iterations=10)  # the authors' setting stays allowed


def test_mc4_iterations_in_a_pipeline_fail_at_check(tmp_path, capsys):
    definition = tmp_path / "p.toml"
    definition.write_text('[simulate]\nn_runs = 3\nn_queries = 5\n[compare]\nmethods = ["LexiRecall"]\n'
                          '[aggregate]\nrankings = ["mc4"]\niterations = 1000000000000\n')
    err = fails(capsys, "run", str(definition), "--check")
    assert "aggregate.iterations" in err and "too many MC4 steps for 3 systems" in err


def test_analyse_samples_and_seed_are_bounded_before_any_evaluation(files, capsys, monkeypatch):
    import prefeval.analysis.suite as suite

    def never(*args, **kwargs):
        raise AssertionError("evaluated before the bound was checked")

    monkeypatch.setattr(suite, "evaluate", never)
    err = fails(capsys, "analyse", *runs(files), "-m", "LexiRecall", "--metrics", "nDCG@10",
                "--samples", str(10**12))
    assert "samples must be an integer between 1 and" in err
    err = fails(capsys, "analyse", *runs(files), "-m", "LexiRecall", "--metrics", "nDCG@10", "--seed", "-1")
    assert "seed must be a non-negative integer" in err
    err = fails(capsys, "analyse", *runs(files), "-m", "LexiRecall", "--metrics", "nDCG@10",
                "--resamples", str(10**12))
    assert "resamples" in err and "between 1 and" in err


@pytest.mark.parametrize("options, key, fragment", [
    ('{samples = "many"}', "analyse.options.samples", "must be an integer"),
    ("{samples = 1000000000000}", "analyse.options.samples", "between 1 and"),
    ("{n_resamples = 1000000000000}", "analyse.options.n_resamples", "between 1 and"),
    ("{seed = -1}", "analyse.options.seed", "non-negative integer"),
    ('{alpha = "x"}', "analyse.options.alpha", "must be a number"),
    ("{fractions = [2.0]}", "analyse.options.fractions", "[0, 1)"),
])
def test_analyse_options_fail_at_check_naming_the_key(tmp_path, capsys, options, key, fragment):
    definition = tmp_path / "p.toml"
    definition.write_text('[simulate]\nn_runs = 3\nn_queries = 5\n[compare]\nmethods = ["LexiRecall"]\n'
                          '[evaluate]\nmeasures = ["nDCG@10"]\n'
                          f'[analyse]\nanalyses = ["robustness", "power"]\noptions = {options}\n')
    err = fails(capsys, "run", str(definition), "--check")
    assert key in err and fragment in err


@pytest.mark.parametrize("key, value, fragment", [
    ("n_queries", 10**12, "n_runs x n_queries x n_docs"),
    ("n_runs", 10**9, "n_runs x n_queries x n_docs"),
    ("max_grade", 10**12, "max_grade must be at most"),
    ("seed", -1, "seed must be a non-negative integer"),
])
def test_simulate_sizes_are_bounded_at_check(tmp_path, capsys, key, value, fragment):
    definition = tmp_path / "p.toml"
    definition.write_text(f'[simulate]\n{key} = {value}\n[compare]\nmethods = ["LexiRecall"]\n')
    err = fails(capsys, "run", str(definition), "--check")
    assert f"simulate.{key}" in err and fragment in err


def test_simulate_bounds_in_the_api():
    from prefeval.data import simulate

    with pytest.raises(PrefevalError, match="n_runs x n_queries x n_docs"):
        simulate.collection(n_queries=10**12)
    with pytest.raises(PrefevalError, match="users_per_partition x n_models x n_candidates"):
        simulate.recsys(users_per_partition=10**9, n_users=10**9)


def test_check_is_linear_in_the_number_of_runs():
    """--check with 100,000 simulated runs took 40 s: each new run name was looked up in the list of names."""
    from prefeval.pipeline.base import Origin, Plan

    class NoScan(list):
        def __contains__(self, item):
            raise AssertionError("a run name was looked up in the list of names (quadratic)")

    plan, origin = Plan(run_names=NoScan()), Origin()
    for i in range(100_000):
        plan.add_run(f"r{i}", origin, None)
    assert len(plan.run_names) == 100_000
    with pytest.raises(PrefevalError, match="'r7' is already defined"):
        plan.add_run("r7", origin, None)
    plan.run_names = ["x"]  # set directly: still checked
    with pytest.raises(PrefevalError, match="'x' is already defined"):
        plan.add_run("x", origin, None)


def test_check_lists_a_bounded_number_of_run_names(tmp_path, capsys):
    definition = tmp_path / "p.toml"
    definition.write_text('[simulate]\nn_runs = 5000\nn_queries = 2\ndepth = 2\nn_docs = 2\n'
                          '[compare]\nmethods = ["LexiRecall"]\n')
    assert main(["run", str(definition), "--check"]) == 0
    out = capsys.readouterr().out
    assert "runs (5000): sim0001, sim0002" in out and "sim5000" in out and "sim2500" not in out


# ---------------------------------------------------------------------------------------------------
# validation at --check, before any step runs


def _pipeline(files: Path, qrels_keys: str = "", compare_keys: str = "", evaluate_keys: str = "") -> Path:
    definition = files / "p.toml"
    definition.write_text(f'[qrels]\nsource = "qrels.txt"\n{qrels_keys}\n[runs]\npaths = ["a.run", "b.run"]\n'
                          f'[compare]\nmethods = ["LexiRecall"]\n{compare_keys}\n'
                          f'[evaluate]\nmeasures = ["nDCG@10"]\n{evaluate_keys}\n')
    return definition


@pytest.mark.parametrize("keys, key", [
    (dict(qrels_keys="rel = 0"), "qrels.rel"),
    (dict(qrels_keys=f"rel = {2**63 - 1}"), "qrels.rel"),
    (dict(compare_keys="rel = 0"), "compare.rel"),
    (dict(evaluate_keys="rel = 1001"), "evaluate.rel"),
])
def test_a_bad_rel_fails_at_check_naming_the_key(files, capsys, keys, key):
    err = fails(capsys, "run", str(_pipeline(files, **keys)), "--check")
    assert f"{key}: rel must be an integer from 1 to 1000" in err


def test_an_empty_query_selection_fails_at_check(files, capsys):
    err = fails(capsys, "run", str(_pipeline(files, qrels_keys="queries = []")), "--check")
    assert "qrels.queries: an empty list selects no query" in err
    (files / "none.txt").write_text("# nothing\n\n")
    err = fails(capsys, "run", str(_pipeline(files, qrels_keys='queries = "none.txt"')), "--check")
    assert "qrels.queries" in err and "lists no query id" in err


@pytest.mark.parametrize("args", [
    ["eval", "{qrels}", "{a}", f"P(rel={2**63 - 1})@1"],
    ["compare", "{qrels}", "{a}", "{b}", "-m", "LexiRecall", "--rel", str(2**63)],
])
def test_a_huge_rel_is_one_line_not_a_crash(files, capsys, args):
    paths = {"qrels": files / "qrels.txt", "a": files / "a.run", "b": files / "b.run"}
    args = [a.format(**paths) for a in args]
    code = main(args)
    err = capsys.readouterr().err
    assert code != 0 and "rel must be an integer from 1 to 1000" in err and "unexpected" not in err, err


def test_rel_bound_in_the_api(files):
    import prefeval

    with pytest.raises(PrefevalError, match="rel must be an integer from 1 to 1000"):
        prefeval.evaluate(str(files / "qrels.txt"), {"a": str(files / "a.run")}, ["nDCG@10"], rel=2**63 - 1)
    with pytest.raises(PrefevalError, match="rel must be an integer from 1 to 1000"):
        prefeval.compare(str(files / "qrels.txt"), {"a": str(files / "a.run"), "b": str(files / "b.run")},
                         ["LexiRecall"], rel=0)


# ---------------------------------------------------------------------------------------------------
# pipeline output: no other run's work lost, nothing left behind


def test_stale_cleanup_matches_this_folder_exactly(tmp_path):
    """`--out 'D/out?'` used to glob `.out?.prefeval-tmp-*` and delete the staging folder of a run writing D/outA."""
    from prefeval.pipeline.output import OutputFolder

    others = [tmp_path / ".outA.prefeval-tmp-abcd1234", tmp_path / ".out?.prefeval-tmp-x.prefeval-tmp-abcd1234",
              tmp_path / ".out?.prefeval-tmp-abcd1234-not-mkdtemp"]
    for other in others:
        other.mkdir()
        (other / "report.md").write_text("another run's work")
    stale = tmp_path / ".out?.prefeval-tmp-zz99yy88"  # left by a killed run writing out?
    stale.mkdir()
    with OutputFolder(tmp_path / "out?") as folder:
        (folder.staging / "report.md").write_text("x")
        folder.commit("p")
    assert all((other / "report.md").is_file() for other in others)
    assert not stale.exists()
    assert (tmp_path / "out?" / "report.md").read_text() == "x"


def test_a_mount_point_is_refused_before_any_work(tmp_path, monkeypatch):
    import os

    from prefeval.pipeline.output import OutputFolder

    out = tmp_path / "mnt"
    out.mkdir()
    monkeypatch.setattr(os.path, "ismount", lambda p: os.fspath(p) == os.fspath(out))
    with pytest.raises(PrefevalError, match="is a mount point.*give a folder inside it"):
        OutputFolder(out).check()
    OutputFolder(out / "report").check()  # a folder inside it is fine


def test_a_mount_point_fails_the_run_before_the_first_step(tmp_path, monkeypatch, capsys):
    import os

    from prefeval.pipeline.sources import Simulate

    out = tmp_path / "mnt"
    out.mkdir()
    monkeypatch.setattr(os.path, "ismount", lambda p: os.fspath(p) == os.fspath(out))

    def never(self, context, progress):
        raise AssertionError("a step ran before the output folder was checked")

    monkeypatch.setattr(Simulate, "run", never)
    definition = tmp_path / "p.toml"
    definition.write_text('[simulate]\nn_runs = 3\nn_queries = 5\n[compare]\nmethods = ["LexiRecall"]\n')
    err = fails(capsys, "run", str(definition), "--out", str(out), "-q")
    assert "is a mount point" in err


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGHUP"), reason="POSIX signals")
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_remove_the_staging_folder_and_the_lock(tmp_path, signame):
    import os
    import signal
    import subprocess
    import sys

    repo = Path(__file__).resolve().parent.parent
    definition = tmp_path / "p.toml"
    definition.write_text('[simulate]\nn_runs = 3\nn_queries = 20\ndepth = 10\nn_docs = 20\n'
                          '[compare]\nmethods = ["LexiRecall"]\n[report]\nformats = ["md"]\n')
    env = {**os.environ, "PYTHONPATH": str(repo / "src"), "PREFEVAL_TEST_POINTS": "1",
           "PREFEVAL_TEST_PAUSE": "step:compare"}
    proc = subprocess.Popen([sys.executable, "-m", "prefeval", "run", str(definition), "--out", "out", "-q"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env, cwd=tmp_path)
    lines = []
    for line in proc.stderr:  # type: ignore[union-attr]
        lines.append(line)
        if line.strip() == "prefeval-test-point step:compare":
            assert any(p.name.startswith(".out.prefeval-") for p in tmp_path.iterdir())  # staging and lock exist
            proc.send_signal(getattr(signal, signame))
            break
    else:
        pytest.fail("the run never reached the compare step: " + "".join(lines)[-2000:])
    proc.communicate(timeout=120)
    assert proc.returncode == -getattr(signal, signame)  # ended by the signal, as without prefeval's handler
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")] == []
    assert not (tmp_path / "out").exists()


def test_seeded_file_has_the_umask_mode_and_a_folder_is_named(tmp_path, monkeypatch, capsys):
    import hashlib
    import os

    from prefeval.data import datasets
    from prefeval.data.datasets import seeding

    target = tmp_path / "home" / "qrels"
    target.parent.mkdir()
    needed = datasets.NeededFile("qrels", target, md5=hashlib.md5(b"good\n").hexdigest())  # noqa: S324
    monkeypatch.setattr(seeding, "needed_files", lambda key, *a, **k: [needed])
    monkeypatch.setattr(datasets, "normalise_id", lambda x: x)
    good = tmp_path / "good.qrels"
    good.write_bytes(b"good\n")
    old = os.umask(0o022)
    try:
        datasets.seed("x/y", good)
    finally:
        os.umask(old)
    assert target.stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600: others sharing IR_DATASETS_HOME read it
    err = fails(capsys, "datasets", "seed", "x/y", str(tmp_path))
    assert "is a folder; give the file to seed" in err


# ---------------------------------------------------------------------------------------------------
# Dask: addresses checked before connecting, peers that are no scheduler, a cluster that fails


@pytest.mark.parametrize("address, fragment", [
    ("localhost", "has no valid port"),
    ("http://127.0.0.1:8787", "is a web address"),
    ("inproc://x", "in-process address"),
    ("", "the address is empty"),
    ("   ", "the address is empty"),
    ("udp://127.0.0.1:1", "unknown protocol 'udp'"),
    ("tcp://127.0.0.1:99999", "has no valid port"),
])
def test_scheduler_addresses_are_checked_before_connecting(files, capsys, address, fragment):
    err = fails(capsys, "compare", *runs(files)[:3], "-m", "LexiRecall", "-q", "--engine", "dask",
                "--scheduler", address)
    assert fragment in err


def test_scheduler_address_check_in_the_api(files):
    import prefeval

    with pytest.raises(PrefevalError, match="in-process address"):
        prefeval.compare(str(files / "qrels.txt"), [str(files / "a.run"), str(files / "b.run")], ["LexiRecall"],
                         engine="dask", scheduler="inproc://x")


def _peer(mode: str):
    """A loopback server that accepts connections and stays silent, or sends bytes that are not Dask's protocol."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            if mode == "garbage":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")

    threading.Thread(target=serve, daemon=True).start()
    return server, held


@pytest.mark.parametrize("mode, fragment", [
    ("silent", "accepted the connection but did not answer within 1 s"),
    ("garbage", "is not a Dask scheduler"),
])
def test_a_peer_that_is_no_scheduler_is_one_line_within_the_timeout(mode, fragment):
    pytest.importorskip("distributed")
    from prefeval.engine import dask_engine

    server, held = _peer(mode)
    try:
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        with pytest.raises(PrefevalError, match=fragment):
            dask_engine.probe_scheduler(address, timeout=1)
    finally:
        server.close()
        for conn in held:
            conn.close()


def test_a_closed_port_is_one_line():
    pytest.importorskip("distributed")
    import socket

    from prefeval.engine import dask_engine

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(PrefevalError, match="cannot reach the Dask scheduler"):
        dask_engine.probe_scheduler(f"tcp://127.0.0.1:{port}", timeout=2)


@pytest.mark.integration  # a LocalCluster of worker processes
def test_workers_killed_mid_run_say_the_cluster_failed():
    distributed = pytest.importorskip("distributed")
    import os
    import warnings

    import prefeval
    from prefeval.data import simulate

    base = simulate.recsys(n_users=40, n_models=3, users_per_partition=20, n_items=200, n_candidates=50,
                           items_per_list=10)

    class Dying:  # a generated collection whose partitions kill the worker process that loads them
        n_partitions, run_names = base.n_partitions, base.run_names

        def partition(self, index):
            os._exit(1)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        with pytest.raises(PrefevalError, match="the Dask cluster failed.*not the input's"):
            prefeval.compare(None, Dying(), ["LexiRecall"], engine="dask", client=client)
        # a task cancelled under the run (a worker or the client gone): the same kind of message, no TypeError
        from prefeval.engine import dask_engine

        future = client.submit(sum, [1], pure=False)
        client.cancel([future])
        error = dask_engine._failure(future, RuntimeError("cancelled"), 3)
        assert isinstance(error, PrefevalError) and "partition 3 was cancelled" in str(error)


@pytest.mark.parametrize("guarded", [False, True])
def test_dask_from_an_unguarded_script_says_what_to_do(tmp_path, guarded, monkeypatch):
    """`engine="dask"` at a script's top level without `if __name__ == "__main__":` is refused before a cluster
    starts (its worker processes would import the script and start clusters of their own)."""
    pytest.importorskip("distributed")
    import runpy
    import sys

    body = "from prefeval.engine.dask_engine import check_main_guard\n"
    call = "check_main_guard()\nSTARTED = True\n"
    script = tmp_path / "script.py"
    script.write_text(body + ("if __name__ == '__main__':\n    " + call.replace("\n", "\n    ") if guarded else call))
    module = type(sys)("__main__")
    module.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", module)
    if guarded:
        namespace = runpy.run_path(str(script), run_name="__main__")
        assert namespace["STARTED"]
    else:
        with pytest.raises(PrefevalError, match=r"script.py \(line 2\) outside `if __name__ == \"__main__\":`"):
            runpy.run_path(str(script), run_name="__main__")


def test_dask_in_a_spawned_worker_importing_the_script_is_refused(monkeypatch):
    pytest.importorskip("distributed")
    import sys

    from prefeval.engine import dask_engine

    module = type(sys)("__mp_main__")
    monkeypatch.setitem(sys.modules, "__main__", module)
    with pytest.raises(PrefevalError, match="worker process imported the script"):
        dask_engine.check_main_guard()


# ---------------------------------------------------------------------------------------------------
# measures that crashed a provider or echoed too much


@pytest.mark.parametrize("measure, fragment", [
    ("nDCG(gains={1:1e308,2:0.5})@2", "gains must map integer grades to integer gains"),
    ("nDCG(gains={1:1,2:4294967296})@2", "gains must map integer grades to integer gains"),
    ("nDCG(rel=2)@10", "nDCG takes no parameter rel"),
    ("LexiRecall(baseline=None)", "baseline must be a run name"),
])
@pytest.mark.parametrize("command", ["eval", "compare"])
def test_measures_that_crashed_a_provider_are_one_line(files, capsys, measure, fragment, command):
    # compare refuses a baseline that names a run (it pairs every run with every other), but checks the parameter's
    # value first, as eval does: baseline=None gets the same message from both
    args = runs(files)[:2] if command == "eval" else runs(files)[:3]
    code = main([command, *args, *([measure] if command == "eval" else ["-m", measure, "-q"])])
    err = capsys.readouterr().err
    assert code == 1 and fragment in err and "unexpected" not in err, err


def test_compare_refuses_a_baseline_that_names_a_run(files, capsys):
    err = fails(capsys, "compare", *runs(files), "-m", "LexiRecall(baseline='a')", "-q")
    assert "pairs every run with every other run; drop the baseline parameter" in err


@pytest.mark.parametrize("measure, fragment", [
    ("nDCG(gains={1:1e308,2:0.5})@2", "gains must map integer grades"),
    ("nDCG(rel=2)@10", "nDCG takes no parameter rel"),
    ("LexiRecall(baseline=None)", "baseline must be a run name"),
])
def test_measures_that_crashed_a_provider_in_the_api(files, measure, fragment):
    import prefeval

    with pytest.raises(PrefevalError, match=fragment):
        prefeval.evaluate(str(files / "qrels.txt"), {"a": str(files / "a.run"), "b": str(files / "b.run")},
                          [measure])
    if "baseline" in measure:
        with pytest.raises(PrefevalError, match=fragment):
            prefeval.LexiRecall(baseline=None)


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_a_huge_measure_name_gives_a_short_error(files, capsys, command):
    name = "x" * 100_000
    args = [*runs(files)[:2], name] if command == "eval" else [*runs(files)[:3], "-m", name]
    code = main([command, *args])
    err = capsys.readouterr().err
    assert code == 1 and "100,000 characters" in err and len(err) < 400, err[:500]


def test_a_measure_needing_a_missing_extra_names_it_everywhere(files, capsys, monkeypatch):
    import ir_measures

    import prefeval

    monkeypatch.setattr(ir_measures.providers.registry["pyndeval"], "_is_available", False)
    hint = "pip install 'prefeval[diversity]'"
    for args in (["eval", *runs(files)[:2], "alpha_nDCG@20"], ["compare", *runs(files)[:3], "-m", "alpha_nDCG@20"]):
        assert main(args) == 1
        err = capsys.readouterr().err
        assert hint in err and "unexpected" not in err, err
    with pytest.raises(PrefevalError, match=r"prefeval\[diversity\]"):
        prefeval.evaluate(str(files / "qrels.txt"), {"a": str(files / "a.run")}, ["alpha_nDCG@20"])
    definition = files / "p.toml"
    definition.write_text('[qrels]\nsource = "qrels.txt"\n[runs]\npaths = ["a.run", "b.run"]\n'
                          '[evaluate]\nmeasures = ["alpha_nDCG@20"]\n')
    err = fails(capsys, "run", str(definition), "--check")  # not "valid"
    assert "evaluate.measures[0]" in err and hint in err


@pytest.mark.integration  # fresh processes
@pytest.mark.parametrize("command", [["eval", "{q}", "{a}", "nDCG@10"], ["pipelines"],
                                     ["compare", "{q}", "{a}", "{b}", "-m", "LexiRecall", "-q"]])
def test_a_closed_stdout_is_one_error_line(files, command):
    """Started with standard output closed (`>&-`), the command's output is lost: one error line and exit code 1,
    as `cat FILE >&-` fails (not a traceback, not a silent exit 0)."""
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parent.parent
    args = [a.format(q=files / "qrels.txt", a=files / "a.run", b=files / "b.run") for a in command]
    env = {**os.environ, "PYTHONPATH": str(repo / "src")}
    done = subprocess.run([sys.executable, "-m", "prefeval", *args], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=120,
                          preexec_fn=lambda: os.close(1))  # noqa: PLW1509 - the child starts with stdout closed
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"prefeval {command[0]}: error: standard output is closed: "), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def test_qrels_behind_a_folder_without_permission_are_named(files, capsys, monkeypatch):
    import os

    import prefeval

    hidden = files / "locked" / "qrels.txt"
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        if os.fspath(path) == str(hidden):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    err = fails(capsys, "eval", str(hidden), str(files / "a.run"), "nDCG@10")
    assert f"cannot read qrels {str(hidden)!r}: permission denied" in err and "ir_datasets" not in err
    with pytest.raises(PrefevalError, match="permission denied"):
        prefeval.evaluate(str(hidden), {"a": str(files / "a.run")}, ["nDCG@10"])


@pytest.mark.parametrize("exit_with", ["3", "'bye'", ""])
def test_a_callable_calling_sys_exit_is_a_run_error_naming_the_step(tmp_path, capsys, monkeypatch, exit_with):
    import sys

    (tmp_path / "leaving.py").write_text(f"import sys\n\ndef analysis(context, **options):\n    sys.exit({exit_with})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "leaving", raising=False)
    definition = tmp_path / "p.toml"
    definition.write_text('[simulate]\nn_runs = 3\nn_queries = 5\n[compare]\nmethods = ["LexiRecall"]\n'
                          '[analyse]\ncallables = ["leaving:analysis"]\n')
    err = fails(capsys, "run", str(definition), "--out", str(tmp_path / "out"), "-q")
    assert "[analyse] a callable of this step called sys.exit(" in err
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")] == []


# ---------------------------------------------------------------------------------------------------
# ecosystem edges


def test_a_list_of_named_ranx_runs_is_accepted(files):
    ranx = pytest.importorskip("ranx")
    import prefeval

    a = ranx.Run.from_file(str(files / "a.run"), kind="trec")
    a.name = "a"
    b = ranx.Run.from_file(str(files / "b.run"), kind="trec")
    b.name = "b"
    qrels = str(files / "qrels.txt")
    by_list = prefeval.compare(qrels, [a, b], ["LexiRecall", "nDCG@10"])
    by_path = prefeval.compare(qrels, [str(files / "a.run"), str(files / "b.run")], ["LexiRecall", "nDCG@10"])
    assert by_list.runs == ["a", "b"]
    assert by_list.summary().equals(by_path.summary())
    table = prefeval.evaluate(qrels, [a, b], ["nDCG@10"])
    assert list(table["run"]) == ["a", "b"]
    with pytest.raises(PrefevalError, match="needs its name"):
        prefeval.evaluate(qrels, [a, ranx.Run({"1": {"d1": 1.0}})], ["nDCG@10"])
    with pytest.raises(PrefevalError, match="file paths or named ranx Runs"):
        prefeval.evaluate(qrels, [a, {"1": {"d1": 1.0}}], ["nDCG@10"])


def test_experiment_does_not_warn_when_the_baseline_is_named_by_its_path(files, monkeypatch):
    import sys
    import warnings

    import pandas as pd

    import prefeval
    from prefeval.integrations.interop import experiment

    fake = type(sys)("pyterrier")
    fake.Experiment = lambda systems, topics, qrels, measures, names=None, baseline=None, **kw: pd.DataFrame()
    monkeypatch.setitem(sys.modules, "pyterrier", fake)
    topics = pd.DataFrame({"qid": ["1"], "query": ["x"]})
    qrels = str(files / "qrels.txt")
    path = str(files / "a.run")
    systems = [path, str(files / "b.run")]
    for measure, names, base in [(prefeval.LexiRecall(baseline=path), ["a", "b"], "a"),
                                 (prefeval.LexiRecall(baseline=path), ["first", "second"], 0),
                                 (prefeval.LexiRecall(baseline="a"), ["a", "b"], 0)]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            experiment(systems, topics, qrels, [measure], names=names, baseline=base)
    with pytest.warns(UserWarning, match="the Experiment's baseline is 'b'"):
        experiment(systems, topics, qrels, [prefeval.LexiRecall(baseline=path)], names=["a", "b"], baseline="b")


def test_offline_topics_say_a_topics_file_solves_it(tmp_path, monkeypatch):
    from prefeval.errors import DatasetUnavailable
    from prefeval.pipeline import sources

    def unavailable(dataset_id):
        raise DatasetUnavailable(f"ir_datasets cannot get the queries of {dataset_id}: ... and PREFEVAL_OFFLINE is set.")

    monkeypatch.setattr(sources, "load", unavailable)
    step = sources.Qrels("msmarco-passage/trec-dl-2019/judged")
    with pytest.raises(DatasetUnavailable, match=r"PREFEVAL_OFFLINE is set; or give the topics as a file .*"
                                                 r"qrels\.topics = \"topics\.tsv\""):
        step._load_topics(None)


def test_seeding_a_plain_topics_file_goes_to_the_plain_cache_not_the_archive(tmp_path, monkeypatch, capsys):
    """`datasets seed ID topics.tsv --entity queries`: the md5 ir_datasets records is the .gz archive's; a plain file
    goes where ir_datasets keeps the text it extracts (no md5 there), instead of being refused."""
    from prefeval.data import datasets
    from prefeval.data.datasets import seeding
    from prefeval.data.datasets.files import NeededFile

    home = tmp_path / "home"
    cache = NeededFile("queries", home / "2019" / "queries.tsv", derived=True)
    archive = NeededFile("queries", home / "2019" / "queries.tsv.gz", md5="eda71eccbe4d251af83150abe065368c",
                         urls=["https://example.org/msmarco-test2019-queries.tsv.gz"])
    monkeypatch.setattr(seeding, "needed_files", lambda key, *a, **k: [cache, archive])
    monkeypatch.setattr(datasets, "normalise_id", lambda x: x)
    topics = tmp_path / "topics.tsv"
    topics.write_text("1\twhat is x\n")
    assert main(["datasets", "seed", "x/y", str(topics), "--entity", "queries"]) == 0
    assert cache.path.read_text() == "1\twhat is x\n" and not archive.path.exists()
    # only the archive can hold them: refused with what to do (the archive, or --force: compressed in its place)
    monkeypatch.setattr(seeding, "needed_files", lambda key, *a, **k: [archive])
    err = fails(capsys, "datasets", "seed", "x/y", str(topics), "--entity", "queries")
    assert "is a plain file" in err and "--force" in err
    assert main(["datasets", "seed", "x/y", str(topics), "--entity", "queries", "--force"]) == 0
    import gzip

    assert gzip.decompress(archive.path.read_bytes()) == b"1\twhat is x\n"


# ---------------------------------------------------------------------------------------------------
# trec_eval habits: counts over every judged query (trec_eval -c), rel under evaluate(rel=...)


def _trec_run(path: Path):
    """A TREC run file read by the test itself (trec_eval's results.trunc has extra trailing fields)."""
    import pandas as pd

    rows = [line.split()[:6] for line in path.read_text().splitlines() if line.strip()]
    return pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
                         "score": [float(r[4]) for r in rows]})


def test_counts_of_a_query_missing_from_the_run_match_trec_eval_c(shared_data):
    """results.trunc retrieves nothing for the judged query 302: trec_eval -c counts it (out.test.aqc)."""
    import prefeval

    folder = shared_data / "trec_eval"
    expected = {}
    for line in (folder / "out.test.aqc").read_text().splitlines():
        name, query, value = (line.split() + [""])[:3]
        if name in ("num_q", "num_rel", "num_ret", "num_rel_ret", "map"):
            expected[name, query] = float(value)
    run = _trec_run(folder / "results.trunc")
    names = {"NumQ": "num_q", "NumRel": "num_rel", "NumRet": "num_ret", "NumRelRet": "num_rel_ret", "AP": "map"}
    with pytest.warns(UserWarning, match="covers 2 of the 3 judged queries"):
        table = prefeval.evaluate(str(folder / "qrels.test"), {"r": run}, list(names), per_query=True)
    got = {(row.given, row.query_id): row.value for row in table.itertuples()}
    for ours, theirs in names.items():
        for query in ("301", "302", "303"):
            if (theirs, query) in expected:
                assert got[ours, query] == pytest.approx(expected[theirs, query], abs=1e-4), (ours, query)
    means = prefeval.evaluate(str(folder / "qrels.test"), {"r": run}, list(names)).set_index("given")["value"]
    assert means["NumQ"] == expected["num_q", "all"] == 3
    assert means["NumRel"] == expected["num_rel", "all"] == 561  # with query 302's 77
    assert means["NumRet"] == expected["num_ret", "all"] and means["NumRelRet"] == expected["num_rel_ret", "all"]


def test_counts_under_a_relevance_threshold_are_consistent(tmp_path):
    import prefeval

    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 3\n1 0 b 2\n1 0 c 1\n1 0 d 0\n2 0 e 2\n2 0 f 1\n3 0 g 1\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 4 r\n1 Q0 c 2 3 r\n1 Q0 d 3 2 r\n1 Q0 x 4 1 r\n2 Q0 f 1 1 r\n")
    with pytest.warns(UserWarning, match="covers 2 of the 3"):
        table = prefeval.evaluate(str(qrels), [str(run)], ["NumQ", "NumRel", "NumRet", "NumRelRet"], rel=2,
                                  per_query=True)
    value = {(row.given, row.query_id): row.value for row in table.itertuples()}
    assert [value["NumQ", q] for q in "123"] == [1, 1, 1]
    assert [value["NumRel", q] for q in "123"] == [2, 1, 0]  # grade >= 2, the missing query 3 included
    assert [value["NumRet", q] for q in "123"] == [4, 1, 0]  # every retrieved document
    assert [value["NumRelRet", q] for q in "123"] == [1, 0, 0]  # retrieved with grade >= 2
    assert set(table.loc[table["given"] == "NumRelRet", "measure"]) == {"NumRet(rel=2)"}
    assert set(table.loc[table["given"] == "NumRel", "measure"]) == {"NumRel(rel=2)"}
    explicit = prefeval.evaluate(str(qrels), [str(run)], ["NumRel(rel=2)", "NumRet(rel=1)", "NumRel"])
    assert list(explicit["value"]) == [3, 3, 6]  # explicit parameters are kept; NumRel(rel=2) does not fail


def test_a_pipeline_scheduler_address_is_checked_at_check(tmp_path, capsys):
    definition = tmp_path / "p.toml"
    definition.write_text('[simulate]\nn_runs = 3\nn_queries = 5\n[compare]\nmethods = ["LexiRecall"]\n'
                          'engine = "dask"\nscheduler = "http://127.0.0.1:8787"\n')
    err = fails(capsys, "run", str(definition), "--check")
    assert "compare.scheduler" in err and "is a web address" in err


def test_any_error_message_is_cut_to_a_bounded_length(files, capsys, monkeypatch):
    import prefeval.commands.eval_cmd as eval_cmd

    def huge(args):
        raise PrefevalError("x" * 100_000)

    monkeypatch.setattr(eval_cmd, "run", huge)
    assert main(["eval", *runs(files)[:2], "nDCG@10"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 2100 and err.rstrip().endswith("(98,000 more characters)"), err[-200:]


def test_tie_probabilities_and_random_rankings_are_bounded():
    from prefeval.analysis import random_rankings
    from prefeval.analysis.closed_forms import tie_probability

    with pytest.raises(PrefevalError, match="n=1,000,000,000,000 is more than"):
        tie_probability("TSE", 10**12, 10)
    with pytest.raises(PrefevalError, match="handle exactly"):
        tie_probability("RR", 10**8, 10, exact=True)
    assert 0 < tie_probability("TSE", 10**4, 10) < 1
    with pytest.raises(PrefevalError, match="positions at once"):
        random_rankings.simulated_tie_probability("TSE", 10**6, 50, samples=10**7)
    with pytest.raises(PrefevalError, match="n_queries must be an integer between 1 and"):
        random_rankings.worst_case_agreement(ns=(1000,), n_queries=10**9)
    with pytest.raises(PrefevalError, match="positions at once"):
        random_rankings.simulated_tie_probability("TSE", 10**6, 50, samples=10**9)


def test_analyse_tie_probability_options_fail_before_the_work(tmp_path, capsys):
    definition = tmp_path / "p.toml"
    definition.write_text('[simulate]\nn_runs = 3\nn_queries = 5\n[compare]\nmethods = ["LexiRecall"]\n'
                          '[analyse]\nanalyses = ["tie_probability"]\noptions = {n = "big"}\n')
    err = fails(capsys, "run", str(definition), "--check")
    assert "analyse.options.n" in err and "must be an integer" in err


@pytest.mark.parametrize("options, fragment", [
    (["--cases", str(10**12)], "cases must be an integer from 1 to 100,000"),
    (["--bound", str(10**12)], "bound must be an integer from 1 to 100,000"),
    (["--seed", "-1"], "seed must be a non-negative integer"),
    (["--balance", str(10**12)], "run length n must be an integer from 1 to 1,000"),
])
def test_axioms_parameters_are_bounded(capsys, options, fragment):
    err = fails(capsys, "axioms", "nDCG@10", *options)
    assert fragment in err


def test_too_many_runs_to_compare_fail_before_any_ranking(tmp_path, capsys, monkeypatch):
    import importlib

    import prefeval

    memory = importlib.import_module("prefeval.engine.memory")
    definition = tmp_path / "p.toml"
    definition.write_text('[simulate]\nn_runs = 100000\nn_queries = 2\ndepth = 2\nn_docs = 2\n'
                          '[compare]\nmethods = ["LexiRecall"]\n')
    err = fails(capsys, "run", str(definition), "--check")
    assert "compare.methods: 100,000 runs make 4,999,950,000 pairs" in err and "at most 14,142 runs" in err
    monkeypatch.setattr(memory, "MAX_PAIR_SUMS", 2)  # three runs: three pairs
    run = {"1": {"d": 1.0}}
    with pytest.raises(PrefevalError, match="3 runs make 3 pairs per method"):
        prefeval.compare({"1": {"d": 1}}, {"a": run, "b": run, "c": run}, ["LexiRecall"])
