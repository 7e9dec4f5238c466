"""ir-measures integration: registration, parsing, parameter errors, provider placement."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import ir_measures
import pandas as pd
import pytest

import prefeval
from prefeval.errors import PrefevalError


def test_import_registers_measures_and_provider():
    for name in ("RBU", "TSE", "LexiRecall", "LexiPrecision", "RPP"):
        assert name in ir_measures.measures.registry
    assert "prefeval" in ir_measures.providers.registry
    names = [p.NAME for p in ir_measures.DefaultPipeline.providers]
    assert names.count("prefeval") == 1


def test_installing_twice_is_idempotent():
    from prefeval.engine import provider

    provider.install()
    importlib.reload(importlib.import_module("prefeval.methods.measures"))
    provider.install()
    names = [p.NAME for p in ir_measures.DefaultPipeline.providers]
    assert names.count("prefeval") == 1


@pytest.mark.parametrize("text, expected", [
    ("RBU@20", "RBU@20"),
    ("RBU(p=1)@20", "RBU(p=1.0)@20"),
    ("RBU(p=0.9, e=0)@10", "RBU(p=0.9,e=0.0)@10"),
    ("RBU(variant='evall')", "RBU(variant='evall')"),
    ("TSE@100", "TSE@100"),
    ("RPP(baseline='bm25', weighting='dcg', graded=False)", "RPP(baseline='bm25',weighting='dcg',graded=False)"),
    ("LexiPrecision(baseline='x', magnitude='rr')", "LexiPrecision(baseline='x',magnitude='rr')"),
    ("LexiRecall(baseline='x', rel=2)@1000", "LexiRecall(baseline='x',rel=2)@1000"),
])
def test_names_parse_and_round_trip(text, expected):
    measure = ir_measures.parse_measure(text)
    assert repr(measure) == expected
    assert ir_measures.parse_measure(repr(measure)) == measure


def test_int_and_float_parameters_are_the_same_measure():
    assert ir_measures.parse_measure("RBU(p=1, e=0)") == prefeval.RBU(p=1.0, e=0.0)


@pytest.mark.parametrize("text, message", [
    ("RBU(p=1.5)", "p (persistence) must be in (0, 1]"),
    ("RBU(e=-1)", None),  # the ir-measures parser itself refuses negative literals
    ("RBU(variant='java')", "variant='java' is not one of"),
    ("RPP(baseline='x', weighting='log')", "weighting='log' is not one of"),
    ("LexiPrecision(baseline='x', magnitude='abs')", "magnitude='abs'"),
    ("TSE(depth=3)", "unknown parameter(s) ['depth']"),
    ("RBU@0", "cutoff must be a positive integer"),
])
def test_invalid_parameters_raise_clear_errors(text, message):
    with pytest.raises(ValueError) as info:
        ir_measures.parse_measure(text)
    if message:
        assert isinstance(info.value, PrefevalError)
        assert message in str(info.value)


def test_missing_baseline_is_reported():
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    with pytest.raises(PrefevalError, match="missing required parameter"):
        ir_measures.calc_aggregate([prefeval.RPP], qrels, run)


def test_unknown_baseline_names_the_problem(tmp_path):
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    missing = str(tmp_path / "nope.run")
    with pytest.raises(PrefevalError, match="neither a run registered"):
        ir_measures.calc_aggregate([prefeval.LexiRecall(baseline=missing)], qrels, run)


def test_nan_scores_are_an_error():
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", "e"], "score": [1.0, float("nan")]})
    with pytest.raises(PrefevalError, match="not a number"):
        ir_measures.calc_aggregate([prefeval.TSE], qrels, run)


STANDARD = "nDCG@10 AP RR P@5 ERR_IA@20 alpha_nDCG@20 Rprec".split()


def _standard_values(import_prefeval: bool) -> dict:
    code = f"""
import json, ir_measures
{'import prefeval' if import_prefeval else ''}
qrels = [ir_measures.Qrel('q1', 'a', 2, '1'), ir_measures.Qrel('q1', 'b', 1, '2'), ir_measures.Qrel('q1', 'c', 0, '1'),
         ir_measures.Qrel('q2', 'a', 1, '1'), ir_measures.Qrel('q2', 'd', 3, '2')]
run = [ir_measures.ScoredDoc('q1', 'c', 3.0), ir_measures.ScoredDoc('q1', 'a', 2.0), ir_measures.ScoredDoc('q1', 'b', 2.0),
       ir_measures.ScoredDoc('q2', 'd', 1.0), ir_measures.ScoredDoc('q2', 'x', 5.0)]
measures = [ir_measures.parse_measure(m) for m in {STANDARD!r}]
print(json.dumps({{str(m): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()}}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.integration  # two fresh Python processes
def test_standard_measures_identical_with_and_without_prefeval():
    assert _standard_values(False) == _standard_values(True)
