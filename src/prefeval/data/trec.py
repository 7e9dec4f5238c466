"""TREC run and qrels files: the one reader of every entry point (the writers: :mod:`prefeval.data.trec_writer`).

Formats (as read by ``trec_eval``):

* run: ``query_id Q0 doc_id rank score tag`` -- 6 fields per line; further fields at the end of a line are
  ignored, as trec_eval ignores them (its own ``results.trunc`` test file has 9);
* qrels: ``query_id iteration doc_id relevance`` -- 4 fields per line; ``iteration`` is ``0``/``Q0``
  for ad hoc qrels and the **subtopic id** for diversity qrels (TREC Web), so it is kept as a string.

The rules, applied here once for :func:`read_run`, :func:`read_qrels` and their columns form (what
:func:`prefeval.evaluate`, :func:`prefeval.compare`, the commands, pipelines, baselines of preference measures and
the ir-measures provider read files with, at any size):

* the text is UTF-8; a byte-order mark at its start is dropped (as Python's ``utf-8-sig``); gzip-compressed
  files are detected from their content, and one that inflates to more than :data:`MAX_INFLATED` (2 GiB) is
  refused;
* lines end with LF or CRLF; fields are separated by runs of spaces or tabs (blanks at the start or end of a
  line are no field); there is no quoting (a ``"`` is data, but a query or document id that opens a quote a later
  field of its line closes, ``"d`` of ``"d 2"``, is an error: a quoted id with a blank was split in two);
* blank lines, and lines whose first non-blank character is ``#`` (comments: the ``ir_metadata`` header of
  annotated runs lives in such lines), are skipped; a ``#`` inside a field is data;
* **ids** (query, document, subtopic; also in frames, dicts and records, :func:`check_ids`) are non-empty
  strings of Unicode characters other than control characters (C0 including NUL, DEL, C1), whitespace
  (``str.isspace``: a vertical tab, form feed or no-break space between two fields is no separator but an error)
  and the byte-order mark U+FEFF (invisible; only the one at a file's start is dropped, a second one is an error);
  ids are read as strings (``"0012"`` stays ``"0012"``, ``"NA"`` stays ``"NA"``);
* **scores** are decimal floats as Arrow parses them (``1``, ``-2.5``, ``.5``, ``1e-3``; ``inf``/``infinity``
  in any case); NaN is an error;
* **grades** are decimal integers written in ASCII (``[+-]?[0-9]+``) from :data:`MIN_GRADE` to
  :data:`MAX_GRADE`: trec_eval allocates arrays by grade (a grade of 2**31-1 asks for GBs), ERR's gain is
  ``2**grade`` and trec_eval truncates grades to 32 bits (a grade of 2**32 would become 0); no TREC collection
  uses grades beyond a few units (negative grades such as ``-2`` junk are kept);
* the rank column and the ``Q0`` column are ignored, as by trec_eval (``read_run(..., extra_columns=True)``
  keeps rank and tag).

Anything else is an :class:`~prefeval.errors.InputFormatError` of one line naming the file and line: a line with
another number of fields, a score or grade that is not one, a byte that is not UTF-8, a forbidden character.
The engine is ``pyarrow.csv`` (no quoting, one separator byte, after the blanks of odd files are made single);
the file is rescanned only to name the line of an error.
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import is_pandas, lazy_module
from prefeval.data.arrow import to_numpy
from prefeval.data.encoding import ids_to_pandas, string_dtype
from prefeval.data.trec_writer import write_qrels, write_run  # noqa: F401 (prefeval.io: the reader and the writers)
from prefeval.errors import InputFormatError, PrefevalError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

PathOrFile = str | os.PathLike | IO[str] | IO[bytes]

RUN_COLUMNS = ["query_id", "doc_id", "score"]
QRELS_COLUMNS = ["query_id", "doc_id", "relevance", "iteration"]

#: The grades a qrels line, frame or dict may give (module docstring).
MIN_GRADE, MAX_GRADE = -1000, 1000

_BOM = b"\xef\xbb\xbf"
_RUN_NAMES = ["query_id", "Q0", "doc_id", "rank", "score", "tag"]
_QRELS_NAMES = ["query_id", "iteration", "doc_id", "relevance"]
_RUN_FIELDS = "query_id Q0 doc_id rank score tag"
_QRELS_FIELDS = "query_id iteration doc_id relevance"
_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*#[^\n]*")
#: bytes no id may hold (ASCII text): C0 controls other than tab and newline, and DEL
_BAD_BYTES = bytes(range(0x20)).replace(b"\t", b"").replace(b"\n", b"") + b"\x7f"
_BAD_ASCII = re.compile(b"[" + re.escape(_BAD_BYTES) + b"]")
_ID_BYTES = bytes(range(0x21, 0x7f))  # printable ASCII other than space
#: characters no id may hold, in decoded text (tab, newline and space are the separators of files)
_BAD_CHAR = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff]|[^\S \t\n]")
#: the same, for one id (the separators too)
_BAD_ID_CHAR = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufeff]|\s")
_GRADE = re.compile(r"[+-]?[0-9]+")
_LINE = re.compile(rb"[^\n]+")


class Columns(dict):
    """Named columns of a canonical run (``query_id, doc_id, score``) or qrels table (``query_id, doc_id,
    relevance, iteration``), as :func:`read_run_columns` / :func:`read_qrels_columns` give them: pyarrow string
    arrays and numpy arrays (no pandas needed), or pandas Series. Ranking and :func:`prefeval.compare` accept them
    where they accept a DataFrame; :meth:`frame` gives the DataFrame :func:`read_run` / :func:`read_qrels` give."""

    def __len__(self) -> int:  # rows, as len() of a DataFrame
        return len(next(iter(self.values()))) if dict.__len__(self) else 0

    def frame(self) -> pd.DataFrame:
        """The columns as the DataFrame of :func:`read_run` / :func:`read_qrels`."""
        return _frame(self)


# ----------------------------------------------------------------------------------------------
# reading


def read_file_bytes(path: Path, kind: str) -> bytes:
    """The bytes of the regular file ``path``; every failure is a one-line error naming the file: missing,
    a folder, not a regular file (a FIFO or device would block or never end), unreadable."""
    name = str(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{kind} file not found: {name}") from None
    except OSError as exc:
        raise PrefevalError(f"cannot read {kind} file {name}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise PrefevalError(f"{kind} path is a directory, not a file: {name}")
    if not stat.S_ISREG(mode):
        raise PrefevalError(f"{kind} path is not a regular file (a pipe, socket or device): {name}; "
                            "save the data to a file first")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise PrefevalError(f"cannot read {kind} file {name}: {exc.strerror or exc}") from None


def _read_bytes(source: PathOrFile, kind: str) -> tuple[bytes, str]:
    """The (decompressed) content of ``source`` and a name for messages."""
    if hasattr(source, "read"):
        name = str(getattr(source, "name", f"<{kind} stream>"))
        raw = source.read()  # type: ignore[union-attr]
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="surrogatepass")  # a lone surrogate: reported as not UTF-8
    else:
        path = Path(os.fspath(source))  # type: ignore[arg-type]
        name = str(path)
        raw = read_file_bytes(path, kind)
    if raw[:2] == b"\x1f\x8b":
        inflater = _inflater()
        try:
            raw = _gunzip(raw, inflater)
        except _TooLarge as exc:
            raise InputFormatError(f"{name}: {exc}") from None
        except (OSError, EOFError, zlib.error, inflater.error) as exc:
            raise InputFormatError(f"{name}: corrupt gzip data ({exc})") from None
    return raw, name


def _inflater() -> Any:
    """ISA-L's zlib-compatible module when python-isal is installed (the ``fast`` extra; it inflates about 2.5x as
    fast, the same bytes), else the standard library's :mod:`zlib`."""
    try:
        from isal import isal_zlib  # deferred: optional
    except ImportError:
        return zlib
    return isal_zlib


