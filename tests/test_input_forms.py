"""prefeval measures through ir-measures give the same per-query values for every input form: DataFrames, lists of
``ir_measures.Qrel`` / ``ScoredDoc``, generators of them (read once, also when ir-measures tees them for several
providers) and dicts of dicts; and the same as a run ranked with every tie ordered (``ties="all"``)."""

from __future__ import annotations

import random
import warnings

import ir_measures
import pandas as pd
import pytest

import prefeval
from prefeval.data.inputs import qrels_frame, run_frame
from prefeval.data.ranking import rank_run
from prefeval.data.trec import read_qrels, read_run
from prefeval.engine.provider import PrefevalEvaluator, _last_baselines

MEASURES = [prefeval.RBU(p=0.8, e=0.03) @ 20, prefeval.RBU(p=0.9, e=0.01, rel=2) @ 5, prefeval.TSE,
            prefeval.RPP(baseline="forms-base"), prefeval.RPP(baseline="forms-base", graded=False, weighting="dcg"),
            prefeval.LexiRecall(baseline="forms-base"), prefeval.LexiPrecision(baseline="forms-base", rel=2)]


def _qrels(rng: random.Random, subtopics: bool) -> pd.DataFrame:
    """Graded qrels with int-like ids ("0012" is not 12), a judged query without relevant documents, and (with
    ``subtopics``) several subtopics per query in ``iteration``."""
    rows = []
    for q in ("0012", "12", "7", "q-empty"):
        for d in rng.sample([f"{k:04d}" for k in range(30)] + ["d", "10", "010"], 14):
            grade = 0 if q == "q-empty" else rng.choice([0, 0, 1, 2, 3])
            for t in (rng.sample(["1", "2", "3"], rng.randint(1, 2)) if subtopics else ["0"]):
                rows.append((q, d, grade if t in ("0", "1") else rng.choice([0, grade]), t))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance", "iteration"])


def _run(rng: random.Random, repeats: bool) -> pd.DataFrame:
    """A run with tied scores, int-like ids and (with ``repeats``) documents repeated within a query; one judged
    query ("7") missing, one unjudged query present."""
    rows = []
    for q in ("12", "0012", "unjudged"):
        docs = rng.sample([f"{k:04d}" for k in range(30)] + ["d", "10", "010"], 25)
        if repeats:
            docs += rng.sample(docs, 3)
        rows += [(q, d, float(rng.choice([1, 2, 2, 3, 3, 3, 4]))) for d in docs]
    rng.shuffle(rows)
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def _records(frame: pd.DataFrame, kind) -> list:
    return [kind(*row) for row in zip(*(frame[c].tolist() for c in frame.columns))]


def _nested(frame: pd.DataFrame, value: str) -> dict:
    out: dict = {}
    for q, d, v in zip(frame["query_id"], frame["doc_id"], frame[value]):
        out.setdefault(q, {})[d] = v  # repeated keys: the last line, as ir-measures' dicts
    return out


def _values(qrels, run, measures=MEASURES) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, run)}


def _forms(qrels: pd.DataFrame, run: pd.DataFrame) -> dict:
    qrels_list, run_list = _records(qrels, ir_measures.Qrel), _records(run, ir_measures.ScoredDoc)
    return {
        "DataFrame": lambda: (qrels, run),
        "list": lambda: (qrels_list, run_list),
        "generator": lambda: ((r for r in qrels_list), (r for r in run_list)),
    }


@pytest.fixture
def base():
    """``base(run)`` registers the baseline run of the measures' preferences (``"forms-base"``) for the test."""
    yield lambda run: prefeval.register_run("forms-base", run)
    prefeval.data.runs._REGISTERED.pop("forms-base", None)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("subtopics", [False, True])
def test_every_input_form_gives_the_same_values(seed, subtopics, base):
    rng = random.Random(seed)
    qrels, run = _qrels(rng, subtopics), _run(rng, repeats=seed % 2 == 1)
    base(_run(rng, repeats=False))
    values = {form: _values(*make()) for form, make in _forms(qrels, run).items()}
    assert len(values["DataFrame"]) == len(MEASURES) * 4  # every judged query, every measure
    assert values["list"] == values["DataFrame"]
    assert values["generator"] == values["DataFrame"]
    # ranked with every tie ordered (the evaluate path): the same values
    evaluator = PrefevalEvaluator(MEASURES, qrels_frame(qrels))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = rank_run(run_frame(run), evaluator.queries, ties="all")
    ranked = {(str(m.measure), m.query_id): m.value for m in evaluator.iter_calc_ranked(full)}
    assert ranked == values["DataFrame"]
    # dicts hold one grade per (query, doc) and one score per (query, doc): compare with the frames of them
    qrels_dict, run_dict = _nested(qrels[qrels["iteration"].isin(["0", "1"])], "relevance"), _nested(run, "score")
    flat_qrels = pd.DataFrame([(q, d, g) for q, docs in qrels_dict.items() for d, g in docs.items()],
                              columns=["query_id", "doc_id", "relevance"])
    flat_run = pd.DataFrame([(q, d, s) for q, docs in run_dict.items() for d, s in docs.items()],
                            columns=["query_id", "doc_id", "score"])
    assert _values(qrels_dict, run_dict) == _values(flat_qrels, flat_run)


