"""TREC run / qrels readers and writers (prefeval.data.trec)."""

from __future__ import annotations

import gzip
import io
import math

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.data import trec as pio
from prefeval.data.trec import read_qrels, read_run
from prefeval.data.trec_writer import write_qrels, write_run
from prefeval.errors import InputFormatError, PrefevalError


def brute_run(text: str) -> list[tuple[str, str, float]]:
    """Reference parser straight from the format definition (split on whitespace, skip # lines)."""
    rows = []
    for line in text.splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        assert len(fields) == 6
        rows.append((fields[0], fields[2], float(fields[4])))
    return rows


def as_rows(df: pd.DataFrame) -> list[tuple[str, str, float]]:
    return list(zip(df["query_id"].tolist(), df["doc_id"].tolist(), df["score"].tolist()))


# --------------------------------------------------------------------------------------------
# reading runs


def test_run_layout_variants(tmp_path):
    text = (
        "# ir_metadata.start\n"
        "#   tag: demo\n"
        "# ir_metadata.end\n"
        "0012\tQ0\tdoc#1\t1\t3\tmytag\n"  # tabs; '#' inside an id is data
        "\n"
        "   0012 Q0   NA 2 -1.5E-3 mytag   \r\n"  # leading/trailing blanks, CRLF, 'NA' id
        "7 Q0 null 0 1e+2 mytag\n"
        "7 Q0 nan 1 -inf mytag\n"
        "  # indented comment\n"
        "7 Q0 0001 2 12 mytag"  # no final newline
    )
    df = read_run(io.StringIO(text))
    assert list(df.columns) == ["query_id", "doc_id", "score"]
    assert as_rows(df) == [("0012", "doc#1", 3.0), ("0012", "NA", -0.0015), ("7", "null", 100.0),
                           ("7", "nan", -math.inf), ("7", "0001", 12.0)]
    assert df["score"].dtype == np.float64
    # same content as a plain file, a gzip file and a binary stream
    plain = tmp_path / "a.run"
    plain.write_text(text)
    packed = tmp_path / "a.run.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    hidden = tmp_path / "gz_without_suffix"
    hidden.write_bytes(gzip.compress(text.encode()))
    for source in (plain, str(packed), hidden, io.BytesIO(text.encode())):
        pd.testing.assert_frame_equal(read_run(source), df)


def test_run_extra_columns():
    df = read_run(io.StringIO("1 Q0 a 0 2.5 t1\n1 Q0 b 1 2.0 t1\n"), extra_columns=True)
    assert df["rank"].tolist() == ["0", "1"]
    assert df["tag"].tolist() == ["t1", "t1"]


def test_empty_and_comment_only_run():
    for text in ("", "# nothing\n", "\n\n"):
        df = read_run(io.StringIO(text))
        assert len(df) == 0 and list(df.columns) == ["query_id", "doc_id", "score"]


_token = st.text(alphabet="abcXYZ0123456789_-.#:", min_size=1, max_size=6).filter(lambda s: not s.startswith("#"))
_score = st.one_of(st.integers(-10**6, 10**6).map(str),
                   st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
                   st.floats(min_value=1e-30, max_value=1e30).map(lambda x: f"{x:.3e}"))
_line = st.tuples(_token, _token, st.integers(0, 1000), _score, st.sampled_from([" ", "\t", "  ", " \t "]))


@settings(max_examples=60, deadline=None)
@given(st.lists(_line, max_size=30), st.booleans())
def test_run_matches_brute_force(lines, comments):
    text = ""
    for i, (q, d, r, s, sep) in enumerate(lines):
        if comments and i % 3 == 0:
            text += "# a comment line\n"
        text += sep.join([q, "Q0", d, str(r), s, "tag"]) + "\n"
    assert as_rows(read_run(io.StringIO(text))) == brute_run(text)


def test_run_equals_ir_measures_on_real_data(shared_data):
    path = shared_data / "dl-hard" / "runs" / "passage" / "bm25.run.gz"
    ours = read_run(path)
    theirs = pd.DataFrame(ir_measures.read_trec_run(str(path)))
    assert len(ours) == 50_000
    assert ours["query_id"].tolist() == theirs["query_id"].tolist()
    assert ours["doc_id"].tolist() == theirs["doc_id"].tolist()
    assert np.array_equal(ours["score"].to_numpy(), theirs["score"].to_numpy())


