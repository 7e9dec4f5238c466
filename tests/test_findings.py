"""The report's headline, disagreements and tied ranks, recounted from the pipeline's own csv files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from prefeval.core.stats import TIE_TOL
from prefeval.pipeline import Aggregate, Compare, Evaluate, Pipeline, Report, Simulate

SMALL = {"n_queries": 30, "n_runs": 4, "n_docs": 60, "depth": 30}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("findings") / "demo"
    context = Pipeline([Simulate(**SMALL), Evaluate(["nDCG@10", "AP"]), Compare(["LexiRecall", "RPP"]),
                        Aggregate(), Report(out, formats=["md", "html", "csv", "json"])]).run(progress=False)
    return context, out


def test_headline_opens_the_report_and_names_the_best_run(demo):
    context, out = demo
    md = (out / "report.md").read_text(encoding="utf-8")
    assert md.index("## Headline") < md.index("## Overview")
    means = context.means_table()["nDCG@10"]
    best = means.idxmax()
    headline = md[md.index("## Headline"):md.index("## Overview")]
    first = next(line for line in headline.splitlines() if line.startswith("- "))
    assert first.startswith(f"- **nDCG@10**: best run `{best}`")
    assert "comparisons of" in first and "Holm correction" in first  # the family is named
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.index('id="headline"') < html.index('id="overview"')
    assert html.count('id="disagreement"') == 1


def test_first_disagreement_is_recounted_from_the_csv_files(demo):
    _, out = demo
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    first = summary["disagreements"][0]
    per_query = pd.read_csv(out / "per_query.csv", dtype={"query_id": str})
    prefs = pd.read_csv(out / "preferences.csv", dtype={"query_id": str})
    p = prefs[(prefs["method"] == first["method"]) & (prefs["run_a"] == first["run_a"])
              & (prefs["run_b"] == first["run_b"])].set_index("query_id")["value"]
    m = per_query[per_query["measure"] == first["metric"]].pivot(index="query_id", columns="run", values="value")
    diff = (m[first["run_a"]] - m[first["run_b"]]).reindex(p.index)
    expected = [q for q in p.index if (p[q] > TIE_TOL and diff[q] < -TIE_TOL) or (p[q] < -TIE_TOL and diff[q] > TIE_TOL)]
    assert sorted(first["queries"]) == sorted(expected)
    assert len(summary["disagreements"]) == 2 * 2 * 6  # methods x metrics x pairs of 4 runs


def test_versus_baseline_carries_effect_sizes_and_intervals(demo):
    context, out = demo
    vs = pd.read_csv(out / "versus_baseline.csv")
    assert {"baseline", "effect_size", "ci_low", "ci_high", "family_size"} <= set(vs.columns)
    from prefeval.pipeline.aggregate_step import metric_table

    table = metric_table(context.per_query, "AP", list(context.runs))
    row = vs[(vs["method"] == "AP")].iloc[0]
    d = table[row["run"]].to_numpy() - table[row["baseline"]].to_numpy()
    assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))
    from scipy import stats as sps

    low, high = sps.t.interval(0.95, len(d) - 1, d.mean(), sps.sem(d))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))


def test_tied_rankings_share_a_rank():
    from prefeval.core.aggregate import shared_ranks

    assert shared_ranks(np.array([0.5, 0.9, 0.5, 0.1])).tolist() == [2, 1, 2, 4]
    assert shared_ranks(-np.array([1, 2, 3, 3, 4.0]), np.array([1, 1, 0.5, 0.5, 1])).tolist() == [1, 2, 3, 3, 5]
    frame = pd.DataFrame({"run": list("abcd"), "score": [0.3, 0.3, 0.2, 0.2 + 1e-13]})
    from prefeval.pipeline.aggregate_step import ranking_frame

    assert ranking_frame(frame)["rank"].tolist() == [1, 1, 3, 3]


def test_pipeline_with_two_baselines(tmp_path):
    from prefeval.pipeline import Aggregate, Compare, Evaluate, Pipeline, Simulate

    context = Pipeline([Simulate(**SMALL), Evaluate(["AP"]), Compare(["RPP"]),
                        Aggregate(baseline=["sim02", "sim01"])]).run(progress=False)
    vs = context.versus_baseline
    assert context.baseline == "sim02"
    assert sorted(set(vs["baseline"])) == ["sim01", "sim02"]
    for baseline, rows in vs.groupby("baseline"):
        assert set(rows["run"]) == set(context.runs) - {baseline}
        assert (rows["family_size"] <= len(context.runs) - 1).all()


def test_too_many_disagreements_are_said_to_be_left_out(demo, monkeypatch):
    from prefeval.pipeline import findings

    context, _ = demo
    monkeypatch.setattr(findings, "MAX_DISAGREEMENT_CELLS", 10)
    monkeypatch.setattr(context, "disagreements", None)
    assert findings.disagreements(context) == []
    blocks = findings.disagreement_blocks(context, [])
    assert "Not listed" in blocks[1]["text"] and f"{findings.disagreement_cells(context):,}" in blocks[1]["text"]


def test_one_query_pipeline_finds_nothing(tmp_path):
    """With one query every test is undefined: nothing significant anywhere, and the report says why."""
    from prefeval.pipeline import Qrels, Runs

    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\n")
    runs = []
    for name, order in {"a": "d1 d2 d3", "b": "d3 d1 d2", "c": "d2 d3 d1"}.items():
        (tmp_path / name).write_text("".join(f"q1 Q0 {d} {k} {9 - k} {name}\n" for k, d in enumerate(order.split())))
        runs.append(str(tmp_path / name))
    out = tmp_path / "out"
    context = Pipeline([Qrels(str(tmp_path / "qrels")), Runs(runs), Evaluate(["AP", "nDCG@10"]),
                        Compare(["RPP"]), Aggregate(), Report(out, formats=["md", "csv", "json"])]).run(progress=False)
    vs = context.versus_baseline
    assert not vs["significant"].any() and vs["p_value"].isna().all() and (vs["family_size"] == 0).all()
    assert not any(sig["significant"].any() for sig in context.significance.values())
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "Undefined tests" in md and "undefined" in md[md.index("## Headline"):md.index("## Overview")]
