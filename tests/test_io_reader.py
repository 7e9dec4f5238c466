"""The one TREC reader (``prefeval.data.trec``) against the format's definition, written out line by line in Python here:
random texts (blanks, tabs, CRLF, BOM, comments, quotes, extra fields, odd numbers) give the columns the definition
gives, or an error naming the line the definition names."""

from __future__ import annotations

import gzip
import io
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.data import trec as pio
from prefeval.errors import InputFormatError

BAD_CHAR = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]|[^\S \t\n]")
FLOAT = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE | re.ASCII)


def definition(data: bytes, kind: str) -> tuple[list[tuple], None] | tuple[None, int]:
    """(rows, None), or (None, the line of the first error) by the rules of the module docstring of prefeval.data.trec,
    written out line by line. Rows: run (query, doc, score); qrels (query, iteration, doc, grade)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    if lines and lines[-1].endswith(b"\r"):
        lines[-1] = lines[-1][:-1]
    text_lines = []
    for number, line in enumerate(lines, 1):
        line = line[:-1] if line.endswith(b"\r") and number < len(lines) else line
        if line.lstrip(b" \t").startswith(b"#"):
            line = b""
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            return None, number
        if BAD_CHAR.search(text):
            return None, number
        text_lines.append(text)
    rows = []
    for number, text in enumerate(text_lines, 1):
        fields = text.replace("\t", " ").split(" ")
        fields = [f for f in fields if f]
        if not fields:
            continue
        if any(fields[i][:1] in ("'", '"') and (len(fields[i]) == 1 or fields[i][-1] != fields[i][0])
               and any(f.endswith(fields[i][0]) for f in fields[i + 1:]) for i in (0, 2) if i < len(fields)):
            return None, number  # an id opening a quote that a later field closes: a quoted id with a blank, split
        if kind == "run":
            if len(fields) < 6:
                return None, number
            score = fields[4]
            if not FLOAT.fullmatch(score) or "nan" in score.lower():
                return None, number
            rows.append((fields[0], fields[2], float(score)))
        else:
            if len(fields) != 4 or not re.fullmatch(r"[+-]?[0-9]+", fields[3]) or abs(int(fields[3])) > 1000:
                return None, number
            rows.append((fields[0], fields[1], fields[2], int(fields[3])))
    return rows, None


def read(data: bytes, kind: str) -> tuple[list[tuple], None] | tuple[None, int]:
    try:
        if kind == "run":
            frame = pio.read_run(io.BytesIO(data))
            return list(zip(frame["query_id"], frame["doc_id"], frame["score"].tolist())), None
        frame = pio.read_qrels(io.BytesIO(data))
        return list(zip(frame["query_id"], frame["iteration"], frame["doc_id"], frame["relevance"].tolist())), None
    except InputFormatError as exc:
        message = str(exc)
        assert "\n" not in message
        return None, int(re.match(r"<\w+ stream>, line (\d+): ", message).group(1))


ID = st.one_of(st.text(st.sampled_from(list('abQ0-_.:é中"#')), min_size=1, max_size=6),
               st.sampled_from(["NA", "nan", "0012", "d\x00", "d\x0bx", "d\xa0", "d\x85", "d\u3000", "d\x7f"]))
SCORE = st.one_of(st.floats(allow_nan=False).map(repr), st.integers(-10**6, 10**6).map(str),
                  st.sampled_from(["1e5", "-0", "+.5", "5.", "Inf", "-infinity", "1E-320", "1e400", "nan", "x",
                                   "0x10", "1_0", "１", "", "1,5"]))
GRADE = st.one_of(st.integers(-3, 4).map(str), st.sampled_from(["+2", "-1000", "1001", "2147483647", "4294967296",
                                                                  "１", "1.0", "x", "007", ""]))
BLANK = st.sampled_from([" ", "  ", "\t", " \t "])
END = st.sampled_from(["\n", "\r\n"])


@st.composite
def text(draw, kind: str) -> bytes:
    parts = [draw(st.sampled_from(["", "\ufeff"]))]
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.integers(0, 7)) == 0:
            parts.append(draw(st.sampled_from(["", "   ", "# a comment \xff", "  # another"])) + draw(END))
            continue
        if kind == "run":
            fields = [draw(ID), "Q0", draw(ID), str(draw(st.integers(0, 999))), draw(SCORE), draw(ID)]
            fields += draw(st.lists(ID, max_size=2)) if draw(st.integers(0, 5)) == 0 else []
        else:
            fields = [draw(ID), draw(st.sampled_from(["0", "Q0", "3"])), draw(ID), draw(GRADE)]
        if draw(st.integers(0, 9)) == 0:
            fields = fields[:-1]
        sep = draw(BLANK)
        parts.append(draw(st.sampled_from(["", " "])) + sep.join(fields) + draw(st.sampled_from(["", " ", "\t"]))
                     + draw(END))
    data = "".join(parts).encode("utf-8", errors="surrogateescape")
    if draw(st.integers(0, 9)) == 0:
        data = data.rstrip(b"\r\n")
    return data


@settings(max_examples=150, deadline=None)
@given(text("run"))
def test_runs_are_read_by_the_definition(data: bytes) -> None:
    assert read(data, "run") == definition(data, "run")


@settings(max_examples=150, deadline=None)
@given(text("qrels"))
def test_qrels_are_read_by_the_definition(data: bytes) -> None:
    assert read(data, "qrels") == definition(data, "qrels")


def test_columns_form_reads_through_the_same_function() -> None:
    data = b"\xef\xbb\xbf# c\r\n1 Q0 d2 1 2.0 t\r\n1\tQ0\td1  2 1.0 t extra\n"
    columns = pio.read_run_columns(io.BytesIO(data))
    assert isinstance(columns["doc_id"], pa.Array) and columns["score"].dtype == np.float64
    pd.testing.assert_frame_equal(columns.frame(), pio.read_run(io.BytesIO(data)))
    assert columns["query_id"].to_pylist() == ["1", "1"] and columns["doc_id"].to_pylist() == ["d2", "d1"]
    qrels = pio.read_qrels_columns(io.BytesIO(b"q1 0 d1 2\nq1 0 0012 0\n"))
    assert isinstance(qrels["doc_id"], pa.Array) and qrels["relevance"].tolist() == [2, 0]


def test_errors_name_file_and_line(tmp_path) -> None:
    path = tmp_path / "bad.qrels"
    path.write_text("# header\n1 0 d1 1\n\n1 0 d2 one\n")
    with pytest.raises(InputFormatError, match=r"bad.qrels, line 4: relevance 'one' is not an integer grade"):
        pio.read_qrels_columns(path)
    path.write_text("1 Q0 d1 1 1 t\n\n1 Q0 d2 2 nope t\n")
    with pytest.raises(InputFormatError, match=r"bad.qrels, line 3: score 'nope' is not a number"):
        pio.read_run(path)


@pytest.mark.parametrize("data", [b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1 t\xff\n", b"q1 Q0 d1 1 1.5 t\nq1 Q\xe9 d2 2 1 t\n"])
def test_invalid_utf8_in_a_column_the_reader_skips_is_still_an_error(data) -> None:
    """The rank, Q0 and tag fields are split but not converted; the bytes are still checked to be UTF-8."""
    with pytest.raises(InputFormatError, match=r"line 2: not valid UTF-8"):
        pio.read_run_columns(io.BytesIO(data))


@pytest.mark.parametrize(("data", "line", "what"), [
    (b"1 0 d1 1\n1\x0b0 d2 1\n", 2, "U+000B"),  # a vertical tab between fields
    (b"1 0 d1 1\n1 0\xc2\xa0d2 1\n", 2, "U+00A0"),  # a no-break space between fields
    (b"1 0 d1 1\n1 0 d\x002 1\n", 2, "U+0000"),
    (b"1 0 d1 1\r1 0 d2 1\n", 1, "U+000D"),  # a CR that ends no line
])
def test_separators_other_than_blanks_are_reported_on_their_line(data, line, what) -> None:
    with pytest.raises(InputFormatError, match=rf"<qrels stream>, line {line}: {re.escape(what)}"):
        pio.read_qrels(io.BytesIO(data))


def test_a_file_of_nul_bytes_fails_fast(tmp_path) -> None:
    path = tmp_path / "zeros.run"
    path.write_bytes(b"\x00" * (1 << 22))
    with pytest.raises(InputFormatError, match=r"zeros.run, line 1: U\+0000") as error:
        pio.read_run(path)
    assert len(str(error.value)) < 400


def test_bom_then_comment_and_gzip(tmp_path) -> None:
    path = tmp_path / "r.run.gz"
    path.write_bytes(gzip.compress(b"\xef\xbb\xbf# ir_metadata\n1 Q0 d1 1 1.5 t\n1 Q0 d2 2 1.25 t\n"))
    out = pio.read_run(path)
    assert list(out["query_id"]) == ["1", "1"] and list(out["doc_id"]) == ["d1", "d2"]
    assert list(out["score"]) == [1.5, 1.25]


def test_quotes_are_data() -> None:
    out = pio.read_qrels(io.BytesIO(b'2 0 "d4 1\n2 0 z" 1\n'))
    assert list(out["doc_id"]) == ['"d4', 'z"']
    with pytest.raises(InputFormatError, match="line 1: expected 4 fields"):
        pio.read_qrels(io.BytesIO(b'2 0 "d4 z" 1\n'))
    # the same quoted id in a run (six fields or more, as trec_eval allows) is refused too, not split
    with pytest.raises(InputFormatError, match="line 2: doc_id '\"d4' opens a quote that a later field closes"):
        pio.read_run(io.BytesIO(b'2 Q0 d1 1 2.0 r\n2 Q0 "d4 z" 2 1.0 r\n'))
    assert list(pio.read_run(io.BytesIO(b'2 Q0 "d4 2 1.0 r\n'))["doc_id"]) == ['"d4']


def test_extra_fields_of_run_lines_are_ignored() -> None:
    """trec_eval ignores fields after the sixth (its results.trunc test file has 9)."""
    out = pio.read_run(io.BytesIO(b"1 Q0 d1 1 1.5 t a b c\n1 Q0 d2 2 1.25 t\n"), extra_columns=True)
    assert list(out["doc_id"]) == ["d1", "d2"] and list(out["tag"]) == ["t", "t"]


def test_scores_are_bit_identical_on_random_values() -> None:
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.normal(0, 1e3, 3000), rng.random(3000) * 10.0 ** rng.integers(-300, 300, 3000)])
    lines = [f"q{i % 7} Q0 d{i} {i} {float(v)!r} t" for i, v in enumerate(values)]
    out = pio.read_run(io.BytesIO("\n".join(lines).encode()))
    assert np.array_equal(out["score"].to_numpy(), values)
    text = "\n".join(f"q Q0 y{i} 1 {v:.6e} t" for i, v in enumerate(values[:500]))
    assert np.array_equal(pio.read_run(io.BytesIO(text.encode()))["score"].to_numpy(),
                          np.array([float(f"{v:.6e}") for v in values[:500]]))


def test_grades_are_bounded() -> None:
    for grade in ("1001", "-1001", "2147483647", "4294967296", "99999999999999999999"):
        with pytest.raises(InputFormatError, match=rf"line 2: relevance '{grade}' is not an integer grade from "
                                                   r"-1000 to 1000"):
            pio.read_qrels(io.BytesIO(f"1 0 d1 1\n1 0 d2 {grade}\n".encode()))
    assert pio.read_qrels(io.BytesIO(b"1 0 d1 1000\n1 0 d2 -1000\n"))["relevance"].tolist() == [1000, -1000]


def test_a_large_file_and_a_small_file_give_the_same_values(tmp_path) -> None:
    """One path at every size: the first lines of a file read alone equal the same lines of a file of 20 MB."""
    rng = np.random.default_rng(3)
    n = 400_000
    scores = rng.random(n).round(6)
    lines = "".join(f"{i // 1000}\tQ0  doc{rng.integers(10**6)} {i} {float(s)!r} run\r\n" for i, s in enumerate(scores))
    big, small = tmp_path / "big.run", tmp_path / "small.run"
    big.write_text("\ufeff" + lines)
    small.write_text("\ufeff" + lines[:lines.index("\n", 4000) + 1])
    assert big.stat().st_size > 8 << 20
    large = pio.read_run(big)
    few = pio.read_run(small)
    pd.testing.assert_frame_equal(large.iloc[:len(few)].reset_index(drop=True), few)
    assert np.array_equal(large["score"].to_numpy(), scores)


def test_every_parse_is_on_the_calling_thread(tmp_path, monkeypatch) -> None:
    """Arrow's threaded CSV reader drops its input on a pool thread after it returns the table; the reader's input is
    the text held by Python, whose release takes the GIL, and a pool thread that asks for it while the interpreter
    exits aborts the process ("terminate called without an active exception"). So no parse of the reader, of a
    small or a large text, valid or not, uses Arrow's thread pool."""
    import pyarrow.csv as pacsv

    threads = []
    read_csv = pacsv.read_csv

    def recording(*args, read_options, **kwargs):
        threads.append(read_options.use_threads)
        return read_csv(*args, read_options=read_options, **kwargs)

    monkeypatch.setattr(pacsv, "read_csv", recording)
    lines = "".join(f"{i // 1000} Q0 doc{i} {i} {i / 7} run\n" for i in range(60_000))
    big = tmp_path / "big.run"
    big.write_text(lines)
    assert big.stat().st_size > 2 << 20  # blocks of 1 MiB: several
    assert len(pio.read_run_columns(big)["doc_id"]) == 60_000
    big.write_text(lines + "9 Q0 d 1\n")  # a bad last line
    with pytest.raises(InputFormatError, match="line 60001: "):
        pio.read_run_columns(big)
    pio.read_qrels(io.BytesIO(b"1 0 d1 1\n"))
    assert len(threads) >= 3 and not any(threads), threads


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("cores", [2, 3, 8])
def test_a_large_text_parsed_in_parts_reads_as_the_whole(tmp_path, monkeypatch, kind, cores) -> None:
    """A run or qrels text of PARTS_BYTES or more is parsed in parts, one per core, on threads that end before the
    read returns (none holds the text at exit): the same columns as one parse of the whole text (a qrels part's grades
    coded apart); a bad line, whichever part holds it, is named as the whole text's parse names it."""
    import threading

    rng = np.random.default_rng(cores)
    if kind == "run":
        lines = [f"q{i // 37} Q0 d{rng.integers(0, 500)} {i} {rng.integers(0, 50) / 4} r\n" for i in range(5_000)]
        lines[777] = "\n"  # an empty line, skipped
        read, bad_text, bad_lines = pio.read_run_columns, "q1 Q0 dx 1 oops r\n", (2, 2_500, 4_999)
    else:
        grades = ["0", "1", "2", "3", "-1"]
        lines = [f"q{i // 11} 0 d{rng.integers(0, 500)} {grades[i % 5 if i > 3000 else i % 2]}\n"
                 for i in range(5_000)]
        read, bad_text, bad_lines = pio.read_qrels_columns, "q1 0 dx 1.5\n", (2, 4_999)
    path = tmp_path / kind
    path.write_text("".join(lines))
    whole = read(path)
    monkeypatch.setattr(pio, "PARTS_BYTES", 0)
    monkeypatch.setattr(pio.os, "cpu_count", lambda: cores)
    parsed = []
    parts_table = pio._parts_table
    monkeypatch.setattr(pio, "_parts_table", lambda *args: parsed.append(parts_table(*args)) or parsed[-1])
    before = threading.active_count()
    parts = read(path)
    assert threading.active_count() == before  # the parse threads have ended
    assert parsed and parsed[0] is not None and parsed[0].column(0).num_chunks >= cores  # parsed in parts
    assert list(parts) == list(whole)
    for column, values in whole.items():
        assert pd.Series(parts[column]).tolist() == pd.Series(values).tolist()
    if kind == "qrels":
        assert sorted(set(whole["relevance"].tolist())) == [-1, 0, 1, 2, 3]
    for bad_line in bad_lines:
        bad = list(lines)
        bad[bad_line - 1] = bad_text
        path.write_text("".join(bad))
        monkeypatch.setattr(pio, "PARTS_BYTES", 1 << 60)
        with pytest.raises(InputFormatError) as expected:
            read(path)
        monkeypatch.setattr(pio, "PARTS_BYTES", 0)
        with pytest.raises(InputFormatError) as got:
            read(path)
        assert str(got.value) == str(expected.value) and f"line {bad_line}" in str(got.value)


def test_shared_runs_read_as_the_definition(shared_data) -> None:
    runs = shared_data / "dl-hard" / "runs"
    for path in sorted(runs.glob("doc/*.run.gz"))[:2]:
        raw, _ = pio._read_bytes(path, "run")
        assert read(raw, "run") == definition(raw, "run")


def test_text_streams_with_lone_surrogates_are_not_utf8() -> None:
    for text in ("1 Q0 d1 1 1 t\n1 Q0 d\ud800 2 0 t\n", "1 Q0 d1 1 1 t\n1 Q0 d\udc80 2 0 t\n"):
        with pytest.raises(InputFormatError, match=r"<run stream>, line 2: not valid UTF-8"):
            pio.read_run(io.StringIO(text))
