"""The all-pairs kernels against the straightforward per-pair definitions on random inputs.

Positions with ties between runs, ``+inf`` (unretrieved) entries, identical runs, and the edge cases S = 1 and
m = 0. Uniform RPP and the sign kernels must be exactly equal; weighted RPP within 1e-12.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import pytest

from prefeval.core import rpp as rpp_module
from prefeval.core.lexicographic import lexiprecision_matrix, lexirecall_matrix
from prefeval.core.rpp import graded_populations, recall_level_weights, rpp_matrix

INF = math.inf


def definition_rpp(a: list[float], b: list[float], pops: list[list[bool]], weighting: str):
    """sum_k m_k RPP_k / sum_k m_k with RPP_k = sum_i w_i sgn(b_i - a_i) on the sorted population vectors."""
    total = sum(sum(p) for p in pops)
    if total == 0:
        return Fraction(0)
    value = Fraction(0) if weighting == "uniform" else 0.0
    for pop in pops:
        m_k = sum(pop)
        if not m_k:
            continue
        x = sorted(v for v, keep in zip(a, pop) if keep)
        y = sorted(v for v, keep in zip(b, pop) if keep)
        signs = [(yi > xi) - (yi < xi) for xi, yi in zip(x, y)]
        if weighting == "uniform":
            value += Fraction(sum(signs), total)
        else:
            value += m_k / total * sum(wi * s for wi, s in zip(level_weights(m_k, weighting), signs))
    return value


@functools.cache
def level_weights(m: int, weighting: str) -> tuple[float, ...]:
    """``recall_level_weights`` as Python floats, computed once per (m, weighting) for the many pairs."""
    return tuple(map(float, recall_level_weights(m, weighting)))


def definition_lexirecall(a: list[float], b: list[float]) -> int:
    ka, kb = sum(map(math.isfinite, a)), sum(map(math.isfinite, b))
    if ka != kb:
        return 1 if ka > kb else -1
    for x, y in zip(reversed(a), reversed(b)):
        if x != y:
            return 1 if x < y else -1
    return 0


def definition_lexiprecision(a: list[float], b: list[float], magnitude: str) -> float:
    for x, y in zip(a, b):
        if x != y:
            if magnitude == "sgn":
                return 1.0 if x < y else -1.0
            return (0.0 if x == INF else 1.0 / x) - (0.0 if y == INF else 1.0 / y)
    return 0.0


def random_doc_positions(rng: np.random.Generator, S: int, m: int, depth: int) -> np.ndarray:
    """(S, m) positions of m relevant documents in S runs: distinct within a run, shared across runs (ties),
    about a third unretrieved, and a repeated run."""
    D = np.vstack([rng.permutation(depth)[:m] + 1.0 for _ in range(S)]) if m else np.zeros((S, 0))
    D[rng.random(D.shape) < 0.35] = INF
    if S > 2:
        D[1] = D[0]
    return D


CASES = [(1, 0), (1, 5), (3, 0), (2, 1), (7, 3), (25, 12), (40, 30), (140, 9)]


def some_rows(S: int) -> range:
    """All rows of small matrices, every k-th of large ones (the whole matrix is computed either way)."""
    return range(0, S, max(1, S // 25))


@pytest.mark.parametrize("S, m", CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_rpp_matrix_equals_definition(S, m, seed):
    rng = np.random.default_rng(seed)
    depth = max(m + 2, 6) if S < 100 else 300  # S = 140 with depth 300: codes beyond int8
    D = random_doc_positions(rng, S, m, depth)
    grades = rng.integers(1, 4, m)
    for pops in (None, graded_populations(grades), rng.random((3, m)) < 0.5):
        plist = [[True] * m] if pops is None else pops.tolist()
        rows = D.tolist()
        for weighting in ("uniform", "inverse", "dcg"):
            M = rpp_matrix(D, pops, weighting)
            assert M.shape == (S, S) and M.dtype == np.float64
            for i in some_rows(S):
                for j in range(S):
                    expected = definition_rpp(rows[i], rows[j], plist, weighting)
                    if weighting == "uniform":
                        assert M[i, j] == float(expected), (i, j)
                    else:
                        assert abs(M[i, j] - float(expected)) <= 1e-12, (i, j)


def test_rpp_matrix_wide_codes_and_many_levels(monkeypatch):
    """More than 127 recall levels (int16 counts) and more than 127 distinct positions per level (int16 codes),
    in several row blocks."""
    rng = np.random.default_rng(3)
    S, m = 160, 150
    D = random_doc_positions(rng, S, m, 2000)
    exact = rpp_matrix(D)
    monkeypatch.setattr(rpp_module, "_BLOCK_ELEMENTS", 7 * S)
    assert np.array_equal(rpp_matrix(D), exact)
    rows = D.tolist()
    for i in range(0, S, 7):
        for j in range(0, S, 5):
            assert exact[i, j] == float(definition_rpp(rows[i], rows[j], [[True] * m], "uniform"))


@pytest.mark.parametrize("S, m", CASES)
def test_lexicographic_matrices_equal_definitions(S, m):
    rng = np.random.default_rng(S * 100 + m)
    P = np.sort(random_doc_positions(rng, S, m, max(m + 2, 6)), axis=1)
    rows = P.tolist()
    LR = lexirecall_matrix(P)
    LRf = lexirecall_matrix(P, np.float64)
    LP = lexiprecision_matrix(P)
    RR = lexiprecision_matrix(P, "rr")
    assert LR.dtype == np.int8 and LRf.dtype == np.float64 and np.array_equal(LR, LRf)
    for i in range(S):
        for j in range(S):
            assert LR[i, j] == definition_lexirecall(rows[i], rows[j])
            assert LP[i, j] == definition_lexiprecision(rows[i], rows[j], "sgn")
            assert RR[i, j] == definition_lexiprecision(rows[i], rows[j], "rr")
