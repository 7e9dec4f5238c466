"""TREC run and qrels files: fast readers and writers.

Formats (as read by ``trec_eval``):

* run: ``query_id Q0 doc_id rank score tag`` -- 6 fields per line;
* qrels: ``query_id iteration doc_id relevance`` -- 4 fields per line; ``iteration`` is ``0``/``Q0``
  for ad hoc qrels and the **subtopic id** for diversity qrels (TREC Web), so it is kept as a string.

Fields are separated by runs of spaces or tabs (leading/trailing blanks, CRLF and blank lines are
fine). Lines whose first non-blank character is ``#`` are comments and are skipped (the
``ir_metadata`` header of annotated runs lives in such lines); a ``#`` inside a field is data.
Files may be gzip-compressed (detected from the content, not the name).

Identifiers are read as strings (``"0012"`` stays ``"0012"``, ``"NA"`` stays ``"NA"``); scores are
floats (ints, decimals and exponents; ``inf`` is accepted, ``nan`` is an error); relevance grades
are integers (negative grades such as ``-2`` junk are kept). The rank column and the ``Q0``
column are ignored, as by trec_eval (``read_run(..., extra_columns=True)`` keeps rank and tag).

:func:`read_run` / :func:`read_qrels` (DataFrames) parse with ``pyarrow.csv`` when pyarrow is installed and the
file has the simple shape almost every tool writes (fields separated by single spaces, or by single tabs, no
quote, no CR): pandas 3 then holds the ids as Arrow strings, without a Python object per row; so do
:func:`read_run_columns` / :func:`read_qrels_columns` (the form :func:`prefeval.compare` reads files in) for files
of :data:`ARROW_BYTES` or more. Otherwise -- smaller files in the columns form, and without pyarrow -- they are
parsed by numpy (:mod:`prefeval.textscan`: the ids stay UTF-8 bytes,
:class:`~prefeval.utf8.Utf8Column`; neither pandas nor pyarrow needed), and when that declines (a CR, a control
character, a line with another number of fields, a value that is not a number, bytes that are not UTF-8) by
pandas' C tokenizer on the whole file, whose results are the same. Only when that fails (or the
vectorised checks find a bad value) is the file scanned line by line to name the first offending line in an
:class:`~prefeval.errors.InputFormatError`.
"""

from __future__ import annotations

import io
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from prefeval import textscan
from prefeval._arrow import to_numpy
from prefeval._lazy import is_pandas, lazy_module
from prefeval.encoding import string_dtype
from prefeval.errors import InputFormatError, PrefevalError
from prefeval.utf8 import Utf8Column

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

PathOrFile = str | os.PathLike | IO[str] | IO[bytes]

RUN_COLUMNS = ["query_id", "doc_id", "score"]
QRELS_COLUMNS = ["query_id", "doc_id", "relevance", "iteration"]



class Columns(dict):
    """Named columns of a canonical run (``query_id, doc_id, score``) or qrels table (``query_id, doc_id,
    relevance, iteration``), as :func:`read_run_columns` / :func:`read_qrels_columns` give them: pyarrow string
    arrays or :class:`~prefeval.utf8.Utf8Column` (ids as UTF-8 bytes) and numpy arrays (no pandas needed), or pandas
    Series. Ranking and :func:`prefeval.compare` accept them
    where they accept a DataFrame; :meth:`frame` gives the DataFrame :func:`read_run` / :func:`read_qrels` give."""

    def __len__(self) -> int:  # rows, as len() of a DataFrame
        return len(next(iter(self.values()))) if dict.__len__(self) else 0

    def frame(self) -> pd.DataFrame:
        """The columns as the DataFrame of :func:`read_run` / :func:`read_qrels`."""
        return _frame(self)


_RUN_FIELDS = "query_id Q0 doc_id rank score tag"
_QRELS_FIELDS = "query_id iteration doc_id relevance"
_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*#[^\r\n]*")
_FLOAT = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity)", re.IGNORECASE)
_INT = re.compile(r"[+-]?\d{1,18}(?:\.0*)?")
_WS = re.compile(r"\s")


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
            raw = raw.encode("utf-8")
    else:
        path = Path(os.fspath(source))  # type: ignore[arg-type]
        name = str(path)
        raw = read_file_bytes(path, kind)
    if raw[:2] == b"\x1f\x8b":
        inflater = _inflater()
        try:
            raw = _gunzip(raw, inflater)
        except (OSError, EOFError, zlib.error, inflater.error) as exc:
            raise InputFormatError(f"{name}: corrupt gzip data ({exc})") from None
    return raw, name


