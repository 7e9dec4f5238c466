"""Every number computed once, the same through every door.

* ``prefeval eval qrels.test results.trunc ...`` reproduces the ``all`` lines of trec_eval's own expected output for
  ``trec_eval -a -q -c`` (``out.test.aqc``; the run lacks judged topic 302).
* On DL-Hard passage, with bm25, bm25+rm3 and a copy of bm25 lacking 7 judged queries, eight measures are identical
  through five doors (the one-run ``prefeval eval``, the table's json, ``prefeval.evaluate``, ``prefeval.table`` and a
  pipeline) at rel 1 and rel 2, and the counts equal ``trec_eval -c -l REL``: trec_eval's own output at ``-l 2``
  (the ``.run.eval.gz`` files: ``trec_eval -l 2 -c -M1000 -q -m all_trec``), pytrec_eval at rel 1.

Skipped without ``../shared/data``.
"""

from __future__ import annotations

import gzip
import io
import json
import warnings
from contextlib import redirect_stderr, redirect_stdout

import pytest

import prefeval
from prefeval.commands.cli import main
from prefeval.engine.evaluate import parse_measures
from prefeval.pipeline import Evaluate, Pipeline, Qrels, Runs

MEASURES = ["num_q", "num_rel", "num_ret", "num_rel_ret", "nDCG@10", "AP", "P@10", "RBU@20"]
COUNTS = MEASURES[:4]
#: measures of out.test.aqc's `all` lines, as the issue lists them
TREC_EVAL_NAMES = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
                   "iprec_at_recall_0.10", "P_5", "ndcg_cut_10"]


