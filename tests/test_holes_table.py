"""Judged@k beside every mean of the run x measure table, and verdicts that survive the holes (``robust=True``)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import prefeval
from conftest import write_frames
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
    assert "2 of 4 significant differences are robust" in " ".join(text.split()) and "†" in text
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
    qrels_path, paths = write_frames(tmp_path, qrels, runs)
    assert main(["eval", qrels_path, *paths, "-m", "RR", "--baseline", "A", "--robust",
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
    # one sentence, from the numbers: the table's note, the effectiveness note and the headline say the same
    from prefeval.report.run_table import robust_sentence

    assert context.settings["aggregate"]["robust_fill"] == list(table.robust_fill)
    assert table.robust_counts() == (robust, len(significant))
    sentence = robust_sentence(robust, len(significant), *table.robust_fill, against=f" with the baseline "
                               f"`{context.baseline}`")
    assert sentence in text and sentence in headline
    assert robust_sentence(robust, len(significant), *table.robust_fill) in " ".join(table.to_string().split())
    assert headline_blocks(plain) and "robust to the unjudged" not in " ".join(map(str, headline_blocks(plain)))


# -- the readings taken from one ranking equal their definitions, computed the plain way --------------------------


def _plain_ranking(run: pd.DataFrame, queries: list[str]) -> pd.DataFrame:
    """A run ranked by its definition: score descending, ties by doc id descending, a repeated document at its first
    position, only the qrels' queries; ``rank`` 1, 2, ... per query."""
    rows = run[run["query_id"].isin(queries)].sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    rows = rows.drop_duplicates(["query_id", "doc_id"], keep="first")
    return rows.assign(rank=rows.groupby("query_id").cumcount() + 1)[["query_id", "doc_id", "rank"]]


def _plain_readings(qrels: pd.DataFrame, runs: dict, rel: int, depth: int) -> tuple[dict, pd.DataFrame]:
    """(each run with its unjudged documents removed, the qrels with every unjudged document of a run's top ``depth``
    added at grade ``rel``), computed from the definitions."""
    judged = set(zip(qrels["query_id"], qrels["doc_id"]))
    condensed, added = {}, set()
    for name, run in runs.items():
        condensed[name] = run[[(q, d) in judged for q, d in zip(run["query_id"], run["doc_id"])]]
        ranked = _plain_ranking(run, sorted(set(qrels["query_id"])))
        top = ranked[ranked["rank"] <= depth]
        added |= {(q, d) for q, d in zip(top["query_id"], top["doc_id"]) if (q, d) not in judged}
    filled = pd.concat([qrels, pd.DataFrame(sorted(added), columns=["query_id", "doc_id"]).assign(relevance=rel)],
                       ignore_index=True)
    return condensed, filled


def _rows(run) -> list[tuple[str, str, int]]:
    """A run given as codes (:class:`prefeval.data.ranking.EncodedRun`) as (query, doc, rank) rows."""
    from prefeval.data.encoding import take_names

    queries = run.queries.to_numpy(dtype=object)[run.query_codes]
    docs = take_names(run.doc_names, run.doc_codes)
    out, last, rank = [], None, 0
    for q, d, _ in sorted(zip(queries, docs, run.scores), key=lambda r: (r[0], -r[2])):
        rank = rank + 1 if q == last else 1
        last = q
        out.append((q, d, rank))
    return out


