"""Leave-one-run-out pool reusability (:mod:`prefeval.analysis.reusability`) on the sanity case of its definition: a run
that alone retrieved half of the relevant documents loses them, runs whose judged documents another run also
retrieved lose nothing; the command and the pipeline analysis give the same rows."""

from __future__ import annotations

import pandas as pd
import pytest

from prefeval.analysis.reusability import COLUMNS, leave_one_run_out
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