def test_generators_teed_for_several_providers(base):
    """A prefeval measure next to pytrec_eval's nDCG: ir-measures tees the generators; every value as with lists."""
    rng = random.Random(7)
    qrels, run = _qrels(rng, True), _run(rng, repeats=False)
    base(_run(rng, repeats=False))
    measures = [*MEASURES, ir_measures.nDCG @ 10, ir_measures.P @ 5]
    qrels_list, run_list = _records(qrels, ir_measures.Qrel), _records(run, ir_measures.ScoredDoc)
    from_lists = _values(qrels_list, run_list, measures)
    assert _values((r for r in qrels_list), (r for r in run_list), measures) == from_lists
    assert _values(qrels, run, measures) == from_lists


def test_ids_stay_strings_and_records_with_other_fields():
    """Int-like ids keep their text; ir_datasets-style records with extra fields (a subtopic, a description)."""
    from collections import namedtuple

    Judgment = namedtuple("Judgment", ["query_id", "doc_id", "relevance", "iteration", "note"])
    records = [Judgment("0012", "0001", 2, "1", "x"), Judgment("0012", "0002", 1, "2", "y")]
    frame = qrels_frame(iter(records))
    assert frame["query_id"].tolist() == ["0012", "0012"] and frame["iteration"].tolist() == ["1", "2"]
    assert frame["relevance"].tolist() == [2, 1]
    assert run_frame([ir_measures.ScoredDoc("0012", "0001", 1)])["score"].tolist() == [1.0]
    assert run_frame({12: {1: 2.5}})[["query_id", "doc_id"]].values.tolist() == [["12", "1"]]
    # other ids are converted as before: records as pandas' astype(str), dict keys by str()
    assert run_frame([ir_measures.ScoredDoc(12, b"d", 1.0)])[["query_id", "doc_id"]].values.tolist() == \
        [["12", pd.Series([b"d"]).astype(str)[0]]]
    assert qrels_frame({"q": {b"d": 1}})["doc_id"].tolist() == ["b'd'"]


def test_the_qrels_work_is_shared_only_between_equal_qrels(base):
    rng = random.Random(3)
    qrels, run = _qrels(rng, False), _run(rng, repeats=False)
    base(_run(rng, repeats=False))
    first = _values(qrels, run)
    state = _last_baselines[0]
    assert _values(_records(qrels, ir_measures.Qrel), run) == first and _last_baselines[0] is state
    changed = qrels.copy()
    changed.loc[changed["relevance"] > 0, "relevance"] = 1  # in place on a copy: other grades, other values
    assert _values(changed, run) == _values(changed.copy(), run) != first
    assert _last_baselines[0] is not state
    # the baseline registered under the same name changes: preferences follow it
    prefeval.register_run("forms-base", _run(random.Random(99), repeats=False))
    again = _values(qrels, run)
    assert {k: v for k, v in again.items() if "RPP" in k[0]} != {k: v for k, v in first.items() if "RPP" in k[0]}
    assert again == _values(qrels.copy(), run)


def test_qrels_records_reused_only_when_equal(base):
    rng = random.Random(4)
    qrels, run = _qrels(rng, True), _run(rng, repeats=False)
    base(_run(rng, repeats=False))
    records = _records(qrels, ir_measures.Qrel)
    first = _values(records, run)
    assert _values(iter(records), run) == first == _values(qrels, run)
    # the same list changed in place: another grade for a relevant document
    k = next(i for i, r in enumerate(records) if r.relevance > 0)
    records[k] = records[k]._replace(relevance=records[k].relevance + 1)
    changed = _values(records, run)
    assert changed != first and changed == _values(_records(pd.DataFrame(records), ir_measures.Qrel), run)
    # equal tuples of another record type with the fields in another order are not the same qrels
    Swapped = __import__("collections").namedtuple("Swapped", ["doc_id", "query_id", "relevance", "iteration"])
    swapped = [Swapped(r.query_id, r.doc_id, r.relevance, r.iteration) for r in records]
    assert _values(swapped, run) != changed


