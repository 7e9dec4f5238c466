"""Metric unanimity (Amigó et al. (2018) §6.1) and the balancing index (Ferrante et al. (2015) §6)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.analysis import balancing_curve, balancing_index, metric_unanimity
from prefeval.errors import PrefevalError

# ---------------------------------------------------------------------------------------------
# metric unanimity

EXAMPLE = pd.DataFrame({"system": ["S1", "S2", "S3"], "m1": [1, 0.5, 0.2], "m2": [0.8, 0.3, 0.4],
                        "m3": [1, 0.2, 0.5]})


def mu_by_definition(rows: list[tuple[float, ...]], target: int) -> float:
    """MU from the definition with Python loops over ordered pairs (ties count 1/2; ≥ for the others)."""
    pairs = [(i, j) for i in range(len(rows)) for j in range(len(rows)) if i != j]
    dm = [1.0 if rows[i][target] > rows[j][target] else 0.5 if rows[i][target] == rows[j][target] else 0.0
          for i, j in pairs]
    others = [c for c in range(len(rows[0])) if c != target]
    dM = [1.0 if all(rows[i][c] >= rows[j][c] for c in others) else 0.0 for i, j in pairs]
    n = len(pairs)
    joint = sum(a * b for a, b in zip(dm, dM)) / n
    if sum(dM) == 0:
        return float("nan")
    if joint == 0:
        return float("-inf")
    return math.log2(joint / ((sum(dm) / n) * (sum(dM) / n)))


def test_worked_example():
    assert metric_unanimity(EXAMPLE, "m1") == pytest.approx(math.log2(4 / 3))
    assert round(metric_unanimity(EXAMPLE, "m1"), 3) == 0.415
    table = metric_unanimity(EXAMPLE).set_index("measure")
    assert table.loc["m2", "mu"] == pytest.approx(1.0) and table.loc["m3", "mu"] == pytest.approx(1.0)
    assert (table["pairs"] == 6).all()


def test_properties():
    # duplicating a metric in the others changes nothing; a constant metric scores 0 (Amigó et al. (2018) §6.1)
    dup = EXAMPLE.assign(m2b=EXAMPLE["m2"], m2c=EXAMPLE["m2"])
    assert metric_unanimity(dup, "m1") == pytest.approx(metric_unanimity(EXAMPLE, "m1"))
    const = EXAMPLE.assign(c=0.7)
    assert metric_unanimity(const, "c", others=["m1", "m2", "m3"]) == pytest.approx(0.0)


def test_tidy_input_and_grouping():
    tidy = EXAMPLE.melt(id_vars="system", var_name="measure", value_name="value").assign(query_id="q1")
    two = pd.concat([tidy, tidy.assign(query_id="q2")])
    assert metric_unanimity(two, "m1", by="query_id") == pytest.approx(math.log2(4 / 3))
    # pairing across topics as well changes the value: grouping matters
    mixed = pd.concat([tidy, tidy.assign(query_id="q2", value=tidy["value"] + 10)])
    assert metric_unanimity(mixed, "m1", by="query_id") == pytest.approx(math.log2(4 / 3))
    assert metric_unanimity(mixed, "m1") != pytest.approx(math.log2(4 / 3))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 3)] * 3), min_size=2, max_size=6))
def test_matches_definition(rows):
    frame = pd.DataFrame(rows, columns=["a", "b", "c"], dtype=float)
    for target, name in enumerate("abc"):
        expected = mu_by_definition(rows, target)
        got = metric_unanimity(frame, name)
        if math.isnan(expected):
            assert math.isnan(got)
        else:
            assert got == pytest.approx(expected)


def test_unanimity_errors():
    with pytest.raises(PrefevalError, match="no column"):
        metric_unanimity(EXAMPLE, "m9")
    with pytest.raises(PrefevalError, match="NaN"):
        metric_unanimity(EXAMPLE.assign(m2=[1, np.nan, 0]), "m1")


# ---------------------------------------------------------------------------------------------
# balancing index


def balancing_by_definition(score, n: int, q_min: int = 1, q_max: int = 1) -> int | None:
    """max{b : M(ref) <= M(s_b)} by scoring every b with an exact scoring function."""
    ref = [q_max] + [0] * (n - 1)
    hits = [b for b in range(1, n + 1) if score(ref) <= score([0] * (b - 1) + [q_min] * (n - b + 1))]
    return max(hits) if hits else None


def rbp_exact(p: Fraction):
    return lambda g: sum((Fraction(x) * (1 - p) * p**i for i, x in enumerate(g)), Fraction(0))


def ap_exact(g):
    hits, total = 0, Fraction(0)
    for i, x in enumerate(g, 1):
        if x > 0:
            hits += 1
            total += Fraction(hits, i)
    return total


def test_paper_values():
    # Ferrante et al. (2015) §6: RBP p=0.8 saturates at 8 from length 21, p=0.95 at 59; ERR is 1
    assert balancing_index("RBP(p=0.8)", 20) == 7
    assert [balancing_index("RBP(p=0.8)", n) for n in (21, 30, 100, 1000)] == [8, 8, 8, 8]
    assert balancing_index("RBP(p=0.95)", 1000) == 59
    assert all(balancing_index("ERR", n) == 1 for n in (1, 2, 5, 21, 100, 1000))


@pytest.mark.parametrize("n, row", [
    (5, {"AP": 3, "RBP(p=0.5)": 1, "RBP(p=0.8)": 3, "RBP(p=0.9)": 4, "RBP(p=0.95)": 4, "DCG-JK(a=2)": 3,
         "DCG": 3, "P": 5, "RR": 1}),
    (20, {"AP": 15, "RBP(p=0.8)": 7, "RBP(p=0.9)": 15, "RBP(p=0.95)": 18, "DCG-JK(a=2)": 16, "DCG": 16}),
    (100, {"AP": 87, "RBP(p=0.5)": 1, "RBP(p=0.9)": 22, "RBP(p=0.95)": 57, "DCG-JK(a=2)": 94, "DCG": 94}),
])
def test_spec_table(n, row):
    for measure, expected in row.items():
        assert balancing_index(measure, n) == expected, measure


def test_rbp_closed_form_and_exact_ties():
    for p in (Fraction(1, 2), Fraction(4, 5), Fraction(9, 10)):
        for n in (1, 2, 7, 30, 60):
            expected = balancing_by_definition(rbp_exact(p), n)
            assert balancing_index(f"RBP(p={float(p)})", n) == expected
            # corrected closed form b <= log_p(1 - p + p^n) + 1 (erratum to Ferrante et al. (2015) §6), away from exact ties
            bound = math.log(1 - float(p) + float(p) ** n, float(p)) + 1
            if abs(bound - round(bound)) > 1e-9:
                assert expected == math.floor(bound)
    # p = 0.5: M(s_2) = 1/2 - 2^-n is below M(ref) = 1/2 although float64 sees them equal at n = 60
    assert balancing_index("RBP(p=0.5)", 60) == 1


def test_ap_and_err_by_definition():
    for n in (1, 3, 8, 15):
        assert balancing_index("AP", n) == balancing_by_definition(ap_exact, n)
    # graded (REL {0..3}): Ferrante et al. (2015) §6, n = 5
    assert balancing_index("AP", 5, q_min=1, q_max=3) == 3
    assert balancing_index("RBP(p=0.8)", 5, q_min=1, q_max=3) == 1
    assert balancing_index("DCG-JK(a=2)", 5, q_min=1, q_max=3) == 1
    assert balancing_index("ERR", 5, q_min=1, q_max=3) is None  # even b = 1 does not balance


def test_callables_and_ir_measures():
    assert balancing_index(rbp_exact(Fraction(4, 5)), 25) == 8
    import ir_measures

    assert balancing_index(ir_measures.AP, 30) == balancing_index("AP", 30)
    assert balancing_index("nDCG", 30) == balancing_index("DCG", 30)
    assert balancing_index("P@30", 30) == 30
    curve = balancing_curve("RBP(p=0.8)", 21)
    assert list(curve.columns) == ["b", "ref", "score", "balanced"]
    assert curve["score"].is_monotonic_decreasing and curve["balanced"].sum() == 8


def test_balancing_errors():
    with pytest.raises(PrefevalError, match="q_min"):
        balancing_index("AP", 5, q_min=0)
    with pytest.raises(PrefevalError, match="n must be"):
        balancing_index("AP", 0)
    with pytest.raises(PrefevalError, match="unknown measure"):
        balancing_index("NoSuchMeasure", 5)
