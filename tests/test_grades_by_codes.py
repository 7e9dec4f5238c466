"""The grades of a ranking found two ways give the same segments: a run ranked with the collection's judged pairs as
candidates has its judged rows found by their candidate codes (:attr:`prefeval.data.collection.Collection.judged_pairs`,
what ``evaluate`` ranks with), any other run by looking its document ids up among the judged documents. Random qrels
(documents judged for other queries, grade 0 and negative grades, a pair judged twice: the last line) and random runs
(ties, repeated documents, unjudged and missing queries), ranked whole or to a depth, in blocks of a few queries, from
frames and from dicts."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.core.trec_measures import UNJUDGED
from prefeval.data import ranking
from prefeval.data.collection import Collection
from prefeval.data.inputs import encoded_run

DOCS = ["d1", "d2", "d10", "d9", "x", "é", "d3", "d4"]


@st.composite
def cases(draw):
    qrels_rows = [(f"q{q}", draw(st.sampled_from(DOCS)), draw(st.sampled_from([-2, 0, 0, 1, 2])))
                  for q in range(draw(st.integers(1, 4))) for _ in range(draw(st.integers(1, 5)))]
    run_rows = [(f"q{q}", draw(st.sampled_from(DOCS)), float(draw(st.integers(0, 3))))
                for q in range(draw(st.integers(0, 5))) for _ in range(draw(st.integers(0, 9)))]
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    if draw(st.booleans()):
        run = run.sort_values(["query_id", "score"], ascending=[True, False], kind="stable").reset_index(drop=True)
    return qrels, run


@settings(max_examples=300, deadline=None)
@given(cases(), st.sampled_from([None, 1, 3]), st.sampled_from([None, 2]), st.sampled_from([1, 1 << 14]),
       st.booleans())
def test_grades_by_codes_equal_grades_by_lookup(case, depth, cut, block, as_dict):
    qrels, run = case
    collection = Collection(qrels)
    grades = collection.grades
    if as_dict:  # a dict keeps the last score of a repeated document: its ranking, not the frame's, is compared
        run = {q: dict(zip(group["doc_id"], group["score"])) for q, group in run.groupby("query_id", sort=False)}
    saved = ranking._BLOCK_ROWS
    try:
        ranking._BLOCK_ROWS = block
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            source = encoded_run(run) if as_dict else run
            by_codes = ranking.rank_run(source, depth=depth, candidates=collection.judged_pairs)
            by_lookup = ranking.rank_run(source, depth=depth)
    finally:
        ranking._BLOCK_ROWS = saved
    assert by_codes.candidates is grades.judged_pairs.documents.unique  # the route by codes is taken
    a, b = grades.rankings(by_codes, cut), grades.rankings(by_lookup, cut)
    assert np.array_equal(a.grades, b.grades)
    assert np.array_equal(a.offsets, b.offsets)
    assert np.array_equal(a.query, b.query)
    # and both are the definition: the last grade of each judged (query, document), in rank order
    last = {(q, d): g for q, d, g in qrels.itertuples(index=False)}
    exact = None if by_lookup.full_order else by_lookup.exact_depth  # a run ranked to a depth is cut there
    rows = by_lookup.rows(exact if cut is None else cut if exact is None else min(cut, exact))
    for s, query in enumerate(a.query.tolist()):
        name = grades.queries[query]
        docs = rows.loc[rows["query_id"] == name, "doc_id"].tolist()
        assert a.grades[a.offsets[s]:a.offsets[s + 1]].tolist() == [last.get((name, d), UNJUDGED) for d in docs]
