"""Hostile inputs, second corpus: parameters whose cost is bounded before the work, pipeline output that never
loses another run's work or leaves files behind, errors that are one short line, validation at ``--check``.

Every case gets one ``prefeval CMD: error: ...`` line naming the parameter (or a bounded run, or the documented
result), never a traceback, a hang or an unbounded allocation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from prefeval.cli import main
from prefeval.core import aggregate, stats
from prefeval.errors import PrefevalError

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
    """Run the CLI, expect exit code 1 with one short `prefeval COMMAND: error:` line; return it."""
    code = main([command, *args])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith(f"prefeval {command}: error: "), err
    assert "Traceback" not in err and "unexpected" not in err and "please report" not in err, err
    assert err.count("\n") == 1 and len(err) < 400, err
    return err


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

    monkeypatch.setattr(importlib.import_module("prefeval.compare"), "compare", never)
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
    from prefeval import simulate

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
