"""The report kernels of comparisons of many runs against their definitions: strongly connected components (MC4's
chain), the majority matrix computed one query at a time, the sign test's distinct keys and Holm's correction over
distinct p-values -- identical values, ties and NaNs included."""

from __future__ import annotations

import numpy as np
import pytest

from prefeval.core import aggregate as agg
from prefeval.core import reduce, stats


def reachability(edges: np.ndarray) -> np.ndarray:
    """Transitive-reflexive closure by Warshall's algorithm."""
    R = edges.copy() | np.eye(len(edges), dtype=bool)
    for k in range(len(edges)):
        R |= R[:, [k]] & R[[k], :]
    return R


@pytest.mark.parametrize("seed", range(12))
def test_strong_components_are_the_mutually_reachable_classes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    S = int(rng.integers(1, 40))
    edges = rng.random((S, S)) < rng.choice([0.02, 0.05, 0.1, 0.3])
    n, label = agg.strong_components(edges)
    R = reachability(edges)
    same = R & R.T
    assert np.array_equal(label[:, None] == label[None, :], same)
    assert sorted(set(label.tolist())) == list(range(n))


def test_strong_components_of_an_mc4_chain() -> None:
    """A Condorcet order (one class per system), a cycle (one class) and ties (no edge either way)."""
    S = 6
    order = agg.mc4_transition(np.sign(np.subtract.outer(np.arange(S), np.arange(S)))) > 0  # higher index wins
    n, label = agg.strong_components(order)
    assert n == S and len(set(label.tolist())) == S
    cycle = np.eye(S, dtype=bool) | np.roll(np.eye(S, dtype=bool), 1, axis=1)
    assert agg.strong_components(cycle)[0] == 1
    assert agg.strong_components(np.zeros((3, 3), dtype=bool))[0] == 3
    assert agg.strong_components(np.zeros((0, 0), dtype=bool))[0] == 0


@pytest.mark.parametrize("many", [False, True])
def test_majority_matrix_against_its_definition(many: bool, monkeypatch) -> None:
    """Both paths (blocks of queries for few systems, one query at a time for many -- forced by a tiny block
    budget: 300 queries exceed the uint8 counts of 255), with ties and differences at the tolerance."""
    if many:
        monkeypatch.setattr(agg, "_BLOCK_ENTRIES", 1)
    S, Q = (20, 300) if many else (3, 300)
    rng = np.random.default_rng(S)
    W = rng.integers(0, 4, size=(Q, S)).astype(np.float64)
    W[:, 0] = W[:, 1] + agg.TIE_TOL / 2  # within the tolerance: ties
    W[:, 2] = W[:, 1] + 2 * agg.TIE_TOL  # beyond it
    M = agg.majority_matrix(W)
    wins = agg.above(W).sum(axis=0)
    np.testing.assert_array_equal(M, wins - wins.T)
    assert M[2, 1] == Q and M[0, 1] == 0


@pytest.mark.parametrize("bound", [5, 1 << 20])
def test_distinct_keys_as_numpy_unique(bound: int) -> None:
    keys = np.random.default_rng(bound).integers(0, bound, size=1000)
    distinct, inverse = stats._distinct(keys, bound)
    expected, expected_inverse = np.unique(keys, return_inverse=True)
    np.testing.assert_array_equal(distinct, expected)
    np.testing.assert_array_equal(inverse, expected_inverse)


def holm_by_sorting(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down procedure over the p-values in stable ascending order (one step per p-value); an
    undefined p-value (NaN) is not in the family: it stays NaN and is not rejected."""
    defined = np.isfinite(p)
    if not defined.all():
        adjusted, reject = np.full(p.size, np.nan), np.zeros(p.size, dtype=bool)
        adjusted[defined], reject[defined] = holm_by_sorting(p[defined], alpha)
        return adjusted, reject
    m = p.size
    order = np.argsort(p, kind="mergesort")
    factors = np.arange(m, 0, -1, dtype=np.float64)
    sorted_p = p[order]
    stop = np.flatnonzero(sorted_p > alpha / factors)
    adjusted, reject = np.empty(m), np.empty(m, dtype=bool)
    adjusted[order] = np.minimum(np.maximum.accumulate(sorted_p * factors), 1.0)
    reject[order] = np.arange(m) < (stop[0] if stop.size else m)
    return adjusted, reject


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.5])
@pytest.mark.parametrize("kind", ["sign", "rounded", "nan", "distinct", "rare"])
def test_holm_over_distinct_values_equals_the_step_down(alpha: float, kind: str) -> None:
    rng = np.random.default_rng(7)
    if kind == "sign":
        p = stats.sign_test_counts(rng.integers(0, 40, 5000), rng.integers(0, 9, 5000)).pvalue
    elif kind == "rounded":
        p = np.round(rng.random(3000) ** 4, 3)
    elif kind == "nan":
        p = np.round(rng.random(400) ** 3, 2)
        p[::17] = np.nan
    elif kind == "rare":  # few values, and one the sample of distinct values misses
        p = np.round(rng.random(50_000), 1)
        p[12_345] = 0.0001
    else:
        p = rng.random(777) ** 6
    adjusted, reject = stats.adjust(p, "holm", alpha)
    expected_adjusted, expected_reject = holm_by_sorting(p, alpha)
    np.testing.assert_array_equal(adjusted, expected_adjusted)
    np.testing.assert_array_equal(reject, expected_reject)
    assert kind == "distinct" or len(np.unique(p)) < p.size  # equal p-values occur
    assert kind != "sign" or 0 < reject.sum() < p.size  # the procedure stops inside the family


@pytest.mark.parametrize("shape", [(9, 50), (1, 300_000), (8, 70_001), (64, 9_000), (65, 5_000), (3000, 7)])
def test_pair_sums_of_a_block_by_definition(shape: tuple[int, int]) -> None:
    """Blocks of a few queries and many pairs are reduced in chunks of pairs: the same values, bit for bit."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=shape) * 10.0 ** rng.integers(-6, 6, size=shape) * (rng.random(shape) < 0.6)
    sums = reduce.PairSums.of_block(X)
    mean = X.mean(axis=0)
    np.testing.assert_array_equal(sums.mean, mean)
    np.testing.assert_array_equal(sums.m2, ((X - mean) ** 2).sum(axis=0))
    np.testing.assert_array_equal(sums.wins, (X > stats.TIE_TOL).sum(axis=0))
    np.testing.assert_array_equal(sums.losses, (X < -stats.TIE_TOL).sum(axis=0))


@pytest.mark.parametrize("alpha", [0.05, 0.5])
def test_holm_with_the_sign_tests_groups_equals_holm_without(alpha: float) -> None:
    """Groups of pairs with equal p-values by construction (the sign test's (wins, losses) keys; some keys share a
    p-value) give the same correction as the p-values alone; so do arbitrary groups of equal values."""
    rng = np.random.default_rng(11)
    result = stats.sign_test_counts(rng.integers(0, 40, 20_000), rng.integers(0, 15, 20_000))
    assert result.groups is not None and len(np.unique(result.groups)) > len(np.unique(result.pvalue))
    for groups in (result.groups, np.unique(result.pvalue, return_inverse=True)[1] * 2):  # codes with gaps too
        adjusted, reject = stats.adjust(result.pvalue, "holm", alpha, groups=groups)
        expected_adjusted, expected_reject = holm_by_sorting(result.pvalue, alpha)
        np.testing.assert_array_equal(adjusted, expected_adjusted)
        np.testing.assert_array_equal(reject, expected_reject)