class _TooLarge(OSError):
    """A compressed file inflating beyond :data:`MAX_INFLATED`."""


#: The most bytes a gzip-compressed run or qrels file may inflate to (2 GiB, about 40 million run lines): a small
#: file that inflates to far more (a "gzip bomb") is refused before it is held in memory. A plain file has no limit.
MAX_INFLATED = 2 << 30


def _gunzip(data: bytes, inflater: Any = zlib, limit: int | None = None) -> bytes:
    """The content of gzip ``data`` (every member, as :func:`gzip.decompress`), in one pass of ``inflater`` (a
    zlib-compatible module), which also checks each member's CRC and length; never more than ``limit`` bytes
    (:data:`MAX_INFLATED`): an :class:`OSError` (``_TooLarge``) saying so."""
    limit = MAX_INFLATED if limit is None else limit
    members = []
    total = 0
    while data:
        inflate = inflater.decompressobj(wbits=16 + zlib.MAX_WBITS)
        piece = inflate.decompress(data, limit - total + 1)
        total += len(piece)
        if total > limit:
            raise _TooLarge(f"it inflates to more than {limit:,} bytes ({limit / 2**30:g} GiB), the limit for a "
                          "compressed file; decompress it first (a plain file has no limit)")
        members.append(piece)
        if not inflate.eof:
            raise EOFError("compressed file ended before the end-of-stream marker was reached")
        data = inflate.unused_data.lstrip(b"\x00")  # null padding between or after members, as gzip allows
    return members[0] if len(members) == 1 else b"".join(members)


