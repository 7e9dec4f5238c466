"""Ranking semantics (trec_eval order, duplicates, depth) and position arrays for many runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from prefeval.ranking import query_positions, rank_runs, relevant_documents


def _run(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def test_order_is_score_desc_then_doc_id_desc():
    ranked = rank_runs({"r": _run([("q", "a", 1.0), ("q", "c", 2.0), ("q", "b", 1.0), ("q", "d10", 1.0),
                                   ("q", "d9", 1.0)])})
    assert ranked["doc_id"].tolist() == ["c", "d9", "d10", "b", "a"]  # string order: "d9" > "d10"
    assert ranked["rank"].tolist() == [1, 2, 3, 4, 5]


def test_repeated_document_keeps_its_best_position_and_warns():
    run = _run([("q", "a", 1.0), ("q", "b", 2.0), ("q", "a", 3.0), ("q", "c", 0.5)])
    with pytest.warns(UserWarning, match="run 'r': 1 repeated document"):
        ranked = rank_runs({"r": run})
    assert ranked["doc_id"].tolist() == ["a", "b", "c"]
    assert ranked["rank"].tolist() == [1, 2, 3]


def test_depth_and_run_index():
    ranked = rank_runs({"x": _run([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0)]),
                        "y": _run([("q", "c", 3.0), ("p", "a", 1.0)])}, depth=2)
    rows = sorted(map(tuple, ranked.values.tolist()))
    assert rows == [(0, "q", "a", 1), (0, "q", "b", 2), (1, "p", "a", 1), (1, "q", "c", 1)]


def test_relevant_documents_take_max_grade_over_subtopics():
    qrels = pd.DataFrame({"query_id": ["q", "q", "q", "p"], "doc_id": ["a", "a", "b", "c"],
                          "relevance": [0, 2, -2, 0], "iteration": ["1", "2", "1", "0"]})
    rel = relevant_documents(qrels, 1)
    assert rel.values.tolist() == [["q", "a", 2]]


def test_query_positions_with_missing_query_and_subtopics():
    qrels = pd.DataFrame({"query_id": ["q"] * 4 + ["p"], "doc_id": ["a", "b", "b", "c", "z"],
                          "relevance": [1, 2, 1, 0, 1], "iteration": ["1", "1", "2", "2", "1"]})
    runs = {"x": _run([("q", "b", 3.0), ("q", "x", 2.0), ("q", "a", 1.0)]), "y": _run([("q", "c", 1.0)])}
    positions = query_positions(runs, qrels, rel=1)
    assert [p.query_id for p in positions] == ["p", "q"]
    p, q = positions
    assert np.all(np.isinf(p.doc_pos))  # no run has query p: empty rankings
    assert q.doc_ids.tolist() == ["a", "b"]
    assert q.grades.tolist() == [1, 2]
    assert q.doc_pos.tolist() == [[3.0, 1.0], [np.inf, np.inf]]
    assert q.subtopic_ids == ("1", "2")
    assert q.subtopics.tolist() == [[True, True], [False, True]]
