"""Runs given as dicts of dicts ``{query_id: {doc_id: score}}`` are read by the ir-measures provider straight into
integer codes (:func:`prefeval.data.inputs.nested_codes`, :func:`prefeval.data.ranking.rank_codes`), without a frame: every
value must be the one the frame of the same dict gives (:func:`prefeval.data.inputs.run_frame`), for every kind of id and
score, and dicts the direct reading does not take must fall back to the frame, errors included."""

from __future__ import annotations

import random
import types
import warnings
from collections import OrderedDict, defaultdict
from decimal import Decimal

import ir_measures
import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval.data.encoding import Ids
from prefeval.data.inputs import encoded_run, nested_codes, run_frame
from prefeval.data.ranking import rank_codes, rank_run

MEASURES = [prefeval.RBU(p=0.8, e=0.03) @ 20, prefeval.RBU(p=0.9, e=0.01, rel=2) @ 5, prefeval.TSE,
            prefeval.RPP(baseline="dict-base"), prefeval.RPP(baseline="dict-base", graded=False, weighting="dcg"),
            prefeval.LexiRecall(baseline="dict-base"), prefeval.LexiPrecision(baseline="dict-base", rel=2)]
QUERIES = ("12", "0012", "7", "q-none")  # "q-none": judged, no relevant document
DOCS = [str(k) for k in range(40)] + ["0010", "d", "D", "é"]  # "9" > "10" > "0010" as strings


def _qrels(rng: random.Random) -> dict:
    return {q: {d: (0 if q == "q-none" else rng.choice([0, 0, 1, 2, 3])) for d in rng.sample(DOCS, 30)}
            for q in QUERIES}


def _run(rng: random.Random, depth: int = 35) -> dict:
    """Few distinct scores: ties everywhere, also across rank 20 (RBU@20's cut); one judged query ("7") missing, an
    unjudged one present, one judged query empty."""
    run = {q: {d: float(rng.choice([1, 2, 2, 3, 3, 3, 4])) for d in rng.sample(DOCS, depth)}
           for q in ("12", "0012", "unjudged")}
    run["q-none"] = {}
    return run


def _values(qrels, run, measures=MEASURES) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, run)}


@pytest.fixture
def base():
    rng = random.Random(99)
    prefeval.register_run("dict-base", run_frame(_run(rng)))
    yield
    prefeval.data.runs._REGISTERED.pop("dict-base", None)


def _recast(run: dict, query=lambda q: q, doc=lambda d: d, score=lambda s: s, inner=dict) -> dict:
    return {query(q): inner((doc(d), score(s)) for d, s in docs.items()) for q, docs in run.items()}


# (variant, read directly?) -- the others fall back to the frame
VARIANTS = {
    "str ids": (lambda r: r, True),
    "numpy str ids": (lambda r: _recast(r, query=np.str_, doc=np.str_), True),
    "int scores": (lambda r: _recast(r, score=int), True),
    "float32 scores": (lambda r: _recast(r, score=np.float32), True),
    "numpy int scores": (lambda r: _recast(r, score=np.int64), True),
    "Decimal scores": (lambda r: _recast(r, score=lambda s: Decimal(str(s))), True),
    "bool and float scores": (lambda r: _recast(r, score=lambda s: True if s == 4 else s), True),
    "ordered and default dicts": (lambda r: defaultdict(dict, _recast(r, inner=OrderedDict)), True),
    "OrderedDict reordered": (lambda r: {q: _moved(OrderedDict(docs)) for q, docs in r.items()}, True),
    "Mapping other than a dict": (lambda r: {q: types.MappingProxyType(docs) for q, docs in r.items()}, False),
    "int query keys": (lambda r: {int(q) if q.isdigit() and q == str(int(q)) else q: docs for q, docs in r.items()},
                       True),
    "int doc ids": (lambda r: _recast(r, doc=lambda d: int(d) if d.isdigit() and d == str(int(d)) else d), False),
    "numpy int doc ids": (lambda r: _recast(r, doc=lambda d: np.int64(d) if d.isdigit() and d == str(int(d)) else d),
                          False),
    "numeric text scores": (lambda r: _recast(r, score=str), False),
    "query keys equal as text": (lambda r: {**r, 12: dict(list(r["12"].items())[:5])}, False),
}


def _moved(docs: OrderedDict) -> OrderedDict:
    """``docs`` with its first key moved to the end: its order is no longer the one its dict stores."""
    if docs:
        docs.move_to_end(next(iter(docs)))
    return docs


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("seed", range(2))
def test_dicts_read_directly_give_the_values_of_their_frames(variant, seed, base):
    rng = random.Random(seed)
    qrels = _qrels(rng)
    make, direct = VARIANTS[variant]
    run = make(_run(rng))
    queries = Ids(list(qrels))
    assert (nested_codes(run, queries) is not None) == direct
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = run_frame(run)
    expected = _values(qrels, frame)
    assert len(expected) == len(MEASURES) * len(QUERIES)
    assert _values(qrels, run) == expected


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("seed", range(3))
def test_an_encoded_dict_ranks_as_its_frame(variant, seed):
    """:func:`encoded_run` (how evaluate ranks a dict): rank_run gives the rows, ids and queries of the frame's ranking,
    or it gives None and the frame is read."""
    rng = random.Random(seed)
    make, direct = VARIANTS[variant]
    run = make(_run(rng, depth=44))
    encoded = encoded_run(run)
    assert (encoded is not None) == direct
    if encoded is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        framed = rank_run(run_frame(run, columns=True))
    ranked = rank_run(encoded)
    pd.testing.assert_frame_equal(ranked.rows(), framed.rows())
    assert ranked.queries.tolist() == framed.queries.tolist()
    assert ranked.doc_ids.tolist() == framed.doc_ids.tolist()