def _text(raw: bytes, name: str) -> bytes:
    """The text of a file after the format's rules on bytes (module docstring), line numbers kept: BOM dropped,
    CRLF made LF, comment lines blanked, every character checked (:func:`_check_text`)."""
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n")
        if raw.endswith(b"\r"):
            raw = raw[:-1]  # a last line ended by CR alone
    if b"#" in raw:
        raw = _COMMENT_LINE.sub(b"", raw)
    _check_text(raw, name)
    return raw


def _single_blanks(data: bytes) -> bytes:
    """``data`` with every run of blanks (spaces, tabs) made one space and the blanks at the ends of lines dropped
    (line numbers kept)."""
    data = re.sub(rb"[ \t]+", b" ", data)
    if b"\n " in data:
        data = data.replace(b"\n ", b"\n")
    if b" \n" in data:
        data = data.replace(b" \n", b"\n")
    return data.strip(b" ")


class _Uneven(Exception):
    """The text is not split into the fields of the format by one separator byte (a run of blanks, blanks at the
    end of a line, more fields): it is parsed again after :func:`_single_blanks`."""


def _columns(parse: Any, raw: bytes, name: str) -> Any:
    """``parse(text, separator, fast)`` of the text of ``raw`` (:func:`_parsed_columns`), and no id that opens a
    quote it does not close (:func:`_check_quotes`); every error names the first bad line."""
    text = _text(raw, name)  # a character error comes first, wherever it is
    try:
        columns = _parsed_columns(parse, text, name)
    except InputFormatError as exc:
        _check_quotes(text, name, getattr(exc, "line", None))
        raise
    _check_quotes(text, name, None)
    return columns


#: a first or a third field (query id; run document id, qrels document id) that starts with a quote
_QUOTED_FIRST = re.compile(rb"(?m)^[ \t]*([\"'][^ \t\r\n]*)")
_QUOTED_THIRD = re.compile(rb"(?m)^[ \t]*[^ \t\r\n]+[ \t]+[^ \t\r\n]+[ \t]+([\"'][^ \t\r\n]*)")


def _check_quotes(data: bytes, name: str, before: int | None) -> None:
    """Raise for the first line (before line ``before``, the other error's) whose query or document id opens a quote
    that a later field of the line closes (``"d`` of ``"d 2"``): there is no quoting, so a quoted id with a blank was
    split into two fields and the line's other fields moved (a run line keeps six or more fields and would be read
    wrongly; a qrels line gets five). A quote in or around an id otherwise (``"d2"``, ``d"2``, ``"d4``) is data."""
    if b'"' not in data and b"'" not in data:
        return
    found = None
    for pattern, column in ((_QUOTED_FIRST, "query_id"), (_QUOTED_THIRD, "doc_id")):
        for match in pattern.finditer(data):
            field, quote = match.group(1), match.group(1)[:1]
            if len(field) > 1 and field.endswith(quote):
                continue  # "d2": closed in its field
            end = data.find(b"\n", match.end(1))
            if any(later.endswith(quote) for later in data[match.end(1):end if end >= 0 else None].split()):
                if found is None or match.start(1) < found[0]:
                    found = (match.start(1), column, field)
                break
    if found is None:
        return
    line = data.count(b"\n", 0, found[0]) + 1
    if before is None or line < before:
        value = found[2].decode("utf-8", errors="replace")
        raise _line_error(name, line, data, f"{found[1]} {value!r} opens a quote that a later field closes: "
                                            "fields are separated by blanks with no quoting, so a quoted id cannot "
                                            "hold a blank")


def _parsed_columns(parse: Any, text: bytes, name: str) -> Any:
    """``parse(text, separator, fast)`` of ``text`` (after :func:`_text`): first split on its one separator
    byte (``fast``: any doubt raises :class:`_Uneven`), else after :func:`_single_blanks`. A line with another
    number of fields is reported unless an earlier line is bad too (every error names the first bad line)."""
    data = text or b"\n"  # no byte: an empty table (pyarrow refuses no bytes at all)
    tab, space = b"\t" in data, b" " in data
    if not (tab and space):
        try:
            return parse(data, b"\t" if tab else b" ", True)
        except _Uneven:
            pass
    data = _single_blanks(data) or b"\n"
    try:
        return parse(data, b" ", False)
    except _FieldCount as found:
        start = 0
        for _ in range(found.line - 1):
            start = data.find(b"\n", start) + 1
        if start:
            try:
                parse(data[:start], b" ", False)
            except _FieldCount as earlier:  # pragma: no cover  (the first such line is the one found)
                raise earlier.error from None
        raise found.error from None


