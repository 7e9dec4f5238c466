"""The check ``prefeval report OUTDIR`` makes of an output folder before it renders anything from it.

A folder is rendered again only as prefeval wrote it: ``manifest.json`` (written last, :mod:`prefeval.pipeline.output`)
lists every file with its size and SHA-256, and each file the page is built from must still be there with that size
and SHA-256; each is then read for its shape (``summary.json`` an object of the keys the page reads, nested at most
:data:`MAX_JSON_DEPTH` levels; each CSV table UTF-8 with its columns, numbers where numbers belong). Anything else
is one :class:`~prefeval.errors.PrefevalError` naming the file and what is wrong: a truncated ``per_query.csv``
never becomes nulls and half a number, a deleted ``preferences.csv`` never becomes the sentence "were not kept".
"""

from __future__ import annotations

import csv
import functools
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from prefeval.errors import PrefevalError
from prefeval.pipeline.output import MANIFEST, MANIFEST_FORMAT, sha256

__all__ = ["MAX_JSON_DEPTH", "CSV_COLUMNS", "verify_folder"]

#: The deepest nesting of a summary.json or manifest.json that prefeval writes is well below this.
MAX_JSON_DEPTH = 64

#: The tables the page reads: their columns, and which of them hold numbers.
CSV_COLUMNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "per_query.csv": (("run", "query_id", "measure", "value"), ("value",)),
    "means.csv": (("run", "measure", "value"), ("value",)),
    "preferences.csv": (("method", "query_id", "run_a", "run_b", "value"), ("value",)),
    "preference_summary.csv": (("method", "run_a", "run_b", "mean", "wins", "losses", "ties", "queries"),
                               ("mean", "wins", "losses", "ties", "queries")),
    "rankings.csv": (("ranking", "rank", "run"), ("rank",)),
}
#: The keys of summary.json the page reads, and their JSON types.
SUMMARY_KEYS = {"format": str, "data": dict, "settings": dict, "means": dict, "preferences": dict,
                "document": list}


_OPEN, _CLOSE = np.frombuffer(b"[{", np.uint8), np.frombuffer(b"]}", np.uint8)


def _edited(name: str, what: str) -> PrefevalError:
    return PrefevalError(f"{name}: {what}; the folder was edited since prefeval wrote it: run the pipeline again")