def _inflater() -> Any:
    """ISA-L's zlib-compatible module when python-isal is installed (the ``fast`` extra; it inflates about 2.5x as
    fast), else the standard library's :mod:`zlib`."""
    try:
        from isal import isal_zlib  # deferred: optional
    except ImportError:
        return zlib
    return isal_zlib


def _gunzip(data: bytes, inflater: Any = zlib) -> bytes:
    """The content of gzip ``data`` (every member, as :func:`gzip.decompress`), in one pass of ``inflater`` (a
    zlib-compatible module), which also checks each member's CRC and length."""
    members = []
    while data:
        inflate = inflater.decompressobj(wbits=16 + zlib.MAX_WBITS)
        members.append(inflate.decompress(data))
        if not inflate.eof:
            raise EOFError("compressed file ended before the end-of-stream marker was reached")
        data = inflate.unused_data.lstrip(b"\x00")  # null padding between or after members, as gzip allows
    return members[0] if len(members) == 1 else b"".join(members)


def _strip_comments(raw: bytes) -> bytes:
    """Blank out full-line ``#`` comments (the newline is kept, so pandas skips an empty line)."""
    if b"#" not in raw:
        return raw
    return _COMMENT_LINE.sub(b"", raw)


# Scores must parse exactly (as trec_eval's strtod) or equal scores could differ and reorder ties. pandas 3
# parses exactly by default and deprecates the option; pandas 2's default converter can be off by an ulp.
def _exact_floats() -> dict[str, str]:
    return {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


def _parse(raw: bytes, dtypes: dict[int, Any]) -> pd.DataFrame:
    return pd.read_csv(
        io.BytesIO(raw),
        sep=r"\s+",
        header=None,
        dtype=dtypes,
        na_filter=False,  # "NA", "null", "nan" ids stay strings
        engine="c",
        encoding="utf-8",
        skip_blank_lines=True,
        **_exact_floats(),
    )


def _single_delimiter(data: bytes) -> str | None:
    """``" "`` or ``"\\t"`` when only one of the two occurs in ``data`` and there is no quote, CR, vertical
    tab or form feed; ``None`` otherwise. Splitting a line on that byte then gives the fields of the
    whitespace-run rule unless some field comes out empty (a doubled, leading or trailing blank), which
    :func:`_empty_field` finds."""
    if any(ch in data for ch in (b'"', b"\r", b"\x0b", b"\x0c")):
        return None
    if b"\t" not in data:
        return " "
    return None if b" " in data else "\t"


def _arrow_table(data: bytes, delimiter: str, names: list[str], types: dict[str, Any],
                 keep: list[str] | None = None) -> Any:
    """``data`` parsed by ``pyarrow.csv`` with these column names and types (no quoting, no nulls; only the columns
    ``keep`` converted, default all); ``None`` when pyarrow is not installed or rejects the data (a line with
    another number of fields, a score that is not a number, ...) or the data is not UTF-8 (pandas then names the
    line)."""
    if not _is_utf8(data):
        return None
    try:
        import pyarrow as pa  # deferred: optional (pandas' reader is used without it)
        import pyarrow.csv as pacsv  # deferred: optional
    except ImportError:
        return None
    try:
        return pacsv.read_csv(
            pa.BufferReader(data),  # read in place (a BytesIO would be copied block by block)
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False,
                                                 check_utf8=False, include_columns=keep or names),
        )
    except (pa.ArrowException, ValueError):
        return None