def test_qrels_dicts_reused_only_when_equal(base):
    rng = random.Random(6)
    qrels, run = _qrels(rng, False), _run(rng, repeats=False)
    base(_run(rng, repeats=False))
    nested = _nested(qrels, "relevance")
    first = _values(nested, run)
    assert _values(nested, run) == first == _values(qrels, run)
    query = next(q for q, docs in nested.items() if any(g > 0 for g in docs.values()))
    doc = next(d for d, g in nested[query].items() if g > 0)
    nested[query][doc] += 1  # changed in place
    changed = _values(nested, run)
    assert changed != first
    assert changed == _values(pd.DataFrame([(q, d, g) for q, docs in nested.items() for d, g in docs.items()],
                                           columns=["query_id", "doc_id", "relevance"]), run)


def test_large_qrels_records_are_not_kept(monkeypatch, base):
    from prefeval.engine import provider

    rng = random.Random(8)
    qrels, run = _qrels(rng, False), _run(rng, repeats=False)
    base(_run(rng, repeats=False))
    records = _records(qrels, ir_measures.Qrel)
    monkeypatch.setattr(provider, "_KEPT_RECORDS", len(records) - 1)
    values = _values(records, run)
    assert provider._last_records == [] and values == _values(qrels, run)
    monkeypatch.setattr(provider, "_KEPT_RECORDS", len(records))
    assert _values(records, run) == values and provider._last_records[0][0] == records


@pytest.mark.integration
def test_real_runs_same_values_for_every_input_form(shared_data, base):
    folder = shared_data / "dl-hard"
    qrels = read_qrels(folder / "dl_hard-doc.qrels")
    path = folder / "runs" / "doc" / "bm25+rm3+bert-mp.run.gz"
    run = read_run(path)
    base(read_run(folder / "runs" / "doc" / "bm25.run.gz"))
    from_frames = _values(qrels, run)
    assert _values(list(ir_measures.read_trec_qrels(str(folder / "dl_hard-doc.qrels"))),
                   ir_measures.read_trec_run(str(path))) == from_frames
    assert _values(ir_measures.read_trec_qrels(str(folder / "dl_hard-doc.qrels")),
                   ir_measures.read_trec_run(str(path))) == from_frames
    assert _values(_nested(qrels, "relevance"), _nested(run, "score")) == from_frames


@pytest.mark.parametrize("run, expected", [
    ([ir_measures.ScoredDoc("1", "a", "1.5")], [("1", "a", 1.5)]),  # numeric text
    ([ir_measures.ScoredDoc("1", "a", True), ir_measures.ScoredDoc("1", "b", 2.5)], [("1", "a", 1.0), ("1", "b", 2.5)]),
    ([ir_measures.ScoredDoc("1", "a", 1), ir_measures.ScoredDoc("1", "b", 2)], [("1", "a", 1.0), ("1", "b", 2.0)]),
    ({"q": {"a": "1.5", "b": 2}}, [("q", "a", 1.5), ("q", "b", 2.0)]),
    ({1: {2: 3}}, [("1", "2", 3.0)]),
])
def test_scores_of_records_and_dicts(run, expected):
    frame = run_frame(run)
    assert list(frame.itertuples(index=False, name=None)) == expected
    assert frame["score"].dtype == "float64"


@pytest.mark.parametrize("run, message", [
    ([ir_measures.ScoredDoc("1", "a", None), ir_measures.ScoredDoc("1", "b", 1.0)],
     r"run \(records\): score .* of document a in query 1 is not a number"),
    ({"q": {"a": float("nan")}}, r"run \(dict\): score .* of document a in query q is not a number"),
])
def test_bad_scores_are_named(run, message):
    with pytest.raises(prefeval.PrefevalError, match=message):
        run_frame(run)


def test_grades_of_records():
    frame = qrels_frame([ir_measures.Qrel("1", "a", "2"), ir_measures.Qrel("2", 5, 1.0)])
    assert list(frame.itertuples(index=False, name=None)) == [("1", "a", 2, "0"), ("2", "5", 1, "0")]
    with pytest.raises(prefeval.PrefevalError, match="integer grade from -1000 to 1000, got 1.5 for query 1, document a"):
        qrels_frame([ir_measures.Qrel("1", "a", 1.5)])
    # repeated judgments in records: the last wins, with a warning (a dict cannot repeat one)
    with pytest.warns(UserWarning, match="repeated judgment"):
        frame = qrels_frame([ir_measures.Qrel("0012", "d", 2, "1"), ir_measures.Qrel("0012", "d", 1, "1")])
    assert frame["relevance"].tolist() == [1]