def _check_text(raw: bytes, name: str) -> None:
    """Raise :class:`~prefeval.errors.InputFormatError` for the first byte that is not UTF-8 or character that
    no id may hold (module docstring), naming its line."""
    if raw.isascii():
        if not _has_bad_ascii(raw):  # nothing but text bytes (the common case)
            return
        found = _BAD_ASCII.search(raw)  # on the bytes: no decoded copy of a file of NUL bytes
        line = raw.count(b"\n", 0, found.start()) + 1
        raise _line_error(name, line, raw, f"{_char_name(chr(found.group()[0]))} in a field; {_ID_RULE}")
    else:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise _line_error(name, line, raw, f"not valid UTF-8 ({exc.reason})") from None
    found = _BAD_CHAR.search(text)
    if found is not None:
        line = text.count("\n", 0, found.start()) + 1
        raise _line_error(name, line, raw, f"{_char_name(found.group())} in a field; {_ID_RULE}")


_BLOCK = 1 << 20  # bytes of text examined at a time by numpy: temporaries stay in cache


def _has_bad_ascii(raw: bytes) -> bool:
    """Whether ASCII ``raw`` holds a byte no text may (:data:`_BAD_BYTES`: a control byte other than tab and newline,
    or DEL): per block of :data:`_BLOCK` bytes, the bytes below 0x20 must be as many as its tabs and newlines."""
    if b"\x7f" in raw:
        return True
    tabs = b"\t" in raw
    data = np.frombuffer(raw, dtype=np.uint8)
    for k in range(0, len(data), _BLOCK):
        block = data[k:k + _BLOCK]
        controls = np.count_nonzero(block < 0x20)
        if controls and controls != np.count_nonzero(block == 0x0a) + (np.count_nonzero(block == 0x09) if tabs else 0):
            return True
    return False


def _has_empty_field(data: bytes, sep: bytes) -> bool:
    """Whether some line of ``data`` (lines end with LF) has an empty field when split on the byte ``sep``: two
    separators side by side, or one at the start or end of a line (an empty line is no field)."""
    if not data:
        return False
    if data[:1] == sep or data[-1:] == sep:
        return True
    array = np.frombuffer(data, dtype=np.uint8)
    for k in range(0, len(array), _BLOCK):
        block = array[k:k + _BLOCK + 1]  # one byte of overlap: a pair across two blocks is seen
        separator = block == sep[0]
        boundary = separator | (block == 0x0a)
        pairs = boundary[1:] & boundary[:-1]  # (rare: usually no two boundaries side by side, but for blank lines)
        if pairs.any() and np.any(pairs & (separator[1:] | separator[:-1])):
            return True
    return False


_ID_RULE = ("fields are separated by spaces or tabs, and ids hold no control character or other whitespace")


def _char_name(char: str) -> str:
    """``U+000B (a control character)`` and the like, for messages."""
    if char == "\ufeff":
        return "U+FEFF (a byte-order mark, allowed only as a file's first character)"
    kind = "whitespace" if char.isspace() and not 0x09 <= ord(char) <= 0x0d and ord(char) not in (0x1c, 0x1d, 0x1e,
                                                                                                  0x1f, 0x85) else \
        "a surrogate (not UTF-8)" if 0xd800 <= ord(char) <= 0xdfff else "a control character"
    return f"U+{ord(char):04X} ({kind})"


def _line_error(name: str, line: int, data: bytes, problem: str) -> InputFormatError:
    """The one-line error naming ``name`` and ``line`` (1-based, in ``data``), with the line's text (shortened)."""
    start = 0
    for _ in range(line - 1):
        start = data.find(b"\n", start) + 1
        if not start:
            break
    end = data.find(b"\n", start)
    text = data[start:end if end >= 0 else len(data)][:200].decode("utf-8", errors="replace")
    shown = repr(text)
    shown = shown if len(shown) <= 100 else shown[:96] + "...'"
    error = InputFormatError(f"{name}, line {line}: {problem}: {shown}")
    error.line = line  # type: ignore[attr-defined]  (for :func:`_columns`: which of two errors comes first)
    return error


def _line_of_row(data: bytes, row: int) -> int:
    """The line number (1-based) of the ``row``-th (0-based) non-empty line of ``data``."""
    if b"\n\n" not in data and not data.startswith(b"\n"):
        return row + 1
    for k, match in enumerate(_LINE.finditer(data)):
        if k == row:
            return data.count(b"\n", 0, match.start()) + 1
    return row + 1  # pragma: no cover  (rows come from the lines)


