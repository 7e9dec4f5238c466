"""The reader's whole-text scans (numpy, block by block) against their definitions, on random text: the bytes no
text may hold (:func:`prefeval.data.trec._has_bad_ascii`) and an empty field under one separator byte
(:func:`prefeval.data.trec._has_empty_field`), also across the blocks' edges; and the reading they decide."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.data import trec
from prefeval.errors import InputFormatError

BAD = set(range(0x20)) - {0x09, 0x0a} | {0x7f}


def bad_ascii_by_definition(raw: bytes) -> bool:
    return any(byte in BAD for byte in raw)


def empty_field_by_definition(data: bytes, sep: bytes) -> bool:
    return any(b"" in line.split(sep) for line in data.split(b"\n") if line)


ascii_text = st.lists(st.sampled_from([b"a", b"7", b" ", b"\t", b"\n", b"\r", b"\x00", b"\x0b", b"\x1f", b"\x7f",
                                       b"#", b"q1 Q0 d 1 2.5 t\n"]), max_size=60).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(ascii_text, st.sampled_from([1, 2, 3, 5, 1 << 22]))
def test_bad_ascii_is_its_definition(raw, block):
    trec_block = trec._BLOCK
    try:
        trec._BLOCK = block
        assert trec._has_bad_ascii(raw) == bad_ascii_by_definition(raw)
    finally:
        trec._BLOCK = trec_block


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"bc", b" ", b"\t", b"\n"]), max_size=40).map(b"".join),
       st.sampled_from([b" ", b"\t"]), st.sampled_from([1, 2, 3, 7, 1 << 22]))
def test_empty_field_is_its_definition(data, sep, block):
    trec_block = trec._BLOCK
    try:
        trec._BLOCK = block
        assert trec._has_empty_field(data, sep) == empty_field_by_definition(data, sep)
    finally:
        trec._BLOCK = trec_block


@pytest.mark.parametrize("line", [b"q1  d1 1 2.0 t", b"q1 Q0  d1 1 2.0 t", b"q1 Q0 d1 1 2.0 t ", b" q1 Q0 d1 1 2.0 t"])
def test_a_line_with_an_empty_field_is_read_as_runs_of_blanks(line):
    """Runs of blanks are one separator: a line of five fields with a doubled blank is an error of five fields (not
    six fields with an empty Q0); blanks at the ends of a line are no field."""
    text = b"q0 Q0 d0 1 3.0 t\n" + line + b"\n"
    fields = len(line.split())
    if fields == 6:
        columns = trec.read_run_columns(io.BytesIO(text), extra_columns=True)
        assert columns["doc_id"].to_pylist() == ["d0", "d1"]
        assert columns["tag"].to_pylist() == ["t", "t"]
    else:
        with pytest.raises(InputFormatError, match=f"line 2: expected 6 or more fields .* found {fields}"):
            trec.read_run_columns(io.BytesIO(text))


def test_control_bytes_are_named_with_their_line():
    with pytest.raises(InputFormatError, match=r"line 2: U\+007F"):
        trec.read_run_columns(io.BytesIO(b"q Q0 d 1 1.0 t\nq Q0 d\x7f 2 0.5 t\n"))
    with pytest.raises(InputFormatError, match=r"line 1: U\+000B"):
        trec.read_qrels_columns(io.BytesIO(b"q 0 d\x0b 1\n"))
