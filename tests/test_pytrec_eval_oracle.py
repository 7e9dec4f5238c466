"""trec_eval's measures through every door equal pytrec_eval (the oracle, called here directly) on the runs as
``{query: {doc: score}}`` (a repeated document at its highest score, i.e. its first position: trec_eval orders ties by
doc id descending, as prefeval ranks), with a judged query missing from a run scoring 0 (``trec_eval -c``): on random
inputs with ties, repeated documents, judged queries missing from a run, queries only in a run, non-ASCII ids, every
input form and ``rel``."""

from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

import prefeval

pytrec_eval = pytest.importorskip("pytrec_eval")
#: trec_eval names as prefeval reads them -> as pytrec_eval is asked for them
NAMES = {"ndcg_cut_10": "ndcg_cut.10", "map": "map", "P_5": "P.5", "recip_rank": "recip_rank", "recall_20": "recall.20",
         "Rprec": "Rprec", "ndcg": "ndcg", "num_ret": "num_ret", "num_rel_ret": "num_rel_ret", "success_3": "success.3",
         "set_P": "set_P", "bpref": "bpref", "iprec_at_recall_0.10": "iprec_at_recall.0.10"}
MEASURES = list(NAMES)
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


def write(folder, frame: pd.DataFrame, name: str) -> str:
    path = folder / f"{name}.run"
    path.write_text("".join(f"{q} Q0 {d} {k} {s!r} t\n" for k, (q, d, s) in
                            enumerate(zip(frame["query_id"], frame["doc_id"], frame["score"]))), encoding="utf-8")
    return str(path)


def oracle(qrels: pd.DataFrame, frames: dict[str, pd.DataFrame], rel: int | None) -> dict[tuple, float]:
    """(run, query, trec_eval name) -> pytrec_eval's value; 0 for a judged query the run lacks."""
    qrels_dict: dict = {}
    for q, d, g in qrels.itertuples(index=False):
        qrels_dict.setdefault(q, {})[d] = int(g)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, set(NAMES.values()), relevance_level=rel or 1)
    out = {}
    for name, frame in frames.items():
        run: dict = {}
        for q, d, s in frame.itertuples(index=False):
            run.setdefault(q, {})[d] = max(s, run.get(q, {}).get(d, -np.inf))
        values = evaluator.evaluate(run)
        for q in qrels_dict:
            for measure in MEASURES:
                key = measure.replace(".", "_") if measure != "iprec_at_recall_0.10" else measure
                out[name, q, measure] = float(values[q][key]) if q in values else 0.0
    return out


