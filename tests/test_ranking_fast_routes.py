"""``rank_run``'s routes for runs as TREC files hold them (grouped by query, scores non-increasing: only the tied rows
move; the repeats of a document within a query found block by block while the ids are factorised) against the
definition, on random runs: score descending, ties by doc id descending as strings, a repeated document at its first
(best) position with one warning counting the rows dropped, whatever the block size, the order of the rows or a
depth."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.data import ranking


def ranked_by_definition(frame: pd.DataFrame) -> tuple[list[tuple[str, str, int]], int]:
    """(query, doc, rank) rows in query order of first appearance and rank order; the number of repeats dropped."""
    rows, dropped = [], 0
    for query, group in frame.groupby("query_id", sort=False):
        seen = set()
        in_order = sorted(zip(group["score"], group["doc_id"], range(len(group))), key=lambda t: (-t[0], t[2]))
        # score descending; within equal scores doc id descending (a repeated id keeps its first row's place)
        by_score: dict[float, list[str]] = {}
        for score, doc, _ in in_order:
            by_score.setdefault(score, []).append(doc)
        ranked = [doc for score in sorted(by_score, reverse=True) for doc in sorted(by_score[score], reverse=True)]
        for doc in ranked:
            if doc in seen:
                dropped += 1
                continue
            seen.add(doc)
            rows.append((query, doc, len(seen)))
    return rows, dropped


@st.composite
def runs(draw):
    queries = draw(st.integers(1, 6))
    rows = []
    for q in range(queries):
        depth = draw(st.integers(0, 12))
        for _ in range(depth):
            rows.append((f"q{q}", draw(st.sampled_from(["d1", "d2", "d10", "d9", "x", "é", "d3"])),
                         float(draw(st.integers(0, 4)))))
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    if draw(st.booleans()):  # as a TREC file: grouped by query, scores non-increasing
        frame = frame.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")
    return frame.reset_index(drop=True)


@settings(max_examples=300, deadline=None)
@given(runs(), st.sampled_from([1, 2, 3, 1 << 14]), st.sampled_from([None, 1, 3]), st.booleans(),
       st.sampled_from([1, 5, 1 << 20]))
def test_rank_run_is_the_definition(frame, block, depth, arrow, part):
    """``part``: the fewest rows per thread of the blocks' coding (1: as many parts as 3 cores and the blocks
    allow)."""
    saved = ranking._BLOCK_ROWS, ranking._PART_ROWS, ranking.os.cpu_count
    if arrow:
        import pyarrow as pa

        frame = frame.assign(query_id=pd.Series(pd.arrays.ArrowStringArray(pa.array(frame["query_id"], pa.string()))),
                             doc_id=pd.Series(pd.arrays.ArrowStringArray(pa.array(frame["doc_id"], pa.string()))))
    try:
        ranking._BLOCK_ROWS, ranking._PART_ROWS, ranking.os.cpu_count = block, part, lambda: 3
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ranked = ranking.rank_run(frame, depth=depth)
    finally:
        ranking._BLOCK_ROWS, ranking._PART_ROWS, ranking.os.cpu_count = saved
    expected, dropped = ranked_by_definition(frame)
    rows = ranked.rows(depth)
    got = list(zip(rows["query_id"].astype(str), rows["doc_id"].astype(str), rows["rank"].astype(int)))
    if depth is not None:
        expected = [row for row in expected if row[2] <= depth]
    assert got == expected
    messages = [str(w.message) for w in caught if "repeated document" in str(w.message)]
    assert messages == ([f"run 'run': {dropped} repeated document(s) within a query; each keeps its first (best) "
                         "position"] if dropped else [])


def test_distinct_in_queries_is_its_definition():
    rng = np.random.default_rng(7)
    for size in (8, 40, 1000):  # pairs counted in bins (few documents), or sorted (many)
        for _ in range(300):
            n = int(rng.integers(0, 30))
            qc = np.sort(rng.integers(-1, 4, n))
            codes = rng.integers(-1 if rng.random() < 0.1 else 0, size, n)
            pairs = list(zip(qc.tolist(), codes.tolist()))
            expected = not (codes < 0).any() and len(set(pairs)) == len(pairs)
            assert ranking._distinct_in_queries(qc, codes, size) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 400)), max_size=12), st.data())
def test_stretch_ends_as_defined(stretches, data):
    """``_stretch_ends``: for each row, the last row of its stretch of tied rows (``same[i]``: row i + 1 ties row i),
    with stretches short and long (beyond the first windows)."""
    same = np.array([value for value, length in stretches for _ in range(length)], dtype=bool)
    rows = np.array(data.draw(st.lists(st.integers(0, len(same)), max_size=20)), dtype=np.intp)
    expected = []
    for row in rows.tolist():
        end = row
        while end < len(same) and same[end]:
            end += 1
        expected.append(end)
    assert ranking._stretch_ends(same, rows).tolist() == expected