def _json(path: Path) -> Any:
    """The JSON document at ``path``, nested at most :data:`MAX_JSON_DEPTH` levels (checked before parsing: no
    recursion that deep)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise _edited(path.name, f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    brackets = re.sub(r'"(?:[^"\\]|\\.)*"', "", text)  # strings removed: the brackets that nest
    steps = np.frombuffer(brackets.encode("utf-8", errors="replace"), dtype=np.uint8)
    steps = np.isin(steps, _OPEN).astype(np.int64) - np.isin(steps, _CLOSE)
    if len(steps) and int(np.cumsum(steps).max()) > MAX_JSON_DEPTH:
        raise _edited(path.name, f"nested more than {MAX_JSON_DEPTH} levels deep")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise _edited(path.name, f"not valid JSON ({exc})") from None


def verify_folder(folder: Path, needed: tuple[str, ...] = ("summary.json", *CSV_COLUMNS)) -> None:
    """Check ``folder`` before rendering from it (module docstring): its manifest, the size and SHA-256 of every
    file it lists that is ``needed`` (the others, e.g. report.html which is written again, are not read), and the
    shape of summary.json and of each CSV table. A :class:`PrefevalError` naming the file otherwise."""
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise PrefevalError(f"{folder}: no {MANIFEST}: not a prefeval output folder (or written before prefeval "
                            "kept one); run the pipeline again")
    manifest = _json(manifest_path)
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT or not isinstance(files, list) \
            or not all(isinstance(f, dict) and isinstance(f.get("name"), str) and isinstance(f.get("bytes"), int)
                       and isinstance(f.get("sha256"), str) for f in files):
        raise _edited(MANIFEST, f"not a manifest of format {MANIFEST_FORMAT!r} (name, bytes and sha256 of each file)")
    listed = {f["name"]: f for f in files}
    for name in needed:
        entry = listed.get(name)
        path = folder / name
        if entry is None:
            if path.exists():
                raise _edited(name, f"not listed in {MANIFEST}")
            continue  # not written by this pipeline (e.g. no preferences): the page says so
        if not path.is_file():
            raise _edited(name, f"listed in {MANIFEST} but missing")
        size = path.stat().st_size
        if size != entry["bytes"]:
            raise _edited(name, f"{size:,} bytes where {MANIFEST} lists {entry['bytes']:,} (truncated or changed)")
        if sha256(path) != entry["sha256"]:
            raise _edited(name, f"its SHA-256 differs from the one in {MANIFEST} (changed)")
    if "summary.json" in listed:
        _check_summary(folder / "summary.json")
    for name, (columns, numbers) in CSV_COLUMNS.items():
        if name in listed and name in needed:
            _check_csv(folder / name, columns, numbers)


def _check_summary(path: Path) -> None:
    summary = _json(path)
    if not isinstance(summary, dict):
        raise _edited(path.name, "not a JSON object")
    for key, kind in SUMMARY_KEYS.items():
        if key in summary and not isinstance(summary[key], kind):
            raise _edited(path.name, f"{key!r} is not a JSON {'object' if kind is dict else kind.__name__}")
    if not all(isinstance(block, dict) for block in summary.get("document") or []):
        raise _edited(path.name, "'document' holds a block that is not a JSON object")


def _check_csv(path: Path, columns: tuple[str, ...], numbers: tuple[str, ...]) -> None:
    """The table's header holds ``columns``; every value of ``numbers`` is a number or empty (NaN); every row has
    the header's number of fields. A table :func:`_plainly_well_formed` vouches for passes at once; any other is
    read row by row (:func:`_check_rows`) up to its first fault, that line named."""

    if not _plainly_well_formed(path, columns, numbers, csv.field_size_limit()):
        _check_rows(path, columns, numbers)


def _check_rows(path: Path, columns: tuple[str, ...], numbers: tuple[str, ...]) -> None:
    """:func:`_check_csv` read row by row by the csv module: the first fault met is named (line n: the table's n-th
    row, the header the first)."""

    try:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = csv.reader(handle)
            header = next(rows, None)
            if header is None or not set(columns) <= set(header):
                missing = [c for c in columns if header is None or c not in header]
                raise _edited(path.name, f"lacks the column(s) {', '.join(missing)}")
            where = [header.index(c) for c in numbers]
            for line, row in enumerate(rows, 2):
                if len(row) != len(header):
                    raise _edited(path.name, f"line {line} has {len(row)} fields, the header {len(header)}")
                for k in where:
                    value = row[k]
                    if value and value not in ("NaN", "nan"):
                        try:
                            float(value)
                        except ValueError:
                            raise _edited(path.name, f"line {line}: {header[k]} {value[:40]!r} is not a "
                                                     "number") from None
    except UnicodeDecodeError as exc:
        raise _edited(path.name, f"not UTF-8 ({exc.reason})") from None
    except csv.Error as exc:
        raise _edited(path.name, f"not a CSV table ({exc})") from None


#: Numbers as pandas writes them (a subset of what Python's ``float`` reads), or empty: RE2 syntax, ASCII digits.
_PLAIN_NUMBER = r"^(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|Infinity)|NaN|nan|)$"


def _plainly_well_formed(path: Path, columns: tuple[str, ...], numbers: tuple[str, ...], field_limit: int) -> bool:
    """True only when the table certainly passes :func:`_check_rows`, decided from one read by ``pyarrow.csv``
    (every field as text; commas, double quotes and line ends in quoted fields as the csv module splits them): the
    header the csv module reads, with ``columns`` and no name twice, every row as wide as the header, no row whose
    fields are all empty (pyarrow reads a blank line so, the csv module as a row of no fields), every field shorter
    than the csv module's ``field_limit``, UTF-8 throughout, and every value of ``numbers`` matching
    :data:`_PLAIN_NUMBER`. False decides nothing: the table is then read row by row."""

    import pyarrow as pa  # deferred: as csv
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    try:
        with path.open(encoding="utf-8", newline="") as handle:
            header = next(csv.reader(handle), None)
    except (UnicodeDecodeError, csv.Error):
        return False
    if header is None or not set(columns) <= set(header) or len(set(header)) < len(header):
        return False
    where = [header.index(c) for c in numbers]
    try:
        table = pcsv.read_csv(str(path), parse_options=pcsv.ParseOptions(
            newlines_in_values=True, ignore_empty_lines=False), convert_options=pcsv.ConvertOptions(
            column_types={name: pa.string() for name in header}, strings_can_be_null=False,
            quoted_strings_can_be_null=False, check_utf8=True))
    except pa.ArrowException:
        return False
    if table.column_names != header:
        return False
    if table.num_rows == 0:
        return True
    lengths = [pc.binary_length(column) for column in table.columns]
    if any(pc.max(n).as_py() >= field_limit for n in lengths):
        return False
    if pc.any(functools.reduce(pc.and_, [pc.equal(n, 0) for n in lengths])).as_py():
        return False  # a row of empty fields: pyarrow reads a blank line so
    return all(pc.all(pc.match_substring_regex(table.column(k), _PLAIN_NUMBER)).as_py() for k in where)
