"""Simple plumbing: no private API of a dependency and no import hook in ``src/``; prefeval's measures reach
ir-measures through prefeval's own modules, never through state another import left behind.

The private names are those prefeval once used: pyarrow's compiled compute module, ir-measures' sentinel for a
parameter not given, argparse's list of actions and its sub-parsers action. ir_datasets has no public way to list
the files behind a dataset without opening them, so its internals are read in one shim,
``prefeval.data.datasets.files.internal`` (whose docstring says why), and nowhere else.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "prefeval"
FILES = {path.relative_to(SRC).as_posix(): path.read_text(encoding="utf-8") for path in sorted(SRC.rglob("*.py"))}

PRIVATE = {
    "pyarrow._compute": r"pyarrow\._compute",
    "ir_measures' _NOT_PROVIDED": r"\b_NOT_PROVIDED\b",
    "argparse's _SubParsersAction": r"\b_SubParsersAction\b",
    "argparse's _actions": r"\._actions\b",
    "argparse's HelpFormatter._fill_text": r"\b_fill_text\b",
    # calling an ir-measures evaluator's _iter_calc (a provider implements it; prefeval's provider does)
    "ir-measures' Evaluator._iter_calc": r"\._iter_calc\(|[\"']_iter_calc[\"']",
}
#: ir_datasets' private attributes: read only by the one shim
IR_DATASETS_SHIM = "data/datasets/files.py"
IR_DATASETS_PRIVATE = r"\b_(constituents|wrapped|version_file|cache_path)\b"


@pytest.mark.parametrize("what", sorted(PRIVATE))
def test_no_private_api_of_a_dependency(what):
    found = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for name, text in FILES.items()
             for m in re.finditer(PRIVATE[what], text)]
    assert not found, f"{what} used in {found}"


def test_ir_datasets_internals_are_read_in_one_shim():
    found = [name for name, text in FILES.items() if re.search(IR_DATASETS_PRIVATE, text) and name != IR_DATASETS_SHIM]
    assert not found, found
    assert "def internal(" in FILES[IR_DATASETS_SHIM]
    outside = [line for line in FILES[IR_DATASETS_SHIM].splitlines()
               if re.search(r"vars\((obj|download)\)\[", line)]
    assert not outside, outside  # every read goes through internal()


#: strings that build a table or a figure: LaTeX environments and rules, HTML tables, SVG, Markdown table rules
TABLE_STRINGS = ("\\begin{", "\\toprule", "<table", "<svg", ":---", "|---", "---:")


def test_tables_and_figures_are_written_in_report_only():
    """All rendering is in ``prefeval.report``: no other module holds a string that builds a table or an SVG."""
    found = [f"{name}: {string}" for name, text in FILES.items() if not name.startswith("report/")
             for string in TABLE_STRINGS if string in text]
    assert not found, found
    written = ("\\begin{", "\\toprule", "<table", "<svg", "---:")  # what the writers of report/ hold
    assert all(any(string in text for name, text in FILES.items() if name.startswith("report/")) for string in written)


def test_no_import_hook():
    found = [name for name, text in FILES.items() if "meta_path" in text or "path_hooks" in text]
    assert not found, found


def test_measure_text_is_parsed_by_prefeval_s_own_module():
    """``ir_measures.parse_measure`` knows prefeval's measures only once they are registered: prefeval calls it in
    :func:`prefeval.methods.measures.parse_measure` alone, whose module registers them."""
    calls = {name for name, text in FILES.items()
             if re.search(r"^[^#`]*(?<![`\w.])ir_measures\.parse_measure\(", text, flags=re.M)}
    assert calls == {"methods/measures.py"}, calls


def test_the_test_can_fail(tmp_path):
    assert re.search(PRIVATE["pyarrow._compute"], "from pyarrow._compute import call_function")
    assert re.search(PRIVATE["argparse's _actions"], "parser._actions")
    assert any(string in 'lines = ["\\\\begin{table}"]' for string in TABLE_STRINGS)


def test_dir_lists_the_names_loaded_on_first_access():
    import prefeval

    assert {"table", "RunTable", "RBU", "Pipeline", "read_run", "simulate", "datasets", "report", "engine",
            "compare", "evaluate"} <= set(dir(prefeval))
    assert {"tie_rates", "kendall_tau", "unanimity", "ties"} <= set(dir(prefeval.analysis))  # names and modules
    assert {"simulate", "trec", "datasets"} <= set(dir(prefeval.data))
    assert set(prefeval.__all__) <= set(dir(prefeval))
