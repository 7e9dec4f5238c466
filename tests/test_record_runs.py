"""Runs given as lists (or generators) of ir-measures ``ScoredDoc`` records are read by the ir-measures provider
straight into integer codes (:func:`prefeval.data.inputs.records_codes`, :func:`prefeval.data.ranking.rank_codes`), without a
frame: every value must be the one the frame of the same records gives (:func:`prefeval.data.inputs.run_frame`) --
rows in any order, repeated documents, ties across the cut -- and records the direct reading does not take must fall
back to the frame, errors included."""

from __future__ import annotations

import random
import warnings
from collections import namedtuple

import ir_measures
import numpy as np
import pytest
from tests.test_dict_runs import CUT_SETS, MEASURES, _qrels, _run, _values, base  # noqa: F401  (base: a fixture)

import prefeval
from prefeval.data.encoding import Ids
from prefeval.data.inputs import records_codes, run_frame


def _records(run: dict) -> list:
    return [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]


def _repeated(rows: list, rng: random.Random) -> list:
    """``rows`` with some documents repeated in their query, with a lower score (kept first) or a higher one."""
    out = rows[:]
    for i in rng.sample(range(len(rows)), 8):
        out.insert(rng.randrange(len(out)), rows[i]._replace(score=rows[i].score + rng.choice([-2.0, 0.0, 2.0])))
    return out


Other = namedtuple("Other", ["score", "doc_id", "query_id", "extra"])  # the fields in another order

# (variant, read directly?) -- the others fall back to the frame
VARIANTS = {
    "as given": (lambda rows, rng: rows, True),
    "shuffled": (lambda rows, rng: rng.sample(rows, len(rows)), True),
    "repeated documents": (_repeated, True),
    "repeated documents, shuffled": (lambda rows, rng: rng.sample(_repeated(rows, rng), len(rows) + 8), True),
    "int scores": (lambda rows, rng: [r._replace(score=int(r.score)) for r in rows], True),
    "numpy str ids": (lambda rows, rng: [r._replace(query_id=np.str_(r.query_id), doc_id=np.str_(r.doc_id))
                                         for r in rows], True),
    "fields in another order": (lambda rows, rng: [Other(r.score, r.doc_id, r.query_id, 0) for r in rows], True),
    "int doc ids": (lambda rows, rng: [r._replace(doc_id=int(r.doc_id)) if r.doc_id.isdigit()
                                       and r.doc_id == str(int(r.doc_id)) else r for r in rows], False),
    "numeric text scores": (lambda rows, rng: [r._replace(score=str(r.score)) for r in rows], False),
    "two record types": (lambda rows, rng: rows[:3] + [Other(r.score, r.doc_id, r.query_id, 0) for r in rows[3:]],
                         False),
}


#: every measure with a cutoff (runs read down to the largest) or not (whole runs)
MEASURE_SETS = {"all measures": MEASURES, **CUT_SETS}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("measures", sorted(MEASURE_SETS))
def test_records_read_directly_give_the_values_of_their_frames(variant, seed, measures, base):  # noqa: F811
    chosen = MEASURE_SETS[measures]
    rng = random.Random(seed)
    qrels = _qrels(rng)
    make, direct = VARIANTS[variant]
    rows = make(_records(_run(rng, depth=44)), rng)
    queries = Ids(list(qrels))
    assert (records_codes(rows, queries) is not None) == direct
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = run_frame(rows)
    expected = _values(qrels, frame, chosen)
    assert len(expected) == len(chosen) * len(qrels)
    assert _values(qrels, rows, chosen) == expected
    assert _values(qrels, (r for r in rows), chosen) == expected  # a generator, read once


def test_read_down_to_the_cutoff_only_without_repeats_among_the_kept_rows():
    """Each query's rows cut below its ``depth``-th highest score (ties kept) when its rows are contiguous and no
    document repeats among the kept ones; else every row is kept."""
    rows = [ir_measures.ScoredDoc(q, d, s) for q in ("a", "b") for d, s in
            [("x", 5.0), ("y", 4.0), ("z", 4.0), ("w", 1.0), ("v", 0.0)]]
    queries = Ids(["b", "a"])
    qc, raw, names, scores = records_codes(rows, queries, depth=2)
    assert qc.tolist() == [1, 1, 1, 0, 0, 0] and scores.tolist() == [5.0, 4.0, 4.0] * 2
    assert [names.to_pylist()[k] for k in raw] == ["x", "y", "z"] * 2
    repeated = rows[:1] + [ir_measures.ScoredDoc("a", "x", 4.5)] + rows[1:]  # "x" twice among the kept rows of "a"
    assert len(records_codes(repeated, queries, depth=2)[0]) == len(repeated)
    split = rows[5:7] + rows[:5] + rows[7:]  # the rows of "b" not contiguous
    assert len(records_codes(split, queries, depth=2)[0]) == len(split)
    # "z" (relevant) is ranked 2nd: "x" repeated above it counts once
    qrels = [ir_measures.Qrel("a", "z", 1), ir_measures.Qrel("a", "y", 0)]
    repeated = [ir_measures.ScoredDoc("a", d, s) for d, s in [("x", 3.0), ("x", 2.0), ("z", 1.0), ("w", 0.0)]]
    rbu = prefeval.RBU(p=0.5, e=0.0) @ 2
    with pytest.warns(UserWarning, match="repeated document"):
        value = ir_measures.calc_aggregate([rbu], qrels, repeated)[rbu]
    assert value == ir_measures.calc_aggregate([rbu], qrels, run_frame(repeated))[rbu] > 0


@pytest.mark.parametrize("score", [float("nan"), None])
def test_bad_scores_give_the_frames_error(score, base):  # noqa: F811
    qrels = _qrels(random.Random(2))
    rows = _records(_run(random.Random(2)))
    rows[3] = rows[3]._replace(score=score)
    assert records_codes(rows, Ids(list(qrels))) is None
    with pytest.raises(prefeval.PrefevalError, match=rf"run \(records\): score .* of document {rows[3].doc_id} in "):
        _values(qrels, rows)
