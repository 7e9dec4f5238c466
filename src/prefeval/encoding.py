"""Id columns as integer codes: the kinds of columns ids come in, their distinct values, codes and string order.

Ids come as pyarrow string arrays (files read by ``pyarrow.csv``; Arrow-backed pandas columns) or as Python objects
(numpy object arrays, pandas Series). :func:`factorize` gives each row an integer code -- by Arrow's hash or by
pandas' hash -- so that :mod:`prefeval.ranking` works on integers; :class:`Ids` is an axis of distinct
ids (queries, documents) and the position of each. String order is Python's (code point order, which is UTF-8 byte
order), as trec_eval breaks score ties.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval._arrow import call, from_numpy, options, to_numpy
from prefeval._lazy import is_arrow_array, lazy_module

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


def string_ranks(names, subset: np.ndarray | None = None) -> np.ndarray:
    """Rank (0-based, in Python string order) of each of the distinct ids ``names[subset]`` (default: all).

    Arrow-backed ids are ranked by Arrow's sort (UTF-8 byte order is code point order, Python's), others as
    Python strings (``str()`` of each id)."""
    if is_arrow_backed(names):
        values = arrow_values(names)
        if subset is not None:
            values = call("take", values, from_numpy(subset))
        ranks = call("rank", values, options=options("RankOptions", sort_keys="ascending", tiebreaker="dense"))
        return to_numpy(ranks).astype(np.int64) - 1
    values = np.asarray(names, dtype=object)
    if subset is not None:
        values = values[subset]
    texts = [str(v) for v in values.tolist()]
    rank = {text: i for i, text in enumerate(sorted(set(texts)))}
    return np.fromiter(map(rank.__getitem__, texts), dtype=np.int64, count=len(texts))


class Ids:
    """Distinct ids in a fixed order and the position of each: the query (or relevant document) axis of rankings and
    position tables. :meth:`get_indexer` gives the position of each of some values (-1: absent), as
    ``pandas.Index.get_indexer`` does, from a dict (no pandas needed)."""

    def __init__(self, values: Any) -> None:
        self.values = np.asarray(py_list(values) if not isinstance(values, np.ndarray) else values, dtype=object)
        self._position = {v: i for i, v in enumerate(self.values.tolist())}

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
        """Position of each of ``values`` (a sequence, numpy, pandas or Arrow array) among the ids; -1 where absent."""
        position = self._position
        values = py_list(values)
        return np.fromiter((position.get(v, -1) for v in values), dtype=np.intp, count=len(values))


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


def arrow_values(values) -> Any:
    """The pyarrow array behind ``values`` (an Arrow-backed pandas object, or a pyarrow array)."""
    import pyarrow as pa  # deferred: loaded already when ids are Arrow-backed

    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks()
    return values if isinstance(values, pa.Array) else pa.array(values.array)


def take_names(names: Any, codes: np.ndarray) -> np.ndarray:
    """``names[codes]`` (distinct ids: a pandas Index or a pyarrow array) as a numpy array of Python objects."""
    if is_arrow_array(names):
        return np.asarray(call("take", arrow_values(names), from_numpy(codes)).to_pylist(), dtype=object).reshape(-1)
    return np.asarray(names.take(codes), dtype=object)


@functools.cache
def string_dtype() -> Any:
    """The dtype pandas gives columns read with ``dtype=str`` (Arrow-backed ``str`` in pandas 3, object in 2): the
    string dtype of canonical frames (:func:`prefeval.io.read_run`'s)."""
    return pd.Series(["x"], dtype=str).dtype


def factorize(column: Any, grouped: bool = False, first_seen: bool = True) -> tuple[np.ndarray, Any]:
    """``pandas.factorize(column)``: each row's code (-1: missing) and the distinct values in order of first
    appearance. A pyarrow array is encoded by Arrow (``dictionary_encode``, the same codes; the distinct values
    stay a pyarrow array), without pandas. ``grouped``: equal values usually stand in runs of rows (the query ids
    of a TREC run), which are then found by comparing neighbours and only the first value of each run is looked
    up (same codes; hashed as above when the runs are short). An Arrow-backed pandas column of strings is encoded as
    its pyarrow array. ``first_seen`` is kept for callers that need only the codes (any order of the distinct
    values then does)."""
    if not is_arrow_array(column) and (strings_array := arrow_strings(column)) is not None:
        column = strings_array
    if grouped and (stretches := value_stretches(column)) is not None:
        starts, firsts = stretches
        position: dict[Any, int] = {}
        codes = np.fromiter((position.setdefault(v, len(position)) for v in firsts), dtype=np.intp, count=len(firsts))
        return np.repeat(codes, np.diff(np.r_[starts, len(column)])), list(position)
    if is_arrow_array(column):
        encoded = call("dictionary_encode", arrow_values(column))
        codes = to_numpy(encoded.indices, -1).astype(np.intp, copy=False)
        return codes, encoded.dictionary
    return pd.factorize(column)


def value_stretches(column: Any) -> tuple[np.ndarray, list] | None:
    """(first row of each stretch of equal consecutive values, the value of each) of a pyarrow array without a
    missing value, whose stretches are 8 rows long or more on average
    (the query ids of a TREC run), found by comparing neighbours; None for other columns."""
    if not is_arrow_array(column) or column.null_count or len(column) < 2:
        return None
    column = arrow_values(column)
    n = len(column)
    starts = np.flatnonzero(np.r_[True, to_numpy(call("not_equal", column.slice(1), column.slice(0, n - 1)))])
    if 8 * len(starts) > n:
        return None
    return starts, call("take", column, from_numpy(starts)).to_pylist()


def arrow_strings(column: Any) -> Any:
    """The pyarrow array behind a column of Arrow strings (a pyarrow array or an Arrow-backed pandas object); None
    for other columns."""
    if not (is_arrow_array(column) or hasattr(column, "dtype")) or not is_arrow_backed(column):
        return None
    values = arrow_values(column)
    if hasattr(values, "combine_chunks"):  # a pandas column of several chunks
        values = values.combine_chunks()
    return values if str(values.type) in ("string", "large_string") else None


def take_ids(ids: Any, indices: np.ndarray) -> Any:
    """``ids[indices]`` of a pyarrow array."""
    return call("take", ids, from_numpy(indices))


def concat_ids(parts: list) -> Any:
    """Arrays of ids (pyarrow arrays of one type, or numpy arrays) one after the other."""
    if parts and is_arrow_array(parts[0]):
        import pyarrow as pa  # deferred: loaded already when ids are Arrow-backed

        return pa.concat_arrays(parts)
    return np.concatenate([np.asarray(p, dtype=object) for p in parts])


def distinct(column: Any, grouped: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, the distinct values as a numpy object array) of a column, distinct values in order of
    first appearance: :func:`factorize` (hash-based: Arrow's or pandas'; ``grouped``: equal values usually stand
    in stretches of rows, as query ids do), the values converted once each."""
    codes, uniques = factorize(column, grouped)
    names = np.empty(len(uniques), dtype=object)
    names[:] = py_list(uniques)
    return codes, names


def sorted_codes(column: Any) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, the distinct values in Python string order): codes rank the values as strings. Only the
    distinct values are sorted (by Arrow when the column is Arrow-backed: UTF-8 byte order is code point order)."""
    codes, uniques = factorize(column)
    if is_arrow_backed(uniques):
        order = to_numpy(call("sort_indices", arrow_values(uniques))).astype(np.intp)
    else:
        order = np.argsort(np.asarray(py_list(uniques), dtype=object), kind="stable")
    names = np.empty(len(order), dtype=object)
    names[:] = py_list(uniques)
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return rank[codes], names[order]


def take_rows(column: Any, rows: np.ndarray) -> Any:
    """The values of ``column`` (a pyarrow array, Series or array) at the positions ``rows``."""
    if is_arrow_array(column):
        return call("take", arrow_values(column), from_numpy(rows))
    values = arrow_strings(column)  # an Arrow-backed Series: its strings taken by Arrow, not all made Python objects
    return np.asarray(column)[rows] if values is None else call("take", values, from_numpy(rows))
