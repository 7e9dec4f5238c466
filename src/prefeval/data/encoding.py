"""Id columns as integer codes: one representation of ids, their distinct values, codes and string order.

Inside the data layer an id column is one thing: a pyarrow string array (:func:`id_array`, the one conversion, at
the edge: files read by ``pyarrow.csv`` are such arrays already, Arrow-backed pandas columns hold one, and
columns of Python objects -- pandas 2 frames, dicts, records -- are converted once, ``str()`` of each id, missing
ids as nulls). :func:`factorize` gives each row an integer code (Arrow's ``dictionary_encode``) so that
:mod:`prefeval.data.ranking` works on integers; :class:`Ids` is an axis of distinct ids (queries, documents) and the
position of each. String order is Python's (code point order, which is UTF-8 byte order, Arrow's sort), as
trec_eval breaks score ties.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import is_arrow_array, lazy_module
from prefeval.data.arrow import call, from_numpy, options, strings, to_numpy

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


def id_array(column: Any) -> Any:
    """The column of ids as a pyarrow ``string`` (or ``large_string``) array: the one representation of ids in the
    data layer. Arrow strings (also behind a pandas column) are taken as they are; dictionary-encoded and other Arrow
    arrays are cast; other columns (a pandas Series of objects, a numpy array, a list) are converted once: ``str()``
    of each id, ``None`` / NaN as a null (a missing id, which :mod:`prefeval.data.ranking` reports)."""
    import pyarrow as pa  # deferred: a dependency; loaded with the first id column

    if not isinstance(column, (pa.Array, pa.ChunkedArray)) and hasattr(column, "dtype") and is_arrow_backed(column):
        column = pa.array(column.array if hasattr(column, "array") else column)
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if isinstance(column, pa.Array):
        if column.type in (pa.string(), pa.large_string()):
            return column
        if pa.types.is_dictionary(column.type):
            return id_array(column.cast(column.type.value_type))
        return column.cast(pa.string())
    values = column.tolist() if hasattr(column, "tolist") else list(column)
    try:
        "".join(values)  # in C: a TypeError unless every value is a str (or a subclass: its text is the id)
    except TypeError:
        pass
    else:
        return strings(values)
    return pa.array([None if _missing(v) else v if isinstance(v, str) else str(v) for v in values], type=pa.string())


def _missing(value: Any) -> bool:
    """None, a float NaN, or pandas' NA / NaT."""
    return value is None or (isinstance(value, float) and value != value) or type(value).__name__ in ("NAType",
                                                                                                        "NaTType")


#: From this many values on, :meth:`Ids.get_indexer` looks strings up with Arrow rather than a Python dict.
_ARROW_LOOKUP = 1024


