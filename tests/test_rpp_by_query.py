"""rpp_matrices of two-run queries (all queries at once, as the provider evaluates RPP against a baseline) equals
population_rpp query by query, and the provider's RPP values
equal the per-query kernel's."""

from __future__ import annotations

import numpy as np
import pytest

from prefeval.core.rpp import graded_populations, population_rpp, rpp_matrices


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("graded", [True, False])
def test_equals_population_rpp_per_query(seed, graded):
    rng = np.random.default_rng(seed)
    n_queries = int(rng.integers(1, 8))
    sizes = rng.integers(0, 9, size=n_queries)  # some queries without documents
    query = np.repeat(np.arange(n_queries), sizes)
    n, rel = len(query), int(rng.integers(1, 3))
    grades = rng.integers(0, 5, size=n)
    a = np.where(rng.random(n) < 0.3, np.inf, rng.permutation(50)[:n] + 1.0)
    b = np.where(rng.random(n) < 0.3, np.inf, rng.permutation(50)[:n] + 1.0)
    populations = [graded_populations(grades[query == q], rel) if graded
                   else np.ones((1, int((query == q).sum())), dtype=bool) for q in range(n_queries)]
    got = rpp_matrices([np.stack([a[query == q], b[query == q]]) for q in range(n_queries)], populations)[:, 0, 1]
    for q in range(n_queries):
        cols, pops = query == q, populations[q]
        expected = float(population_rpp(a[cols], b[cols], pops, "uniform")) if cols.any() else 0.0
        assert got[q] == expected, (q, got[q], expected)