@pytest.mark.parametrize("rel", [None, 2])
@pytest.mark.parametrize("seed", range(4))
def test_evaluate_equals_pytrec_eval_in_every_input_form(tmp_path, seed, rel) -> None:
    qrels, frames = collection(seed)
    paths = {name: write(tmp_path, frame, name) for name, frame in frames.items()}
    qrels_path = tmp_path / "q.qrels"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False)), encoding="utf-8")
    records = {name: [ScoredDoc(*row) for row in frame.itertuples(index=False)] for name, frame in frames.items()}
    dicts = {name: as_dicts(frame) for name, frame in frames.items()}
    qrels_dict: dict = {}
    for q, d, g in qrels.itertuples(index=False):
        qrels_dict.setdefault(q, {})[d] = int(g)
    measures = [m for m in MEASURES if rel is None or not m.startswith("ndcg")]  # nDCG reads grades, not rel
    expected = oracle(qrels, frames, rel)
    for given_qrels, runs in ((qrels, frames), (str(qrels_path), paths), (qrels, records), (qrels, dicts),
                              (qrels_dict, paths), (str(qrels_path), list(paths.values()))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # repeated documents, runs missing judged queries
            table = prefeval.evaluate(given_qrels, runs, measures, per_query=True, rel=rel)
            means = prefeval.evaluate(given_qrels, runs, measures, rel=rel)
        got = {(r.run, r.query_id, r.given): r.value for r in table.itertuples()}
        assert got == pytest.approx({k: v for k, v in expected.items() if k[2] in measures}, abs=1e-12, rel=0)
        for r in means.itertuples():
            per_query = [v for (run, _, m), v in expected.items() if run == r.run and m == r.given]
            total = sum(per_query) if r.given in ("num_ret", "num_rel_ret") else np.mean(per_query)
            assert r.value == pytest.approx(total, abs=1e-12, rel=0)


def as_dicts(frame: pd.DataFrame) -> dict:
    """The run as ``{query: {doc: score}}``, a repeated document at its highest score."""
    out: dict = {}
    for q, d, s in zip(frame["query_id"], frame["doc_id"], frame["score"]):
        out.setdefault(q, {})[d] = max(s, out.get(q, {}).get(d, -np.inf))
    return out


def test_repeated_documents_keep_their_best_position() -> None:
    qrels = {"q1": {"a": 1, "b": 0}}
    run = pd.DataFrame({"query_id": ["q1"] * 5, "doc_id": ["b", "a", "c", "a", "b"],
                        "score": [1.0, 0.5, 0.7, 2.0, 3.0]})
    with pytest.warns(UserWarning, match="2 repeated document"):
        values = prefeval.evaluate(qrels, {"r": run}, ["RR", "NumRet"]).set_index("measure")["value"]
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
    with pytest.raises(prefeval.PrefevalError, match=r"doc_id 'd\\x00' \(query q0\) holds U\+0000"):
        prefeval.evaluate({"q0": {"d1": 1}}, {"r": {"q0": {"d\x00": 1.0}}}, ["AP"])
    with pytest.raises(prefeval.PrefevalError, match="is not a number"):
        prefeval.evaluate({"q0": {"d1": 1}}, {"r": {"q0": {"d1": float("nan")}}}, ["AP"])
    with pytest.raises(prefeval.PrefevalError, match="relevance"):
        prefeval.evaluate({"q1": {"a": 1001}}, {"r": {"q1": {"a": 1.0}}}, ["AP"])


@pytest.mark.parametrize("seed", range(3))
def test_eval_command_equals_pytrec_eval(tmp_path, capsys, seed) -> None:
    from prefeval.commands.cli import main

    qrels, frames = collection(seed)
    qrels_path = tmp_path / "q.qrels"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False)), encoding="utf-8")
    expected = oracle(qrels, frames, None)
    for name in ("r1", "r3"):  # repeated documents; queries in several stretches
        run = write(tmp_path, frames[name], name)
        assert main(["eval", "-q", "-p", "-1", str(qrels_path), run, *MEASURES]) == 0
        captured = capsys.readouterr()
        assert "repeated document" in captured.err or name == "r3"
        got = {}
        for line in captured.out.splitlines():
            query, measure, value = line.split("\t")
            got[query, measure] = float(value)
        assert got == pytest.approx({(q, m): v for (r, q, m), v in expected.items() if r == name}
                                    | {("all", m): (sum if m.startswith("num") else np.mean)(
                                        [v for (r, _, mm), v in expected.items() if r == name and mm == m])
                                       for m in MEASURES}, abs=1e-12, rel=0)


@pytest.mark.parametrize("form", ["dicts", "frames"])
def test_qrels_counts_count_every_judged_query(form):
    """``NumQ`` and ``NumRel`` count a judged query missing from the run (``trec_eval -c``), whatever the form of
    the runs."""
    qrels = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "c", "d"], "relevance": [1, 2, 1, 0]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "x"], "score": [2.0, 1.0]})  # query 2 not retrieved
    runs = {"r": {"1": {"a": 2.0, "x": 1.0}}} if form == "dicts" else {"r": run}
    with pytest.warns(UserWarning, match="covers 1 of the 2"):
        table = prefeval.evaluate(qrels, runs, ["NumQ", "NumRel", "NumRel(rel=2)", "NumRet"], per_query=True)
    values = {(row.query_id, row.measure): row.value for row in table.itertuples()}
    assert values[("2", "NumQ")] == 1 and values[("2", "NumRel")] == 1 and values[("1", "NumRel")] == 2
    assert values[("1", "NumRel(rel=2)")] == 1 and values[("2", "NumRet")] == 0