def _empty_field(data: bytes, delimiter: str) -> bool:
    """Whether splitting the lines of ``data`` on ``delimiter`` gives an empty field: the delimiter twice in a
    row, or at the start or end of a line (of the data). Blank lines are no fields (the parser skips them).
    Scanned in blocks of 256 KiB (overlapping by one byte), so the temporary arrays stay small."""
    if not data:
        return False
    raw = np.frombuffer(data, dtype=np.uint8)
    if raw[0] == ord(delimiter) or raw[-1] == ord(delimiter):
        return True
    step = 1 << 18
    for start in range(0, len(raw) - 1, step):
        block = raw[start:start + step + 1]
        sep = block == ord(delimiter)
        edge = sep | (block == ord("\n"))  # a delimiter next to a delimiter or a newline
        if np.any(edge[1:] & edge[:-1] & (sep[1:] | sep[:-1])):
            return True
    return False


def _arrow_run(data: bytes, extra_columns: bool) -> Columns | None:
    """The run's columns as Arrow arrays, parsed by ``pyarrow.csv`` when pyarrow is installed, one separator byte
    is used (see :func:`_single_delimiter`), every line has 6 non-empty fields and every score is a number that is
    not NaN; ``None`` otherwise (the caller then takes the pandas path, which names the bad line)."""
    delimiter = _single_delimiter(data)
    if delimiter is None:
        return None
    try:
        import pyarrow as pa  # deferred: optional (pandas' reader is used without it)
    except ImportError:
        return None
    if _empty_field(data, delimiter):
        return None
    names = ["query_id", "Q0", "doc_id", "rank", "score", "tag"]
    keep = ["query_id", "doc_id", "score"] + (["rank", "tag"] if extra_columns else [])
    types = {name: pa.float64() if name == "score" else pa.string() for name in keep}
    table = _arrow_table(data, delimiter, names, types, keep)  # every line is split; only ``keep`` is converted
    if table is None or table.num_rows == 0:
        return None
    columns = Columns({name: _plain(table.column(name)) for name in keep})
    if np.isnan(columns["score"]).any():
        return None
    return columns


_DECIMAL_INT = re.compile(r"[+-]?\d{1,18}")


def _arrow_qrels(data: bytes) -> Columns | None:
    """The qrels' columns as Arrow arrays (relevance as int64 numpy), parsed by ``pyarrow.csv`` under the
    conditions of :func:`_arrow_run` (4 non-empty fields per line) when every grade is a plain decimal integer;
    ``None`` otherwise (pandas' parser then decides, as without pyarrow)."""
    delimiter = _single_delimiter(data)
    if delimiter is None or _empty_field(data, delimiter):
        return None
    try:
        import pyarrow as pa  # deferred: optional (pandas' reader is used without it)
    except ImportError:
        return None
    coded = pa.dictionary(pa.int32(), pa.string())
    names = ["query_id", "iteration", "doc_id", "relevance"]
    types = {"query_id": pa.string(), "iteration": pa.string(), "doc_id": pa.string(), "relevance": coded}
    table = _arrow_table(data, delimiter, names, types)
    if table is None or table.num_rows == 0:
        return None
    grades = table.column("relevance").combine_chunks()
    tokens = grades.dictionary.to_pylist()  # a few distinct grades, checked as pandas reads them
    if not all(_DECIMAL_INT.fullmatch(token) for token in tokens):
        return None
    values = np.array([int(token) for token in tokens], dtype=np.int64)
    relevance = values[to_numpy(grades.indices)] if len(values) else np.zeros(0, np.int64)
    return Columns(query_id=_plain(table.column("query_id")), doc_id=_plain(table.column("doc_id")),
                   relevance=relevance, iteration=_plain(table.column("iteration")))


