"""One definition of the balancing index (Ferrante et al. (2015) §6) behind both public entry points."""

from __future__ import annotations

import numpy as np
import pytest

from prefeval import analysis, axioms
from prefeval.analysis import balancing as analysis_balancing
from prefeval.axioms import balance


def test_both_entry_points_use_the_same_runs_and_maximum():
    assert analysis_balancing.balancing_runs is balance.balancing_runs
    ref, S = balance.balancing_runs(4, q_min=1, q_max=3)
    assert ref.tolist() == [3, 0, 0, 0]
    assert S.tolist() == [[1, 1, 1, 1], [0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1]]
    assert balance.largest_balanced(np.array([True, True, False, True, False])) == 4
    assert balance.largest_balanced(np.zeros(3, dtype=bool)) is None


@pytest.mark.parametrize("q_min", [1, 2])
def test_same_defaults_same_values(q_min):
    """q_max defaults to q_min in both; away from float ties both give the same B(n)."""
    for measure, n in (("AP", 10), ("nDCG", 20), ("RR", 5), ("P@7", 7)):
        assert analysis.balancing_index(measure, n, q_min=q_min) == axioms.balancing_index(measure, n, q_min=q_min)


def test_the_tie_rules_differ_as_documented():
    # RBP p = 0.5, n = 60: M(s_2) = 1/2 - 2^-60 < M(ref) = 1/2, a gap below float64 resolution
    assert analysis.balancing_index("RBP(p=0.5)", 60) == 1  # exact
    assert axioms.balancing_index("RBP(rel=1,p=0.5)", 60) == 2  # the checker's tolerance
