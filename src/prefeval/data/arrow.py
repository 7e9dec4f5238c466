"""Moving arrays between numpy and pyarrow without importing pandas.

pyarrow imports pandas (when installed) the first time ``pyarrow.array(...)`` or ``Array.to_numpy()`` runs, to
check for pandas objects; that import alone costs more than a whole ``prefeval compare`` of a few runs. These
helpers go through the arrays' buffers instead (DLPack for fixed-width values), with the same results.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_TYPES = {np.dtype(np.int32): "int32", np.dtype(np.int64): "int64", np.dtype(np.float64): "float64",
          np.dtype(np.uint8): "uint8"}


def to_numpy(array: Any, null: Any = None) -> np.ndarray:
    """A fixed-width pyarrow array (or chunked array) of integers, floats or booleans as a numpy array: without nulls,
    a view of its buffer, writeable only where Arrow's buffer is (booleans: unpacked from their bits); with nulls, a
    copy in which they are ``null`` (which must then be given)."""
    if hasattr(array, "combine_chunks"):
        array = array.combine_chunks()
    buffers = array.buffers()
    if str(array.type) == "bool" and not array.null_count:
        bits = np.unpackbits(np.frombuffer(buffers[1], dtype=np.uint8), bitorder="little") if len(array) else []
        return np.asarray(bits[array.offset:array.offset + len(array)], dtype=bool)
    dtype = np.dtype(_NUMPY[str(array.type)])
    if not len(array):
        return np.empty(0, dtype=dtype)
    values = np.frombuffer(buffers[1], dtype=dtype)[array.offset:array.offset + len(array)]
    if not array.null_count:
        return values
    if null is None:
        raise ValueError("the array has nulls; give the value that stands for them")
    valid = np.unpackbits(np.frombuffer(buffers[0], dtype=np.uint8), bitorder="little")
    return np.where(valid[array.offset:array.offset + len(array)].astype(bool), values, null)


_NUMPY = {"int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8", "uint8": "u1", "uint16": "u2", "uint32": "u4",
          "uint64": "u8", "float": "f4", "double": "f8"}


def from_numpy(values: np.ndarray) -> Any:
    """A 1-d numpy array of int32, int64, float64 or uint8 as a pyarrow array (zero-copy)."""
    import pyarrow as pa  # deferred: only called where pyarrow is loaded already

    values = np.ascontiguousarray(values)
    kind = getattr(pa, _TYPES[values.dtype])()
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def strings(values: list[str]) -> Any:
    """Python strings as a pyarrow ``string`` array, built from their UTF-8 bytes and offsets (ASCII text: joined and
    encoded at once, each string's length its number of bytes)."""
    import pyarrow as pa  # deferred: only called where pyarrow is loaded already

    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    joined = "".join(values)
    if joined.isascii():
        data = joined.encode("ascii")
        np.cumsum(np.fromiter(map(len, values), dtype=np.int64, count=len(values)), out=offsets[1:])
    else:
        encoded = [v.encode("utf-8") for v in values]
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        data = b"".join(encoded)
    return pa.Array.from_buffers(pa.string(), len(values), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def call(function: str, *args: Any, options: Any = None) -> Any:
    """``pyarrow.compute.call_function(function, args, options)``."""
    import pyarrow.compute as compute  # deferred: only called where pyarrow is loaded already

    return compute.call_function(function, list(args), options)


def options(kind: str, **values: Any) -> Any:
    """An options object of pyarrow's compute functions (``"SetLookupOptions"``, ``"RankOptions"``, ...)."""
    import pyarrow.compute as compute  # deferred: only called where pyarrow is loaded already

    return getattr(compute, kind)(**values)
