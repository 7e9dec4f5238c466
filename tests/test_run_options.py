"""compare() and table() check rel and depth by one rule (prefeval.engine.methods.check_run_options)."""

from __future__ import annotations

import numpy as np
import pytest

import prefeval
from prefeval.errors import PrefevalError

QRELS = {"1": {"d": 1}}
RUNS = {"a": {"1": {"d": 1.0}}, "b": {"1": {"d": 1.0}}}


@pytest.mark.parametrize("options, fragment", [
    ({"depth": True}, "depth must be a positive integer; got True"),
    ({"depth": 0}, "depth must be a positive integer; got 0"),
    ({"depth": 2.5}, "depth must be a positive integer; got 2.5"),
    ({"rel": 5000}, "rel must be an integer from 1 to 1000"),
    ({"rel": True}, "rel must be an integer from 1 to 1000"),
    ({"rel": 0}, "rel must be an integer from 1 to 1000"),
])
@pytest.mark.parametrize("entry", [prefeval.compare, prefeval.table])
def test_compare_and_table_refuse_the_same_options(entry, options, fragment):
    with pytest.raises(PrefevalError, match=fragment):
        entry(QRELS, RUNS, ["LexiRecall"], **options)


@pytest.mark.parametrize("entry", [prefeval.compare, prefeval.table])
def test_a_numpy_integer_depth_is_a_depth(entry):
    entry(QRELS, RUNS, ["LexiRecall"], depth=np.int64(3))
