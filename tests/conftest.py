"""Shared fixtures and the split of the suite.

Unit tests (the default ``pytest`` run, under a minute) check kernels, formats and entry points on small inputs.
Integration tests (``pytest -m integration``; CI runs both, as the README's test command does) are marked
here or in their module: every test that uses the TREC data in ``../shared/data`` (they skip cleanly without
it), and the end-to-end ones listed in ``END_TO_END`` (whole pipelines, subprocesses, interrupts, the wheel).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# Many tests hand prefeval's measures to ir-measures directly (parse_measure, calc_aggregate): they join ir-measures
# when prefeval.integrations is imported. That rule itself, and prefeval's entry points in fresh interpreters that
# imported nothing else, are tested in test_lazy_imports.py.
import prefeval.integrations  # noqa: F401, E402

if TYPE_CHECKING:
    import pandas as pd

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("PREFEVAL_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder ``../shared/data`` beside the checkout (override with PREFEVAL_SHARED_DATA)."""
    if not (SHARED_DATA / "dl-hard").is_dir():
        pytest.skip("../shared/data is not available")
    return SHARED_DATA


def write_trec_files(folder: Path, qrels: str, orders: dict[str, str], queries: tuple[str, ...],
                     score=lambda rank: 10 - rank) -> tuple[str, list[str]]:
    """A qrels file with the text ``qrels`` and one run file per name of ``orders`` (name -> doc ids in rank order,
    the same for each of ``queries``; score ``score(rank)``) in ``folder``: (qrels path, run paths)."""
    (folder / "q.qrels").write_text(qrels)
    runs = []
    for name, order in orders.items():
        lines = [f"{q} Q0 {d} {i} {score(i)!r} {name}" for q in queries for i, d in enumerate(order.split(), 1)]
        (folder / f"{name}.run").write_text("\n".join(lines) + "\n")
        runs.append(str(folder / f"{name}.run"))
    return str(folder / "q.qrels"), runs


#: end-to-end tests (node id prefixes): a whole pipeline, a fresh Python process or several, the wheel, the docs
END_TO_END = (
    "tests/test_interrupts.py",
    "tests/test_outputs.py",
    "tests/test_pipeline.py::test_demo_at_small_size",
    "tests/test_pipeline.py::test_retrieve_callable_in_python",
    "tests/test_pipeline.py::test_retrieve_step_from_toml",
    "tests/test_input_semantics.py::test_pt_experiment_column_order_does_not_depend_on_the_hash_seed",
    "tests/test_input_semantics.py::test_pyterrier_and_ranx_inputs_are_accepted_everywhere",
    "tests/test_input_semantics.py::test_ranx_conversion_keeps_prefeval_order",  # ranx compiles with numba
    "tests/test_input_semantics.py::test_impossible_parameters_are_errors_not_crashes",
    "tests/test_references.py::test_help_texts_have_no_internal_references",
    "tests/test_axioms.py::test_matrix_agrees_with_table1_except_for_explained_cells",
    "tests/test_unanimity_grid.py::test_diversity_scores_are_the_kernels_values",
    "tests/test_simulate.py::test_quality_order_is_recovered_by_ndcg",
)


#: the small qrels and run the hostile-input tests (tests/test_hostile_inputs*.py) start from
HOSTILE_QRELS = "1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n2 0 d4 1\n2 0 d5 0\n"
HOSTILE_RUN = "1 Q0 d1 1 3.0 a\n1 Q0 d3 2 2.0 a\n2 Q0 d4 1 1.0 a\n"


def write_frames(folder: Path, qrels: pd.DataFrame, runs: dict[str, pd.DataFrame]) -> tuple[str, list[str]]:
    """``qrels`` and each of ``runs`` (frames) written as TREC files in ``folder`` by prefeval's writer: (the qrels
    path, the run paths in ``runs`` order, each named after its run)."""
    from prefeval.data.trec_writer import write_qrels, write_run

    write_qrels(qrels, folder / "q.qrels")
    for name, frame in runs.items():
        write_run(frame, folder / f"{name}.run", tag=name)
    return str(folder / "q.qrels"), [str(folder / f"{name}.run") for name in runs]


def hostile_files(folder: Path, runs: str = "abc") -> Path:
    """``qrels.txt`` (:data:`HOSTILE_QRELS`) and the runs ``a.run`` (:data:`HOSTILE_RUN`), ``b.run`` (d3 -> d2) and
    ``c.run`` (d1 -> d5), those of ``runs``, in ``folder``; returns ``folder``."""
    (folder / "qrels.txt").write_text(HOSTILE_QRELS)
    changed = {"a": HOSTILE_RUN, "b": HOSTILE_RUN.replace("d3", "d2"), "c": HOSTILE_RUN.replace("d1", "d5")}
    for name in runs:
        (folder / f"{name}.run").write_text(changed[name])
    return folder


def fails(capsys: pytest.CaptureFixture, command: str, *args: str) -> str:
    """Run the CLI, expect exit code 1 with one short ``prefeval COMMAND: error:`` line, no traceback and no
    "unexpected ... please report"; return it."""
    from prefeval.commands.cli import main

    code = main([command, *args])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith(f"prefeval {command}: error: "), err
    assert "Traceback" not in err and "unexpected" not in err and "please report" not in err, err
    assert err.count("\n") == 1 and len(err) < 700, err  # one line (long only by the tmp paths it names)
    return err


def succeeds(capsys: pytest.CaptureFixture, command: str, *args: str) -> str:
    """Run the CLI, expect exit code 0; return standard output."""
    from prefeval.commands.cli import main

    code = main([command, *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        node = item.nodeid
        if "shared_data" in getattr(item, "fixturenames", ()) or node.startswith(END_TO_END):
            item.add_marker(pytest.mark.integration)


def pytest_configure(config: pytest.Config) -> None:
    """Property tests must not fail on a slow CI machine because of hypothesis' per-example deadline.

    The profile is loaded where tests run (this process, or each xdist worker) before the test modules are
    imported (``@settings`` objects take their defaults when created); an xdist controller only hands out tests
    and does not import hypothesis (0.5 s before the workers start)."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return  # the xdist controller
    try:
        from hypothesis import settings
    except ImportError:  # pragma: no cover
        return
    settings.register_profile("prefeval", deadline=None)
    settings.load_profile("prefeval")
