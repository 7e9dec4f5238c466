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
