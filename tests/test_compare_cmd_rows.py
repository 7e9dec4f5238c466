"""``prefeval compare --per-query`` writes csv, Markdown and LaTeX from the result's arrays; the text is the one
the ``Comparison.per_query`` frame gives (pandas' ``to_csv``; the frame writer of the command)."""

from __future__ import annotations

import io
import warnings

import pytest

import prefeval
from conftest import write_trec_files
from prefeval.cli import main
from prefeval.commands import compare_cmd


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
        compare_cmd._write_frame(frame, fmt, expected)
    assert got == expected.getvalue()
    assert len(got.splitlines()) > 3 * 3 * 3
