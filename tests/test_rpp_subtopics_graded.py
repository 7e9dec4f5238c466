"""RPP(subtopics=True, graded=...): graded does not apply to subtopic RPP; graded=True is rejected explicitly."""

from __future__ import annotations

import ir_measures
import pytest

import prefeval


def test_subtopic_rpp_rejects_graded_true():
    with pytest.raises(prefeval.PrefevalError, match="graded=True does not apply"):
        ir_measures.parse_measure("RPP(subtopics=True, graded=True)")
    with pytest.raises(prefeval.PrefevalError, match="graded=True does not apply"):
        prefeval.RPP(subtopics=True, graded=True)


def test_subtopic_rpp_without_graded_or_with_graded_false_is_the_same_measure_value():
    qrels = [ir_measures.Qrel("1", "a", 2, "1"), ir_measures.Qrel("1", "b", 1, "2"), ir_measures.Qrel("1", "c", 1, "1")]
    run = {"1": {"a": 1.0, "b": 3.0, "c": 2.0}}
    prefeval.register_run("base", {"1": {"c": 3.0, "a": 2.0, "b": 1.0}})
    plain = ir_measures.parse_measure("RPP(baseline='base', subtopics=True)")
    binary = ir_measures.parse_measure("RPP(baseline='base', subtopics=True, graded=False)")
    values = ir_measures.calc_aggregate([plain, binary], qrels, run)
    assert values[plain] == values[binary]
