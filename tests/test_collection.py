"""The coded collection (:class:`prefeval.data.collection.Collection`): what it derives from the qrels equals the
definitions computed the plain way, and it is the only place that derives them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.data.collection import Collection, coverage_note
from prefeval.data.trec import read_qrels_columns

SRC = Path(__file__).resolve().parents[1] / "src" / "prefeval"


@st.composite
def qrels_frames(draw) -> pd.DataFrame:
    """Canonical qrels: queries and documents with awkward ids, grades from -1 to 3, some documents judged for two
    subtopics (diversity qrels), one line per (query, document, subtopic)."""
    queries = draw(st.lists(st.sampled_from(["q1", "10", "2", "q 3", "é", "0002"]), min_size=1, max_size=5,
                            unique=True))
    rows = {}
    for _ in range(draw(st.integers(1, 25))):
        key = (draw(st.sampled_from(queries)), draw(st.sampled_from(["d1", "d2", "D1", "d10", "x"])),
               draw(st.sampled_from(["0", "0", "1", "2"])))
        rows[key] = draw(st.integers(-1, 3))
    return pd.DataFrame([(q, d, g, s) for (q, d, s), g in rows.items()],
                        columns=["query_id", "doc_id", "relevance", "iteration"])


@settings(max_examples=80, deadline=None)
@given(qrels_frames(), st.integers(1, 3))
def test_what_a_collection_derives_equals_the_definitions(qrels, rel):
    collection = Collection(qrels)
    order = list(dict.fromkeys(qrels["query_id"]))
    assert collection.queries.tolist() == order  # order of first appearance
    assert collection.judged.tolist() == sorted(order)  # every judged query, at any grade, sorted by id
    relevant = qrels[qrels["relevance"] >= rel]
    assert collection.evaluated(rel).tolist() == [q in set(relevant["query_id"]) for q in order]
    per_query = relevant.groupby("query_id")["doc_id"].nunique()  # a document judged for two subtopics counts once
    assert collection.relevant_counts(rel).tolist() == [float(per_query.get(q, 0)) for q in sorted(order)]
    assert collection.judged[collection.judged_rows].tolist() == order  # each query's row among the judged
    assert sorted(collection.candidates(rel).tolist()) == sorted(set(relevant["doc_id"]))
    per_query_candidates = collection.query_candidates(rel)  # each query's own documents at grade >= rel
    for code, query in enumerate(order):
        found = per_query_candidates.documents.unique[per_query_candidates.of(collection.queries, np.array([code]))]
        assert sorted(set(found.tolist())) == sorted(set(relevant.loc[relevant["query_id"] == query, "doc_id"]))
    assert collection.max_grade == int(qrels["relevance"].max())
    assert collection.subtopics == bool(set(qrels["iteration"]) - {"0"})
    assert len(collection) == len(order)
    table = collection.table(rel)
    assert table is collection.table(rel)  # built once
    assert sorted(zip(table.relevant["query_id"], table.relevant["doc_id"])) == \
        sorted(set(zip(relevant["query_id"], relevant["doc_id"])))


def test_of_reads_any_form_once_and_keeps_a_collection(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("2 0 d1 1\n1 0 d2 0\n1 0 d1 2\n2 0 d1 0\n")  # d1 of query 2 judged twice: the last line wins
    collection = Collection.of(str(path))
    assert Collection.of(collection) is collection
    assert collection.queries.tolist() == list(dict.fromkeys(collection.frame["query_id"]))
    assert collection.judged.tolist() == ["1", "2"]
    assert collection.evaluated(1).tolist() == [q == "1" for q in collection.queries]
    from_columns = Collection(read_qrels_columns(str(path)))
    assert from_columns.judged.tolist() == collection.judged.tolist()
    assert collection.standard_qrels == {"2": {"d1": 0}, "1": {"d2": 0, "d1": 2}}
    assert collection.relevant_counts(1).tolist() == [1.0, 0.0]


def test_coverage_sentences():
    collection = Collection(pd.DataFrame({"query_id": ["a", "b", "c"], "doc_id": ["d"] * 3, "relevance": [1, 0, 1]}))
    assert collection.coverage_note("full", ["a", "b", "c", "zz"]) is None
    assert collection.coverage_note("part", ["a", "zz"]) == (
        "run 'part' covers 1 of the 3 judged queries; the other 2 count as empty rankings (0 for a metric, the worst "
        "case for a preference)")
    assert collection.coverage_note("other", ["zz"]) == (
        "run 'other' shares no query id with the qrels (e.g. run 'zz' vs qrels 'a'); it counts as an empty ranking "
        "for each of the 3 judged queries")
    assert collection.coverage_note("empty", []) == coverage_note("empty", 0, 3, 0)
    assert "covers 0 of the 3" in collection.coverage_note("empty", [])


def test_ranking_on_a_collection_drops_unjudged_queries_and_locates_candidates():
    collection = Collection(pd.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["d1", "d2", "d1"],
                                          "relevance": [2, 1, 0]}))
    run = pd.DataFrame({"query_id": ["a", "a", "a", "zz"], "doc_id": ["d2", "d1", "d3", "d1"],
                        "score": [1.0, 1.0, 0.5, 9.0]})
    ranked = collection.rank(run, "r", rel=2)
    assert ranked.queries is collection.queries
    assert ranked.rows()["doc_id"].tolist() == ["d2", "d1", "d3"]  # ties by doc id descending; query zz dropped
    assert ranked.candidates.tolist() == ["d1"]
    assert np.array_equal(collection.table(2).locate(ranked), [2.0])


#: What only the collection derives from qrels: the consumers take it from a Collection.
DERIVED_ONLY_BY_THE_COLLECTION = r"\b(PositionTable|judged_table|CodedJudgments|QueryCandidates)\("


def test_only_the_collection_codes_the_qrels():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        if name in ("data/collection.py", "data/positions.py", "data/grades.py", "data/ranking.py"):
            continue  # the collection, and the modules that define what it builds
        text = path.read_text(encoding="utf-8")
        found += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for m in
                  re.finditer(DERIVED_ONLY_BY_THE_COLLECTION, text)]
    assert not found, f"qrels coded outside prefeval.data.collection: {found}"


@pytest.mark.parametrize("name", ["judged_queries", "qrels_queries", "candidate_documents", "coverage_notes",
                                  "query_candidates"])
def test_no_second_derivation_of_the_queries(name):
    """The functions that derived the judged queries, the candidates or the coverage from raw qrels are gone: every
    consumer reads them from a Collection."""
    pattern = re.compile(rf"^def {name}\(|\b{name}\(qrels", re.MULTILINE)
    assert not [p for p in SRC.rglob("*.py") if pattern.search(p.read_text(encoding="utf-8"))]
