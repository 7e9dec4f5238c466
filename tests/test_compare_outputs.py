"""``prefeval compare`` writes its csv and json reports from the result's arrays (no pandas): the same rows and
values as ``Comparison.to_frame``, ``ranking`` and ``per_query`` -- csv as pandas' ``to_csv`` text, json with exact
floats and ``null`` for NaN."""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval.commands.cli import main as cli_main
from prefeval.data.simulate import collection
from prefeval.data.trec_writer import write_qrels, write_run

METHODS = ["LexiRecall", "RPP(graded=False)", "nDCG@10"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A simulated collection as TREC files, with a copy of one run (identical runs tie on every query) and a run
    name that csv must quote."""
    folder = tmp_path_factory.mktemp("outputs")
    sim = collection(n_queries=6, n_runs=3, depth=20, seed=3, score_decimals=1)
    write_qrels(sim.qrels, folder / "qrels.txt")
    paths = []
    for k, name in enumerate(sim.runs):
        paths.append(folder / (f"run,{k}.run" if k == 1 else f"{name}.run"))
        write_run(sim.runs[name], paths[-1])
    paths.append(folder / "copy.run")
    write_run(sim.runs[next(iter(sim.runs))], paths[-1])
    return folder / "qrels.txt", paths


@pytest.fixture(scope="module")
def result(files):
    qrels, paths = files
    return prefeval.compare(str(qrels), [str(p) for p in paths], METHODS, per_query=True)


def command(files, *args):
    qrels, paths = files
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["compare", str(qrels), *map(str, paths), "-m", *METHODS, "-q", *args]) == 0
    return out.getvalue()


def records(frame: pd.DataFrame) -> list[dict]:
    """The frame's rows as Python values, NaN as None (what json.loads gives for null)."""
    rows = frame.astype(object).to_dict(orient="records")
    return [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()} for row in rows]


def ranking_frame(result, aggregate, **options) -> pd.DataFrame:
    return pd.concat([result.ranking(m, aggregate=aggregate, **options).assign(method=m) for m in result.methods],
                     ignore_index=True)


@pytest.mark.parametrize("test", ["sign", "t", "wilcoxon"])
def test_report_rows_are_the_rows_of_to_frame(result, test):
    frame = result.to_frame(test=test)
    header, rows = result.report_rows(test=test)
    assert header == list(frame.columns)
    expected = records(frame)
    got = [dict(zip(header, row)) for row in rows]
    assert len(got) == len(expected) == 3 * 6
    for a, b in zip(got, expected):
        assert a.keys() == b.keys()
        for key in a:
            if b[key] is None:
                assert math.isnan(a[key])
            else:
                assert a[key] == b[key] and type(a[key]) is type(b[key]), key


@pytest.mark.parametrize(("aggregate", "options"), [("mc4", {}), ("mc4", {"iterations": 10}), ("borda", {}),
                                                    ("copeland", {}), ("win_rate", {}), ("mean", {})])
def test_ranking_rows_are_the_rows_of_ranking(result, aggregate, options):
    for method in result.methods:
        frame = result.ranking(method, aggregate=aggregate, **options)
        header, rows = result.ranking_rows(method, aggregate=aggregate, **options)
        assert header == list(frame.columns)
        assert [dict(zip(header, row)) for row in rows] == records(frame)


@pytest.mark.parametrize("test", ["sign", "t"])
def test_csv_summary_is_pandas_text(files, result, test):
    assert command(files, "--format", "csv", "--test", test) == result.to_frame(test=test).to_csv(index=False)


def _part(text: str, table: str, columns: list[str]) -> str:
    """The rows of one ``table`` (summary or ranking) of a csv with rankings, in ``columns``, as csv text."""
    import csv

    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert header[0] == "table"
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([[row[header.index(c)] for c in columns] for row in rows[1:] if row[0] == table])
    return out.getvalue()


@pytest.mark.parametrize("aggregate", ["mc4", "borda"])
def test_csv_rankings_are_pandas_text(files, result, aggregate):
    """With --aggregate the csv carries what the table does: the summary with its tests and the rankings, told apart
    by the column ``table``; each part is pandas' text of its frame."""
    frame = ranking_frame(result, aggregate)
    ranking = frame[["method", *[c for c in frame.columns if c != "method"]]]
    text = command(files, "--format", "csv", "--aggregate", aggregate)
    summary = result.to_frame()
    assert _part(text, "summary", list(summary.columns)) == summary.to_csv(index=False)
    assert _part(text, "ranking", list(ranking.columns)) == ranking.to_csv(index=False)


def test_json_summary_is_exact(files, result):
    text = command(files, "--format", "json", "--test", "t")
    assert text.startswith("[\n{") and text.endswith("}\n]\n")
    assert json.loads(text) == records(result.to_frame(test="t"))


def test_json_rankings_and_per_query_are_exact(files, result):
    frame = ranking_frame(result, "borda")
    got = json.loads(command(files, "--format", "json", "--aggregate", "borda"))
    rankings = [{k: v for k, v in r.items() if k in frame.columns} for r in got if r["table"] == "ranking"]
    assert rankings == records(frame[["method", "rank", "run", "score"]])
    summary = result.to_frame()
    assert [{k: v for k, v in r.items() if k in summary.columns} for r in got if r["table"] == "summary"] == records(
        summary)
    lines = command(files, "--format", "jsonl", "--aggregate", "borda").splitlines()
    assert [json.loads(line) for line in lines] == got  # JSON Lines: the same records, one per line
    got = json.loads(command(files, "--format", "json", "--per-query"))
    expected = records(result.per_query)
    assert len(got) == len(expected) == 3 * 6 * 6
    assert got == expected
    assert all(np.float64(r["value"]) == r["value"] for r in got)


def test_nan_is_empty_in_csv_and_null_in_json():
    from prefeval.commands.compare_cmd import _write_rows

    header, rows = ["name", "value", "flag"], [("a,b", float("nan"), True), ("c", -0.0, False), ("d", 1e-17, True)]
    frame = pd.DataFrame(rows, columns=header)
    for fmt, expected in (("csv", frame.to_csv(index=False)),
                          ("json", '[\n{"name": "a,b", "value": null, "flag": true},\n'
                                   '{"name": "c", "value": -0.0, "flag": false},\n'
                                   '{"name": "d", "value": 1e-17, "flag": true}\n]\n')):
        out = io.StringIO()
        _write_rows(header, rows, fmt, out)
        assert out.getvalue() == expected
    out = io.StringIO()
    _write_rows(header, [], "json", out)
    assert out.getvalue() == "[]\n" and json.loads(out.getvalue()) == []