def _is_utf8(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8 (ASCII checked first, without decoding)."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


#: :func:`_numpy_columns` scans the data in pieces of about this many bytes (cut after a newline): the temporaries
#: of a piece stay small (about ten times its size) and in cache, however large the file.
SCAN_BYTES = 1 << 22


def _pieces(data: bytes) -> Iterator[bytes]:
    """``data`` in consecutive pieces of about :data:`SCAN_BYTES` bytes, each cut after a newline (a line, and so a
    UTF-8 sequence, is never split); the whole ``data`` when it is small."""
    start, size = 0, len(data)
    while start < size:
        stop = size
        if size - start > SCAN_BYTES:
            cut = data.rfind(b"\n", start, start + SCAN_BYTES)
            if cut < 0:
                cut = data.find(b"\n", start + SCAN_BYTES)
            stop = size if cut < 0 else cut + 1
        yield data if start == 0 and stop == size else data[start:stop]
        start = stop


def _numpy_columns(data: bytes, fields: int, strings: dict[str, int], number: int, parse: Callable
                   ) -> tuple[dict[str, Utf8Column], np.ndarray] | None:
    """The fields ``strings`` (name: field index) of every line as :class:`~prefeval.utf8.Utf8Column` and the field
    ``number`` converted by ``parse`` (:func:`prefeval.textscan.parse_floats` or ``parse_ints``), scanned by numpy
    piece by piece (:func:`_pieces`). None when the data are not UTF-8, have no line, a line has not ``fields``
    fields, a number does not convert, or the scan declines the data (the caller then takes pandas' parser, which
    names the bad line)."""
    texts: dict[str, list[np.ndarray]] = {name: [] for name in strings}
    numbers = []
    for piece in _pieces(data):
        if not _is_utf8(piece):
            return None
        located = textscan.split_fields(piece, fields)
        if located is None:
            return None
        starts, ends = located
        values = parse(piece, starts[:, number], ends[:, number])
        if values is None:
            return None
        numbers.append(values)
        for name, k in strings.items():
            texts[name].append(textscan.token_bytes(piece, starts[:, k], ends[:, k]))
    if not sum(map(len, numbers)):
        return None
    return {name: Utf8Column(np.concatenate(parts)) for name, parts in texts.items()}, np.concatenate(numbers)


def _numpy_run(data: bytes, extra_columns: bool) -> Columns | None:
    """The run's columns parsed by numpy (:func:`_numpy_columns`): ids as :class:`~prefeval.utf8.Utf8Column`, scores
    float64 (a NaN score declines, as a score that is not a number)."""
    strings = {"query_id": 0, "doc_id": 2} | ({"rank": 3, "tag": 5} if extra_columns else {})
    found = _numpy_columns(data, 6, strings, 4, textscan.parse_floats)
    if found is None:
        return None
    ids, scores = found
    return Columns(query_id=ids.pop("query_id"), doc_id=ids.pop("doc_id"), score=scores, **ids)


def _numpy_qrels(data: bytes) -> Columns | None:
    """The qrels' columns parsed by numpy (:func:`_numpy_columns`): ids as :class:`~prefeval.utf8.Utf8Column`,
    relevance int64."""
    found = _numpy_columns(data, 4, {"query_id": 0, "doc_id": 2, "iteration": 1}, 3, textscan.parse_ints)
    if found is None:
        return None
    ids, relevance = found
    return Columns(query_id=ids["query_id"], doc_id=ids["doc_id"], relevance=relevance, iteration=ids["iteration"])


def _plain(column: Any) -> Any:
    """An Arrow column as one array: dictionary-encoded strings decoded, scores as a float64 numpy array."""
    column = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    if column.type == "double":
        return to_numpy(column)
    if hasattr(column.type, "value_type"):  # dictionary-encoded
        return column.cast(column.type.value_type)
    return column


def _frame(columns: Columns) -> pd.DataFrame:
    """The DataFrame :func:`read_run` / :func:`read_qrels` return, from reader columns: Arrow strings become the
    dtype pandas gives ``dtype=str`` columns; numpy arrays and pandas Series are kept."""
    string = string_dtype()
    return pd.DataFrame({name: _to_pandas(column, string) for name, column in columns.items()})


def _to_pandas(column: Any, string: Any) -> Any:
    if isinstance(column, np.ndarray) or is_pandas(column, "Series"):
        return column
    if isinstance(column, Utf8Column):
        return pd.Series(column.to_numpy(), dtype=string)
    if isinstance(string, pd.StringDtype) and string.storage == "pyarrow":
        return column.to_pandas(types_mapper=lambda _: string)
    return column.to_pandas().astype(string)


def _check_run_line(fields: list[str]) -> str | None:
    if len(fields) != 6:
        return f"expected 6 fields ({_RUN_FIELDS}), found {len(fields)}"
    score = fields[4]
    if score.lower() in ("nan", "+nan", "-nan"):
        return f"score is NaN ({score!r})"
    if not _FLOAT.fullmatch(score):
        return f"score {score!r} is not a number"
    return None


def _check_qrels_line(fields: list[str]) -> str | None:
    if len(fields) != 4:
        return f"expected 4 fields ({_QRELS_FIELDS}), found {len(fields)}"
    if not _INT.fullmatch(fields[3]):
        return f"relevance {fields[3]!r} is not an integer"
    return None


def _locate_error(raw: bytes, name: str, check: Callable[[list[str]], str | None], cause: str) -> InputFormatError:
    """Scan ``raw`` line by line (slow path, only after a failure) and describe the first bad line."""
    for lineno, bline in enumerate(raw.split(b"\n"), start=1):
        try:
            line = bline.decode("utf-8")
        except UnicodeDecodeError as exc:
            return InputFormatError(f"{name}, line {lineno}: not valid UTF-8 ({exc.reason} at byte {exc.start})")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        problem = check(stripped.split())
        if problem:
            shown = stripped if len(stripped) <= 120 else stripped[:117] + "..."
            return InputFormatError(f"{name}, line {lineno}: {problem}: {shown!r}")
    return InputFormatError(f"{name}: could not parse the file ({cause})")


def read_run(source: PathOrFile, *, extra_columns: bool = False) -> pd.DataFrame:
    """Read a TREC run (6 fields: ``query_id Q0 doc_id rank score tag``; plain or gzip; ``#`` comments).

    Returns a DataFrame with columns ``query_id`` (str), ``doc_id`` (str), ``score`` (float64), in
    file order, plus ``rank`` (str, as written) and ``tag`` (str) when ``extra_columns`` is true.
    The rank column is never used for ordering (trec_eval semantics: score desc, doc_id desc).

    Raises :class:`FileNotFoundError` for a missing file and
    :class:`~prefeval.errors.InputFormatError` (naming file and line) for a line with the wrong
    number of fields or a score that is not a number or is NaN.
    """
    return _frame(_run_columns(source, extra_columns, arrow=True))


def read_run_columns(source: PathOrFile, *, extra_columns: bool = False) -> Columns:
    """The columns of :func:`read_run` (same parsing, validation and errors) without building a DataFrame: ``score``
    is a float64 numpy array; a file of less than :data:`ARROW_BYTES` bytes (decompressed) is read by numpy
    (:mod:`prefeval.textscan`), ``query_id`` and ``doc_id`` (and ``rank``, ``tag``) as
    :class:`~prefeval.utf8.Utf8Column`, importing neither pandas nor pyarrow (the same with and without pyarrow);
    a larger one by ``pyarrow.csv`` when pyarrow is installed (Arrow string arrays). Files neither takes are read by
    pandas (its columns)."""
    return _run_columns(source, extra_columns, arrow=None)


#: The columns form (:func:`read_run_columns`, :func:`read_qrels_columns`) reads files of at least this many bytes
#: (decompressed) with pyarrow when it is installed, smaller ones with numpy: pyarrow's CSV parser is faster per byte
#: (0.39 s against 0.49 s for an 84 MB run of 2M lines with full-precision scores), but importing pyarrow costs
#: about 0.1 s and 40 MB, more than it saves on smaller files (the 14 DL-Hard runs: 2.3 MB each).
ARROW_BYTES = 1 << 24


def _by_arrow(arrow: bool | None, data: bytes) -> bool:
    """Whether to try pyarrow's parser first: as ``arrow`` says, or (``None``) for data of :data:`ARROW_BYTES` or more."""
    return bool(arrow) or (arrow is None and len(data) >= ARROW_BYTES)


def _run_columns(source: PathOrFile, extra_columns: bool, arrow: bool | None) -> Columns:
    """The run's columns by the first parser that takes the file: ``pyarrow.csv`` (with ``arrow``, or with
    ``arrow=None`` for data of :data:`ARROW_BYTES` or more; Arrow strings, which pandas 3 frames hold without a
    Python object per row), numpy, pandas."""
    raw, name = _read_bytes(source, "run")
    data = _strip_comments(raw)
    fast = _arrow_run(data, extra_columns) if _by_arrow(arrow, data) else None
    if fast is None:
        fast = _numpy_run(data, extra_columns)
    if fast is not None:
        return fast
    dtypes = {0: str, 1: "category", 2: str, 3: str if extra_columns else "category", 4: "float64", 5: str}
    try:
        df = _parse(data, dtypes)
    except pd.errors.EmptyDataError:
        return Columns(_empty_run(extra_columns).items())
    except (ValueError, UnicodeDecodeError) as exc:  # ParserError is a ValueError
        raise _locate_error(raw, name, _check_run_line, str(exc)) from None
    if df.shape[1] != 6 or (df[5] == "").any() or np.isnan(df[4].to_numpy()).any():
        raise _locate_error(raw, name, _check_run_line, f"{df.shape[1]} columns")
    out = Columns(query_id=df[0], doc_id=df[2], score=df[4])
    if extra_columns:
        out["rank"] = df[3]
        out["tag"] = df[5]
    return out


def read_qrels(source: PathOrFile) -> pd.DataFrame:
    """Read TREC qrels (4 fields: ``query_id iteration doc_id relevance``; plain or gzip; ``#`` comments).

    Returns a DataFrame with columns ``query_id`` (str), ``doc_id`` (str), ``relevance`` (int64) and
    ``iteration`` (str: ``"0"``/``"Q0"`` for ad hoc qrels, the subtopic id for diversity qrels), in
    file order. Raises :class:`FileNotFoundError` for a missing file and
    :class:`~prefeval.errors.InputFormatError` (naming file and line) for a line with the wrong
    number of fields or a grade that is not an integer.
    """
    return _frame(_qrels_columns(source, arrow=True))


def read_qrels_columns(source: PathOrFile) -> Columns:
    """The columns of :func:`read_qrels` (same parsing, validation and errors) without building a DataFrame:
    ``relevance`` is an int64 numpy array and the ids are :class:`~prefeval.utf8.Utf8Column` (read by numpy) or,
    for a file of :data:`ARROW_BYTES` or more with pyarrow installed, Arrow string arrays -- as
    :func:`read_run_columns`."""
    return _qrels_columns(source, arrow=None)


def _qrels_columns(source: PathOrFile, arrow: bool | None) -> Columns:
    """The qrels' columns by the first parser that takes the file, as :func:`_run_columns`."""
    raw, name = _read_bytes(source, "qrels")
    data = _strip_comments(raw)
    fast = _arrow_qrels(data) if _by_arrow(arrow, data) else None
    if fast is None:
        fast = _numpy_qrels(data)
    if fast is not None:
        return fast
    try:
        df = _parse(data, {0: str, 1: str, 2: str, 3: "int64"})
    except pd.errors.EmptyDataError:
        return Columns(_empty_qrels().items())
    except (ValueError, OverflowError, UnicodeDecodeError) as exc:
        raise _locate_error(raw, name, _check_qrels_line, str(exc)) from None
    if df.shape[1] != 4 or not pd.api.types.is_integer_dtype(df[3]) or (df[2] == "").any():
        raise _locate_error(raw, name, _check_qrels_line, f"{df.shape[1]} columns")
    return Columns(query_id=df[0], doc_id=df[2], relevance=df[3].astype("int64"), iteration=df[1])


def _empty_run(extra_columns: bool) -> pd.DataFrame:
    out = pd.DataFrame({"query_id": pd.Series([], dtype=str), "doc_id": pd.Series([], dtype=str),
                        "score": pd.Series([], dtype="float64")})
    if extra_columns:
        out["rank"] = pd.Series([], dtype=str)
        out["tag"] = pd.Series([], dtype=str)
    return out


def _empty_qrels() -> pd.DataFrame:
    return pd.DataFrame({"query_id": pd.Series([], dtype=str), "doc_id": pd.Series([], dtype=str),
                         "relevance": pd.Series([], dtype="int64"), "iteration": pd.Series([], dtype=str)})


# ----------------------------------------------------------------------------------------------
# writing


def _cell(series: pd.Series, row: int) -> Any:
    """A cell as a plain Python value (for messages)."""
    value = series.iloc[row]
    return value.item() if hasattr(value, "item") else value


def _check_columns(df: pd.DataFrame, required: list[str], kind: str) -> None:
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise PrefevalError(f"{kind} DataFrame lacks column(s) {missing}; it has {list(df.columns)}")


def _check_tokens(values: pd.Series, column: str, kind: str) -> None:
    """Fields of a TREC file must be non-empty and free of whitespace."""
    text = values.astype(str)
    bad = text.str.contains(_WS.pattern, regex=True) | (text == "")
    if bad.any():
        value = text[bad].iloc[0]
        raise PrefevalError(f"cannot write {kind}: {column} {value!r} is empty or contains whitespace")


def _write_text(target: str | os.PathLike | IO[str], frame: pd.DataFrame) -> None:
    if hasattr(target, "write"):
        frame.to_csv(target, sep=" ", header=False, index=False, lineterminator="\n")
        return
    path = Path(os.fspath(target))  # type: ignore[arg-type]
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, sep=" ", header=False, index=False, lineterminator="\n",
                 compression="gzip" if path.suffix == ".gz" else None)


