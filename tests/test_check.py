"""``prefeval check`` (:func:`prefeval.engine.check.check`): each finding against its definition on small files,
Judged@k against ir-measures' ``Judged@k`` (through :func:`prefeval.evaluate`, which feeds it prefeval's ranking), and
bm25's Judged@10 on DL-Hard passage (0.496)."""

from __future__ import annotations

import json
import random

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import prefeval
from prefeval.commands.cli import main
from prefeval.engine.check import CUTOFFS, check

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 d 0\nq3 0 e 3\n"
RUN = ("q1 Q0 x 1 5 r\nq1 Q0 a 2 4 r\nq1 Q0 y 3 4 r\nq1 Q0 a 4 1 r\nq1 Q0 b 5 inf r\n"
       "q2 Q0 d 1 1 r\nq9 Q0 z 1 1 r\n")


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "r.run").write_text(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "r.run")


def test_every_finding_on_a_small_run(files):
    qrels, run = files
    result = check(qrels, {"r": run}, rel=2)
    q = result.qrels
    assert (q.queries, q.judgments, q.grades) == (3, 5, {0: 2, 1: 1, 2: 1, 3: 1})
    assert (q.no_relevant, q.no_relevant_examples) == (1, ["q2"])  # q2 has only grade 0
    r = result.runs[0]
    assert (r.judged_covered, r.judged_queries, r.run_only, r.run_only_examples) == (2, 3, 1, ["q9"])
    # q1: b (inf), x, a, y (a's repeat dropped): 4 documents; q2: 1; q9: 1
    assert (r.docs_min, r.docs_median, r.docs_max) == (1, 1.0, 4)
    assert (r.repeated, r.non_finite) == (1, 1)
    # q1 ranked b, x, y, a (a and y tie at 4: doc id descending); judged b, a: Judged@5 = 2/4, q2 1/1, q3 0
    assert r.judged_at[5] == pytest.approx((2 / 4 + 1 + 0) / 3)
    # ties: q1 has a and y at 4: one query; tied rows 2 of 7
    assert (r.tied_queries, r.run_queries, r.tied_share) == (1, 3, pytest.approx(2 / 7))
    text = "\n".join(result.warnings)
    for part in ("covers 2 of the 3", "1 queries the qrels do not judge", "'q9'", "1 repeated", "non-finite",
                 "no document at grade >= 2", "tied scores"):
        assert part in text


def test_qrels_read_beside_the_first_run_as_when_read_first(files, tmp_path, monkeypatch):
    """A qrels file is read on a thread of the call while the first run is read: the same findings as from qrels
    given read, an error in the qrels named before one in the runs (as when they are read first), and no thread
    left behind."""
    import threading

    from prefeval.data.trec import read_qrels
    from prefeval.engine import check as check_module
    from prefeval.errors import PrefevalError

    qrels, run = files
    coded_on, coded = [], check_module._coded
    monkeypatch.setattr(check_module, "_coded", lambda q: coded_on.append(threading.current_thread()) or coded(q))
    before = threading.active_count()
    assert check(qrels, {"r": run}, rel=2) == check(read_qrels(qrels), {"r": run}, rel=2)
    assert threading.active_count() == before
    # the file on a thread of its own, qrels given read on the caller's
    assert coded_on[0].name.startswith("prefeval-qrels") and coded_on[1] is threading.current_thread()
    bad_qrels, bad_run = tmp_path / "bad.qrels", tmp_path / "bad.run"
    bad_qrels.write_text(QRELS + "q4 0 f x\n")
    bad_run.write_text(RUN + "q1 Q0 z 8 oops r\n")
    for runs in ({"r": str(bad_run)}, {}, {"r": run}):
        with pytest.raises(PrefevalError, match=r"bad\.qrels, line 6"):
            check(str(bad_qrels), runs)
    with pytest.raises(PrefevalError, match=r"bad\.run, line 8"):
        check(qrels, {"r": str(bad_run)})
    assert threading.active_count() == before