def _table(data: bytes, sep: bytes, name: str, names: list[str], types: dict[str, Any], keep: list[str],
           extra_ok: bool, fast: bool = False, block: int = 1 << 20, in_parts: bool = False) -> Any:
    """``data`` split on ``sep`` and parsed by ``pyarrow.csv`` into the columns ``keep`` of ``types``; a line with
    another number of fields than ``names`` is an error naming it (with ``extra_ok``, more fields: those are
    dropped and the text parsed again). ``fast``: any failure, or an empty field, raises :class:`_Uneven`
    instead (the text may hold runs of blanks).

    The text is parsed on the calling thread (``use_threads=False``), where Arrow numbers a bad row, and Arrow's
    serial reader ends its read-ahead thread before it returns. Arrow's threaded reader finishes on a pool thread
    after returning the table and drops the text there: releasing Python-owned memory takes the GIL, and a pool
    thread that asks for it while the interpreter exits is ended by Python (``PyThread_exit_thread``) inside a
    destructor, which aborts the process ("terminate called without an active exception"); a copy of the text in
    Arrow's memory would hold it twice. ``in_parts``: a text of :data:`PARTS_BYTES` or more is first parsed in parts
    on this call's own threads (:func:`_parts_table`); where a part fails, the whole text is parsed as above."""
    import pyarrow as pa  # deferred: the reader's engine

    if fast and _has_empty_field(data, sep):
        raise _Uneven
    if in_parts and len(data) >= PARTS_BYTES:
        table = _parts_table(data, sep, names, types, keep, block)
        if table is not None:
            return table
    bad: list[Any] = []

    def invalid(row: Any) -> str:
        bad.append(row)
        return "error"

    try:
        table = _parse(pa.BufferReader(data), sep, names, types, keep, block, invalid)  # read in place
    except pa.ArrowInvalid as exc:
        if "straddling" in str(exc) and block < len(data):  # a line longer than a block (of 1 MiB, fast in cache)
            return _table(data, sep, name, names, types, keep, extra_ok, fast, len(data) + 1)
        if fast:
            raise _Uneven from None
        if bad:
            row = bad[0]
            if extra_ok and row.actual_columns > row.expected_columns:
                fields = len(names)
                extra = re.compile(rb"(?m)^((?:[^%s\n]*%s){%d}[^%s\n]*)%s[^\n]*" % (sep, sep, fields - 1, sep, sep))
                return _table(extra.sub(rb"\1", data), sep, name, names, types, keep, False)
            line = _line_of_row(data, row.number - 1) if row.number else 0
            what = _RUN_FIELDS if len(names) == 6 else _QRELS_FIELDS
            more = " or more" if extra_ok else ""
            raise _FieldCount(line, _line_error(name, line, data, f"expected {len(names)}{more} fields ({what}), "
                                                                  f"found {row.actual_columns}")) from None
        if "conversion error" in str(exc):
            strings = dict.fromkeys(types, pa.string())
            table = _table(data, sep, name, names, strings, keep, extra_ok)
            for column, kind in types.items():
                if kind != pa.string() and column in keep:
                    row = _first_invalid(table.column(column).combine_chunks(), kind)
                    if row is not None:
                        value = table.column(column)[row].as_py()
                        raise _line_error(name, _line_of_row(data, row), data,
                                          f"{column} {value!r} is not a number") from None
        raise InputFormatError(f"{name}: cannot read the file ({str(exc).splitlines()[0][:200]})") from None
    return table


#: Texts of this size or more are parsed in parts, one per core (:func:`_parts_table`).
PARTS_BYTES = 8 << 20


def _parse(source: Any, sep: bytes, names: list[str], types: dict[str, Any], keep: list[str], block: int,
           invalid: Any = None) -> Any:
    """``pyarrow.csv.read_csv`` of ``source`` on the calling thread with the reader's options (fields split on
    ``sep``, no quoting, empty lines skipped, the columns ``keep`` of ``types``); ``invalid(row)``: Arrow's handler of
    a row with another number of fields (default: an error)."""
    import pyarrow.csv as pacsv  # deferred: the reader's engine

    return pacsv.read_csv(
        source,
        read_options=pacsv.ReadOptions(column_names=names, use_threads=False, block_size=block),
        parse_options=pacsv.ParseOptions(delimiter=sep.decode(), quote_char=False, escape_char=False,
                                         ignore_empty_lines=True, invalid_row_handler=invalid),
        convert_options=pacsv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False,
                                             quoted_strings_can_be_null=False, check_utf8=False,
                                             include_columns=keep),
    )


