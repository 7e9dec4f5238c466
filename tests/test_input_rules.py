"""Ids and grades follow one rule whatever form they come in (``prefeval.data.trec``'s docstring): files, DataFrames,
dicts, ir-measures records and ranx objects are checked before any measure or provider sees them, so that a NUL
byte in an id or a grade of 2**32 is a one-line error, not a crash in pytrec_eval or a wrong number."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import ir_measures
import pandas as pd
import pytest

import prefeval
from prefeval.data.inputs import qrels_frame, run_frame
from prefeval.errors import PrefevalError

SRC = Path(__file__).resolve().parents[1] / "src"
QRELS = {"1": {"d1": 1}, "2": {"d3": 1}}
RUN = {"1": {"d1": 1.0, "d2": 0.5}, "2": {"d3": 1.0}}
BAD_IDS = ["d\x00x", "d\x0bx", "d\xa0x", "d\x85x", "d\u3000x", "d x", "d\tx", "d\nx", "d\x7fx", "", "d\ud800x"]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_bad_ids_in_every_form_are_errors_naming_the_id(bad) -> None:
    forms = {
        "dict run doc": lambda: run_frame({"1": {bad: 1.0}}, "r"),
        "dict run query": lambda: run_frame({bad: {"d1": 1.0}}, "r"),
        "frame run": lambda: run_frame(pd.DataFrame({"query_id": ["1"], "doc_id": pd.Series([bad], dtype=object),
                                                     "score": [1.0]}), "r"),
        "records run": lambda: run_frame([ir_measures.ScoredDoc("1", bad, 1.0)], "r"),
        "dict qrels": lambda: qrels_frame({"1": {bad: 1}}),
        "frame qrels": lambda: qrels_frame(pd.DataFrame({"query_id": pd.Series([bad], dtype=object), "doc_id": ["d"],
                                                         "relevance": [1]})),
        "records qrels": lambda: qrels_frame([ir_measures.Qrel("1", bad, 1)]),
    }
    for form, call in forms.items():
        with pytest.raises(PrefevalError, match=r"(is empty|holds U\+[0-9A-F]{4} \(.*\)); ids are non-empty") as error:
            call()
        assert "\n" not in str(error.value), form


@pytest.mark.parametrize("grade", [2**31 - 1, 2**32, 2**63 - 1, 1001, -1001, "１", "1.5", 1.5, True, None])
def test_grades_outside_the_rule_are_errors(grade) -> None:
    for qrels in ({"1": {"d1": grade}}, [ir_measures.Qrel("1", "d1", grade)],
                  pd.DataFrame({"query_id": ["1"], "doc_id": ["d1"], "relevance": [grade]})):
        with pytest.raises(PrefevalError, match="relevance must be an integer grade from -1000 to 1000"):
            qrels_frame(qrels)
    text = f"1 0 d1 {grade}\n".encode()
    with pytest.raises(PrefevalError, match="is not an integer grade from -1000 to 1000|expected 4 fields"):
        prefeval.read_qrels(io.BytesIO(text))


def test_grades_at_the_bounds_are_kept() -> None:
    frame = qrels_frame({"1": {"a": 1000, "b": -1000, "c": 2.0}})
    assert frame["relevance"].tolist() == [1000, -1000, 2]


def test_a_nul_in_a_query_id_of_a_dict_run_is_an_error_not_an_abort() -> None:
    """pytrec_eval aborts the process (SIGABRT) on a NUL in a query id: the check comes first."""
    code = ("import prefeval\n"
            "try:\n"
            "    prefeval.evaluate({'1': {'d1': 1}}, {'a': {'1\\x00': {'d1': 1.0}}}, ['nDCG@10', 'RR', 'P@1'])\n"
            "except prefeval.PrefevalError as exc:\n"
            "    print('error:', exc)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-500:]
    assert "error: run 'a' (dict): query_id '1\\x00' holds U+0000" in proc.stdout


def test_the_provider_checks_dict_runs_too() -> None:
    with pytest.raises(PrefevalError, match=r"doc_id 'd\\x00' \(query 1\) holds U\+0000"):
        ir_measures.calc_aggregate([prefeval.methods.measures.TSE], QRELS, {"1": {"d\x00": 1.0}})


def test_valid_inputs_are_unchanged() -> None:
    table = prefeval.evaluate(QRELS, {"a": RUN}, ["RR", "nDCG@10"])
    assert table.set_index("measure")["value"].to_dict() == {"RR": 1.0, "nDCG@10": 1.0}
