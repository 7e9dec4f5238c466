"""The columns path (TREC files read into ``prefeval.data.trec.Columns``: Arrow arrays, no pandas) against the DataFrame
path: the same rankings and the same per-query values, on simulated runs with score ties, repeated documents and
ids such as ``"0012"`` / ``"12"``, and on the real DL-Hard files."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import prefeval
import prefeval.data.positions
from prefeval.data import trec as pio
from prefeval.data.collection import Collection
from prefeval.data.positions import PositionTable
from prefeval.data.ranking import rank_run

METHODS = ["LexiRecall", "LexiPrecision", "RPP", "LexiPrecision(magnitude='rr')", "RPP(graded=False)@5",
           "LexiRecall(rel=2)"]


def write_collection(folder, seed: int, n_runs: int = 4):
    """A qrels file and ``n_runs`` run files: few distinct scores (many ties), some repeated documents, query and
    document ids that differ only by leading zeros, a query judged without a relevant document, unordered lines."""
    rng = np.random.default_rng(seed)
    queries = ["0012", "12", "q3", "7", "empty"]
    docs = ["0012", "012", "12", "d1", "d10", "d2", "D2", "x", "é", "a-b"] + [f"n{k}" for k in range(30)]
    lines = []
    for q in queries:
        for d in rng.choice(docs, size=12, replace=False):
            grade = 0 if q == "empty" else int(rng.integers(0, 4))
            lines.append(f"{q} 0 {d} {grade}")
    lines += ["0012 7 012 2", "0012 9 d1 1"]  # subtopics (max over them is the document's grade)
    qrels = folder / "q.qrels"
    qrels.write_text("\n".join(lines) + "\n")
    paths = []
    for s in range(n_runs):
        rows = []
        for q in queries[:-1] if s == 1 else queries:  # run 1 lacks a query
            for d in rng.choice(docs, size=int(rng.integers(5, 25)), replace=False):
                rows.append([q, d, float(rng.integers(0, 4)) / 2])
            rows.append([q, rows[-1][1], rows[-1][2] + 1.0])  # a repeated document, better the second time
        if s % 2:
            rng.shuffle(rows)  # not grouped by query: the sort path
        path = folder / f"run{s}.run"
        path.write_text("".join(f"{q} Q0 {d} {k} {score!r} tag\n" for k, (q, d, score) in enumerate(rows, 1)))
        paths.append(path)
    return qrels, paths


@pytest.mark.parametrize("seed", range(4))
def test_rank_run_on_columns_equals_rank_run_on_frames(tmp_path, seed):
    qrels_path, paths = write_collection(tmp_path, seed)
    qrels = pio.read_qrels(qrels_path)
    queries, candidates = Collection(qrels).queries, Collection(qrels).candidates(1)
    table = PositionTable(qrels, 1, queries)
    table_columns = PositionTable(pio.read_qrels_columns(qrels_path), 1, queries)
    assert table_columns.relevant.keys() == table.relevant.keys()
    for key in table.relevant:
        assert table.relevant[key].tolist() == table_columns.relevant[key].tolist()
    for path in paths:
        columns, frame = pio.read_run_columns(path), pio.read_run(path)
        assert isinstance(columns["doc_id"], type(columns["query_id"])) and not isinstance(columns["doc_id"], pd.Series)
        for ties in ("all", "candidates"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a = rank_run(frame, queries, candidates, ties=ties)
                b = rank_run(columns, queries, candidates, ties=ties)
            assert np.array_equal(a.query_codes, b.query_codes) and np.array_equal(a.rank, b.rank)
            assert a.doc_ids.tolist() == b.doc_ids.tolist()
            assert np.array_equal(table.locate(a), table_columns.locate(b))
        if ties == "all":
            assert a.to_dict() == b.to_dict()


@pytest.mark.parametrize("seed", range(4))
def test_compare_on_files_equals_compare_on_frames(tmp_path, seed):
    qrels_path, paths = write_collection(tmp_path, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_files = prefeval.compare(str(qrels_path), [str(p) for p in paths], METHODS)  # the columns path
        from_columns = prefeval.compare(pio.read_qrels_columns(qrels_path),
                                        {p.name[:-4]: pio.read_run_columns(p) for p in paths}, METHODS)
        from_frames = prefeval.compare(pio.read_qrels(qrels_path), {p.name[:-4]: pio.read_run(p) for p in paths},
                                       METHODS + ["nDCG@5"])
    expected = from_frames.per_query
    expected = expected[expected["method"] != "nDCG@5"].reset_index(drop=True)
    for got in (from_files, from_columns):
        pd.testing.assert_frame_equal(got.per_query.astype(str), expected.astype(str))
        assert np.array_equal(got.per_query["value"].to_numpy(), expected["value"].to_numpy())
    assert from_files.query_order == from_frames.query_order


def test_repeated_qrels_lines_are_resolved_on_the_columns_path_too(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 a 1\n1 0 b 2\n1 0 b 0\n")  # b judged twice: the last line wins (not relevant)
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    other = tmp_path / "s.run"
    other.write_text("1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n")
    with pytest.warns(UserWarning, match="last line wins"):
        got = prefeval.compare(str(qrels), [str(run), str(other)], ["LexiPrecision"])
    assert got.per_query["value"].tolist() == [1.0]  # r ranks the only relevant document first


@pytest.mark.integration
def test_dl_hard_columns_path_equals_frames(shared_data):
    folder = shared_data / "dl-hard"
    qrels = folder / "dl_hard-doc.qrels"
    paths = sorted((folder / "runs" / "doc").glob("*.run.gz"))
    methods = ["LexiRecall", "LexiPrecision", "RPP"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_files = prefeval.compare(str(qrels), [str(p) for p in paths], methods)
        from_frames = prefeval.compare(pio.read_qrels(qrels),
                                       {p.name[:-len(".run.gz")]: pio.read_run(p) for p in paths}, methods)
    assert len(from_files.runs) == 14
    pd.testing.assert_frame_equal(from_files.per_query, from_frames.per_query, check_exact=True)


@pytest.mark.parametrize("dtype", [object, "str"])
def test_relevant_documents_match_the_groupby_definition(dtype):
    """Relevant documents (max grade over subtopics >= rel), sorted by query and document id as strings, computed
    on integer codes: the same rows as a pandas groupby."""
    rng = np.random.default_rng(5)
    n = 3000
    qrels = pd.DataFrame({"query_id": pd.array([str(x) for x in rng.integers(0, 60, n)], dtype=dtype),
                          "doc_id": pd.array([f"{x:0{int(rng.integers(1, 4))}d}" for x in rng.integers(0, 400, n)],
                                             dtype=dtype),
                          "relevance": rng.integers(-1, 4, n), "iteration": "0"})
    for rel in (1, 2, 3):
        expected = qrels.groupby(["query_id", "doc_id"], sort=True, as_index=False)["relevance"].max()
        expected = expected[expected["relevance"] >= rel]
        got = prefeval.data.positions.relevant_documents(qrels, rel)
        assert got.values.tolist() == expected.values.tolist()
        assert Collection(qrels).candidates(rel).tolist() == \
            pd.unique(qrels.loc[qrels["relevance"] >= rel, "doc_id"].to_numpy(dtype=object)).tolist()


def test_factorize_of_grouped_arrow_ids_equals_hashing():
    """Query ids in runs of equal values (as in TREC files) are factorised from their neighbours: the same codes and
    distinct values as Arrow's dictionary_encode, grouped or not, sliced or not."""
    from prefeval.data.arrow import strings
    from prefeval.data.encoding import factorize, py_list

    rng = np.random.default_rng(1)
    for trial in range(300):
        values = [str(x) for x in rng.integers(0, int(rng.integers(1, 30)), size=int(rng.integers(0, 400)))]
        if trial % 2:
            values.sort(key=lambda v: (int(v) * 7919) % 31)  # runs of equal values, not in sorted order
        array = strings(values)
        if trial % 3 == 0 and len(values) > 3:
            array = array.slice(2)
        grouped, grouped_names = factorize(array, grouped=True)
        hashed, hashed_names = factorize(array)
        assert np.array_equal(grouped, hashed)
        assert py_list(grouped_names) == py_list(hashed_names)