def _parts_table(data: bytes, sep: bytes, names: list[str], types: dict[str, Any], keep: list[str],
                 block: int) -> Any:
    """``data`` parsed as :func:`_parse` parses it, in parts cut at line ends, one per core, each on a thread of this
    call (Arrow's serial reader, which drops its part before it returns; the threads end before this call does, so
    no thread holds the text afterwards); the parts' tables one after the other. None when there is one part, or
    when a part fails (the caller then parses the whole text on its thread, where Arrow numbers the bad row)."""
    import pyarrow as pa  # deferred: the reader's engine

    parts = os.cpu_count() or 1
    ends = {data.find(b"\n", len(data) * k // parts) + 1 for k in range(1, parts)}  # (0: no line end follows)
    cuts = sorted({0, len(data)} | (ends - {0}))
    if len(cuts) < 3:
        return None
    view = memoryview(data)
    try:
        with ThreadPoolExecutor(len(cuts) - 1, thread_name_prefix="prefeval-parse") as pool:
            tables = list(pool.map(lambda a, b: _parse(pa.py_buffer(view[a:b]), sep, names, types, keep, block),
                                   cuts[:-1], cuts[1:]))
        return pa.concat_tables(tables)
    except pa.ArrowException:
        return None


class _FieldCount(Exception):
    """A line with another number of fields (``line``; ``error`` names it): raised by :func:`_table` for
    :func:`_columns`, which reports an earlier bad line first."""

    def __init__(self, line: int, error: InputFormatError) -> None:
        super().__init__(str(error))
        self.line, self.error = line, error


def _first_invalid(strings: Any, kind: Any) -> int | None:
    """The first of ``strings`` (a pyarrow string array) that Arrow cannot convert to ``kind`` (None: none), by
    bisection with Arrow's own conversion (the one the reader applies)."""
    import pyarrow as pa  # deferred: the reader's engine

    def converts(a: int, b: int) -> bool:
        try:
            strings.slice(a, b - a).cast(kind)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return False
        return True

    lo, hi = 0, len(strings)
    if converts(lo, hi):
        return None
    while hi - lo > 1:  # the first invalid value is in [lo, hi)
        mid = (lo + hi) // 2
        if converts(lo, mid):
            lo = mid
        else:
            hi = mid
    return lo


def _strings(column: Any) -> Any:
    """An Arrow column (strings, or dictionary-encoded strings) as one string array."""
    import pyarrow as pa  # deferred: the reader's engine

    column = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    return column.cast(pa.string()) if hasattr(column.type, "value_type") else column


def _run_columns(raw: bytes, name: str, extra_columns: bool) -> Columns:
    """The run's columns from the file's bytes (module docstring); errors name ``name`` and the line."""
    return _columns(lambda text, sep, fast: _run_table(text, sep, name, extra_columns, fast), raw, name)


def _run_table(data: bytes, sep: bytes, name: str, extra_columns: bool, fast: bool) -> Columns:
    import pyarrow as pa  # deferred: the reader's engine

    types = {"query_id": pa.string(), "doc_id": pa.string(), "score": pa.float64()}
    if extra_columns:
        types.update(rank=pa.string(), tag=pa.string())
    table = _table(data, sep, name, _RUN_NAMES, types, list(types), True, fast, in_parts=True)  # Q0 (and rank,
    # tag): split only
    scores = _float_values(table.column("score"))
    nan = np.flatnonzero(np.isnan(scores))
    if len(nan):
        raise _line_error(name, _line_of_row(data, int(nan[0])), data, "score is NaN")
    out = Columns(query_id=_strings(table.column("query_id")), doc_id=_strings(table.column("doc_id")), score=scores)
    if extra_columns:
        out["rank"] = _strings(table.column("rank"))
        out["tag"] = _strings(table.column("tag"))
    return out


def _float_values(column: Any) -> np.ndarray:
    """A float64 Arrow column (no nulls) as a numpy array."""
    return to_numpy(column)


def _qrels_columns(raw: bytes, name: str) -> Columns:
    """The qrels' columns from the file's bytes (module docstring); errors name ``name`` and the line."""

    return _columns(lambda text, sep, fast: _qrels_table(text, sep, name, fast), raw, name)


def _qrels_table(data: bytes, sep: bytes, name: str, fast: bool) -> Columns:
    import pyarrow as pa  # deferred: the reader's engine

    coded = pa.dictionary(pa.int32(), pa.string())  # a few distinct grades: each token checked once
    types = {"query_id": pa.string(), "iteration": pa.string(), "doc_id": pa.string(), "relevance": coded}
    table = _table(data, sep, name, _QRELS_NAMES, types, _QRELS_NAMES, False, fast, in_parts=True)
    grades = table.column("relevance").combine_chunks()
    tokens = grades.dictionary.to_pylist()
    values = np.zeros(len(tokens), dtype=np.int64)
    for code, token in enumerate(tokens):
        value = grade_value(token)
        if value is None:
            indices = to_numpy(grades.indices)
            row = int(np.flatnonzero(indices == code)[0])
            raise _line_error(name, _line_of_row(data, row), data, _grade_problem(token))
        values[code] = value
    relevance = values[to_numpy(grades.indices)] if len(grades) \
        else np.zeros(0, np.int64)
    return Columns(query_id=_strings(table.column("query_id")), doc_id=_strings(table.column("doc_id")),
                   relevance=relevance, iteration=_strings(table.column("iteration")))


def grade_value(token: Any) -> int | None:
    """The grade a qrels token (``str``) or value (an integer, or an integral float) stands for, None when it is
    none (module docstring: ASCII digits, in [:data:`MIN_GRADE`, :data:`MAX_GRADE`])."""
    if isinstance(token, str):
        if not _GRADE.fullmatch(token) or len(token) > 12:
            return None
        value = int(token)
    elif isinstance(token, (bool, np.bool_)):
        return None
    elif isinstance(token, (int, np.integer)):
        value = int(token)
    elif isinstance(token, (float, np.floating)) and np.isfinite(token) and float(token).is_integer():
        value = int(token)
    else:
        return None
    return value if MIN_GRADE <= value <= MAX_GRADE else None


def _grade_problem(token: Any) -> str:
    return f"relevance {token!r} is not an integer grade from {MIN_GRADE} to {MAX_GRADE} (ASCII digits)"


def check_ids(values: Any, what: str, where: Any = None) -> None:
    """Raise :class:`~prefeval.errors.PrefevalError` unless every id of ``values`` (a pyarrow string array, a
    pandas Series or a list of ``str``) is valid (module docstring: non-empty, no control character or
    whitespace); the message names the first bad id, ``what`` (e.g. ``"run 'bm25' (dict): doc_id"``) and, with
    ``where`` (a callable of the row), its row."""
    row = first_bad_id(values)
    if row is None:
        return
    value = _value_at(values, row)
    reason = "is missing" if not isinstance(value, str) else "is empty" if value == "" else \
        f"holds {_char_name(_BAD_ID_CHAR.search(value).group())}"
    place = f" ({where(row)})" if where is not None else ""
    shown = repr(value) if isinstance(value, str) else "(none)"
    raise PrefevalError(f"{what} {shown}{place} {reason}; ids are non-empty strings without control characters "
                        "or whitespace")


def _value_at(values: Any, row: int) -> Any:
    if hasattr(values, "iloc"):
        return values.iloc[row]
    value = values[row]
    return value.as_py() if hasattr(value, "as_py") else value


def plain_ascii(text: str) -> bool:
    """Whether ``text`` (ids one after another) holds only printable ASCII other than space, which every id may
    hold (checked in C; other text needs :func:`first_bad_id`)."""
    return text.isascii() and not text.encode("ascii").translate(None, _ID_BYTES)


def first_bad_id(values: Any) -> int | None:
    """The row of the first invalid id of ``values`` (:func:`check_ids`), None when all are valid: one scan of the
    ids' characters (of their UTF-8 buffer for Arrow strings)."""
    arrow = _arrow_strings(values)
    if arrow is not None:
        return _first_bad_arrow(arrow)
    if hasattr(values, "tolist"):
        values = values.tolist()
    try:  # all str (the usual case): joined and measured in C
        joined = "".join(values)
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    except TypeError:
        joined, lengths = None, np.fromiter(map(_length, values), dtype=np.int64, count=len(values))
    if not len(lengths):
        return None
    short = np.flatnonzero(lengths <= 0)  # -1: not a str (missing)
    first = int(short[0]) if len(short) else None
    if joined is None:
        joined = "".join(v for v in values if isinstance(v, str))
    if plain_ascii(joined):
        return first  # printable ASCII only: checked in C
    found = _BAD_ID_CHAR.search(joined)
    if found is not None:
        ends = np.cumsum(np.maximum(lengths, 0))
        row = int(np.searchsorted(ends, found.start(), side="right"))
        first = row if first is None else min(first, row)
    return first


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str) else -1


def _arrow_strings(values: Any) -> Any:
    """The pyarrow string array behind ``values`` (an Arrow array or Arrow-backed pandas Series); else None."""
    pa = sys.modules.get("pyarrow")
    if pa is None:
        return None
    if is_pandas(values, "Series", "Index") or hasattr(values, "__arrow_array__"):
        array = getattr(values, "array", values)
        inner = getattr(array, "_pa_array", None)
        if inner is None:
            return None
        values = inner
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array) and values.type in (pa.string(), pa.large_string()):
        return values
    return None


