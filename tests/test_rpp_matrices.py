"""Uniform RPP of many queries at once (``core.rpp.uniform_rpp_matrices``, which ``compare`` uses) must give the values
of ``rpp_matrix`` query by query bit for bit, and those of the pairwise definition (``population_rpp``): graded,
binary and subtopic populations, unretrieved documents, tied positions, queries without relevant documents, and
blocks of any size."""

from __future__ import annotations

import numpy as np
import pytest

from prefeval.core import rpp


def random_queries(rng: np.random.Generator, S: int, Q: int) -> tuple[list[np.ndarray], list]:
    doc_pos, populations = [], []
    for _ in range(Q):
        m = int(rng.integers(0, 9))
        D = rng.integers(1, 10, size=(S, m)).astype(float)  # ties likely
        D[rng.random((S, m)) < 0.3] = np.inf
        doc_pos.append(D)
        kind = rng.integers(0, 3)
        if kind == 0:
            populations.append(None)  # binary
        elif kind == 1:
            populations.append(rpp.graded_populations(rng.integers(1, 4, size=m)))
        else:
            populations.append(rpp.subtopic_populations(rng.random((int(rng.integers(0, 4)), m)) < 0.5))
    return doc_pos, populations


@pytest.mark.parametrize("block", [1, 7, 1 << 18])
@pytest.mark.parametrize("seed", range(4))
def test_matrices_equal_rpp_matrix(monkeypatch, block: int, seed: int) -> None:
    monkeypatch.setattr(rpp, "_BLOCK_ELEMENTS", block)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        S, Q = int(rng.integers(1, 6)), int(rng.integers(1, 8))
        doc_pos, populations = random_queries(rng, S, Q)
        got = rpp.uniform_rpp_matrices(doc_pos, populations)
        assert got.shape == (Q, S, S)
        for q in range(Q):
            np.testing.assert_array_equal(got[q], rpp.rpp_matrix(doc_pos[q], populations[q]))


def test_matrices_follow_the_pairwise_definition() -> None:
    rng = np.random.default_rng(11)
    doc_pos, populations = random_queries(rng, 5, 30)
    got = rpp.uniform_rpp_matrices(doc_pos, populations)
    for q, (D, pops) in enumerate(zip(doc_pos, populations)):
        for i in range(5):
            for j in range(5):
                assert got[q, i, j] == rpp.population_rpp(D[i], D[j], pops)


def test_no_queries_no_runs() -> None:
    assert rpp.uniform_rpp_matrices([], []).shape == (0, 0, 0)
    assert rpp.uniform_rpp_matrices([np.zeros((0, 3))], [None]).shape == (1, 0, 0)
    np.testing.assert_array_equal(rpp.uniform_rpp_matrices([np.ones((2, 0))], [None]), np.zeros((1, 2, 2)))
