"""``read_qrels`` by pyarrow, by numpy (without pyarrow) and by pandas' parser (forced by making ``import pyarrow.csv``
fail and the numpy scan decline): the same values, dtypes and errors; the columns form (``read_run_columns`` /
``read_qrels_columns``) is read by numpy."""

from __future__ import annotations

import io
import sys

import numpy as np
import pandas as pd
import pytest

from prefeval import io as pio
from prefeval.errors import InputFormatError
from prefeval.utf8 import Utf8Column

pa = pytest.importorskip("pyarrow")
pytest.importorskip("pyarrow.csv")


def read_both(data: bytes, monkeypatch: pytest.MonkeyPatch):
    """(fast result or error, pandas result or error, whether the Arrow path parsed it) of ``read_qrels``."""
    def attempt():
        try:
            return pio.read_qrels(io.BytesIO(data))
        except InputFormatError as exc:
            return exc

    used = pio._arrow_qrels(pio._strip_comments(data)) is not None
    fast = attempt()
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "pyarrow.csv", None)
        assert pio._arrow_qrels(pio._strip_comments(data)) is None
        by_numpy = attempt()  # the reader without pyarrow: numpy's scan, else pandas
        patch.setattr(pio, "_numpy_qrels", lambda *_: None)
        slow = attempt()
    for other in (fast, by_numpy):
        if isinstance(slow, Exception):
            assert isinstance(other, InputFormatError) and str(other) == str(slow)
        else:
            pd.testing.assert_frame_equal(other, slow, check_exact=True)
    return fast, slow, used


QRELS = [
    (b"1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n", True),
    (b"0012\t0\tNA\t-2\n0012\t0\tnull\t01\n", True),  # ids that look like numbers or missing values
    (b"# header\n1 Q0 d1 3\n\n1 7 d1 1\n", True),  # comment, blank line, a subtopic id
    (b"1 0 d1 -0\n", True),
    (b"1 0 d1 +1\n", True),
    (b"1 0 d1 1.0\n", False),  # pandas reads an integral decimal; the Arrow path leaves it to pandas
    (b"1 0 d1 0x1\n", False),  # Arrow would read hexadecimal, pandas refuses: an error either way
    (b"1 0 d1 1e0\n", False),
    (b"1 0 d1 x\n", False),
    (b"1 0 d1\n", False),
    (b"1 0 d1 1 extra\n", False),
    (b"1  0 d1 1\n", False),  # double space: pandas' whitespace rule
    (b"1 0 d1 99999999999999999999\n", False),
]


@pytest.mark.parametrize(("data", "arrow"), QRELS)
def test_qrels_fast_path_matches_pandas(data, arrow, monkeypatch):
    fast, slow, used = read_both(data, monkeypatch)
    assert used == arrow
    if isinstance(slow, Exception):
        assert isinstance(fast, InputFormatError) and str(fast) == str(slow)
    else:
        assert not isinstance(fast, Exception), fast
        pd.testing.assert_frame_equal(fast, slow, check_exact=True)
        assert list(fast.dtypes) == list(slow.dtypes)


def test_columns_are_utf8_bytes_and_numpy():
    """The columns form is read by numpy, with or without pyarrow: the same columns either way."""
    run = pio.read_run_columns(io.BytesIO(b"q1 Q0 d1 1 1.5 t\nq1 Q0 0012 2 1.25 t\n"))
    assert list(run) == ["query_id", "doc_id", "score"]
    assert isinstance(run["doc_id"], Utf8Column) and run["doc_id"].to_pylist() == ["d1", "0012"]
    assert run["score"].dtype == np.float64 and run["score"].tolist() == [1.5, 1.25]
    qrels = pio.read_qrels_columns(io.BytesIO(b"q1 0 d1 2\nq1 0 0012 0\n"))
    assert list(qrels) == ["query_id", "doc_id", "relevance", "iteration"]
    assert qrels["relevance"].dtype == np.int64 and qrels["relevance"].tolist() == [2, 0]
    assert qrels["iteration"].to_pylist() == ["0", "0"]


def test_large_files_in_the_columns_form_are_read_by_pyarrow(monkeypatch):
    """From ``ARROW_BYTES`` on, pyarrow's parser (faster per byte) reads the columns form: the same values."""
    data = b"q1 Q0 d1 1 1.5 t\nq1 Q0 0012 2 1.25 t\n"
    small = pio.read_run_columns(io.BytesIO(data))
    monkeypatch.setattr(pio, "ARROW_BYTES", 1)
    large = pio.read_run_columns(io.BytesIO(data))
    assert isinstance(large["doc_id"], pa.Array) and isinstance(small["doc_id"], Utf8Column)
    pd.testing.assert_frame_equal(large.frame(), small.frame())
    assert isinstance(pio.read_qrels_columns(io.BytesIO(b"q1 0 d1 2\nq1 0 0012 0\n"))["doc_id"], pa.Array)


def test_errors_name_file_and_line(tmp_path):
    path = tmp_path / "bad.qrels"
    path.write_text("1 0 d1 1\n1 0 d2 one\n")
    with pytest.raises(InputFormatError, match=r"bad.qrels, line 2: relevance 'one' is not an integer"):
        pio.read_qrels_columns(path)


@pytest.mark.parametrize("data", [b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1 t\xff\n", b"q1 Q0 d1 1 1.5 t\nq1 Q\xe9 d2 2 1 t\n"])
def test_invalid_utf8_in_a_column_the_reader_skips_is_still_an_error(data):
    """The rank, Q0 and tag fields are split but not converted; the bytes are still checked to be UTF-8."""
    assert pio._arrow_run(pio._strip_comments(data), False) is None
    with pytest.raises(InputFormatError, match=r"line 2: not valid UTF-8"):
        pio.read_run_columns(io.BytesIO(data))


@pytest.mark.parametrize(("data", "empty"), [
    (b"a b\nc d\n", False), (b"a b\n\n\nc d", False), (b"a  b\n", True), (b" a b\n", True), (b"a b \n", True),
    (b"a b\n c d\n", True), (b"a b\nc d ", True), (b"\n\na b\n", False), (b"a b\n \n", True),
])
def test_empty_field_detection(data, empty):
    assert pio._empty_field(data, " ") is empty
    assert pio._empty_field(data.replace(b" ", b"\t"), "\t") is empty


def test_empty_field_detection_against_splitting_lines():
    """Random data (small, and larger than the 256 KiB scan blocks) against the definition: some non-blank line,
    split on the delimiter, has an empty field."""
    rng = np.random.default_rng(13)
    alphabet = np.frombuffer(b"ab \n", dtype=np.uint8)
    for trial in range(200):
        size = int(rng.integers(300_000, 700_000)) if trial % 20 == 0 else int(rng.integers(1, 40))
        data = bytes(rng.choice(alphabet, size=size, p=[0.45, 0.45, 0.05, 0.05]))
        expected = any(field == b"" for line in data.split(b"\n") if line for field in line.split(b" "))
        assert pio._empty_field(data, " ") is expected