def _first_bad_arrow(array: Any) -> int | None:
    """:func:`first_bad_id` of a pyarrow string array, from its offsets and UTF-8 bytes."""
    n = len(array)
    if not n:
        return None
    candidates = []
    if array.null_count:
        candidates.append(int(np.flatnonzero(~to_numpy(array.is_valid()))[0]))
    _, offsets_buffer, data_buffer = array.buffers()
    width = np.int64 if str(array.type) == "large_string" else np.int32
    offsets = np.frombuffer(offsets_buffer, dtype=width)[array.offset:array.offset + n + 1]
    empty = np.flatnonzero(np.diff(offsets) == 0)
    if len(empty):
        candidates.append(int(empty[0]))
    data = bytes(memoryview(data_buffer)[offsets[0]:offsets[-1]]) if data_buffer is not None else b""
    position = _first_bad_byte(data)
    if position is not None:
        candidates.append(int(np.searchsorted(offsets[1:] - offsets[0], position, side="right")))
    return min(candidates) if candidates else None


def _first_bad_byte(data: bytes) -> int | None:
    """The byte offset in ``data`` (the UTF-8 of ids, one after another) of the first character no id may hold."""
    if data.isascii():
        if not data.translate(None, _ID_BYTES):
            return None
        text = data.decode("ascii")
    else:
        text = data.decode("utf-8", errors="surrogateescape")
    found = _BAD_ID_CHAR.search(text)
    if found is None:
        return None
    return len(text[:found.start()].encode("utf-8", errors="surrogateescape"))