def test_encoded_empty_and_bad_dicts():
    assert encoded_run({}).query_codes.tolist() == []
    assert rank_run(encoded_run({"q": {}, "r": {"a": 1.0}})).queries.tolist() == ["r"]
    for bad in ({"q": {"a": float("nan")}}, {"q": {"a b": 1.0}}, {None: {"a": 1.0}}, {"q": {"": 1.0}}, [("q", "a")]):
        assert encoded_run(bad) is None


@pytest.mark.parametrize("seed", range(3))
def test_ties_at_the_cut_against_a_ranking_without_ties(seed, base):
    """The dict's ranks equal those of a dict scoring each document by minus its rank in (score descending, doc id
    descending as a string): the order trec_eval gives ties, written out in Python."""
    rng = random.Random(seed)
    qrels, run = _qrels(rng), _run(rng, depth=44)
    untied = {q: {d: -float(rank) for rank, (_, d) in
                  enumerate(sorted(((-s, d) for d, s in docs.items()), key=lambda p: (p[0], _desc(p[1]))), 1)}
              for q, docs in run.items()}
    assert _values(qrels, run) == _values(qrels, untied)


def _desc(text: str) -> tuple:
    """A key ordering strings descending (code point order, reversed)."""
    return tuple(-ord(c) for c in text) + (1,)


def test_empty_and_unjudged_runs(base):
    qrels = _qrels(random.Random(1))
    for run in ({}, {"unjudged": {"a": 1.0}}, {q: {} for q in QUERIES}):
        assert nested_codes(run, Ids(list(qrels))) is not None
        assert _values(qrels, run) == _values(qrels, run_frame(run))


@pytest.mark.parametrize("score", [float("nan"), None, "x"])
def test_bad_scores_give_the_frames_error(score, base):
    qrels = _qrels(random.Random(2))
    run = _run(random.Random(2))
    run["12"]["a"] = score
    assert nested_codes(run, Ids(list(qrels))) is None
    with pytest.raises(prefeval.PrefevalError, match=r"run \(dict\): score .* of document a in query 12 is not a "):
        _values(qrels, run)


@pytest.mark.parametrize("seed", range(2))
def test_rank_codes_of_a_dict_is_rank_run_of_its_frame(seed):
    """Ranked with every tie ordered, the dict's codes give the rows of the frame's ranking (ids, order, ranks)."""
    rng = random.Random(seed)
    run = _run(rng, depth=44)
    queries = Ids(["0012", "12", "7"])
    candidates = np.asarray(rng.sample(DOCS, 10), dtype=object)
    qc, raw, names, scores = nested_codes(run, queries)
    direct = rank_codes(qc, queries, raw, names, scores, candidates, ties="all")
    framed = rank_run(run_frame(run), queries, candidates, ties="all")
    pd.testing.assert_frame_equal(direct.rows(), framed.rows())
    assert direct.doc_ids.tolist() == framed.doc_ids.tolist()
    assert np.array_equal(direct.doc_codes < len(candidates), framed.doc_codes < len(candidates))
    is_candidate = direct.doc_codes < len(candidates)
    assert (candidates[direct.doc_codes[is_candidate]] == direct.doc_ids[is_candidate]).all()
    # ties ordered only around the candidates: the candidates' ranks and each query's length are the same
    partial = rank_codes(qc, queries, raw, names, scores, candidates, ties="candidates")
    assert partial.rank[partial.doc_codes < len(candidates)].tolist() == \
        [dict(zip(zip(framed.query_codes.tolist(), framed.doc_ids.tolist()), framed.rank.tolist()))[(q, d)]
         for q, d in zip(partial.query_codes[partial.doc_codes < len(candidates)].tolist(),
                         partial.doc_ids[partial.doc_codes < len(candidates)].tolist())]
    assert np.array_equal(np.bincount(partial.query_codes, minlength=3), np.bincount(framed.query_codes, minlength=3))


