"""Every name ir-measures' trec_eval parser accepts is a measure name everywhere; names it knows but no provider
computes are reported as such, not as unknown."""

from __future__ import annotations

import pytest

import prefeval
from prefeval.engine.evaluate import parse_measures
from prefeval.engine.methods import parse_methods
from prefeval.errors import PrefevalError

QRELS = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"d": 1, "e": 1}}
RUNS = {"r": {"q1": {"c": 3.0, "a": 2.0, "b": 1.0}, "q2": {"x": 2.0, "d": 1.0}},
        "s": {"q1": {"a": 3.0, "b": 2.0}, "q2": {"d": 2.0, "e": 1.0}}}


@pytest.mark.parametrize("name,expected", [
    ("iprec_at_recall_0.10", ["IPrec@0.1"]),
    ("P.5", ["P@5"]),
    ("P_5", ["P@5"]),
    ("ndcg_cut.10,20", ["nDCG@10", "nDCG@20"]),
    ("ndcg_cut_10", ["nDCG@10"]),
    ("recall.5,10", ["R@5", "R@10"]),
    ("map", ["AP"]),
    ("num_q", ["NumQ"]),
])
def test_trec_eval_names_are_read_by_evaluate_and_compare(name, expected):
    assert [str(m) for m in parse_measures([name])] == expected
    methods = parse_methods([name])
    assert [str(m.measure) for m in methods] == expected
    # one measure keeps the label as given; a name standing for several is labelled by each measure
    assert [m.label for m in methods] == ([name] if len(expected) == 1 else expected)


@pytest.mark.parametrize("name", ["gm_map", "Rndcg", "relstring", "Rprec_mult_0.20"])
def test_known_but_unsupported_names_are_not_called_unknown(name):
    for parse in (parse_measures, parse_methods):
        with pytest.raises(PrefevalError, match="knows but that is not supported by any installed provider") as exc:
            parse([name])
        assert "unknown" not in str(exc.value)


def test_unknown_names_stay_unknown():
    with pytest.raises(PrefevalError, match="unknown measure 'Bogus'"):
        parse_measures(["Bogus"])
    with pytest.raises(PrefevalError, match="unknown method 'Bogus'"):
        parse_methods(["Bogus"])


def test_trec_names_give_the_values_of_their_measures():
    by_trec = prefeval.evaluate(QRELS, RUNS, ["P.2", "map", "ndcg_cut.1,2"])
    by_name = prefeval.evaluate(QRELS, RUNS, ["P@2", "AP", "nDCG@1", "nDCG@2"])
    assert by_trec["value"].tolist() == by_name["value"].tolist()
    compared = prefeval.compare(QRELS, RUNS, ["ndcg_cut.1,2", "map"])
    assert compared.methods == ["nDCG@1", "nDCG@2", "map"]