def read_run(source: PathOrFile, *, extra_columns: bool = False) -> pd.DataFrame:
    """Read a TREC run (6 fields: ``query_id Q0 doc_id rank score tag``, further fields ignored; plain or gzip;
    ``#`` comments; the rules of the module docstring).

    Returns a DataFrame with columns ``query_id`` (str), ``doc_id`` (str), ``score`` (float64), in
    file order, plus ``rank`` (str, as written) and ``tag`` (str) when ``extra_columns`` is true.
    The rank column is never used for ordering (trec_eval semantics: score desc, doc_id desc).

    Raises :class:`FileNotFoundError` for a missing file and :class:`~prefeval.errors.InputFormatError` (naming
    file and line) for a line that breaks the rules.
    """
    return _frame(read_run_columns(source, extra_columns=extra_columns))


def read_run_columns(source: PathOrFile, *, extra_columns: bool = False) -> Columns:
    """The columns of :func:`read_run` (the same reading) without building a DataFrame: ids as pyarrow string
    arrays, ``score`` a float64 numpy array."""
    raw, name = _read_bytes(source, "run")
    columns = _run_columns(raw, name, extra_columns)
    del raw
    _release_parse_memory()
    return columns


def _release_parse_memory() -> None:
    """Return the memory of the parse (the file's text, Arrow's blocks and the columns not kept) to the system now:
    Arrow's allocator keeps freed memory for a while, under what numpy allocates next (ranking a 7M-line run: a
    peak 0.35 GiB higher without this; the call takes microseconds)."""
    import pyarrow as pa  # deferred: loaded already by the parse

    pa.default_memory_pool().release_unused()


def read_qrels(source: PathOrFile) -> pd.DataFrame:
    """Read TREC qrels (4 fields: ``query_id iteration doc_id relevance``; plain or gzip; ``#`` comments; the rules
    of the module docstring).

    Returns a DataFrame with columns ``query_id`` (str), ``doc_id`` (str), ``relevance`` (int64) and
    ``iteration`` (str: ``"0"``/``"Q0"`` for ad hoc qrels, the subtopic id for diversity qrels), in
    file order. Raises :class:`FileNotFoundError` for a missing file and
    :class:`~prefeval.errors.InputFormatError` (naming file and line) for a line that breaks the rules.
    """
    return _frame(read_qrels_columns(source))


def read_qrels_columns(source: PathOrFile) -> Columns:
    """The columns of :func:`read_qrels` (the same reading) without building a DataFrame: ids as pyarrow string
    arrays, ``relevance`` an int64 numpy array."""
    raw, name = _read_bytes(source, "qrels")
    return _qrels_columns(raw, name)


def run_file_problem(path: str | os.PathLike, head: int = 1 << 16) -> str | None:
    """Why the file ``path`` is not a TREC run, judged by the complete lines of its first ``head`` bytes
    (decompressed) read as :func:`read_run` reads them; None when they are right (or it holds no line)."""
    try:
        with open(path, "rb") as handle:
            gzipped = handle.read(2) == b"\x1f\x8b"
        with (gzip.open(path, "rb") if gzipped else open(path, "rb")) as handle:
            raw = handle.read(head + 1)
    except (OSError, EOFError) as exc:
        return f"cannot read it: {getattr(exc, 'strerror', None) or exc}"
    if len(raw) > head:
        raw = raw[:raw.rfind(b"\n", 0, head) + 1]
    try:
        _run_columns(raw, str(path), False)
    except InputFormatError as exc:
        return str(exc).removeprefix(f"{path}, ")
    return None


def _frame(columns: Columns) -> pd.DataFrame:
    """The DataFrame :func:`read_run` / :func:`read_qrels` return, from reader columns: Arrow strings become the
    dtype pandas gives ``dtype=str`` columns; numpy arrays and pandas Series are kept."""
    string = string_dtype()
    return pd.DataFrame({name: _to_pandas(column, string) for name, column in columns.items()})


def _to_pandas(column: Any, string: Any = None) -> Any:
    if isinstance(column, np.ndarray) or is_pandas(column, "Series"):
        return column
    return ids_to_pandas(column)
