"""Ranking semantics (trec_eval order, duplicates, depth, missing queries) and position arrays for many runs,
checked against a brute-force ranking written from trec_eval's definition: per query, sort by (score, doc_id) descending,
keep the first occurrence of each document, rank 1..n."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.data.collection import Collection, query_positions
from prefeval.data.inputs import run_frame
from prefeval.data.positions import PositionTable, relevant_documents
from prefeval.data.ranking import rank_run
from prefeval.errors import PrefevalError


def _run(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def _qrels(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance", "iteration"])


def brute_force_ranking(run: pd.DataFrame) -> dict[str, list[str]]:
    """query -> documents in rank order (straight from trec_eval's definition)."""
    out: dict[str, list[str]] = {}
    for q, d, s in run[["query_id", "doc_id", "score"]].itertuples(index=False):
        out.setdefault(q, []).append((s, d))
    ranking = {}
    for q, rows in out.items():
        docs = [d for _, d in sorted(rows, reverse=True)]  # score desc, then doc_id desc (string order)
        ranking[q] = list(dict.fromkeys(docs))  # a repeated document keeps its first (best) position
    return ranking


def brute_force_positions(runs: dict, qrels: pd.DataFrame, rel: int, depth: int | None):
    """query -> (relevant docs sorted, {run index: positions}) with +inf for documents not in the top ``depth``."""
    best = {}
    for q, d, g, _ in qrels.itertuples(index=False):
        best[q, d] = max(best.get((q, d), g), g)
    relevant: dict[str, list[str]] = {}
    for (q, d), g in sorted(best.items()):
        if g >= rel:
            relevant.setdefault(q, []).append(d)
    rankings = [brute_force_ranking(r) for r in runs.values()]
    result = {}
    for q, docs in relevant.items():
        rows = []
        for ranking in rankings:
            ranked = ranking.get(q, [])[:depth]
            rows.append([ranked.index(d) + 1.0 if d in ranked else np.inf for d in docs])
        result[q] = (docs, np.array(rows))
    return result


# ---------------------------------------------------------------------------------------------
# rank_run


def test_order_is_score_desc_then_doc_id_desc():
    ranked = rank_run(_run([("q", "a", 1.0), ("q", "c", 2.0), ("q", "b", 1.0), ("q", "d10", 1.0), ("q", "d9", 1.0)]))
    rows = ranked.rows()
    assert rows["doc_id"].tolist() == ["c", "d9", "d10", "b", "a"]  # string order: "d9" > "d10"
    assert rows["rank"].tolist() == [1, 2, 3, 4, 5]
    assert rows["query_id"].tolist() == ["q"] * 5


def test_ties_in_an_already_sorted_run_are_still_ordered_by_doc_id():
    run = _run([("q", "a", 2.0), ("q", "c", 2.0), ("q", "b", 2.0), ("q", "z", 1.0), ("p", "x", 5.0)])
    rows = rank_run(run, queries=["p", "q"]).rows()
    assert rows.values.tolist() == [["p", "x", 1], ["q", "c", 1], ["q", "b", 2], ["q", "a", 3], ["q", "z", 4]]


def test_repeated_document_keeps_its_best_position_and_warns_once_per_run():
    run = _run([("q", "a", 1.0), ("q", "b", 2.0), ("q", "a", 3.0), ("q", "c", 0.5), ("p", "a", 1.0),
                ("p", "a", 0.0)])
    with pytest.warns(UserWarning, match="run 'r': 2 repeated document") as record:
        ranked = rank_run(run, name="r")
    assert len(record) == 1
    rows = ranked.rows()
    assert rows[rows["query_id"] == "q"]["doc_id"].tolist() == ["a", "b", "c"]
    assert rows[rows["query_id"] == "q"]["rank"].tolist() == [1, 2, 3]
    assert rows[rows["query_id"] == "p"]["doc_id"].tolist() == ["a"]


def test_same_document_in_two_queries_is_not_a_repeat():
    run = _run([("q", "a", 1.0), ("p", "a", 1.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(rank_run(run).rows()) == 2


def test_depth_truncates_rows_and_dict():
    ranked = rank_run(_run([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0), ("p", "a", 1.0)]))
    assert sorted(map(tuple, ranked.rows(2).values.tolist())) == [("p", "a", 1), ("q", "a", 1), ("q", "b", 2)]
    assert ranked.to_dict(2) == {"q": {"a": -1.0, "b": -2.0}, "p": {"a": -1.0}}
    assert ranked.to_dict() == {"q": {"a": -1.0, "b": -2.0, "c": -3.0}, "p": {"a": -1.0}}


def test_queries_outside_the_given_ones_are_dropped():
    ranked = rank_run(_run([("x", "a", 3.0), ("q", "b", 2.0)]), queries=pd.Index(["q", "p"]))
    assert ranked.rows().values.tolist() == [["q", "b", 1]]
    assert list(ranked.queries) == ["q", "p"]


def test_empty_run():
    ranked = rank_run(run_frame(pd.DataFrame()), queries=["q"])
    assert ranked.rows().empty and ranked.to_dict() == {}


def test_missing_ids_are_errors_naming_the_run():
    with pytest.raises(PrefevalError, match="run 'r' has a missing query id"):
        rank_run(_run([("q", "a", 1.0), (None, "b", 1.0)]), name="r")
    with pytest.raises(PrefevalError, match="run 'r' has a missing doc id"):
        rank_run(_run([("q", "a", 1.0), ("q", None, 2.0)]), name="r")


@pytest.mark.parametrize("block", [1, 2, 1 << 16])
def test_a_missing_doc_id_is_an_error_with_per_query_candidates(monkeypatch, block):
    """Also where a block of queries has no candidate and no document id at all (one block, or several)."""
    from prefeval.data import ranking

    monkeypatch.setattr(ranking, "_BLOCK_ROWS", block)
    monkeypatch.setattr(ranking, "_PART_ROWS", 1)
    candidates = ranking.QueryCandidates(pd.Series(["q1"]), pd.Series(["a"]))
    for rows in ([("q2", None, 1.0)], [("q1", "a", 2.0), ("q1", "b", 1.0), ("q2", None, 1.0), ("q3", "c", 1.0)]):
        with pytest.raises(PrefevalError, match=r"run 'r' has a missing doc id \(query q2\)"):
            rank_run(_run(rows), candidates=candidates, name="r")


def test_run_frame_keeps_canonical_frames_without_copy():
    frame = run_frame(_run([("q", "a", 1.0)]))  # canonical: str ids, float64 scores
    assert run_frame(frame) is frame
    with_tag = frame.assign(tag="t")
    assert run_frame(with_tag).columns.tolist() == ["query_id", "doc_id", "score"]
    numeric = pd.DataFrame({"query_id": [1], "doc_id": ["a"], "score": [1]})  # converted, as before
    converted = run_frame(numeric)
    assert converted is not numeric and converted["query_id"].tolist() == ["1"]
    assert converted["score"].dtype == np.float64
    with pytest.raises(PrefevalError, match="not a number"):
        run_frame(_run([("q", "a", np.nan)]))


# ---------------------------------------------------------------------------------------------
# relevant documents and positions


def test_relevant_documents_take_max_grade_over_subtopics():
    qrels = _qrels([("q", "a", 0, "1"), ("q", "a", 2, "2"), ("q", "b", -2, "1"), ("p", "c", 0, "0")])
    assert relevant_documents(qrels, 1).values.tolist() == [["q", "a", 2]]


def test_query_positions_with_missing_query_and_subtopics():
    qrels = _qrels([("q", "a", 1, "1"), ("q", "b", 2, "1"), ("q", "b", 1, "2"), ("q", "c", 0, "2"), ("p", "z", 1, "1")])
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
    assert query_positions(runs, qrels, rel=1, subtopics=False)[1].subtopics is None


def test_subtopic_ids_in_numeric_order():
    qrels = _qrels([("q", "a", 1, "10"), ("q", "b", 1, "2"), ("q", "b", 1, "10")])
    (q,) = query_positions({"x": _run([("q", "a", 1.0)])}, qrels)
    assert q.subtopic_ids == ("2", "10")
    assert q.subtopics.tolist() == [[False, True], [True, True]]


def test_locate_without_candidates_or_with_partial_or_repeated_candidates():
    qrels = _qrels([("q", "a", 1, "0"), ("q", "b", 2, "0"), ("p", "b", 1, "0")])
    run = _run([("q", "b", 3.0), ("q", "a", 2.0), ("p", "c", 2.0), ("p", "b", 1.0)])
    table = PositionTable(qrels, 1, Collection(qrels).queries)
    expected = [2.0, 2.0, 1.0]  # columns (p, b), (q, a), (q, b)
    for candidates in (None, np.array(["b"], dtype=object), np.array(["b", "a", "b", "x"], dtype=object),
                       Collection(qrels).candidates(1)):
        ranked = rank_run(run, table.queries, candidates)
        assert table.locate(ranked).tolist() == expected
        assert table.locate(ranked, depth=1).tolist() == [np.inf, np.inf, 1.0]
    ranked = rank_run(run)  # its own query list, in order of appearance
    assert table.locate(ranked).tolist() == expected


# ---------------------------------------------------------------------------------------------
# properties: fast path (already sorted) and general path agree with the definition


@st.composite
def runs_and_qrels(draw):
    n_docs = draw(st.integers(1, 12))
    docs = [f"d{i}" for i in range(n_docs)]
    queries = ["1", "2", "10"]
    rows = []
    for q in queries:
        if draw(st.booleans()) and draw(st.booleans()):
            continue  # query missing from the run
        k = draw(st.integers(0, 15))
        rows += [(q, draw(st.sampled_from(docs)), float(draw(st.integers(0, 3)))) for _ in range(k)]  # repeats, ties
    rows += [("not-in-qrels", "d0", 1.0)] * draw(st.integers(0, 1))
    judged = draw(st.lists(st.tuples(st.sampled_from(queries), st.sampled_from(docs), st.integers(-1, 3),
                                     st.sampled_from(["0", "1", "2"])), max_size=20))
    return _run(rows), _qrels(judged), draw(st.randoms(use_true_random=False))


@settings(max_examples=60, deadline=None)
@given(runs_and_qrels(), st.sampled_from([None, 1, 3]), st.sampled_from([1, 2]))
def test_sorted_and_unsorted_runs_give_the_definition(case, depth, rel):
    run, qrels, rnd = case
    qrels = Collection.of(qrels).frame  # canonical: a document judged twice in a query has the last line's grade
    presorted = run.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")  # ties unresolved
    shuffled = run.sample(frac=1.0, random_state=rnd.randrange(1 << 30))
    queries = Collection(qrels).queries
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranked = [rank_run(f, queries, Collection(qrels).candidates(rel)) for f in (presorted, shuffled)]
        positions = query_positions({"a": presorted, "b": shuffled}, qrels, rel=rel, depth=depth)
    rows = [r.rows(depth) for r in ranked]
    pd.testing.assert_frame_equal(rows[0], rows[1])
    expected_ranking = brute_force_ranking(run[run["query_id"].isin(set(queries))])
    got = {q: g["doc_id"].tolist() for q, g in rows[0].groupby("query_id", sort=False)}
    assert got == {q: docs[:depth] for q, docs in expected_ranking.items() if docs}
    assert list(rows[0]["query_id"].drop_duplicates()) == [q for q in queries if q in got]  # grouped, qrels order
    expected = brute_force_positions({"a": presorted, "b": shuffled}, qrels, rel, depth)
    assert [p.query_id for p in positions] == sorted(expected)
    for p in positions:
        docs, doc_pos = expected[p.query_id]
        assert p.doc_ids.tolist() == docs
        np.testing.assert_array_equal(p.doc_pos, doc_pos)