def cli(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(list(args)) == 0, err.getvalue()
    return out.getvalue()


def trec_eval_lines(path) -> dict[tuple[str, str], str]:
    """(measure, query or ``all``) -> value text of a ``trec_eval -q`` output file."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return {(m.strip(), q): v for m, q, v in (line.rstrip("\n").split("\t") for line in lines)}


def test_eval_reproduces_trec_eval_all_lines(shared_data):
    folder = shared_data / "trec_eval"
    expected = trec_eval_lines(folder / "out.test.aqc")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the run lacks a judged query: said on stderr
        out = cli("eval", str(folder / "qrels.test"), str(folder / "results.trunc"), *TREC_EVAL_NAMES)
    got = dict(line.split("\t") for line in out.splitlines())
    assert list(got) == TREC_EVAL_NAMES
    assert got == {name: expected[name, "all"] for name in TREC_EVAL_NAMES}  # the same text: counts as integers


@pytest.fixture(scope="module")
def dl_hard_runs(shared_data, tmp_path_factory):
    """(qrels path, {name: run path}, the 7 judged queries the copy of bm25 lacks)."""
    folder = shared_data / "dl-hard"
    qrels = folder / "dl_hard-passage.qrels"
    judged = sorted({line.split()[0] for line in qrels.read_text(encoding="utf-8").splitlines() if line.strip()})
    dropped = set(judged[::7][:7])
    copy = tmp_path_factory.mktemp("runs") / "bm25-lacking.run"
    with gzip.open(folder / "runs" / "passage" / "bm25.run.gz", "rt", encoding="utf-8") as lines:
        copy.write_text("".join(line for line in lines if line.split()[0] not in dropped), encoding="utf-8")
    runs = {"bm25": str(folder / "runs" / "passage" / "bm25.run.gz"),
            "bm25+rm3": str(folder / "runs" / "passage" / "bm25+rm3.run.gz"), "bm25-lacking": str(copy)}
    return str(qrels), runs, dropped


def reference_counts(qrels: str, runs: dict[str, str], dropped: set[str], rel: int, shared_data) -> dict:
    """(run, count) -> ``trec_eval -c -l rel``'s value: at rel 2 trec_eval's own output (the copy of bm25: bm25's
    per-query lines without the dropped queries, whose num_rel still counts), at rel 1 pytrec_eval per query (a
    judged query missing from a run: num_rel from the qrels, the rest 0)."""
    out = {}
    if rel == 2:
        folder = shared_data / "dl-hard" / "runs" / "passage"
        for name, source in (("bm25", "bm25"), ("bm25+rm3", "bm25+rm3"), ("bm25-lacking", "bm25")):
            lines = trec_eval_lines(folder / f"{source}.run.eval.gz")
            queries = {q for (m, q) in lines if m == "num_rel" and q != "all"}
            kept = queries - dropped if name == "bm25-lacking" else queries
            assert len(queries) == int(lines["num_q", "all"])  # -c: every judged query has its lines
            out[name, "num_q"] = len(queries)
            out[name, "num_rel"] = sum(int(lines["num_rel", q]) for q in queries)
            for count in ("num_ret", "num_rel_ret"):
                out[name, count] = sum(int(lines[count, q]) for q in kept)
            if name != "bm25-lacking":
                assert out[name, "num_ret"] == int(lines["num_ret", "all"])
        return out
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_dict: dict = {}
    for line in open(qrels, encoding="utf-8"):
        q, _, d, g = line.split()
        qrels_dict.setdefault(q, {})[d] = int(g)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, {"num_q", "num_ret", "num_rel", "num_rel_ret"},
                                               relevance_level=rel)
    every_query = evaluator.evaluate({q: {"-": 0.0} for q in qrels_dict})  # num_rel of every judged query
    for name, path in runs.items():
        opener = gzip.open if path.endswith(".gz") else open
        run: dict = {}
        with opener(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                q, _, d, _, s, _ = line.split()
                run.setdefault(q, {})[d] = max(float(s), run.get(q, {}).get(d, float("-inf")))
        values = evaluator.evaluate(run)
        out[name, "num_q"] = len(qrels_dict)
        out[name, "num_rel"] = sum(int(v["num_rel"]) for v in every_query.values())
        for count in ("num_ret", "num_rel_ret"):
            out[name, count] = sum(int(v[count]) for q, v in values.items() if q in qrels_dict)
    return out


@pytest.mark.integration
@pytest.mark.parametrize("rel", [1, 2])
def test_five_doors_give_identical_values(dl_hard_runs, shared_data, rel):
    qrels, runs, dropped = dl_hard_runs
    names = list(runs)
    doors: dict[str, dict[tuple[str, str], float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the copy lacks judged queries: said once per door
        one_run = {}
        for name, path in runs.items():
            out = cli("eval", qrels, f"{name}={path}", *MEASURES, "-l", str(rel), "-p", "-1")
            for line in out.splitlines():
                measure, value = line.split("\t")
                one_run[name, measure] = float(value)
        doors["prefeval eval (one run)"] = one_run
        records = json.loads(cli("eval", qrels, *(f"{n}={p}" for n, p in runs.items()), "-m", *MEASURES,
                                 "-l", str(rel), "--format", "json"))
        doors["the table's json"] = {(r["run"], r["measure"]): r["mean"] for r in records}
        evaluated = prefeval.evaluate(qrels, runs, MEASURES, rel=rel)
        doors["prefeval.evaluate"] = {(r.run, r.given): r.value for r in evaluated.itertuples()}
        table = prefeval.table(qrels, runs, MEASURES, rel=rel)
        doors["prefeval.table"] = {(n, m): table.value(n, m) for n in names for m in MEASURES}
        context = Pipeline([Qrels(qrels), Runs(runs), Evaluate(MEASURES, rel=rel)]).run(progress=False)
        computed = {str(parse_measures([m], rel)[0]): m for m in MEASURES}
        doors["a pipeline"] = {(r.run, computed[r.measure]): r.value for r in context.means.itertuples()}
    expected = doors["prefeval.evaluate"]
    assert set(expected) == {(n, m) for n in names for m in MEASURES}
    for door, values in doors.items():
        assert values == expected, door  # identical, not approximately equal
    counts = reference_counts(qrels, runs, dropped, rel, shared_data)
    assert {(n, m): expected[n, m] for n in names for m in COUNTS} == counts
    assert expected["bm25-lacking", "num_q"] == expected["bm25", "num_q"] == 50
    assert expected["bm25-lacking", "num_ret"] == expected["bm25", "num_ret"] - 7000
    if rel == 2:  # trec_eval -l 2 -c's means of the full runs, as it prints them (4 places)
        folder = shared_data / "dl-hard" / "runs" / "passage"
        for name in ("bm25", "bm25+rm3"):
            lines = trec_eval_lines(folder / f"{name}.run.eval.gz")
            for measure, trec_name in (("AP", "map"), ("nDCG@10", "ndcg_cut_10"), ("P@10", "P_10")):
                assert f"{expected[name, measure]:.4f}" == lines[trec_name, "all"], (name, measure)
