"""Columns of strings kept as their UTF-8 bytes in one numpy array: the ids of TREC files read without pyarrow.

A :class:`Utf8Column` holds no Python object per row. Two ids are equal exactly when their UTF-8 encodings are,
and the byte order of UTF-8 encodings is the code point order of the strings (Python's ``str`` order, trec_eval's
``strcmp``), so ids are compared, sorted and factorised on the bytes; a string is decoded only where a Python
value is asked for. This is numpy only: no pandas, no pyarrow.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np


class Utf8Column:
    """A column of strings stored as their UTF-8 encodings in a numpy fixed-width bytes (``S``) array, ``data``.

    ``len()``, slicing and fancy indexing (a :class:`Utf8Column` again) work as on arrays; ``column[i]``,
    :meth:`tolist` and ``np.asarray(column)`` give Python strings (an ``object`` array), so code that knows nothing
    of this class reads the same values as from a list of strings. numpy pads ``S`` values with NUL bytes and strips
    them when reading, so the strings must not end in NUL characters (the TREC reader refuses NUL bytes)."""

    __slots__ = ("data",)

    def __init__(self, data: np.ndarray) -> None:
        if data.dtype.kind != "S" or data.ndim != 1:
            raise TypeError(f"a Utf8Column holds a 1-d numpy bytes array, not {data.dtype} of {data.ndim} dims")
        self.data = data

    @classmethod
    def from_strings(cls, values: Sequence[str]) -> Utf8Column:
        """The column of these Python strings (each encoded once)."""
        encoded = [v.encode("utf-8") for v in values]
        return cls(np.array(encoded, dtype="S") if encoded else np.zeros(0, dtype="S1"))

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, (int, np.integer)):
            return self.data[key].decode("utf-8")
        return Utf8Column(self.data[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self.tolist())

    def __repr__(self) -> str:
        shown = self.data[:5].tolist()
        return f"Utf8Column({[b.decode('utf-8', 'replace') for b in shown]}{'...' if len(self) > 5 else ''})"

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        values = self.to_numpy()
        return values if dtype is None or np.dtype(dtype) == object else values.astype(dtype)

    def to_numpy(self) -> np.ndarray:
        """The strings as a numpy ``object`` array of Python ``str``."""
        out = np.empty(len(self.data), dtype=object)
        if not len(out):
            return out
        if _is_ascii(self.data):  # numpy decodes ASCII bytes to str in C
            out[:] = self.data.astype(f"U{self.data.dtype.itemsize}")
        else:
            out[:] = [b.decode("utf-8") for b in self.data.tolist()]
        return out

    def tolist(self) -> list[str]:
        return self.to_numpy().tolist()

    to_pylist = tolist

    def take(self, indices: np.ndarray) -> Utf8Column:
        return Utf8Column(self.data[indices])

    def slice(self, offset: int, length: int) -> Utf8Column:
        return Utf8Column(self.data[offset:offset + length])


def concat(parts: Sequence[Utf8Column]) -> Utf8Column:
    """The columns one after the other (the bytes array as wide as the widest)."""
    if not parts:
        return Utf8Column(np.zeros(0, dtype="S1"))
    return Utf8Column(np.concatenate([p.data for p in parts]))


def _is_ascii(data: np.ndarray) -> bool:
    return not len(data) or bool(np.ascontiguousarray(data).view(np.uint8).max() < 128)


def sort_keys(data: np.ndarray) -> np.ndarray:
    """Keys of the ids ``data`` (an ``S`` array) that compare as the ids do: the ids themselves, or, when they are
    8 bytes long or shorter, their bytes NUL-padded to 8 and read as big-endian unsigned integers (which sort several
    times faster; NUL padding keeps the order, since a prefix sorts first either way)."""
    if data.dtype.itemsize <= 8:
        return np.ascontiguousarray(data.astype("S8")).view(">u8").astype(np.uint64)
    return data


def factorize(column: Utf8Column, first_seen: bool = True) -> tuple[np.ndarray, Utf8Column]:
    """(code of each row, the distinct ids in order of first appearance), as ``pandas.factorize`` gives them, by
    one sort of the ids' keys (:func:`sort_keys`); ``first_seen=False``: the distinct ids in string order instead
    (half the time: the sort need not be stable)."""
    if not len(column):
        return np.zeros(0, dtype=np.intp), column
    if not first_seen:
        keys = sort_keys(column.data)
        distinct, inverse = np.unique(keys, return_inverse=True)
        names = column.data[:0] if not len(distinct) else \
            (distinct.astype(">u8").view("S8") if keys is not column.data else distinct)
        return inverse.reshape(-1).astype(np.intp, copy=False), Utf8Column(names.astype(column.data.dtype))
    _, first, inverse = np.unique(sort_keys(column.data), return_index=True, return_inverse=True)
    order = np.argsort(first)  # the distinct ids by first appearance
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return rank[inverse.reshape(-1)], column.take(first[order])


def stretches(column: Utf8Column) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each stretch of equal consecutive ids, the id of each as an ``S`` array), by comparing
    neighbours."""
    data = column.data
    starts = np.flatnonzero(np.r_[True, data[1:] != data[:-1]]) if len(data) else np.zeros(0, dtype=np.intp)
    return starts, data[starts]


def string_ranks(column: Utf8Column) -> np.ndarray:
    """The rank (0-based, dense) of each id among the distinct ids of the column, in string order."""
    if not len(column):
        return np.zeros(0, dtype=np.int64)
    return np.unique(sort_keys(column.data), return_inverse=True)[1].reshape(-1).astype(np.int64)


def index_in(column: Utf8Column, values: Utf8Column) -> np.ndarray:
    """Index in ``values`` (distinct ids) of each id of ``column``; -1 where it is not one of them."""
    if not len(values) or not len(column):
        return np.full(len(column), -1, dtype=np.intp)
    width = max(column.data.dtype.itemsize, values.data.dtype.itemsize)
    wanted, known = column.data.astype(f"S{width}"), values.data.astype(f"S{width}")
    if width <= 8:
        wanted, known = sort_keys(wanted), sort_keys(known)
    order = np.argsort(known, kind="stable")
    at = np.minimum(np.searchsorted(known[order], wanted), len(order) - 1)
    found = known[order[at]] == wanted
    return np.where(found, order[at], -1).astype(np.intp)
