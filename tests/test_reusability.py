"""Leave-one-run-out pool reusability (:mod:`prefeval.analysis.reusability`) on the sanity case of its definition: a run
that alone retrieved half of the relevant documents loses them, runs whose judged documents another run also
retrieved lose nothing; the command and the pipeline analysis give the same rows. The rows equal, to the last bit,
those of the definition computed the straightforward way (every run evaluated again on each run's reduced qrels),
on made-up collections and on DL-Hard."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.analysis.reusability import COLUMNS, condensed_variant, leave_one_run_out, pool_tops
from prefeval.analysis.suite import analyse
from prefeval.commands.cli import main
from prefeval.errors import PrefevalError

QUERIES = ["q1", "q2", "q3"]
# per query: u is relevant and only X retrieves it; s is relevant and everyone retrieves it; n is judged non-relevant
QRELS = pd.DataFrame([(q, d, g) for q in QUERIES for d, g in (("u", 1), ("s", 1), ("n", 0))],
                     columns=["query_id", "doc_id", "relevance"])
ORDERS = {"X": ["u", "s", "x1"], "Y": ["n", "s", "y1"], "Z": ["s", "n", "z1"]}
RUNS = {name: pd.DataFrame([(q, d, float(10 - i)) for q in QUERIES for i, d in enumerate(order)],
                           columns=["query_id", "doc_id", "score"]) for name, order in ORDERS.items()}


def test_ap_at_depth_10_sanity_case():
    rows = leave_one_run_out(QRELS, RUNS, ["AP"], depth=10).set_index(["run", "measure"])
    assert list(rows.reset_index().columns) == COLUMNS
    # X: u at 1, s at 2: AP = 1; without u's judgment only s counts, at rank 2: AP = 1/2
    assert rows.loc[("X", "AP"), "value"] == pytest.approx(1.0)
    assert rows.loc[("X", "AP"), "value_left_out"] == pytest.approx(0.5)
    assert rows.loc[("X", "AP"), "delta"] == pytest.approx(-0.5)
    assert (rows.loc[("X", "AP"), "rank"], rows.loc[("X", "AP"), "rank_left_out"]) == (1, 2)
    for run in ("Y", "Z"):  # every document they retrieved that is judged, another run retrieved too
        assert rows.loc[(run, "AP"), "delta"] == 0
    # the condensed-list variant: u, unjudged once X is left out, leaves X's list and s moves up to rank 1, where
    # the condensed AP over the one remaining relevant document is 1 again
    assert rows.loc[("X", "AP(judged_only=True)"), "value"] == pytest.approx(1.0)
    assert rows.loc[("X", "AP(judged_only=True)"), "delta"] == 0
    assert rows.loc[("Y", "AP(judged_only=True)"), "delta"] == 0


def test_pool_depth_limits_what_the_other_runs_keep_judged():
    # at depth 1 the runs are X: [u], Y: [n], Z: [s]; the pool without Z is {u, n}: s is no longer judged
    rows = leave_one_run_out(QRELS, RUNS, ["AP"], depth=1).set_index(["run", "measure"])
    assert rows.loc[("X", "AP"), "value"] == pytest.approx(0.5)  # u found, 1 of the 2 relevant documents
    assert rows.loc[("X", "AP"), "value_left_out"] == 0  # u judged by no other run
    assert rows.loc[("Z", "AP"), "value"] == pytest.approx(0.5)
    assert rows.loc[("Z", "AP"), "value_left_out"] == 0  # s judged by no other run at depth 1
    assert rows.loc[("Y", "AP"), "delta"] == 0


def test_preferences_and_their_condensed_variants_have_rows():
    rows = leave_one_run_out(QRELS, RUNS, ["LexiRecall", "RPP"], depth=10)
    assert set(rows["measure"]) == {"LexiRecall", "RPP", "LexiRecall(judged_only=True)", "RPP(judged_only=True)"}
    assert rows.loc[(rows["run"] == "X") & (rows["measure"] == "LexiRecall"), "delta"].item() < 0


def test_errors_and_the_command(tmp_path, capsys):
    with pytest.raises(PrefevalError, match="pool depth"):
        leave_one_run_out(QRELS, RUNS, ["AP"], depth=0)
    with pytest.raises(PrefevalError, match="needs the pool depth"):
        analyse(QRELS, RUNS, ["LexiRecall"], ["AP"], analyses=["reusability"])
    out = analyse(QRELS, RUNS, ["LexiRecall"], ["AP"], analyses=["reusability"], depth=10)
    assert set(out) == {"reusability"}
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS.itertuples(index=False)))
    paths = []
    for name, frame in RUNS.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, d, s in frame.itertuples(index=False)))
        paths.append(str(path))
    assert main(["analyse", str(tmp_path / "q.qrels"), *paths, "-m", "LexiRecall", "--metrics", "AP",
                 "--analyses", "reusability", "--depth", "10", "--format", "csv"]) == 0
    text = capsys.readouterr().out
    assert "value_left_out" in text and "-0.5" in text


def one_evaluation_per_run(qrels, runs, measures, depth, rel=1) -> pd.DataFrame:
    """The definition computed the straightforward way: for each run X, the qrels kept only for the (query, document)
    pairs some other run retrieved in its top ``depth`` (the union of the other runs' sets), and every run evaluated
    again on them."""
    from prefeval.data.collection import Collection
    from prefeval.data.inputs import runs_dict
    from prefeval.engine.evaluate import evaluate, parse_measures

    collection = Collection.of(qrels)
    judgments = collection.frame
    tops = pool_tops(collection, runs_dict(runs), depth)
    plain = parse_measures(list(measures), rel)
    every = plain + [c for m in plain if (c := condensed_variant(m)) is not None]

    def means(frame):
        return frame.pivot(index="run", columns="measure", values="value").reindex(list(tops))

    full = means(evaluate(judgments, tops, every))
    pairs = list(zip(judgments["query_id"].astype(str), judgments["doc_id"].astype(str)))
    records = []
    for name in tops:
        pool = set()
        for other, top in tops.items():
            if other != name:
                pool |= set(zip(top["query_id"], top["doc_id"]))
        kept = judgments[[pair in pool for pair in pairs]].reset_index(drop=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            left = means(evaluate(kept, tops, every)) if len(kept) else pd.DataFrame(0.0, full.index, full.columns)
        for k, measure in enumerate(every):
            label = str(measure)
            before, after = full[label], left[label]
            records.append({"run": name, "measure": label, "condensed": k >= len(plain),
                            "value": float(before[name]), "value_left_out": float(after[name]),
                            "delta": float(after[name] - before[name]),
                            "rank": int(before.rank(ascending=False, method="min")[name]),
                            "rank_left_out": int(after.rank(ascending=False, method="min")[name])})
    return pd.DataFrame.from_records(records, columns=COLUMNS)


def test_rows_equal_the_straightforward_definition_on_the_sanity_case():
    for depth in (1, 2, 10):
        pd.testing.assert_frame_equal(leave_one_run_out(QRELS, RUNS, ["AP", "nDCG@10", "LexiRecall", "RPP"], depth),
                                      one_evaluation_per_run(QRELS, RUNS, ["AP", "nDCG@10", "LexiRecall", "RPP"],
                                                             depth), check_exact=True)


@st.composite
def collections(draw):
    """A few queries; qrels over a small pool of documents (grades 0-2, some judged documents no run retrieves, a
    query without a relevant document); 2-4 runs, each retrieving some of the documents, in any order, with ties."""
    n_queries, n_docs = draw(st.integers(1, 4)), draw(st.integers(2, 8))
    docs = [f"d{k}" for k in range(n_docs)]
    judgments = []
    for q in range(n_queries):
        for doc in docs:
            grade = draw(st.sampled_from([None, None, 0, 1, 2]))
            if grade is not None:
                judgments.append((f"q{q}", doc, grade))
    if not judgments:
        judgments.append(("q0", "d0", 1))
    qrels = pd.DataFrame(judgments, columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for r in range(draw(st.integers(2, 4))):
        rows = []
        for q in range(n_queries):
            picked = draw(st.lists(st.sampled_from(docs + ["x1", "x2"]), max_size=n_docs, unique=True))
            rows += [(f"q{q}", doc, float(draw(st.integers(0, 3)))) for doc in picked]
        if not rows:
            rows.append(("q0", "x1", 1.0))
        runs[f"r{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels, runs


@settings(max_examples=30, deadline=None)
@given(collections(), st.integers(1, 4), st.sampled_from([["AP", "nDCG@3", "LexiRecall"], ["RR", "P@2", "RPP"],
                                                          ["LexiPrecision", "Rprec"], ["RPP(rel=2)", "AP(rel=2)"]]))
def test_rows_equal_the_straightforward_definition(collection, depth, measures):
    qrels, runs = collection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = one_evaluation_per_run(qrels, runs, measures, depth)
        except PrefevalError as exc:
            with pytest.raises(PrefevalError) as raised:
                leave_one_run_out(qrels, runs, measures, depth)
            assert str(raised.value) == str(exc)
            return
        pd.testing.assert_frame_equal(leave_one_run_out(qrels, runs, measures, depth), expected, check_exact=True)


@pytest.mark.parametrize("kind, runs_kept", [("passage", None), ("doc", 6)])
def test_rows_equal_the_straightforward_definition_on_dl_hard(shared_data, kind, runs_kept):
    folder = shared_data / "dl-hard"
    runs = sorted((folder / "runs" / kind).glob("*.run.gz"))[:runs_kept]
    qrels = folder / f"dl_hard-{kind}.qrels"
    measures = ["AP", "nDCG@10", "RR", "LexiRecall", "LexiPrecision", "RPP"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = leave_one_run_out(qrels, runs, measures, depth=10, rel=2)
        pd.testing.assert_frame_equal(rows, one_evaluation_per_run(qrels, runs, measures, depth=10, rel=2),
                                      check_exact=True)
    assert (rows["delta"] != 0).any() and np.isfinite(rows["value"]).all()  # the case is not vacuous


@pytest.mark.parametrize("measures", [["AP(rel=2)", "nDCG@10"], ["LexiRecall(rel=2)", "AP"]])
def test_a_run_whose_reduced_qrels_keep_no_relevant_document(measures):
    # u (grade 2) is retrieved by X alone: without X no judgment is relevant at rel 2; a metric is then 0, a
    # preference at rel 2 refuses to compare (as it does on such qrels given directly)
    qrels = QRELS.assign(relevance=QRELS["relevance"].where(QRELS["doc_id"] != "u", 2))
    try:
        expected = one_evaluation_per_run(qrels, RUNS, measures, 10)
    except PrefevalError as exc:
        assert "no query has a relevant document (grade >= 2)" in str(exc)
        with pytest.raises(PrefevalError) as raised:
            leave_one_run_out(qrels, RUNS, measures, 10)
        assert str(raised.value) == str(exc)
        return
    rows = leave_one_run_out(qrels, RUNS, measures, 10)
    pd.testing.assert_frame_equal(rows, expected, check_exact=True)
    assert rows.set_index(["run", "measure"]).loc[("X", "AP(rel=2)"), "value_left_out"] == 0
