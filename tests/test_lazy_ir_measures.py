"""ir-measures is imported only where it is used: the method calls that stand for prefeval's measures in ``compare``
(:func:`prefeval.methods.registry.parse_call`), written and checked exactly as ir-measures parses the same text."""

from __future__ import annotations

import ir_measures
import pytest

import prefeval
from prefeval.engine.methods import parse_method
from prefeval.errors import PrefevalError
from prefeval.methods.registry import MethodCall, declaration_of, parameters, parse_call


@pytest.mark.parametrize("text", [
    "LexiRecall", "LexiRecall@10", "LexiRecall(rel=2)", "LexiRecall(rel=1)@5", "LexiPrecision(magnitude='rr')",
    "LexiPrecision(magnitude='sgn')", "RPP(graded=False)@100", "RPP(weighting='dcg', graded=True)",
    "RPP(weighting='dcg',graded=False,rel=2)@3", "RBU(p=0.9, e=0)@10", "TSE@100",
    "RPP(subtopics=True)", "LexiRecall(baseline='bm25')",
])
def test_a_method_call_is_written_and_compared_as_the_ir_measures_measure(text):
    call, measure = parse_call(text), ir_measures.parse_measure(text)
    assert isinstance(call, MethodCall) and declaration_of(call) is declaration_of(measure)
    assert repr(call) == repr(measure) and str(call) == str(measure)
    assert call.params == measure.params and list(call.params) == list(measure.params)
    assert call == measure and hash(call) == hash(measure)
    assert parameters(call) == parameters(measure)
    assert repr(call(rel=3)) == repr(measure(rel=3)) and parameters(call(rel=3)) == parameters(measure(rel=3))


@pytest.mark.parametrize("text", [
    "nDCG@10", "lr", "LexiRecall(", "LexiRecall(2)", "LexiRecall(rel=None)", "LexiRecall(rel=0)", "LexiRecall@0",
    "RPP(weighting='nope')", "RPP(nope=1)", "LexiRecall@ten", "LexiRecall + 1", "f(x)(rel=1)", "LexiRecall(**k)",
    "LexiRecall(rel=[1])",
])
def test_anything_else_is_left_to_ir_measures(text):
    """Other measures, aliases (resolved before), bad syntax and bad parameters: no call, so that ir-measures'
    parser and prefeval's measure classes report the problem with the messages they always gave."""
    assert parse_call(text) is None


@pytest.mark.parametrize("text", ["RPP(weighting='nope')", "LexiRecall(rel=0)", "LexiRecall@0", "LexiRecall(",
                                  "RPP(nope=1)", "LexiRecall(baseline='x')"])
def test_compare_reports_bad_preferences_as_before(text):
    with pytest.raises(PrefevalError) as error:
        parse_method(text)
    assert text in str(error.value)


def test_compare_parses_preferences_without_ir_measures_measures_and_metrics_with():
    method = parse_method("RPP(graded=False)@100", rel=2)
    assert isinstance(method.measure, MethodCall) and str(method.measure) == "RPP(graded=False,rel=2)@100"
    assert (method.kind, method.rel, method.depth) == ("preference", 2, 100)
    assert method.measure == parse_method(prefeval.RPP(graded=False) @ 100, rel=2).measure
    metric = parse_method("RBU@20")
    assert metric.kind == "metric" and isinstance(metric.measure, ir_measures.Measure)


def test_a_method_call_pickles_by_name():
    import pickle

    call = parse_call("RPP(weighting='dcg', graded=False)@10")
    again = pickle.loads(pickle.dumps(call))
    assert again == call and again.declaration is call.declaration and again.params == call.params
