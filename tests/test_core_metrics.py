"""Metrics on position vectors against trec_eval-style computations over 0/1 relevance lists."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.core.metrics import ap, n_retrieved, ndcg, precision_at_k, recall_at_k, rprec, rr, tse
from prefeval.errors import PrefevalError

INF = math.inf


@st.composite
def judged_ranking(draw):
    """A 0/1 relevance list of a ranking (rank 1 first) and the number m of relevant docs."""
    rels = draw(st.lists(st.booleans(), max_size=15))
    m = sum(rels) + draw(st.integers(0 if any(rels) else 1, 3))  # some relevant docs unretrieved
    return rels, m


def positions_of(rels, m):
    pos = [float(r) for r, x in enumerate(rels, start=1) if x]
    return np.array(pos + [INF] * (m - len(pos)))


def brute(rels, m, k):
    """trec_eval definitions over the ranked 0/1 list (unretrieved relevant docs contribute 0)."""
    hits = 0
    ap_sum = Fraction(0)
    first = None
    dcg = 0.0
    for r, x in enumerate(rels, start=1):
        if x:
            hits += 1
            ap_sum += Fraction(hits, r)
            first = first or r
            dcg += 1 / math.log2(r + 1)
    idcg = sum(1 / math.log2(i + 1) for i in range(1, m + 1))
    dcg_k = sum(1 / math.log2(r + 1) for r, x in enumerate(rels[:k], start=1) if x)
    idcg_k = sum(1 / math.log2(i + 1) for i in range(1, min(m, k) + 1))
    return {
        "ap": ap_sum / m,
        "rr": Fraction(1, first) if first else Fraction(0),
        "tse": Fraction(1, max(r for r, x in enumerate(rels, 1) if x)) if hits == m else Fraction(0),
        "recall": Fraction(sum(rels[:k]), m),
        "precision": Fraction(sum(rels[:k]), k),
        "rprec": Fraction(sum(rels[:m]), m),
        "ndcg": dcg / idcg,
        "ndcg_k": dcg_k / idcg_k,
        "n": hits,
    }


@settings(max_examples=300, deadline=None)
@given(judged_ranking(), st.integers(1, 12))
def test_metrics_match_trec_eval_definitions(case, k):
    rels, m = case
    P = positions_of(rels, m)
    b = brute(rels, m, k)
    assert float(tse(P)) == float(b["tse"])
    assert float(rr(P)) == float(b["rr"])
    assert float(ap(P)) == pytest.approx(float(b["ap"]), abs=1e-15)
    assert float(recall_at_k(P, k)) == float(b["recall"])
    assert float(precision_at_k(P, k)) == float(b["precision"])
    assert float(rprec(P)) == float(b["rprec"])
    assert float(ndcg(P)) == pytest.approx(b["ndcg"], abs=1e-12)
    assert float(ndcg(P, k)) == pytest.approx(b["ndcg_k"], abs=1e-12)
    assert int(n_retrieved(P)) == b["n"]


def test_tse_definition():
    # 1/p_m when every relevant doc is retrieved, else 0 (Diaz & Mitra (2023) §3.2)
    assert tse(np.array([1.0, 4.0, 7.0])) == pytest.approx(1 / 7)
    assert tse(np.array([1.0, 4.0, INF])) == 0.0
    assert tse(np.array([INF, INF])) == 0.0
    P = np.array([[[2.0, 5.0], [1.0, INF]]])
    assert tse(P).shape == (1, 2)
    assert tse(P).tolist() == [[0.2, 0.0]]


RUNS = {  # derived cases, n = 20, m = 4 (exact arithmetic)
    "A": [1, 2, 3],
    "B": [4, 5, 6, 7],
    "C": [1, 2, 9, 10],
    "D": [1, 2, 3, 10],
    "E": [],
}


def run_vector(name, n=None):
    pos = [float(p) for p in RUNS[name]]
    missing = 4 - len(pos)
    tail = [INF] * missing if n is None else [float(n - missing + 1 + j) for j in range(missing)]
    return np.array(pos + tail)


@pytest.mark.parametrize(
    "name, ap_trec, ap_imputed, rp, r10, tse_ap, rr_, ndcg_trec",
    [
        ("A", 0.7500, 0.8000, 3 / 4, 3 / 4, 1 / 20, 1.0, 0.8319),
        ("B", 0.4304, 0.4304, 1 / 4, 1.0, 1 / 7, 1 / 4, 0.5883),
        ("C", 0.6833, 0.6833, 1 / 2, 1.0, 1 / 10, 1.0, 0.8670),
        ("D", 0.8500, 0.8500, 3 / 4, 1.0, 1 / 10, 1.0, 0.9447),
        ("E", 0.0, 0.1320, 0.0, 0.0, 1 / 20, 0.0, 0.0),
    ],
)
def test_a_to_e_table(name, ap_trec, ap_imputed, rp, r10, tse_ap, rr_, ndcg_trec):
    P = run_vector(name)
    Pn = run_vector(name, n=20)
    assert ap(P) == pytest.approx(ap_trec, abs=5e-5)
    assert ap(Pn) == pytest.approx(ap_imputed, abs=5e-5)
    assert rprec(P) == rp
    assert recall_at_k(P, 10) == r10
    assert tse(Pn) == pytest.approx(tse_ap)  # with an explicit corpus of 20
    assert tse(P) == (tse_ap if len(RUNS[name]) == 4 else 0.0)  # no corpus size: unretrieved => 0
    assert rr(P) == rr_
    assert ndcg(P) == pytest.approx(ndcg_trec, abs=5e-5)


def test_c4_2_ap_values():
    assert ap(np.array([1.0, 10, 11])) == pytest.approx(0.490909, abs=5e-7)
    assert ap(np.array([2.0, 3, 4])) == pytest.approx(0.638889, abs=5e-7)


def test_no_relevant_documents_is_nan():
    empty = np.zeros((2, 0))
    for f in (tse, rr, ap, rprec, ndcg):
        assert np.isnan(f(empty)).all() and f(empty).shape == (2,)
    assert np.isnan(recall_at_k(empty, 5)).all()
    assert np.isnan(precision_at_k(empty, 5)).all()
    assert n_retrieved(empty).tolist() == [0, 0]
    with pytest.raises(PrefevalError, match="cutoff"):
        precision_at_k(np.ones(2), 0)