class Ids:
    """Distinct ids in a fixed order and the position of each: the query (or relevant document) axis of rankings and
    position tables. :meth:`get_indexer` gives the position of each of some values (-1: absent), as
    ``pandas.Index.get_indexer`` does, from a dict (no pandas needed; built on the first lookup that needs it)."""

    def __init__(self, values: Any) -> None:
        self.values = np.asarray(py_list(values) if not isinstance(values, np.ndarray) else values, dtype=object)

    @functools.cached_property
    def _position(self) -> dict[Any, int]:
        return {v: i for i, v in enumerate(self.values.tolist())}

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        return iter(self.values.tolist())

    def __getitem__(self, i: Any) -> Any:
        return self.values[i]

    def __repr__(self) -> str:
        return f"Ids({self.values.tolist()!r})"

    def tolist(self) -> list:
        return self.values.tolist()

    def equals(self, other: Any) -> bool:
        """Whether ``other`` (ids, or a pandas Index) holds the same ids in the same order."""
        return self.values.tolist() == py_list(other)

    def to_numpy(self, dtype: Any = object) -> np.ndarray:
        """The ids as a numpy object array."""
        return self.values if dtype is object else self.values.astype(dtype)

    def get_indexer(self, values: Any) -> np.ndarray:
        """Position of each of ``values`` (a sequence, numpy, pandas or Arrow array) among the ids; -1 where absent.
        Many string values are looked up by Arrow's ``index_in`` (in C), others in a dict: the same positions."""
        if len(values) >= _ARROW_LOOKUP and self._strings() is not None:
            found = self._arrow_indexer(values)
            if found is not None:
                return found
        position = self._position
        values = py_list(values)
        return np.fromiter((position.get(v, -1) for v in values), dtype=np.intp, count=len(values))

    def _strings(self) -> Any:
        """The ids as a pyarrow string array when every id is a ``str`` (else None), built once."""
        if not hasattr(self, "_arrow"):
            values = self.values.tolist()
            self._arrow = strings(values) if all(type(v) is str for v in values) else None
        return self._arrow

    def _arrow_indexer(self, values: Any) -> np.ndarray | None:
        """:meth:`get_indexer` of ``values`` by ``index_in``; None when they are not all strings."""
        import pyarrow as pa  # deferred: loaded with the first id column

        if is_arrow_array(values):
            if not pa.types.is_string(values.type) and not pa.types.is_large_string(values.type):
                return None
        else:
            values = py_list(values)  # (not pyarrow.array: it imports pandas to check for pandas objects)
            if not all(type(v) is str for v in values):
                return None
            values = strings(values)
        value_set = self._arrow if values.type == self._arrow.type else self._arrow.cast(values.type)
        found = call("index_in", values, options=options("SetLookupOptions", value_set=value_set))
        return to_numpy(found, null=-1).astype(np.intp, copy=False)


def py_list(values: Any) -> list:
    """``values`` (a sequence, numpy, pandas or Arrow array) as a list of Python objects."""
    if is_arrow_array(values):
        return values.to_pylist()
    return values.tolist() if hasattr(values, "tolist") else list(values)


def column_values(column: Any, dtype: Any = None) -> np.ndarray:
    """A column (pandas Series, numpy or Arrow array) as a numpy array; Arrow strings become Python ``str``."""
    if is_arrow_array(column):
        if str(column.type) in ("string", "large_string"):
            out = np.empty(len(column), dtype=object)
            out[:] = column.to_pylist()
            column = out
        else:
            column = to_numpy(column)
    return np.asarray(column, dtype=dtype)


def unique_values(values: Any) -> np.ndarray:
    """The distinct values (hashable Python objects) in order of first appearance, as a numpy object array."""
    out = np.empty(0, dtype=object)
    distinct = list(dict.fromkeys(py_list(values)))
    return np.asarray(distinct, dtype=object) if distinct else out


def as_ids(values) -> Ids:
    return values if isinstance(values, Ids) else Ids(values)


def is_arrow_backed(values) -> bool:
    """Whether ``values`` (a pyarrow array, or a pandas object) hold Arrow strings."""
    if is_arrow_array(values):
        return True
    dtype = getattr(values, "dtype", None)
    return getattr(dtype, "storage", None) == "pyarrow" or type(dtype).__name__ == "ArrowDtype"


def take_names(names: Any, codes: np.ndarray) -> np.ndarray:
    """``names[codes]`` (distinct ids) as a numpy array of Python objects."""
    return np.asarray(call("take", id_array(names), from_numpy(codes)).to_pylist(), dtype=object).reshape(-1)


@functools.cache
def string_dtype() -> Any:
    """The dtype pandas gives columns read with ``dtype=str`` (Arrow-backed ``str`` in pandas 3, object in 2): the
    string dtype of canonical frames (:func:`prefeval.data.trec.read_run`'s)."""
    return pd.Series(["x"], dtype=str).dtype


