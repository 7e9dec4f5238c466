"""Judged@k in every Comparison summary: ``prefeval.compare`` states each run's Judged@k (k: the deepest cutoff among
the methods, else 10), equal to ir-measures' ``Judged@k``, in its summary and report rows, its renderings (a note
listing the runs below 1), the ``compare`` command's output and the pipeline's preference summary."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import prefeval
from conftest import write_frames
from prefeval.commands.cli import main

QUERIES = [f"q{i:02d}" for i in range(12)]


def _collection():
    """One relevant document r per query, judged non-relevant n1, n2; A ranks r first, B puts an unjudged document
    above it on every other query, C judged non-relevant ones."""
    qrels = pd.DataFrame([(q, d, 1 if d == "r" else 0) for q in QUERIES for d in ("r", "n1", "n2")],
                         columns=["query_id", "doc_id", "relevance"])
    orders = {"A": lambda n: ["r", "n1", "n2"],
              "B": lambda n: (["u1"] if n % 2 else []) + ["r", "n1"],
              "C": lambda n: ["n1", "r"]}
    runs = {name: pd.DataFrame([(q, d, float(10 - i)) for n, q in enumerate(QUERIES) for i, d in enumerate(order(n))],
                               columns=["query_id", "doc_id", "score"]) for name, order in orders.items()}
    return qrels, runs


def test_compare_states_each_runs_judged_at_k():
    qrels, runs = _collection()
    c = prefeval.compare(qrels, runs, ["LexiRecall", "RR"])
    expected = prefeval.evaluate(qrels, runs, ["Judged@10"]).set_index("run")["value"]
    assert c.judged_field == "Judged@10" and c.methods == ["LexiRecall", "RR"]  # not a method of the comparison
    for run in runs:
        assert c.judged[run] == pytest.approx(expected[run], abs=1e-12)
    assert c.judged["A"] == 1 and c.judged["B"] < 1
    summary = c.summary()
    for row in summary.to_dict("records"):
        assert row["Judged@10_a"] == c.judged[row["run_a"]] and row["Judged@10_b"] == c.judged[row["run_b"]]
    assert list(summary.columns[-2:]) == ["Judged@10_a", "Judged@10_b"]
    header, rows = c.report_rows()
    assert "Judged@10_a" in header and "Judged@10_b" in c.to_frame().columns
    assert rows[0][header.index("Judged@10_b")] == c.judged[rows[0][header.index("run_b")]]
    note = f"B {c.judged['B']:.3f}"
    for text in (c.to_string(), c.to_markdown(), c.to_latex(), c.to_html(), repr(c)):
        text = " ".join(text.split())  # the plain note is wrapped
        assert "Judged@10" in text and note in text
    assert "A 1.000" not in c.to_string()
    versus = c.against("A")
    assert versus.judged == c.judged and "Judged@10_a" in versus.summary().columns


def test_judged_depth_is_the_deepest_cutoff_and_a_given_judged_method_stays():
    qrels, runs = _collection()
    c = prefeval.compare(qrels, runs, ["LexiRecall@2", "nDCG@3"])
    assert c.judged_field == "Judged@3"
    assert c.judged["B"] == pytest.approx(
        prefeval.evaluate(qrels, runs, ["Judged@3"]).set_index("run")["value"]["B"], abs=1e-12)
    given = prefeval.compare(qrels, runs, ["RR", "Judged@10"])
    assert given.methods == ["RR", "Judged@10"] and given.judged["B"] == pytest.approx(c_b10(qrels, runs))
    everyone = prefeval.compare(qrels, {k: runs[k] for k in ("A", "C")}, ["RR"])
    assert "Judged@10 = 1 for every run" in " ".join(everyone.to_string().split())


def c_b10(qrels, runs) -> float:
    return float(prefeval.evaluate(qrels, runs, ["Judged@10"]).set_index("run")["value"]["B"])


def test_compare_command_states_judged_at_k(tmp_path, capsys):
    qrels, runs = _collection()
    qrels_path, paths = write_frames(tmp_path, qrels, runs)
    assert main(["compare", qrels_path, *paths, "-m", "LexiRecall", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    b = [r for r in rows if r.get("run_b") == "B"]
    assert b and all(r["Judged@10_b"] == pytest.approx(c_b10(qrels, runs)) for r in b)
    assert main(["compare", qrels_path, *paths, "-m", "LexiRecall"]) == 0
    assert f"B {c_b10(qrels, runs):.3f}" in " ".join(capsys.readouterr().out.split())


def test_pipeline_preference_summary_states_judged_at_k():
    from prefeval.pipeline import Aggregate, Compare, Evaluate, Pipeline, Simulate
    from prefeval.pipeline.report import preference_summary

    context = Pipeline([Simulate(n_queries=15, n_runs=3, judged_depth=4), Evaluate(["nDCG@10"]),
                        Compare(["LexiRecall"]), Aggregate()]).run(progress=False)
    summary = preference_summary(context)
    judged = prefeval.evaluate(context.qrels, context.runs, ["Judged@10"]).set_index("run")["value"]
    assert len(summary)
    for row in summary.to_dict("records"):
        assert row["Judged@10_a"] == pytest.approx(judged[row["run_a"]], abs=1e-12)
        assert row["Judged@10_b"] == pytest.approx(judged[row["run_b"]], abs=1e-12)


@pytest.mark.integration
def test_dl_hard_doc_judged_at_k_equals_ir_measures(shared_data):
    import ir_measures

    from prefeval.data.collection import Collection
    from prefeval.data.trec import read_run_columns

    d = shared_data / "dl-hard"
    names = ["bm25", "bm25+bert-mp", "bm25+rm3+t5-mp_zs_"]
    runs = {name: str(d / "runs" / "doc" / f"{name}.run.gz") for name in names}
    qrels_path = str(d / "dl_hard-doc.qrels")
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    collection = Collection.of(qrels_path)
    # ir-measures on prefeval's ranking (ties by doc id descending, a repeated document at its first position)
    ranked = {name: collection.rank(read_run_columns(path), name).to_dict() for name, path in runs.items()}
    for methods, k in ((["LexiRecall", "RPP"], 10), (["LexiRecall", "nDCG@20", "P@5"], 20)):
        c = prefeval.compare(qrels_path, runs, methods, rel=2)
        assert c.judged_field == f"Judged@{k}"
        for name in runs:
            expected = ir_measures.calc_aggregate([ir_measures.Judged @ k], qrels, ranked[name])
            assert np.isclose(c.judged[name], expected[ir_measures.Judged @ k], atol=1e-12), (name, k)


# -- Judged@k from the judged documents' positions equals ir-measures' Judged@k on prefeval's ranking -------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def collections(draw):
    """Small qrels and three runs with tied scores, repeated documents, unjudged documents and documents judged for
    another query only."""
    rows, runs = [], {"a": [], "b": [], "c": []}
    for q in range(draw(st.integers(2, 4))):
        judged = draw(st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=5, unique=True))
        rows += [(f"q{q}", doc, draw(st.integers(0, 2))) for doc in judged]
        for name in runs:
            runs[name] += [(f"q{q}", d, float(draw(st.integers(0, 3))))
                           for d in draw(st.lists(st.sampled_from("abcdefghijkl"), max_size=14))]
    rows.append(("q0", "a", 1)) if not any(g >= 1 for _, _, g in rows) else None
    qrels = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
    return qrels, {n: pd.DataFrame(r, columns=["query_id", "doc_id", "score"]) for n, r in runs.items()}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from([None, 2, 6]), st.sampled_from(["LexiRecall@3", "RPP", "nDCG@5"]))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_judged_from_positions_equals_the_measure(case, depth, method):
    """prefeval.compare counts Judged@k from the judged documents' ranks (preferences only: ties ordered only around
    the judged documents); prefeval.evaluate computes the measure on the full ranking: the same values."""
    qrels, runs = case
    c = prefeval.compare(qrels, runs, [method], depth=depth)
    k = int(c.judged_field.partition("@")[2])
    # on runs cut at depth d, Judged@k is Judged@min(k, d) of the whole runs (min(k, d, documents) either way)
    cut = k if depth is None else min(k, depth)
    expected = prefeval.evaluate(qrels, runs, [f"Judged@{cut}"]).set_index("run")["value"]
    for run in runs:
        assert c.judged[run] == pytest.approx(expected[run], abs=1e-12), run


def test_judged_from_runs_ranked_by_query_blocks(monkeypatch):
    """Large runs in memory ranked together block of queries by block of queries give the Judged@k of the runs
    ranked one by one."""
    import warnings

    from prefeval.data import ranking, simulate

    sim = simulate.collection(n_queries=30, n_runs=4, depth=20, n_docs=40, judged_depth=5, score_decimals=1, seed=4)
    runs = {name: run.astype({"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"})
            for name, run in sim.runs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = prefeval.compare(sim.qrels, runs, ["LexiRecall"])
        monkeypatch.setattr(ranking, "ENCODE_ROWS", 150)
        calls = []
        module = __import__("prefeval.engine.blocks", fromlist=["rank_query_blocks"])
        original = module.rank_query_blocks
        monkeypatch.setattr(module, "rank_query_blocks", lambda *a: calls.append(1) or original(*a))
        blocked = prefeval.compare(sim.qrels, runs, ["LexiRecall"])
    assert calls and min(alone.judged.values()) < 1
    assert blocked.judged == pytest.approx(alone.judged, abs=1e-12)
