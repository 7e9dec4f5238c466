"""The shape check of a CSV table that ``prefeval report`` renders from (``pipeline.verify._check_csv``: a table
pyarrow reads at once as plainly well formed passes, any other is read row by row) against the row-by-row reading
alone (``_check_rows``, the csv module): the same files pass, and a bad file gets the same one-line message naming
the file and the line (made-up files of quotes, line ends, blank lines, bytes that are not UTF-8, numbers Python
reads and numbers it does not); the messages themselves, and that a pipeline's own tables are read at once."""

from __future__ import annotations

import csv
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.errors import PrefevalError
from prefeval.pipeline.verify import CSV_COLUMNS, _check_csv, _check_rows, _plainly_well_formed


def outcome(check, path: Path, columns, numbers) -> str | None:
    try:
        check(path, columns, numbers)
    except PrefevalError as exc:
        return str(exc)
    return None


COLUMNS, NUMBERS = CSV_COLUMNS["preference_summary.csv"]
HEADERS = st.sampled_from([",".join(COLUMNS), ",".join(COLUMNS) + ",extra", ",".join(COLUMNS[:-1]),
                           "\ufeff" + ",".join(COLUMNS), ",".join(reversed(COLUMNS)), '"method","run_a",run_b,mean,'
                           'wins,losses,ties,queries', ",".join(COLUMNS) + ",mean"])
FIELDS = st.sampled_from(["0.25", "-1e-05", "3", "", "NaN", "nan", "inf", "-inf", "Infinity", "+.5", "1.", "1_000",
                          " 2", "2 ", "\u0661", "0x10", "1e", "abc", "NA", '"3"', '"a,b"', '"q""q"', 'a"b', '"1"x',
                          '"x\ny"', '"\n\n"', "\x00", "\u00e9", "1e400", "-0", "e5"])
ENDS = st.sampled_from(["\n", "\r\n", "\r", "\n\n", ""])


@st.composite
def files(draw) -> bytes:
    header = draw(HEADERS)
    n_fields = len(COLUMNS)
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        width = draw(st.sampled_from([n_fields, n_fields, n_fields, n_fields + 1, n_fields - 1, 1]))
        lines.append(",".join(draw(st.lists(FIELDS, min_size=width, max_size=width))))
    text = header + "".join(draw(ENDS) + line for line in lines) + draw(ENDS)
    data = text.encode("utf-8")
    if draw(st.booleans()) and draw(st.booleans()):  # a byte that is not UTF-8 somewhere
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x82"])) + data[at:]
    return data


@settings(max_examples=400, deadline=None)
@given(files())
def test_the_check_equals_the_row_by_row_reading(data):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "preference_summary.csv"
        path.write_bytes(data)
        assert outcome(_check_csv, path, COLUMNS, NUMBERS) == outcome(_check_rows, path, COLUMNS, NUMBERS)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='1,"\r\nx.\x00 e-', max_size=30))
def test_fields_split_as_the_csv_module_splits_them(body):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "means.csv"
        path.write_bytes(("run,value\n" + body).encode("utf-8"))
        assert outcome(_check_csv, path, ("run", "value"), ("value",)) == outcome(_check_rows, path, ("run", "value"),
                                                                                 ("value",))


@pytest.mark.parametrize("data, message", [
    (b"", "lacks the column(s) method, run_a, run_b, mean, wins, losses, ties, queries"),
    (b"method,run_a,run_b,mean,wins,losses,ties,queries\nRPP,a,b,0.5,1,0,0,1\n\nRPP,a,c,0.5,1,0,0,1\n",
     "line 3 has 0 fields, the header 8"),
    (b"method,run_a,run_b,mean,wins,losses,ties,queries\nRPP,a,b,0.5,1,0,0,1\nRPP,a,c,0.5,1,x,0,1\n",
     "line 3: losses 'x' is not a number"),
    (b"method,run_a,run_b,mean,wins,losses,ties,queries\nRPP,\"a\nb\",b,0.5,1,0,0,1\nRPP,a,c,0.5,1,0,0\n",
     "line 3 has 7 fields, the header 8"),  # a line is a row of the table (a quoted field may hold line ends)
    (b"method,run_a,run_b,mean,wins,losses,ties,queries\nRPP,a,b,0.5,1,0,0,1\nRPP,\xff,c,0.5,1,0,0,1\n",
     "not UTF-8 (invalid start byte)"),
    (b"method,run_a,run_b,mean,wins,losses,ties,queries\nRPP,a,b," + b"1" * 200_000 + b",1,0,0,1\n",
     "not a CSV table (field larger than field limit (131072))"),
])
def test_bad_tables_are_named_with_their_line(tmp_path, data, message):
    path = tmp_path / "preference_summary.csv"
    path.write_bytes(data)
    expected = f"preference_summary.csv: {message}; the folder was edited since prefeval wrote it: run the pipeline again"
    assert outcome(_check_rows, path, COLUMNS, NUMBERS) == expected
    assert outcome(_check_csv, path, COLUMNS, NUMBERS) == expected


def test_numbers_python_reads_pass_though_written_otherwise(tmp_path):
    path = tmp_path / "means.csv"
    path.write_text("run,measure,value\na,AP, 0.5\nb,AP,1_000\nc,AP,\u0661\nd,AP,Infinity\ne,AP,\n", encoding="utf-8")
    assert outcome(_check_csv, path, *CSV_COLUMNS["means.csv"]) is None


def test_a_pipelines_tables_pass(tmp_path):
    from prefeval.pipeline import Compare, Evaluate, Pipeline, Report, Simulate

    out = tmp_path / "out"
    Pipeline([Simulate(n_queries=10, n_runs=3, n_docs=30, depth=10, seed=2), Evaluate(["AP", "nDCG@10"]),
              Compare(["RPP"]), Report(out, formats=["csv", "json"])]).run(progress=False)
    checked = 0
    for name, (columns, numbers) in CSV_COLUMNS.items():
        if (out / name).is_file():
            assert outcome(_check_csv, out / name, columns, numbers) is None
            assert _plainly_well_formed(out / name, columns, numbers, csv.field_size_limit())  # not row by row
            checked += 1
    assert checked >= 3