def test_judged_below_half_is_warned_and_json_has_every_field(files, capsys, tmp_path):
    qrels, run = files
    (tmp_path / "unjudged.run").write_text("q1 Q0 x 1 1 u\nq1 Q0 a 2 0 u\nq1 Q0 y 3 0 u\nq3 Q0 e 1 1 u\n")
    assert main(["check", qrels, f"mine={tmp_path / 'unjudged.run'}", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"qrels", "runs", "warnings"}
    assert out["runs"][0]["name"] == "mine" and set(out["runs"][0]["judged_at"]) == {str(k) for k in CUTOFFS}
    assert any("Judged@10" in line and "< 0.5" in line for line in out["warnings"])
    assert main(["check", qrels, run]) == 0
    text = capsys.readouterr().out
    assert "Judged@10" in text and "warning(s):" in text


@st.composite
def collections(draw):
    rows, runs = [], {"a": [], "b": []}
    for q in range(draw(st.integers(1, 4))):
        for doc in draw(st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=5, unique=True)):
            rows.append((f"q{q}", doc, draw(st.integers(0, 2))))
        for name in runs:
            runs[name] += [(f"q{q}", d, float(draw(st.integers(0, 3))))
                           for d in draw(st.lists(st.sampled_from("abcdefghijkl"), max_size=30))]
    qrels = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
    return qrels, {n: pd.DataFrame(r, columns=["query_id", "doc_id", "score"]) for n, r in runs.items()}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_judged_at_k_is_ir_measures_judged(case):
    qrels, runs = case
    result = check(qrels, runs)
    means = prefeval.evaluate(qrels, runs, [f"Judged@{k}" for k in CUTOFFS]).set_index(["run", "measure"])["value"]
    for run in result.runs:
        for k in CUTOFFS:
            assert run.judged_at[k] == pytest.approx(means[run.name, f"Judged@{k}"], abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_documents_per_query_and_repeats_beyond_the_deepest_k(seed):
    """Runs deeper than the deepest k (ranked only to it): documents per query and repeated documents still count
    every row, as their definitions say, and Judged@k is evaluate's."""
    rng = random.Random(seed)
    rows = [(f"q{q}", f"d{rng.randrange(150)}", float(rng.randrange(40))) for q in range(4)
            for _ in range(rng.choice([1, 99, 101, 250]))]
    if seed % 2:
        rng.shuffle(rows)
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame([(f"q{q}", f"d{d}", rng.randrange(3)) for q in range(3) for d in range(0, 150, 2)],
                         columns=["query_id", "doc_id", "relevance"])
    (result,) = check(qrels, {"r": run}).runs
    distinct = run.drop_duplicates(["query_id", "doc_id"]).groupby("query_id").size()
    assert (result.docs_min, result.docs_median, result.docs_max) == (distinct.min(), distinct.median(), distinct.max())
    assert result.repeated == len(run) - distinct.sum()
    means = prefeval.evaluate(qrels, {"r": run}, [f"Judged@{k}" for k in CUTOFFS]).set_index("measure")["value"]
    assert result.judged_at == pytest.approx({k: means[f"Judged@{k}"] for k in CUTOFFS}, abs=1e-12)


def brute_ties(run: pd.DataFrame) -> tuple[int, float]:
    """The definition: a query counts when one of its 10 highest scores is the score of another of its rows; the share
    is of the rows whose score another row of the query has."""
    queries, tied_rows = 0, 0
    for _, rows in run.groupby("query_id"):
        counts = rows["score"].value_counts()
        top = sorted(rows["score"], reverse=True)[:10]
        queries += any(counts[s] > 1 for s in top)
        tied_rows += int(rows["score"].map(counts).gt(1).sum())
    return queries, tied_rows / len(run)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.integers(0, 60), max_size=40), min_size=1, max_size=4),
       st.sampled_from(["as given", "ranked", "grouped"]), st.randoms(use_true_random=False))
