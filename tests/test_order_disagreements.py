"""``pipeline.findings.order_disagreements`` against its definition written pair by pair: for each (preference,
metric), the pairs of runs whose mean preference of run_a over run_b and mean metric difference run_a - run_b have
opposite signs, both beyond TIE_TOL; same pairs, same order, same values, on made-up comparisons (values at and
around the tolerance, NaN) and on a pipeline's own context."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.core.stats import TIE_TOL
from prefeval.pipeline import Compare, Evaluate, Pipeline, Simulate
from prefeval.pipeline.findings import order_disagreements


def pair_by_pair(context) -> list[dict]:
    """The definition, one pair of runs at a time."""
    if context.comparison is None:
        return []
    means = context.means_table()
    comparison = context.comparison
    out = []
    for method in context.methods:
        sums = comparison.pair_sums(comparison.result(method))
        for measure in context.measures:
            if measure not in means.columns:
                continue
            opposite = []
            for (a, b), pref in zip(comparison.pairs, sums.mean.tolist()):
                diff = float(means.loc[a, measure] - means.loc[b, measure])
                if (pref > TIE_TOL and diff < -TIE_TOL) or (pref < -TIE_TOL and diff > TIE_TOL):
                    opposite.append((a, b))
            out.append({"method": method, "metric": measure, "pairs": len(comparison.pairs), "opposite": opposite})
    return out


class MadeUpComparison:
    """The parts of :class:`prefeval.engine.comparison.Comparison` that order_disagreements reads."""

    def __init__(self, runs, i, j, means_by_method):
        self.runs, self._pairs, self._means = runs, (np.asarray(i), np.asarray(j)), means_by_method

    @property
    def pair_indices(self):
        return self._pairs

    @property
    def pairs(self):
        return [(self.runs[a], self.runs[b]) for a, b in zip(*(k.tolist() for k in self._pairs))]

    def result(self, method):
        return method

    def pair_sums(self, method):
        return SimpleNamespace(mean=np.asarray(self._means[method], dtype=float))


# values at, just inside and just beyond the tolerance, zero, NaN and ordinary numbers
EDGE = st.sampled_from([0.0, TIE_TOL, -TIE_TOL, 2 * TIE_TOL, -2 * TIE_TOL, TIE_TOL / 2, float("nan"), 0.25, -0.25])
VALUE = st.one_of(EDGE, st.floats(-1, 1, allow_nan=False))


@st.composite
def contexts(draw):
    n_runs = draw(st.integers(2, 6))
    runs = [f"r{k}" for k in draw(st.permutations(range(n_runs)))]
    if draw(st.booleans()):  # every pair, or each run against a baseline
        i, j = np.triu_indices(n_runs, 1)
    else:
        base = draw(st.integers(0, n_runs - 1))
        i = np.array([k for k in range(n_runs) if k != base], dtype=np.int64)
        j = np.full(len(i), base)
    methods = draw(st.lists(st.sampled_from(["LexiRecall", "RPP", "LexiPrecision"]), min_size=1, max_size=3,
                            unique=True))
    prefs = {m: draw(st.lists(VALUE, min_size=len(i), max_size=len(i))) for m in methods}
    measures = draw(st.lists(st.sampled_from(["AP", "nDCG@10", "RR", "P@5"]), min_size=1, max_size=4, unique=True))
    table_measures = [m for m in measures if draw(st.booleans())] or measures[:1]  # some measures have no column
    table_runs = sorted(runs) if draw(st.booleans()) else runs  # means in another order than the comparison's runs
    means = pd.DataFrame({m: draw(st.lists(VALUE, min_size=n_runs, max_size=n_runs)) for m in table_measures},
                         index=table_runs)
    return SimpleNamespace(comparison=MadeUpComparison(runs, i, j, prefs), methods=methods, measures=measures,
                           means_table=lambda: means)


@settings(max_examples=300, deadline=None)
@given(contexts())
def test_order_disagreements_equal_the_pair_by_pair_definition(context):
    assert order_disagreements(context) == pair_by_pair(context)


def test_no_comparison_no_rows():
    assert order_disagreements(SimpleNamespace(comparison=None)) == []


def test_a_pipelines_order_disagreements_equal_the_definition():
    context = Pipeline([Simulate(n_queries=20, n_runs=6, n_docs=50, depth=20, seed=3), Evaluate(["nDCG@10", "AP", "RR"]),
                        Compare(["LexiRecall", "LexiPrecision", "RPP"])]).run(progress=False)
    rows = order_disagreements(context)
    assert rows == pair_by_pair(context)
    assert len(rows) == 9 and all(row["pairs"] == 15 for row in rows)
    assert any(row["opposite"] for row in rows)  # the case is not vacuous


def test_a_run_without_a_mean_is_in_no_opposite_pair():
    comparison = MadeUpComparison(["a", "b", "c"], [0, 0, 1], [1, 2, 2], {"RPP": [0.5, 0.5, 0.5]})
    means = pd.DataFrame({"AP": [0.1, 0.9]}, index=["a", "c"])  # b has no mean
    context = SimpleNamespace(comparison=comparison, methods=["RPP"], measures=["AP"], means_table=lambda: means)
    assert order_disagreements(context) == [{"method": "RPP", "metric": "AP", "pairs": 3, "opposite": [("a", "c")]}]
