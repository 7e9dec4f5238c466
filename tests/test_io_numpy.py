"""Run and qrels files read by numpy (``prefeval.textscan``; ids as UTF-8 bytes, no pandas -- the reader without
pyarrow, or when pyarrow declines a file) give the frames pandas' parser gives, and leave the files numpy declines
to it (so errors still name the file and line)."""

from __future__ import annotations

from io import BytesIO

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval import io
from prefeval.errors import InputFormatError
from prefeval.utf8 import Utf8Column

ID = st.one_of(st.text(st.sampled_from(list("abQ0-_.:é中")), min_size=1, max_size=12), st.sampled_from(["NA", "nan"]))
SCORE = st.one_of(st.floats(allow_nan=False).map(repr), st.integers(-10**6, 10**6).map(str),
                  st.sampled_from(["1e5", "-0", "+.5", "5.", "Inf", "-infinity", "1E-320", "0.1000000000000000055"]))
BLANK = st.sampled_from([" ", "  ", "\t", " \t "])


def _by(monkeypatch, reader: str) -> None:
    """Read with one parser only: numpy (pyarrow declines) or pandas (pyarrow and numpy decline)."""
    monkeypatch.setattr(io, "_arrow_run", lambda *_: None)
    monkeypatch.setattr(io, "_arrow_qrels", lambda *_: None)
    if reader == "pandas":
        monkeypatch.setattr(io, "_numpy_run", lambda *_: None)
        monkeypatch.setattr(io, "_numpy_qrels", lambda *_: None)


@st.composite
def run_text(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from(["", "   ", "# a comment", "  # another"])))
            continue
        fields = [draw(ID), "Q0", draw(ID), str(draw(st.integers(0, 999))), draw(SCORE), draw(ID)]
        sep = draw(BLANK)
        lines.append(draw(st.sampled_from(["", " "])) + sep.join(fields) + draw(st.sampled_from(["", " ", "\t"])))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


PIECE = st.sampled_from([1 << 22, 1, 20, 64])  # io.SCAN_BYTES: whole files, and pieces of a line or a few


@settings(max_examples=40, deadline=None)
@given(run_text(), st.booleans(), PIECE)
def test_numpy_run_reader_equals_pandas(text: str, extra: bool, piece: int) -> None:
    data = text.encode("utf-8")
    with pytest.MonkeyPatch.context() as patch:
        _by(patch, "pandas")
        expected = io.read_run(BytesIO(data), extra_columns=extra)
    with pytest.MonkeyPatch.context() as patch:
        _by(patch, "numpy")
        patch.setattr(io, "SCAN_BYTES", piece)
        columns = io.read_run_columns(BytesIO(data), extra_columns=extra)
        frame = io.read_run(BytesIO(data), extra_columns=extra)
    if len(expected):
        assert isinstance(columns["doc_id"], Utf8Column)
    pd.testing.assert_frame_equal(frame, expected)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(ID, ID, ID, st.sampled_from(["0", "1", "-2", "3.0", "+4", "12"]), BLANK), min_size=1,
                max_size=10), PIECE)
def test_numpy_qrels_reader_equals_pandas(rows, piece: int) -> None:
    data = ("\n".join(sep.join([q, it, d, g]) for q, it, d, g, sep in rows) + "\n").encode("utf-8")
    with pytest.MonkeyPatch.context() as patch:
        _by(patch, "pandas")
        expected = io.read_qrels(BytesIO(data))
    with pytest.MonkeyPatch.context() as patch:
        _by(patch, "numpy")
        patch.setattr(io, "SCAN_BYTES", piece)
        assert isinstance(io.read_qrels_columns(BytesIO(data))["query_id"], Utf8Column)
        pd.testing.assert_frame_equal(io.read_qrels(BytesIO(data)), expected)


@pytest.mark.parametrize(("text", "message"), [
    ("q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 t\n", "line 2: expected 6 fields"),
    ("q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 nan t\n", "line 2: score is NaN"),
    ("q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1,5 t\n", "line 2: score '1,5' is not a number"),
    ("q1 Q0 d1 1 1.5 t\r\nq1 Q0 d2 2 x t\r\n", "line 2: score 'x' is not a number"),
    (b"q1 Q0 d\xff 1 1.5 t\n", "line 1: not valid UTF-8"),
])
def test_declined_files_get_the_errors_of_the_general_parser(monkeypatch, tmp_path, text, message) -> None:
    _by(monkeypatch, "numpy")
    path = tmp_path / "bad.run"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(InputFormatError, match=message):
        io.read_run_columns(path)
