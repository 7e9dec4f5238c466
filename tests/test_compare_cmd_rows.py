"""``prefeval compare --per-query`` writes csv, Markdown and LaTeX from the result's arrays; the text is the one
the ``Comparison.per_query`` frame gives (pandas' ``to_csv``; the frame writer of the command)."""

from __future__ import annotations

import io
import warnings

import pytest

import prefeval
from conftest import write_trec_files
from prefeval.commands import compare_cmd
from prefeval.commands.cli import main


@pytest.fixture
def files(tmp_path):
    return write_trec_files(tmp_path, "0012 0 d1 2\n0012 0 d2 1\n12 0 d3 1\n12 0 d4 0\nq3 0 d5 0\n",
                            {"a,b": "d1 d2 d3 d4 d5", 'q"x': "d3 d2 d1 d5 d4", "plain": "d2 d1 d4 d3 d5"},
                            ("0012", "12"), score=lambda i: (10 - i) / 3)


@pytest.mark.parametrize("fmt", ["csv", "table", "latex"])
def test_per_query_rows_match_the_frame(files, fmt, capsys):
    qrels, runs = files
    methods = ["LexiRecall", "LexiPrecision", "RPP", "nDCG@3"]
    assert main(["compare", qrels, *runs, "-m", *methods, "--per-query", "--format", fmt, "-q"]) == 0
    got = capsys.readouterr().out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = prefeval.compare(qrels, runs, methods).per_query
    expected = io.StringIO()
    if fmt == "csv":
        frame.to_csv(expected, index=False)
    else:
        compare_cmd._write_rows(list(frame.columns), frame.itertuples(index=False), fmt, expected)
    assert got == expected.getvalue()
    assert len(got.splitlines()) > 3 * 3 * 3


def test_per_query_csv_writes_nan_empty_and_quotes_text_as_pandas():
    """NaN values, -0.0, infinities and text needing quotes in methods, queries and runs: the csv writer's text
    equals pandas' ``to_csv`` of the same rows."""
    import numpy as np
    import pandas as pd

    class Values:  # a method's per-query values: (pairs, queries) for the pairs asked for
        query_ids = np.array(["q,1", '"q2"'], dtype=object)

        def pair_values(self, pairs):
            table = np.array([[np.nan, -0.0], [0.1 + 0.2, np.inf], [-1.0, 1 / 3]])
            return table[: len(pairs[0])]

    class Result:
        runs = ["a", "b,c", 'd"e']
        results = {"RPP(weighting=dcg,graded=False)": Values(), "LexiRecall": Values()}
        pair_indices = np.triu_indices(3, 1)

    got = io.StringIO()
    compare_cmd._write_per_query_csv(Result(), got)
    rows = list(compare_cmd._per_query_rows(Result()))
    expected = pd.DataFrame(rows, columns=list(compare_cmd.PER_QUERY_COLUMNS)).to_csv(index=False)
    assert got.getvalue() == expected
    assert ',"b,c",' in expected and "\n" + '"RPP(weighting=dcg,graded=False)","q,1",a,"b,c",\n' in "\n" + expected