def ids_to_pandas(array: Any) -> Any:
    """A pyarrow string array as the pandas column of canonical frames (:func:`string_dtype`): Arrow-backed where
    that dtype is (pandas 3, without a Python string per row), else Python objects."""
    string = string_dtype()
    if isinstance(string, pd.StringDtype) and string.storage == "pyarrow":
        return array.to_pandas(types_mapper=lambda _: string)
    return array.to_pandas().astype(string)


def factorize(column: Any, grouped: bool = False, dtype: Any = np.intp) -> tuple[np.ndarray, Any]:
    """Each row's code (-1: missing) and the distinct values (a pyarrow array) in order of first appearance, as
    ``pandas.factorize`` gives them, of the ids of ``column`` (:func:`id_array`), by Arrow's ``dictionary_encode``.
    ``grouped``: equal values usually stand in runs of rows (the query ids of a TREC run), which are then found by
    comparing neighbours and only the first value of each run is looked up (same codes). ``dtype``: of the codes (a
    narrower integer type halves their memory; the caller knows the rows fit it)."""
    column = id_array(column)
    if grouped and (stretches := value_stretches(column)) is not None:
        starts, firsts = stretches
        codes, names = factorize(firsts, dtype=dtype)
        return np.repeat(codes, np.diff(np.r_[starts, len(column)])), names
    encoded = call("dictionary_encode", column)
    codes = to_numpy(encoded.indices, -1).astype(dtype, copy=False)
    return codes, encoded.dictionary


def value_stretches(column: Any) -> tuple[np.ndarray, Any] | None:
    """(first row of each stretch of equal consecutive values, the value of each as a pyarrow array) of an id column
    without a missing value, whose stretches are 8 rows long or more on average (the query ids of a TREC run), found
    by comparing neighbours; None for other columns."""
    column = id_array(column)
    if column.null_count or len(column) < 2:
        return None
    n = len(column)
    changes = call("indices_nonzero", call("not_equal", column.slice(1), column.slice(0, n - 1)))
    starts = np.r_[0, to_numpy(changes).astype(np.intp) + 1]
    if 8 * len(starts) > n:
        return None
    return starts, take_ids(column, starts)


def take_ids(ids: Any, indices: np.ndarray) -> Any:
    """``ids[indices]`` of a pyarrow array."""
    return call("take", ids, from_numpy(indices))


def concat_ids(parts: list) -> Any:
    """Arrays of ids one after the other, as one pyarrow array (``large_string`` when the parts' types differ)."""
    import pyarrow as pa  # deferred: a dependency; loaded with the first id column

    parts = [id_array(p) for p in parts]
    if len({p.type for p in parts}) > 1:
        parts = [p.cast(pa.large_string()) for p in parts]
    return pa.concat_arrays(parts)


def distinct(column: Any, grouped: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, the distinct values as a numpy object array) of a column, distinct values in order of
    first appearance: :func:`factorize` (``grouped``: equal values usually stand in stretches of rows, as query ids
    do), the values converted once each."""
    codes, uniques = factorize(column, grouped)
    names = np.empty(len(uniques), dtype=object)
    names[:] = py_list(uniques)
    return codes, names


def sorted_codes(column: Any) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, the distinct values in Python string order): codes rank the values as strings. Only the
    distinct values are sorted (by Arrow: UTF-8 byte order is code point order)."""
    codes, uniques = factorize(column)
    order = string_order(uniques)
    names = np.empty(len(order), dtype=object)
    names[:] = py_list(uniques)
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return rank[codes], names[order]


def string_order(ids: Any) -> np.ndarray:
    """The indices that put ``ids`` (:func:`id_array`) in Python string order, stably: Arrow's sort (UTF-8 byte order
    is code point order)."""
    return to_numpy(call("sort_indices", id_array(ids))).astype(np.intp)


def take_rows(column: Any, rows: np.ndarray) -> Any:
    """The ids of ``column`` (:func:`id_array`) at the positions ``rows``."""
    return call("take", id_array(column), from_numpy(rows))
