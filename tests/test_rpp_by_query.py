"""uniform_rpp_by_query (all queries at once) equals population_rpp query by query, and the provider's RPP values
equal the per-query kernel's."""

from __future__ import annotations

import numpy as np
import pytest

from prefeval.core.rpp import graded_populations, population_rpp, uniform_rpp_by_query


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
    got = uniform_rpp_by_query(a, b, query, grades, n_queries, rel, graded)
    for q in range(n_queries):
        cols = query == q
        pops = graded_populations(grades[cols], rel) if graded else np.ones((1, int(cols.sum())), dtype=bool)
        expected = float(population_rpp(a[cols], b[cols], pops, "uniform")) if cols.any() else 0.0
        assert got[q] == expected, (q, got[q], expected)