def write_run(df: pd.DataFrame, target: str | os.PathLike | IO[str], tag: str = "prefeval") -> None:
    """Write a run as a TREC 6-field file (gzip when the name ends in ``.gz``).

    Rows are written per query (queries in string order) in ranking order -- score descending,
    ties by doc_id descending (trec_eval) -- with ranks 1..n, so the rank column agrees with the
    order any TREC tool derives from the scores. ``tag`` is used unless ``df`` has a ``tag``
    column. Scores are written with full precision (``repr``), so ``read_run`` round-trips them.
    """
    _check_columns(df, ["query_id", "doc_id", "score"], "run")
    scores = pd.to_numeric(df["score"], errors="coerce").astype("float64")
    if scores.isna().any():
        row = int(np.flatnonzero(scores.isna().to_numpy())[0])
        raise PrefevalError(f"cannot write run: score {_cell(df['score'], row)!r} of query "
                            f"{_cell(df['query_id'], row)!r}, doc {_cell(df['doc_id'], row)!r} is not a number")
    frame = pd.DataFrame({"query_id": df["query_id"].astype(str).to_numpy(),
                          "doc_id": df["doc_id"].astype(str).to_numpy(), "score": scores.to_numpy()})
    frame["tag"] = df["tag"].astype(str).to_numpy() if "tag" in df.columns else tag
    for column in ("query_id", "doc_id", "tag"):
        _check_tokens(frame[column], column, "run")
    frame = frame.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
    rank = frame.groupby("query_id", sort=False).cumcount() + 1
    out = pd.DataFrame({"query_id": frame["query_id"], "Q0": "Q0", "doc_id": frame["doc_id"], "rank": rank,
                        "score": frame["score"].map(repr), "tag": frame["tag"]})
    _write_text(target, out)


def write_qrels(df: pd.DataFrame, target: str | os.PathLike | IO[str]) -> None:
    """Write qrels as a TREC 4-field file ``query_id iteration doc_id relevance`` (gzip for ``.gz``).

    ``iteration`` (the subtopic id of diversity qrels) is written as given, ``0`` when absent.
    Rows keep their order.
    """
    _check_columns(df, ["query_id", "doc_id", "relevance"], "qrels")
    grades = pd.to_numeric(df["relevance"], errors="coerce")
    bad = grades.isna() | (grades != np.round(grades))
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise PrefevalError(f"cannot write qrels: relevance {_cell(df['relevance'], row)!r} of query "
                            f"{_cell(df['query_id'], row)!r}, doc {_cell(df['doc_id'], row)!r} is not an integer")
    iteration = df["iteration"].astype(str).to_numpy() if "iteration" in df.columns else "0"
    out = pd.DataFrame({"query_id": df["query_id"].astype(str).to_numpy(), "iteration": iteration,
                        "doc_id": df["doc_id"].astype(str).to_numpy(), "relevance": grades.astype("int64").to_numpy()})
    for column in ("query_id", "iteration", "doc_id"):
        _check_tokens(out[column], column, "qrels")
    _write_text(target, out)