@example([[12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 2]], "ranked", random.Random(0))  # the tie just below the top 10
@example([[12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 3, 2]], "ranked", random.Random(0))  # the tie at the 10th score
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_tied_scores_as_defined(queries, order, rng):
    rows = [(f"q{q}", f"d{rng.randrange(30)}", float(s)) for q, scores in enumerate(queries) for s in scores]
    if not rows:
        return
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])  # grouped by query; a doc may repeat
    if order == "ranked":  # as in TREC files: scores descending within each query (the fast route)
        run = run.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")
    elif order == "as given":  # rows of all queries shuffled
        run = run.sample(frac=1, random_state=rng.randrange(1000))
    qrels = pd.DataFrame({"query_id": ["q0"], "doc_id": ["a"], "relevance": [1]})
    result = check(qrels, {"r": run.reset_index(drop=True)}).runs[0]
    tied_queries, share = brute_ties(run)
    assert (result.tied_queries, result.tied_share) == (tied_queries, pytest.approx(share, abs=1e-12))


@pytest.mark.integration
def test_dl_hard_bm25_judged_at_10(shared_data, capsys):
    d = shared_data / "dl-hard"
    runs = [str(p) for p in sorted((d / "runs" / "passage").glob("*.run.gz"))]
    assert main(["check", str(d / "dl_hard-passage.qrels"), *runs, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    found = {run["name"]: run["judged_at"]["10"] for run in out["runs"]}
    assert found["bm25"] == pytest.approx(0.496, abs=5e-4)
    qrels = ir_measures.read_trec_qrels(str(d / "dl_hard-passage.qrels"))
    agg = ir_measures.calc_aggregate([ir_measures.Judged @ 10], list(qrels), ir_measures.read_trec_run(runs[-1]))
    assert np.isclose(found["bm25"], agg[ir_measures.Judged @ 10], atol=1e-12)  # no tie decides bm25's top ten


def test_pipeline_check_step_runs_by_default():
    from prefeval.pipeline import Check, Evaluate, Pipeline, Simulate
    from prefeval.pipeline.document import build
    from prefeval.pipeline.summary import build_summary

    context = Pipeline([Simulate(n_queries=6, n_runs=3), Evaluate(["nDCG@10"])]).run(progress=False)
    assert [run["name"] for run in context.check["runs"]] == list(context.runs)
    assert build_summary(context, [])["check"]["runs"][0]["judged_at"]["10"] == context.check["runs"][0]["judged_at"]["10"]
    blocks = build(context)
    assert any(block.text == "Input checks" for block in blocks)
    assert context.check["judged_depth"] == 10  # the deepest cutoff of the measures, as the run x measure table
    means = next(block for block in blocks if block.label == "tab:means")
    assert means.header[-1] == "Judged@10" and len(means.rows[0]) == len(means.header)
    overview = next(block for block in blocks if block.label == "tab:overview")
    assert any(row[0] == "Judged@10" for row in overview.rows)
    off = Pipeline([Simulate(n_queries=6, n_runs=3), Evaluate(["nDCG@10"]), Check(enabled=False)]).run(progress=False)
    assert off.check is None and not any(block.text == "Input checks" for block in build(off))


def test_pipeline_input_checks_are_prefeval_checks_table():
    """The report's "Input checks" table is the one rendering of the check (report.check.runs_grid), with the
    numbers prefeval check finds on the same inputs."""
    from prefeval.pipeline import Evaluate, Pipeline, Simulate
    from prefeval.pipeline.document import build
    from prefeval.report.check import check_text, runs_grid
    from prefeval.report.tables import plain

    context = Pipeline([Simulate(n_queries=6, n_runs=3), Evaluate(["nDCG@10", "R@100"])]).run(progress=False)
    blocks = build(context)
    table = next(block for block in blocks if block.label == "tab:checks")
    result = check(context.collection(), context.runs, rel=context.rel, depth=100)
    grid = runs_grid(result)
    assert table.header == grid.header and table.rows == [[cell.text for cell in row] for row in grid.rows]
    assert [f"Judged@{k}" for k in (5, 10, 20, 100)] == [h for h in table.header if h.startswith("Judged@")]
    assert table.align == "l" + "r" * (len(grid.header) - 1)
    assert plain(grid) in check_text(result)
    note = blocks[blocks.index(table) - 1].text
    assert note.startswith(grid.note) and "prefeval check" in note
