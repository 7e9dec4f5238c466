"""prefeval.core.positions against brute force and the digests' examples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.core.positions import (
    doc_positions,
    position_vectors,
    rank_order,
    rank_order_codes,
    string_codes,
)
from prefeval.errors import PrefevalError

INF = math.inf

# Doc ids over a small alphabet with non-ASCII characters so that score ties and
# string-order subtleties (prefixes, code points above 127) are common.
doc_id = st.text(alphabet="ab9Zé_\u4e2d", min_size=1, max_size=4)


def brute_order(scores, ids):
    """trec_eval's order, straight from its definition: score desc, then doc_id desc (Python string order)."""
    return sorted(zip(scores, ids), key=lambda t: (t[0], t[1]), reverse=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), doc_id), max_size=40), st.booleans())
def test_rank_order_matches_trec_eval_order(rows, as_object):
    scores = np.array([float(s) for s, _ in rows], dtype=np.float64)
    ids = np.array([d for _, d in rows], dtype=object if as_object else str)
    if not rows:
        ids = np.array([], dtype=object if as_object else str)
    order = rank_order(scores, ids)
    got = [(float(scores[i]), str(ids[i])) for i in order]
    assert got == brute_order(scores.tolist(), [str(d) for d in ids])
    assert sorted(order.tolist()) == list(range(len(rows)))


def test_rank_order_ties_by_doc_id_descending_string_order():
    # "d9" > "d10" > "d1" in string order, so on equal scores d9 comes first.
    ids = np.array(["d1", "d10", "d9", "x"])
    scores = np.array([1.0, 1.0, 1.0, 0.5])
    assert ids[rank_order(scores, ids)].tolist() == ["d9", "d10", "d1", "x"]
    # The score dominates the doc id.
    scores = np.array([1.0, 2.0, 1.0, 3.0])
    assert ids[rank_order(scores, ids)].tolist() == ["x", "d10", "d9", "d1"]


def test_rank_order_codes_equals_rank_order_with_shared_code_table():
    rng = np.random.default_rng(7)
    universe = np.array([f"doc{i}" for i in range(300)])
    ids = rng.choice(universe, size=120, replace=False)
    scores = rng.integers(0, 5, size=120).astype(float)
    table = string_codes(universe)  # one code table for the whole collection
    lookup = dict(zip(universe.tolist(), table.tolist()))
    codes = np.array([lookup[d] for d in ids])
    assert np.array_equal(ids[rank_order_codes(scores, codes)], ids[rank_order(scores, ids)])


def test_string_codes_preserve_order():
    ids = np.array(["b", "a", "c", "a", "\u00e9"], dtype=object)
    codes = string_codes(ids)
    for i in range(len(ids)):
        for j in range(len(ids)):
            assert (codes[i] < codes[j]) == (ids[i] < ids[j])
            assert (codes[i] == codes[j]) == (ids[i] == ids[j])


def test_rank_order_rejects_shape_mismatch():
    with pytest.raises(PrefevalError, match="same shape"):
        rank_order(np.array([1.0, 2.0]), np.array(["a"]))


def test_rank_order_nan_scores_sort_last():
    ids = np.array(["a", "b", "c"])
    order = rank_order(np.array([np.nan, 1.0, 2.0]), ids)
    assert ids[order].tolist() == ["c", "b", "a"]


def brute_doc_positions(ranked, relevant):
    out = []
    for run in ranked:
        row = []
        for d in relevant:
            hits = [r for r, x in enumerate(run, start=1) if x == d]
            row.append(float(hits[0]) if hits else INF)  # first (best) occurrence
        out.append(row)
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("abcdefghij"), max_size=12), max_size=5),
    st.sets(st.sampled_from("abcdefghijklm"), max_size=6),
    st.booleans(),
)
def test_doc_positions_matches_brute_force(ranked, relevant, as_object):
    dtype = object if as_object else str
    rel = np.array(sorted(relevant, reverse=True), dtype=dtype)
    runs = [np.array(r, dtype=dtype) for r in ranked]
    got = doc_positions(runs, rel)
    assert got.shape == (len(ranked), len(rel))
    assert got.dtype == np.float64
    expected = np.array(brute_doc_positions(ranked, rel.tolist()), dtype=np.float64).reshape(got.shape)
    assert np.array_equal(got, expected)


def test_doc_positions_paper_example_section_2_2():
    # Diaz & Mitra (2023) §2.2: a system returns 3 of m = 6 relevant items, at positions 2, 3 and 8.
    ranking = np.array(["n1", "r1", "r2", "n2", "n3", "n4", "n5", "r3", "n6", "n7"])
    relevant = np.array(["r1", "r2", "r3", "r4", "r5", "r6"])
    pv = position_vectors(doc_positions([ranking], relevant))
    assert pv.tolist() == [[2.0, 3.0, 8.0, INF, INF, INF]]


def test_doc_positions_mixed_dtypes_and_integer_codes():
    got = doc_positions([np.array(["a", "b"], dtype=object), np.array(["b"])], np.array(["b", "z"]))
    assert got.tolist() == [[2.0, INF], [1.0, INF]]
    got = doc_positions([np.array([5, 3, 9])], np.array([9, 5, 4]))
    assert got.tolist() == [[3.0, 1.0, INF]]


def test_doc_positions_edge_cases():
    assert doc_positions([], np.array(["a"])).shape == (0, 1)
    assert doc_positions([np.array(["a"])], np.array([], dtype=str)).shape == (1, 0)
    assert doc_positions([np.array([], dtype=str)], np.array(["a"])).tolist() == [[INF]]
    # an empty ranking built without a dtype (float64) next to string rankings
    assert doc_positions([np.array([]), np.array(["b", "a"])], np.array(["a"])).tolist() == [[INF], [2.0]]
    with pytest.raises(PrefevalError, match="different kinds"):
        doc_positions([np.array([1, 2])], np.array(["a"]))
    with pytest.raises(PrefevalError, match="repeated"):
        doc_positions([np.array(["a"])], np.array(["a", "b", "a"]))


def test_position_vectors_sort_and_mask():
    D = np.array([[5.0, INF, 2.0, 9.0], [INF, INF, 1.0, 3.0]])
    assert position_vectors(D).tolist() == [[2.0, 5.0, 9.0, INF], [1.0, 3.0, INF, INF]]
    mask = np.array([True, True, False, False])
    assert position_vectors(D, mask).tolist() == [[5.0, INF], [INF, INF]]
    # broadcasting over leading axes
    assert position_vectors(D[None]).shape == (1, 2, 4)
    with pytest.raises(PrefevalError, match="mask shape"):
        position_vectors(D, np.array([True]))