# --------------------------------------------------------------------------------------------
# reading qrels


def test_qrels_layout_and_subtopics():
    text = "# comment\n0012 0 d1 1\n0012\tQ0\tNA\t-2\n\n51 3 d2 4\r\n51 12 d2 0\n"
    df = read_qrels(io.StringIO(text))
    assert list(df.columns) == ["query_id", "doc_id", "relevance", "iteration"]
    assert df["query_id"].tolist() == ["0012", "0012", "51", "51"]
    assert df["doc_id"].tolist() == ["d1", "NA", "d2", "d2"]
    assert df["relevance"].tolist() == [1, -2, 4, 0]
    assert df["relevance"].dtype == np.int64
    assert df["iteration"].tolist() == ["0", "Q0", "3", "12"]


def test_qrels_equal_ir_measures_on_real_data(shared_data):
    for rel in ("trec-web-2012/qrels.diversity.txt", "dl-hard/dl_hard-passage.qrels"):
        ours = read_qrels(shared_data / rel)
        theirs = pd.DataFrame(ir_measures.read_trec_qrels(str(shared_data / rel)))
        for column in ("query_id", "doc_id", "relevance", "iteration"):
            assert ours[column].tolist() == theirs[column].tolist(), (rel, column)


# --------------------------------------------------------------------------------------------
# malformed input: every case names the file and the line


@pytest.mark.parametrize(("text", "line", "fragment"), [
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5\n", 2, "expected 6 or more fields"),    # short line, not the first
    ("1 Q0 a 1 1.0\n1 Q0 b 2 0.5 t\n", 1, "found 5"),                       # short first line
    ("1 Q0 a 1 1.0 t\n1 Q0 b\n", 2, "found 3"),                             # truncated line
    ("1 Q0 a 1 1.0 t\n# c\n\n1 Q0 b 2 abc t\n", 4, "'abc' is not a number"),  # comments/blank lines counted
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 NaN t\n", 2, "NaN"),
    ("1 Q0 a 1 nan t\n", 1, "NaN"),
    ("1 Q0 a 1 1,5 t\n", 1, "'1,5' is not a number"),
])
def test_malformed_run(tmp_path, text, line, fragment):
    _assert_names_line(read_run, tmp_path / "bad.run", text, line, fragment)


@pytest.mark.parametrize(("text", "line", "fragment"), [
    ("1 0 a 1\n1 0 b\n", 2, "expected 4 fields"),
    ("1 0 a 1 extra\n", 1, "found 5"),
    ("1 0 a 1\n1 0 b 1 x\n", 2, "found 5"),
    ("1 0 a 1\n1 0 b high\n", 2, "'high' is not an integer"),
    ("1 0 a 1.5\n", 1, "'1.5' is not an integer"),
    ("1 0 a 99999999999999999999999\n", 1, "is not an integer"),
])
def test_malformed_qrels(tmp_path, text, line, fragment):
    _assert_names_line(read_qrels, tmp_path / "bad.qrels", text, line, fragment)


def _assert_names_line(reader, path, text, line, fragment):
    """Reading ``text`` from ``path`` fails with a message naming the file, the line and the problem."""
    path.write_text(text)
    with pytest.raises(InputFormatError) as info:
        reader(path)
    message = str(info.value)
    assert str(path) in message and f"line {line}:" in message and fragment in message


def test_invalid_utf8_names_line(tmp_path):
    path = tmp_path / "latin1.run"
    path.write_bytes(b"1 Q0 a 1 1.0 t\n1 Q0 caf\xe9 2 0.5 t\n")
    with pytest.raises(InputFormatError, match=r"latin1.run, line 2: not valid UTF-8"):
        read_run(path)