def test_qrels_dicts_reused_only_with_the_same_items_in_the_same_order():
    from prefeval.engine import provider

    qrels = _qrels(random.Random(5))
    frame = provider._qrels_input(qrels)
    assert provider._qrels_input({q: dict(docs) for q, docs in qrels.items()}) is frame  # equal items
    changes = [
        {q: dict(reversed(list(docs.items()))) for q, docs in qrels.items()},  # documents in another order
        dict(reversed(list(qrels.items()))),  # queries in another order
        {**qrels, "7": {**qrels["7"], "new": 1}},  # one more judgment
        {**qrels, "7": {d: g + 1 for d, g in qrels["7"].items()}},  # other grades
    ]
    for changed in changes:
        current = provider._qrels_input(qrels)
        other = provider._qrels_input(changed)
        assert other is not current
        assert list(other.frame.itertuples(index=False, name=None)) == \
            [(q, d, g, "0") for q, docs in changed.items() for d, g in docs.items()]
    current = provider._qrels_input(qrels)
    qrels["7"][next(iter(qrels["7"]))] += 1  # changed in place after the call: not the kept items
    assert provider._qrels_input(qrels) is not current


def test_kept_baseline_positions_follow_baseline_cutoff_and_threshold(base):
    """Baselines located once per qrels, baseline, threshold and cutoff: the values of a fresh evaluation."""
    from prefeval.engine import provider

    rng = random.Random(11)
    qrels = _qrels(rng)
    prefeval.register_run("dict-other", run_frame(_run(random.Random(12))))
    try:
        measures = [prefeval.RPP(baseline=b, rel=r) @ k for b in ("dict-base", "dict-other") for r in (1, 2)
                    for k in (5, 10)] + [prefeval.RPP(baseline="dict-other")]
        runs = [_run(rng) for _ in range(3)]
        kept = [_values(qrels, run, measures) for run in runs]
        fresh = []  # one measure at a time, nothing kept
        for run in runs:
            fresh.append({})
            for measure in measures:
                provider._last_baselines.clear()
                fresh[-1].update(_values(qrels, run, [measure]))
        assert kept == fresh
        prefeval.register_run("dict-other", run_frame(_run(random.Random(13))))  # another run under that name
        changed = _values(qrels, runs[0], measures)
        provider._last_baselines.clear()
        assert changed == _values(qrels, runs[0], measures) != kept[0]
    finally:
        prefeval.data.runs._REGISTERED.pop("dict-other", None)


CUT_SETS = {
    "RBU@20": [prefeval.RBU(p=0.8, e=0.03) @ 20],
    "RBU@5, RBU@20 rel=2": [prefeval.RBU(p=0.8, e=0.03) @ 5, prefeval.RBU(p=0.9, e=0.01, rel=2) @ 20],
    "preferences at cutoffs": [prefeval.RPP(baseline="dict-base") @ 10, prefeval.LexiRecall(baseline="dict-base") @ 3,
                               prefeval.LexiPrecision(baseline="dict-base", rel=2) @ 7, prefeval.RBU(p=0.8, e=0.03) @ 20],
    "diversity at cutoffs": [ir_measures.parse_measure(m) for m in ("nDCG_IA@10", "S_Recall@20", "ERR_IA_graded@5",
                                                                    "RBP_graded@15", "EU@20", "CT@12")],
}


@pytest.mark.parametrize("measures", sorted(CUT_SETS))
@pytest.mark.parametrize("seed", range(2))
def test_runs_read_down_to_the_largest_cutoff(measures, seed, base):
    """When every measure has a cutoff, a dict is read down to the largest one (ties at the cut kept): the values of
    its frame and of the untied ranking, also with infinite scores and queries shorter than the cutoff."""
    rng = random.Random(seed)
    qrels, run = _qrels(rng), _run(rng, depth=44)
    run["0012"] = dict(list(run["0012"].items())[:8])  # shorter than every cutoff but one
    run["12"][next(iter(run["12"]))] = float("inf")
    run["12"][list(run["12"])[-1]] = -float("inf")
    chosen = CUT_SETS[measures]
    untied = {q: {d: -float(rank) for rank, (_, d) in
                  enumerate(sorted(((-s, d) for d, s in docs.items()), key=lambda p: (p[0], _desc(p[1]))), 1)}
              for q, docs in run.items()}
    expected = _values(qrels, run_frame(run), chosen)
    assert _values(qrels, run, chosen) == expected == _values(qrels, untied, chosen)


def test_top_rows_keep_the_ties_at_the_cut():
    run = {"a": {"1": 3.0, "2": 2.0, "3": 2.0, "4": 2.0, "5": 1.0}, "b": {"6": 1.0}, "c": {"7": 5.0, "8": 4.0}}
    qc, raw, names, scores = nested_codes(run, Ids(["a", "b", "c"]), depth=2)
    assert names.tolist() == ["1", "2", "3", "4", "6", "7", "8"] and qc.tolist() == [0, 0, 0, 0, 1, 2, 2]
    assert raw.tolist() == list(range(7)) and scores.tolist() == [3.0, 2.0, 2.0, 2.0, 1.0, 5.0, 4.0]
    assert nested_codes(run, Ids(["a", "b", "c"]), depth=5)[2].tolist() == [str(k) for k in range(1, 9)]
    qc, _, names, _ = nested_codes({"a": {"x": 1.0, "y": 2.0, "z": 3.0}}, Ids(["a"]), depth=1)  # unsorted
    assert names.tolist() == ["z"]
