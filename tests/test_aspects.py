"""Per-aspect arrays from qrels and runs (prefeval.data.aspects): the same data the RBU provider evaluates."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval.core import diversity
from prefeval.data.aspects import aspect_arrays, evaluate_kernel, kernel_measure, single_aspect
from prefeval.errors import PrefevalError


def data() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(7)
    qrels, run = [], []
    for q in range(1, 7):
        n_sub = int(rng.integers(1, 4))
        docs = [f"d{q}_{i}" for i in range(int(rng.integers(2, 25)))]
        for d in docs:
            for s in range(1, n_sub + 1):
                qrels.append((str(q), d, int(rng.choice([-2, 0, 0, 1, 2, 3])), str(s) if n_sub > 1 else "0"))
        if q == 6:
            continue  # a query the run lacks: an empty ranking
        pool = docs + [f"x{q}_{i}" for i in range(5)]
        picked = rng.permutation(len(pool))[: int(rng.integers(1, len(pool)))]
        run += [(str(q), pool[i], float(rng.integers(0, 4))) for i in picked]  # many score ties
    qrels.append(("9", "z", 0, "1"))  # no relevant document: not evaluated
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance", "iteration"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


@pytest.mark.parametrize("k", [None, 5])
def test_rbu_through_the_arrays_equals_the_provider(k) -> None:
    qrels, run = data()
    measure = prefeval.RBU(p=0.9, e=0.05) if k is None else prefeval.RBU(p=0.9, e=0.05) @ k
    provider = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    ours = evaluate_kernel("RBU", qrels, run, k=k, p=0.9, e=0.05)
    assert "9" not in ours.index and ours["6"] == 0.0
    assert provider.pop("9") == 0.0  # judged without a relevant document: 0 for every measure (Input semantics)
    assert ours.to_dict() == pytest.approx(provider, abs=1e-12)


def test_buckets_do_not_change_values() -> None:
    qrels, run = data()
    buckets = list(aspect_arrays(qrels, run))
    one = list(aspect_arrays(qrels, run, bucket=False))
    assert len(one) == 1 and len(buckets) > 1
    for name in ("ERR_IA", "AP_IA", "nDCG_IA", "S_RR", "EU"):
        split = {q: v for a in buckets for q, v in zip(a.query_ids, diversity.evaluate(name, a.r, a.weights,
                                                                                          length=a.length, pool=a.pool))}
        a = one[0]
        whole = dict(zip(a.query_ids, diversity.evaluate(name, a.r, a.weights, length=a.length, pool=a.pool)))
        assert split == pytest.approx(whole, abs=1e-12), name


def test_arrays_hold_err_mapped_grades_and_uniform_weights() -> None:
    qrels = pd.DataFrame([("1", "a", 2, "1"), ("1", "b", 1, "1"), ("1", "a", -2, "2"), ("1", "c", 3, "2"),
                          ("1", "d", 0, "3")], columns=["query_id", "doc_id", "relevance", "iteration"])
    run = pd.DataFrame([("1", "a", 3.0), ("1", "x", 2.0), ("1", "c", 1.0)], columns=["query_id", "doc_id", "score"])
    (a,) = aspect_arrays(qrels, run)
    assert a.query_ids == ["1"] and a.length.tolist() == [3]
    assert a.weights.tolist() == [[0.5, 0.5]]  # subtopic 3 has no relevant document
    assert a.r[0].tolist() == [[0.75, 0.0], [0.0, 0.0], [0.0, 0.875]]
    assert sorted(map(tuple, a.pool[0].tolist())) == [(0.0, 0.875), (0.25, 0.0), (0.75, 0.0)]
    (b,) = aspect_arrays(qrels, run, mapping="binary")
    assert b.r[0].tolist() == [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]
    s = single_aspect(a)
    assert s.r[0, :, 0].tolist() == [0.75, 0.0, 0.875] and s.weights.tolist() == [[1.0]]


def test_kernel_measure_and_errors() -> None:
    qrels, run = data()
    f = kernel_measure("RBP_IA", p=0.5, single_aspect=True)
    assert f.__name__ == "RBP_IA" and set(f(qrels, run)) == {"1", "2", "3", "4", "5", "6"}
    with pytest.raises(PrefevalError, match="unknown diversity metric"):
        kernel_measure("nDCG")
    with pytest.raises(PrefevalError, match="unknown relevance mapping"):
        list(aspect_arrays(qrels, run, mapping="exp"))
