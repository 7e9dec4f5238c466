"""When every measure is pytrec_eval's, ``prefeval.evaluate`` gives each run to pytrec_eval as ``{query: {doc:
score}}`` without ranking it first (dicts as given; files, frames and records read by the one reader, a repeated
document at its highest score): the values, rows and warnings are exactly those of the general path (each run
ranked by prefeval, ties by doc id descending, a repeated document at its first position), on random inputs with
ties, repeated documents, judged queries missing from a run, queries only in a run, non-ASCII ids and ``rel``."""

from __future__ import annotations

import importlib
import warnings
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

import prefeval

evaluate_module = importlib.import_module("prefeval.engine.evaluate")  # the package's attribute is the function
MEASURES = ["nDCG@10", "AP", "P@5", "RR", "R@20", "Rprec", "nDCG", "NumRet", "NumRelRet", "P(rel=2)@3",
            "SetP", "Success@3"]
DOCS = ["d0", "d1", "D1", "d10", "d2", "0012", "12", "é", "ü", "a-b", "z", "Z", "d-é"] + [f"n{k}" for k in range(25)]
ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")


def collection(seed: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Qrels (grades -1..3, a query without a relevant document) and runs as frames: tied scores, repeated
    documents (with different scores), queries in several stretches, a judged query missing, a query not judged."""
    rng = np.random.default_rng(seed)
    qrels = []
    for q in range(7):
        for d in rng.choice(DOCS, int(rng.integers(1, 12)), replace=False):
            qrels.append((f"q{q}", str(d), 0 if q == 5 else int(rng.integers(-1, 4))))
    qrels_df = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for r in range(4):
        rows = []
        for q in rng.permutation(8):  # q7 is not judged
            if q == r:  # each run misses one judged query
                continue
            n = int(rng.integers(1, 30))
            for d in rng.choice(DOCS, n, replace=r % 2 == 1):  # odd runs repeat documents
                score = float(rng.integers(0, 4)) if r >= 2 else round(float(rng.normal()), 1)
                rows.append((f"q{q}", str(d), score))
        order = rng.permutation(len(rows)) if r == 3 else np.arange(len(rows))  # queries in several stretches
        runs[f"r{r}"] = pd.DataFrame([rows[i] for i in order], columns=["query_id", "doc_id", "score"])
    return qrels_df, runs


def as_dicts(frame: pd.DataFrame) -> dict:
    out: dict = {}
    for q, d, s in zip(frame["query_id"], frame["doc_id"], frame["score"]):
        out.setdefault(q, {}).setdefault(d, s)
    return out


def write(folder, frame: pd.DataFrame, name: str) -> str:
    path = folder / f"{name}.run"
    path.write_text("".join(f"{q} Q0 {d} {k} {s!r} t\n" for k, (q, d, s) in
                            enumerate(zip(frame["query_id"], frame["doc_id"], frame["score"]))), encoding="utf-8")
    return str(path)


def both_paths(monkeypatch, qrels, runs, rel, per_query=True):
    """(direct path result, its warnings, general path result, its warnings)."""
    out = []
    for direct in (True, False):
        with monkeypatch.context() as patch:
            if not direct:
                patch.setattr(evaluate_module, "direct_inputs", lambda *args: None)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    assert evaluate_module.direct_inputs(qrels, runs, evaluate_module.parse_measures(MEASURES, rel))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out.append(prefeval.evaluate(qrels, runs, MEASURES, per_query=per_query, rel=rel))
            out.append(sorted(str(w.message) for w in caught))
    return out


@pytest.mark.parametrize("rel", [None, 2])
@pytest.mark.parametrize("seed", range(5))
def test_direct_path_equals_the_ranked_path(monkeypatch, tmp_path, seed, rel) -> None:
    qrels, frames = collection(seed)
    paths = {name: write(tmp_path, frame, name) for name, frame in frames.items()}
    qrels_path = tmp_path / "q.qrels"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False)), encoding="utf-8")
    records = {name: [ScoredDoc(*row) for row in frame.itertuples(index=False)] for name, frame in frames.items()}
    dicts = {name: as_dicts(frame) for name, frame in frames.items()}
    qrels_dict: dict = {}
    for q, d, g in qrels.itertuples(index=False):
        qrels_dict.setdefault(q, {})[d] = int(g)
    assert evaluate_module._qrels_as_given(qrels_dict)
    for given_qrels, runs in ((qrels, frames), (str(qrels_path), paths), (qrels, records), (qrels, dicts),
                              (str(qrels_path), list(paths.values())), (qrels, {**dicts, "file": paths["r1"]}),
                              (qrels_dict, dicts), (qrels_dict, paths)):
        direct, direct_warnings, ranked, ranked_warnings = both_paths(monkeypatch, given_qrels, runs, rel)
        pd.testing.assert_frame_equal(direct, ranked, check_exact=True)
        assert direct_warnings == ranked_warnings
        direct, _, ranked, _ = both_paths(monkeypatch, given_qrels, runs, rel, per_query=False)
        pd.testing.assert_frame_equal(direct, ranked, check_exact=False, rtol=0, atol=1e-12)  # order of summation


def test_repeated_documents_keep_their_best_position(monkeypatch) -> None:
    qrels = {"q1": {"a": 1, "b": 0}}
    run = pd.DataFrame({"query_id": ["q1"] * 5, "doc_id": ["b", "a", "c", "a", "b"],
                        "score": [1.0, 0.5, 0.7, 2.0, 3.0]})
    direct, direct_warnings, ranked, ranked_warnings = both_paths(monkeypatch, qrels, {"r": run}, None)
    pd.testing.assert_frame_equal(direct, ranked, check_exact=True)
    assert direct_warnings == ranked_warnings
    assert any("2 repeated document(s)" in w for w in direct_warnings)
    values = direct.set_index("measure")["value"]
    assert values["RR"] == 0.5  # b (3.0), a (2.0), c (0.7)
    assert values["NumRet"] == 3


def test_errors_are_those_of_the_reader(tmp_path) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 x t\n")
    with pytest.raises(prefeval.PrefevalError, match=r"bad\.run.*line 2"):
        prefeval.evaluate({"q1": {"a": 1}}, [str(bad)], ["AP"])
    with pytest.raises(prefeval.PrefevalError, match="doc_id"):
        prefeval.evaluate({"q1": {"a": 1}}, {"r": pd.DataFrame({"query_id": ["q1"], "doc_id": ["a b"],
                                                                "score": [1.0]})}, ["AP"])


@pytest.mark.parametrize("seed", range(3))
def test_eval_command_direct_path_equals_the_ranked_path(monkeypatch, tmp_path, capsys, seed) -> None:
    from prefeval.commands.cli import main

    qrels, frames = collection(seed)
    qrels_path = tmp_path / "q.qrels"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False)), encoding="utf-8")
    for name in ("r1", "r3"):  # repeated documents; queries in several stretches
        run = write(tmp_path, frames[name], name)
        outputs = []
        for direct in (True, False):
            with monkeypatch.context() as patch:
                if not direct:
                    patch.setattr(evaluate_module, "direct_inputs", lambda *args, **kwargs: None)
                assert main(["eval", "-q", "-p", "-1", str(qrels_path), run, "nDCG@10", "AP", "P@5", "RR",
                             "Rprec", "NumRet"]) == 0
                captured = capsys.readouterr()
                outputs.append((captured.out, captured.err))
        assert outputs[0] == outputs[1]
        assert "repeated document" in outputs[0][1]


def test_qrels_as_given_only_when_canonical() -> None:
    assert evaluate_module._qrels_as_given({"q1": {"a": 1, "b": -1}, "q2": {"é": 1000}})
    for bad in ({"q1": {}}, {"q1": {"a": 1.0}}, {"q1": {"a": True}}, {"q1": {"a": 1001}}, {"q1": {"a b": 1}},
                {"q1": {"": 1}}, {1: {"a": 1}}, {"q 1": {"a": 1}}, {"q1": {"a\x00": 1}}, {"q1": {1: 1}}, {}):
        assert not evaluate_module._qrels_as_given(bad), bad
    with pytest.raises(prefeval.PrefevalError, match="relevance"):
        prefeval.evaluate({"q1": {"a": 1001}}, {"r": {"q1": {"a": 1.0}}}, ["AP"])


@pytest.mark.parametrize("form", ["dicts", "frames"])
def test_qrels_counts_take_the_general_path_and_count_every_judged_query(form):
    """``NumQ`` and ``NumRel`` count a judged query missing from the run (``trec_eval -c``); the runs as pytrec_eval
    reads them would give it 0, so a call with them is not sent there, whatever the form of the runs."""
    qrels = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "c", "d"], "relevance": [1, 2, 1, 0]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "x"], "score": [2.0, 1.0]})  # query 2 not retrieved
    runs = {"r": {"1": {"a": 2.0, "x": 1.0}}} if form == "dicts" else {"r": run}
    assert evaluate_module.direct_inputs(qrels, runs, evaluate_module.parse_measures(["NumRel", "nDCG@10"])) is None
    table = prefeval.evaluate(qrels, runs, ["NumQ", "NumRel", "NumRel(rel=2)", "NumRet"], per_query=True)
    values = {(row.query_id, row.measure): row.value for row in table.itertuples()}
    assert values[("2", "NumQ")] == 1 and values[("2", "NumRel")] == 1 and values[("1", "NumRel")] == 2
    assert values[("1", "NumRel(rel=2)")] == 1 and values[("2", "NumRet")] == 0