@pytest.mark.parametrize("inflater", ["zlib", "isal"])
def test_gzip_members_and_padding(tmp_path, monkeypatch, inflater):
    """Concatenated gzip members (``cat a.gz b.gz``) and null padding read as ``gzip.decompress`` reads them;
    a member cut short, followed by other bytes or with a wrong checksum is corrupt. With the standard library's
    zlib and with ISA-L's (python-isal, the ``fast`` extra)."""
    import zlib

    module = zlib if inflater == "zlib" else pytest.importorskip("isal.isal_zlib")
    monkeypatch.setattr(pio, "_inflater", lambda: module)
    first, second = b"1 Q0 a 1 2.0 t\n", b"1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n"
    path = tmp_path / "joined.run.gz"
    path.write_bytes(gzip.compress(first) + gzip.compress(second) + b"\0" * 4)
    assert as_rows(read_run(path)) == [("1", "a", 2.0), ("1", "b", 1.0), ("2", "c", 1.0)]
    wrong_crc = bytearray(gzip.compress(second))
    wrong_crc[-6] ^= 1
    for tail in (gzip.compress(second)[:-3], b"junk", bytes(wrong_crc)):
        path.write_bytes(gzip.compress(first) + tail)
        with pytest.raises(InputFormatError, match="joined.run.gz: corrupt gzip"):
            read_run(path)


def test_corrupt_gzip(tmp_path):
    path = tmp_path / "broken.run.gz"
    path.write_bytes(gzip.compress(b"1 Q0 a 1 1.0 t\n" * 100)[:40])
    with pytest.raises(InputFormatError, match="broken.run.gz: corrupt gzip"):
        read_run(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="run file not found: .*nope.run"):
        read_run(tmp_path / "nope.run")
    with pytest.raises(FileNotFoundError, match="qrels file not found"):
        read_qrels(str(tmp_path / "nope.qrels"))
    with pytest.raises(PrefevalError, match="is a directory"):
        read_run(tmp_path)


# --------------------------------------------------------------------------------------------
# writing


def test_write_run_orders_like_trec_eval_and_round_trips(tmp_path):
    run = pd.DataFrame({"query_id": ["2", "10", "10", "10", "10"],
                        "doc_id": ["x", "a", "c", "b", "d"],
                        "score": [0.5, 1.0, 1.0, 2.0, 1 / 3]})
    path = tmp_path / "out.run.gz"
    write_run(run, path, tag="mine")
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    # queries in string order; score desc, ties by doc_id desc; ranks 1..n
    assert [ln.split()[:4] for ln in lines] == [
        ["10", "Q0", "b", "1"], ["10", "Q0", "c", "2"], ["10", "Q0", "a", "3"], ["10", "Q0", "d", "4"],
        ["2", "Q0", "x", "1"]]
    assert {ln.split()[5] for ln in lines} == {"mine"}
    back = read_run(path).sort_values(["query_id", "doc_id"]).reset_index(drop=True)
    expected = run.sort_values(["query_id", "doc_id"]).reset_index(drop=True)
    assert back["doc_id"].tolist() == expected["doc_id"].tolist()
    assert back["score"].tolist() == expected["score"].tolist()  # exact: repr round-trips


def test_write_run_uses_tag_column_and_rejects_bad_values(tmp_path):
    buffer = io.StringIO()
    write_run(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1], "tag": ["t9"]}), buffer)
    assert buffer.getvalue() == "1 Q0 a 1 1.0 t9\n"
    with pytest.raises(PrefevalError, match="doc_id 'a b' is empty or contains whitespace"):
        write_run(pd.DataFrame({"query_id": ["1"], "doc_id": ["a b"], "score": [1.0]}), tmp_path / "x.run")
    with pytest.raises(PrefevalError, match="score 'high' of query '1', doc 'a' is not a number"):
        write_run(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": ["high"]}), tmp_path / "x.run")
    with pytest.raises(PrefevalError, match=r"lacks column\(s\) \['score'\]"):
        write_run(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}), tmp_path / "x.run")


def test_write_qrels_round_trip(tmp_path):
    qrels = pd.DataFrame({"query_id": ["0012", "51"], "doc_id": ["d1", "d2"], "relevance": [-2, 3],
                          "iteration": ["0", "4"]})
    path = tmp_path / "q.txt"
    write_qrels(qrels, path)
    assert path.read_text() == "0012 0 d1 -2\n51 4 d2 3\n"
    pd.testing.assert_frame_equal(read_qrels(path), qrels, check_dtype=False)
    write_qrels(qrels.drop(columns="iteration"), path)
    assert read_qrels(path)["iteration"].tolist() == ["0", "0"]
    with pytest.raises(PrefevalError, match="relevance 1.5 of query '1', doc 'a' is not an integer"):
        write_qrels(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1.5]}), path)
