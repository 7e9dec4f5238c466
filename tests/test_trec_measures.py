"""The numpy kernels of trec_eval's common measures (:mod:`prefeval.core.trec_measures`) against pytrec_eval (trec_eval
itself) per query, exactly: on random rankings with tied scores, unjudged and negatively judged documents, at rel
1..3 and several cutoffs; on every run of the shared TREC data (DL-Hard, TREC Web 2012, trec_eval's own test
files) at rel 1, 2 and 3; and against trec_eval's expected output files. Judged@k and RR@k (not trec_eval's) against
a brute-force implementation of their definitions. A judged query missing from a run is an empty ranking
(``trec_eval -c``)."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.core.trec_measures import UNJUDGED, Judgments, Measure, Rankings, query_values, trec_values

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 2, 3, 5, 10, 20, 100, 1000)
#: measure -> its trec_eval name (None: not trec_eval's, checked against :func:`brute_force`)
TREC_NAMES = {"P": "P_{k}", "R": "recall_{k}", "Success": "success_{k}", "AP": "map_cut_{k}", "nDCG": "ndcg_cut_{k}"}
UNCUT = {"AP": "map", "nDCG": "ndcg", "RR": "recip_rank", "Rprec": "Rprec", "NumRet": "num_ret",
         "NumRelRet": "num_rel_ret", "NumRel": "num_rel", "NumQ": "num_q", "R": "set_recall"}


def measures_at(rel: int, cutoffs=CUTOFFS) -> list[Measure]:
    out = [Measure(name, k, rel) for name in ("P", "R", "Success", "AP") for k in cutoffs]
    out += [Measure("nDCG", k) for k in cutoffs] + [Measure("Judged", k) for k in cutoffs]
    out += [Measure("RR", k, rel) for k in cutoffs]
    out += [Measure(name, None, rel) for name in ("AP", "RR", "Rprec", "NumRelRet", "NumRel", "R")]
    out += [Measure("nDCG"), Measure("NumRet"), Measure("NumQ"), Measure("Judged")]
    return out


def trec_name(measure: Measure) -> str | None:
    if measure.name in ("Judged",) or (measure.name == "RR" and measure.cutoff is not None):
        return None
    if measure.cutoff is None:
        return UNCUT[measure.name]
    return TREC_NAMES[measure.name].format(k=measure.cutoff)


def ranked(docs: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, ties by doc id descending (strcmp: code point order)."""
    return [d for d, _ in sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def brute_force(measure: Measure, grades: list[int | None]) -> float:
    """Judged@k and RR@k of one ranking (``grades`` in rank order, None for an unjudged document) by definition."""
    k = len(grades) if measure.cutoff is None else measure.cutoff
    top = grades[:k]
    if measure.name == "Judged":
        return sum(g is not None for g in top) / len(top) if top else 0.0
    assert measure.name == "RR"
    return next((1.0 / i for i, g in enumerate(top, 1) if g is not None and g >= measure.rel), 0.0)


def kernel_inputs(qrels: dict[str, dict[str, int]], runs: list[dict[str, dict[str, float]]]
                  ) -> tuple[list[str], Judgments, list[Rankings]]:
    """The judged queries (sorted), their judgments and each run's rankings (one segment per judged query) as the
    kernels take them."""
    queries = sorted(qrels)
    index = {q: i for i, q in enumerate(queries)}
    jq = [index[q] for q in queries for _ in qrels[q]]
    jg = [g for q in queries for g in qrels[q].values()]
    judgments = Judgments(np.array(jq, dtype=np.int64), np.array(jg, dtype=np.int64), len(queries))
    parts = []
    for run in runs:
        rows_q, rows_g = [], []
        for q, docs in run.items():  # run order: the kernels group the rows by query
            for d in ranked(docs):
                rows_q.append(index.get(q, -1))
                rows_g.append(qrels.get(q, {}).get(d, UNJUDGED))
        parts.append(Rankings.from_rows(np.array(rows_q, dtype=np.int64), np.array(rows_g, dtype=np.int64),
                                        len(queries)))
    return queries, judgments, parts


def expected(qrels, run, rel: int, measures: list[Measure], queries: list[str]) -> dict[Measure, np.ndarray]:
    """Each measure's value per judged query: pytrec_eval's (trec_eval's) where it has one, else brute force; a
    judged query missing from the run (pytrec_eval gives nothing) has the values of an empty ranking."""
    names = {trec_name(m) for m in measures} - {None}
    given = pytrec_eval.RelevanceEvaluator(qrels, names, relevance_level=rel).evaluate(
        {q: docs for q, docs in run.items() if docs}) if names else {}
    grades = {q: [qrels[q].get(d) for d in ranked(run.get(q, {}))] for q in queries}
    out = {}
    for measure in measures:
        values = []
        for q in queries:
            if trec_name(measure) is None:
                values.append(brute_force(measure, grades[q]))
            elif q in given:
                values.append(given[q][trec_name(measure)])
            else:  # -c: an empty ranking
                values.append({"NumQ": 1.0, "NumRel": float(sum(g >= measure.rel for g in qrels[q].values()))}
                              .get(measure.name, 0.0))
        out[measure] = np.array(values, dtype=np.float64)
    return out


def check(qrels, runs, rel: int, measures: list[Measure]) -> None:
    """Each run's values per judged query, and all runs at once (:meth:`Rankings.concat`), equal :func:`expected`."""
    queries, judgments, rankings = kernel_inputs(qrels, runs)
    together = Rankings.concat(rankings)
    at_once = trec_values(judgments, together, measures)
    for r, run in enumerate(runs):
        want = expected(qrels, run, rel, measures, queries)
        values = query_values(judgments, rankings[r], measures)
        segments = slice(r * len(queries), (r + 1) * len(queries))
        assert np.array_equal(together.query[segments], rankings[r].query)
        for measure, part, joint in zip(measures, values, at_once):
            assert np.array_equal(joint[segments][np.argsort(rankings[r].query)], part)
            if not np.array_equal(part, want[measure]):
                bad = int(np.flatnonzero(part != want[measure])[0])
                raise AssertionError(f"run {r}, {measure}, query {queries[bad]}: {part[bad]!r} != "
                                     f"{want[measure][bad]!r}")


# ----------------------------------------------------------------------------------------------
# random rankings

DOCS = [f"d{i}" for i in range(12)] + ["D1", "d1a", "0012", "12"]


@st.composite
def collections(draw):
    """Qrels (grades -2..4, every query with a non-negative grade) and 1-3 runs over 1-4 queries: scores from a few
    values (many ties), unjudged documents, a judged query missing from a run, a query only in a run."""
    queries = [f"q{i}" for i in range(draw(st.integers(1, 4)))]
    qrels = {}
    for q in queries:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        grades = draw(st.lists(st.integers(-2, 4), min_size=len(docs), max_size=len(docs)))
        grades[0] = max(grades[0], 0)  # trec_eval leaves a query of negative grades only undefined
        qrels[q] = dict(zip(docs, grades))
    runs = []
    for _ in range(draw(st.integers(1, 3))):
        run = {}
        for q in draw(st.lists(st.sampled_from(queries + ["other"]), unique=True, max_size=5)):
            docs = draw(st.lists(st.sampled_from(DOCS), max_size=len(DOCS), unique=True))
            scores = draw(st.lists(st.sampled_from([0.0, 1.0, 1.5, 2.0, -1.0]), min_size=len(docs),
                                   max_size=len(docs)))
            if docs:
                run[q] = dict(zip(docs, scores))
        runs.append(run)
    return qrels, runs


@settings(max_examples=300, deadline=None)
@given(collections(), st.integers(1, 3))
def test_random_rankings_with_ties_equal_trec_eval(collection, rel):
    qrels, runs = collection
    check(qrels, runs, rel, measures_at(rel, cutoffs=(1, 2, 3, 5, 10)))


def test_worked_example():
    """One ranking by hand: grades in rank order 2 (unjudged), -1, 0, 1, 2; judged 2, 1, 0, -1."""
    judgments = Judgments(np.zeros(4, dtype=np.int64), np.array([2, 1, 0, -1]), 1)
    rankings = Rankings.from_rows(np.zeros(5, dtype=np.int64), np.array([UNJUDGED, -1, 0, 1, 2]), 1)
    assert rankings.offsets.tolist() == [0, 5]
    names = [Measure("P", 5), Measure("AP"), Measure("AP", rel=2), Measure("RR"), Measure("Rprec"),
             Measure("nDCG"), Measure("nDCG", 3), Measure("Judged", 2), Measure("NumRel", rel=2)]
    got = [float(v[0]) for v in trec_values(judgments, rankings, names)]
    dcg, ideal = 1 / math.log2(5) + 2 / math.log2(6), 2 / math.log2(2) + 1 / math.log2(3)
    assert got == [2 / 5, (1 / 4 + 2 / 5) / 2, (1 / 5) / 1, 1 / 4, 0.0, dcg / ideal, 0.0, 1 / 2, 1.0]


def test_empty_ranking_of_a_judged_query():
    judgments = Judgments(np.array([0, 0, 1]), np.array([1, 2, 3]), 2)
    rankings = Rankings.from_rows(np.array([1, 1]), np.array([3, UNJUDGED]), 2)
    assert rankings.query.tolist() == [1, 0] and rankings.offsets.tolist() == [0, 2, 2]
    measures = [Measure("NumQ"), Measure("NumRel"), Measure("NumRet"), Measure("AP"), Measure("nDCG", 10),
                Measure("Judged", 10), Measure("P", 10)]
    got = [v.tolist() for v in query_values(judgments, rankings, measures)]
    assert got == [[1.0, 1.0], [2.0, 1.0], [0.0, 2.0], [0.0, 1.0], [0.0, 1.0], [0.0, 0.5], [0.0, 0.1]]


def test_rows_of_a_query_in_two_stretches_keep_their_order():
    rankings = Rankings.from_rows(np.array([1, 0, 1, -1, 0]), np.array([5, 6, 7, 8, 9]), 2)
    assert rankings.grades.tolist() == [6, 9, 5, 7] and rankings.offsets.tolist() == [0, 2, 4]
    rankings = Rankings.from_rows(np.array([2, 2, -1, 0]), np.array([5, 6, 7, 8]), 4)  # stretches: no copy
    assert rankings.grades.tolist() == [5, 6, 8] and rankings.offsets.tolist() == [0, 2, 3, 3, 3]
    assert rankings.query.tolist() == [2, 0, 1, 3]


@pytest.mark.parametrize("args", [("P",), ("nDCG", None, 2), ("NumQ", 5), ("AP", 0), ("Bpref",), ("RR", None, 0)])
def test_bad_measures_are_refused(args):
    with pytest.raises(ValueError):
        Measure(*args)


# ----------------------------------------------------------------------------------------------
# the shared TREC data


def read_pairs(path: Path, value_field: int, convert) -> dict[str, dict[str, object]]:
    opener = gzip.open if path.suffix == ".gz" else open
    out: dict[str, dict[str, object]] = {}
    with opener(path, "rt") as handle:
        for line in handle:
            fields = line.split()
            if fields:
                out.setdefault(fields[0], {})[fields[2]] = convert(fields[value_field])
    return out


def shared_cases(root: Path) -> list[tuple[Path, list[Path]]]:
    dl, web, te = root / "dl-hard", root / "trec-web-2012", root / "trec_eval"
    return [(dl / "dl_hard-passage.qrels", sorted((dl / "runs" / "passage").glob("*.run.gz"))),
            (dl / "dl_hard-doc.qrels", sorted((dl / "runs" / "doc").glob("*.run.gz"))),
            (web / "qrels.adhoc.txt", sorted((web / "runs").glob("*.run.gz"))),
            (te / "qrels.test", [te / "results.test", te / "results.trunc"]),
            (te / "qrels.rel_level", [te / "results.test", te / "results.trunc"])]


@pytest.mark.parametrize("case", range(5))
@pytest.mark.parametrize("rel", [1, 2, 3])
def test_shared_runs_equal_trec_eval(shared_data, case, rel):
    qrels_path, run_paths = shared_cases(shared_data)[case]
    qrels = read_pairs(qrels_path, 3, int)
    runs = [read_pairs(path, 4, float) for path in run_paths]
    assert len(runs) in (2, 6, 8, 14)
    check(qrels, runs, rel, measures_at(rel))


def test_trec_eval_expected_output(shared_data):
    """trec_eval's own expected output for ``-q -c -m all_trec qrels.test results.trunc`` (topic 302 missing from the
    run), per query and as trec_eval's summary (sums for the counts, means over the judged queries otherwise)."""
    folder = shared_data / "trec_eval"
    qrels = read_pairs(folder / "qrels.test", 3, int)
    queries, judgments, (rankings,) = kernel_inputs(qrels, [read_pairs(folder / "results.trunc", 4, float)])
    lines = [line.split() for line in (folder / "out.test.aqc").read_text().splitlines()]
    table = {(name, q): value for name, q, value in lines}
    names = {"num_ret": Measure("NumRet"), "num_rel": Measure("NumRel"), "num_rel_ret": Measure("NumRelRet"),
             "map": Measure("AP"), "Rprec": Measure("Rprec"), "recip_rank": Measure("RR"), "ndcg": Measure("nDCG"),
             "P_5": Measure("P", 5), "P_1000": Measure("P", 1000), "recall_100": Measure("R", 100),
             "ndcg_cut_10": Measure("nDCG", 10), "map_cut_20": Measure("AP", 20), "success_5": Measure("Success", 5),
             "num_q": Measure("NumQ")}
    values = dict(zip(names, query_values(judgments, rankings, list(names.values()))))
    checked = 0
    for name, per_query in values.items():
        summed = name.startswith("num_")
        for q, value in zip(queries, per_query):
            if (name, q) in table:
                assert (f"{int(value)}" if summed else f"{value:.4f}") == table[name, q], (name, q)
                checked += 1
        total = per_query.sum() if summed else per_query.mean()
        assert (f"{int(total)}" if summed else f"{total:.4f}") == table[name, "all"], name
    assert checked >= 30 and table["num_q", "all"] == "3"
