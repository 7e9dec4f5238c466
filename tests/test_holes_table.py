"""Judged@k beside every mean of the run x measure table, and verdicts that survive the holes (``robust=True``)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import prefeval
from prefeval.commands.cli import main

QUERIES = [f"q{i:02d}" for i in range(30)]


def _collection():
    """30 queries, one relevant document r each and judged non-relevant n1..n3. A ranks r first; B ranks k
    unjudged documents above it (k = 1, 2, 3 in turn), C ranks k judged non-relevant documents there."""
    qrels = pd.DataFrame([(q, d, 1 if d == "r" else 0) for q in QUERIES for d in ("r", "n1", "n2", "n3")],
                         columns=["query_id", "doc_id", "relevance"])
    orders = {"A": lambda k: ["r", "n1", "n2", "n3"],
              "B": lambda k: [f"u{j}" for j in range(1, k + 1)] + ["r"],
              "C": lambda k: [f"n{j}" for j in range(1, k + 1)] + ["r"]}
    runs = {name: pd.DataFrame([(q, d, float(10 - i)) for n, q in enumerate(QUERIES)
                                for i, d in enumerate(order(1 + n % 3))], columns=["query_id", "doc_id", "score"])
            for name, order in orders.items()}
    return qrels, runs


def test_robust_case_of_the_issue():
    qrels, runs = _collection()
    table = prefeval.table(qrels, runs, ["nDCG@10", "RR"], baseline="A", robust=True)
    for measure in ("nDCG@10", "RR"):
        b, c = table.record("B", measure), table.record("C", measure)
        assert b["significant"] and b["direction"] == -1 and b["robust"] is False, measure
        assert c["significant"] and c["direction"] == -1 and c["robust"] is True, measure
        assert table.record("A", measure)["robust"] is None
    assert table.robust_counts() == (2, 4)
    assert "robust" in table.columns
    text = table.to_string()
    assert "2 of 4 significant differences robust" in " ".join(text.split()) and "†" in text
    assert "$^\\dagger$" in table.to_latex() and "†" in table.to_markdown() and "†" in table.to_html()
    rows = json.loads(table.to_text("json"))
    assert {(r["run"], r["measure"]): r["robust"] for r in rows}[("B", "RR")] is False


def test_robust_without_a_baseline_keeps_the_pairs_of_all_readings():
    qrels, runs = _collection()
    table = prefeval.table(qrels, runs, ["RR"], robust=True)
    a = table.record("A", "RR")
    assert set(a["better_than"]) == {"B", "C"} and a["robust"] is False  # A over B does not survive condensing
    assert table.robust_counts() == (1, 2)  # A over C survives, A over B does not (C over B: not significant)


def test_judged_at_k_beside_every_mean():
    qrels, runs = _collection()
    table = prefeval.table(qrels, runs, ["nDCG@10", "RR"], baseline="A")
    judged = prefeval.evaluate(qrels, runs, ["Judged@10"]).set_index("run")["value"]
    assert table.judged_field == "Judged@10"
    for run in runs:
        assert table.judged[run] == pytest.approx(judged[run], abs=1e-12)
        assert table.record(run, "RR")["Judged@10"] == table.judged[run]
    assert table.judged["A"] == 1 and table.judged["B"] < 1
    note = table.note()
    assert "Judged@10" in note and f"B {table.judged['B']:.3f}" in note and "A 1.000" not in note
    for fmt in ("csv", "json", "jsonl"):
        assert "Judged@10" in table.to_text(fmt)
    for text in (table.to_string(), table.to_markdown(), table.to_latex(), table.to_html()):
        assert "Judged@10" in text
    # k: the deepest cutoff of the measures
    deeper = prefeval.table(qrels, runs, ["nDCG@5", "P@20", "RR"])
    assert deeper.judged_field == "Judged@20"
    assert deeper.judged["B"] == pytest.approx(
        prefeval.evaluate(qrels, runs, ["Judged@20"]).set_index("run")["value"]["B"], abs=1e-12)


def test_command_robust_flag(tmp_path, capsys):
    qrels, runs = _collection()
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False)))
    paths = []
    for name, frame in runs.items():
        (tmp_path / f"{name}.run").write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n"
                                                      for q, d, s in frame.itertuples(index=False)))
        paths.append(str(tmp_path / f"{name}.run"))
    assert main(["eval", str(tmp_path / "q.qrels"), *paths, "-m", "RR", "--baseline", "A", "--robust",
                 "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith(",robust") and "B,RR" in out


@pytest.mark.integration
def test_dl_hard_table_states_bm25_judged_at_10(shared_data):
    d = shared_data / "dl-hard"
    runs = [str(d / "runs" / "passage" / f"{name}.run.gz") for name in ("bm25", "bm25+t5_zs_")]
    table = prefeval.table(str(d / "dl_hard-passage.qrels"), runs, ["nDCG@10", "RR"], rel=2)
    assert table.judged["bm25"] == pytest.approx(0.496, abs=5e-4)
    assert "bm25 0.496" in table.to_string()


def test_pipeline_aggregate_robust():
    from prefeval.pipeline import Aggregate, Evaluate, Pipeline, Simulate
    from prefeval.pipeline.document import build

    steps = [Simulate(n_queries=20, n_runs=3, judged_depth=5), Evaluate(["nDCG@10", "RR"])]
    plain = Pipeline([*steps, Aggregate()]).run(progress=False)
    assert "robust" not in plain.versus_baseline.columns
    context = Pipeline([*steps, Aggregate(robust=True)]).run(progress=False)
    vs = context.versus_baseline
    table = prefeval.table(context.qrels, context.runs, ["nDCG@10", "RR"], baseline=context.baseline, robust=True)
    for row in vs.itertuples():
        assert row.robust == table.record(row.run, row.method).get("robust"), (row.run, row.method)
    text = " ".join(block.text for block in build(context))
    assert "robust to the unjudged documents" in text
    from prefeval.pipeline.findings import headline_blocks

    significant = vs[vs["robust"].notna() & (vs["baseline"] == context.baseline)]
    robust = int((significant["robust"] == True).sum())  # noqa: E712
    headline = " ".join(str(block) for block in headline_blocks(context))
    assert f"{robust} of {len(significant)} significant difference" in headline, headline
    assert headline_blocks(plain) and "robust to the unjudged" not in " ".join(map(str, headline_blocks(plain)))