def _random_collection(seed: int):
    """Small qrels (grades 0-2, some queries without a relevant document) and runs with tied scores, repeated
    documents, unjudged documents and queries the qrels lack."""
    import numpy as np

    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(14)]
    queries = [f"q{i}" for i in range(6)]
    qrels = pd.DataFrame([(q, d, int(rng.integers(0, 3))) for q in queries
                          for d in rng.choice(docs, 5, replace=False)], columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for name in ("r1", "r2", "r3"):
        rows = [(q, str(d), float(rng.integers(0, 4))) for q in [*queries[:-1], "extra"]
                for d in rng.choice(docs, 8, replace=True)]
        runs[name] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels, runs


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("depth", [3, 1000])
def test_readings_from_one_ranking_equal_their_definitions(seed, depth):
    import warnings

    from prefeval.engine import holes

    qrels, runs = _random_collection(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # repeated documents
        _, ranked, condensed, filled = holes.readings(qrels, runs, 2, depth)
    plain_condensed, plain_filled = _plain_readings(qrels, runs, 2, depth)
    for name, run in runs.items():
        plain = _plain_ranking(run, sorted(set(qrels["query_id"])))
        assert _rows(ranked[name]) == list(plain.itertuples(index=False, name=None))
        stripped = _plain_ranking(plain_condensed[name], sorted(set(qrels["query_id"])))
        assert _rows(condensed[name]) == list(stripped.itertuples(index=False, name=None))
    key = ["query_id", "doc_id", "relevance"]
    assert sorted(filled[key].itertuples(index=False, name=None)) == \
        sorted(plain_filled[key].itertuples(index=False, name=None))


@pytest.mark.parametrize("family", ["measure", "table"])
@pytest.mark.parametrize("seed", range(4))
def test_robust_verdicts_equal_the_three_tables_computed_plainly(seed, family):
    """Only the columns with a significant cell are tested again (every column with family='table'): the verdicts
    are those of the three whole tables."""
    import warnings

    import numpy as np

    qrels, runs = _collection() if seed == 0 else _random_collection(seed)
    if seed:  # more queries, so that some differences are significant
        rng = np.random.default_rng(seed)
        runs = {name: pd.concat([run.assign(query_id=run["query_id"] + f"_{k}",
                                            score=run["score"] + rng.integers(0, 2, len(run)))
                                 for k in range(6)], ignore_index=True) for name, run in runs.items()}
        qrels = pd.concat([qrels.assign(query_id=qrels["query_id"] + f"_{k}") for k in range(6)], ignore_index=True)
    baseline = next(iter(runs))
    measures = ["nDCG@10", "RR", "AP", "LexiRecall"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = prefeval.table(qrels, runs, measures, baseline=baseline, robust=True, depth=5, family=family)
        plain_condensed, plain_filled = _plain_readings(qrels, runs, 1, 5)
        others = [prefeval.table(qrels, plain_condensed, measures, baseline=baseline, depth=5, family=family),
                  prefeval.table(plain_filled, runs, measures, baseline=baseline, depth=5, family=family)]
    significant = 0
    for run in runs:
        for m in measures:
            record = table.record(run, m)
            if not record["significant"]:
                assert record["robust"] is None
                continue
            significant += 1
            assert record["robust"] == all(o.record(run, m)["significant"]
                                           and o.record(run, m)["direction"] == record["direction"] for o in others)
    assert significant or seed  # the issue's case has significant differences


@pytest.mark.integration  # a Dask cluster
def test_robust_on_dask_equals_in_process():
    """The readings as frames (other engines) give the verdicts of the readings as codes (in process)."""
    import warnings

    distributed = pytest.importorskip("distributed")
    from prefeval.data import simulate

    c = simulate.collection(n_queries=40, n_runs=4, depth=20, n_docs=40, judged_depth=6, seed=7)
    measures = ["nDCG@10", "RR", "LexiRecall"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        here = prefeval.table(c.qrels, c.runs, measures, baseline="sim01", robust=True)
        with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            there = prefeval.table(c.qrels, c.runs, measures, baseline="sim01", robust=True, engine="dask",
                                   client=client)
    assert here.robust_counts() == there.robust_counts() and here.robust_counts()[1] > 0
    for run in c.runs:
        for m in measures:
            assert here.record(run, m).get("robust") == there.record(run, m).get("robust"), (run, m)


def test_report_states_judged_at_k_in_the_overview_and_the_effectiveness_table(tmp_path):
    """report.md, report.html and report.tex: a Judged@k row in the overview and a Judged@k column beside the means
    (k: the deepest cutoff of the measures, here 20), with the check step's values."""
    import re
    import warnings

    from prefeval.pipeline import Evaluate, Pipeline, Report, Simulate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        context = Pipeline([Simulate(n_queries=8, n_runs=3, judged_depth=4), Evaluate(["nDCG@10", "P@20"]),
                            Report(tmp_path, formats=["md", "html", "tex"])]).run(progress=False)
    judged = {run["name"]: run["judged_at"]["20"] for run in context.check["runs"]}
    assert min(judged.values()) < 1
    overview = ", ".join(f"{run} {value:.3f}" for run, value in judged.items())
    md, tex = (tmp_path / "report.md").read_text(), (tmp_path / "report.tex").read_text()
    html = (tmp_path / "report.html").read_text()
    assert f"| Judged@20 | {overview} |" in md and f"Judged@20 & {overview} \\\\" in tex and overview in html
    assert re.search(r"^\| run \|.*\| nDCG@10 \| P@20 \| Judged@20 \|$", md, re.M)
    assert re.search(r"^run &.*& nDCG@10 & P@20 & Judged@20 \\\\$", tex, re.M)
    assert re.search(r">P@20</th>\s*<th[^>]*>Judged@20</th>", html)
    for run, value in judged.items():
        assert re.search(rf"^\| {re.escape(run)}[^\n]*\| {value:.3f} \|$", md, re.M), run
