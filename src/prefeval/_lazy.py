"""Heavy dependencies imported on first use, so that ``import prefeval`` and the commands stay light.

A module binds ``pd = lazy_module("pandas")`` (under ``if not TYPE_CHECKING``, with the real import for type
checkers); the first attribute access (``pd.DataFrame``) imports pandas. Nothing is put in ``sys.modules`` before
that, so ``"pandas" in sys.modules`` keeps telling whether pandas was imported. Dispatch on a pandas type goes
through :func:`is_pandas`, which never imports pandas: an object cannot be a DataFrame if pandas was never
imported.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any


class LazyModule:
    """Stands for the module ``name``, imported on the first attribute access (then served from ``sys.modules``)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:  # called only for attributes the proxy itself lacks
        return getattr(importlib.import_module(self._name), attr)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # pickled (e.g. in a function sent to a Dask worker) as the import of the module itself
        return importlib.import_module, (self._name,)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r} ({'imported' if loaded(self._name) else 'not imported yet'})>"


def lazy_module(name: str) -> Any:
    """A stand-in for ``import name`` that imports the module on first use (see the module docstring)."""
    return LazyModule(name)


def loaded(name: str) -> bool:
    """Whether the module ``name`` has been imported (by anyone) in this process."""
    return sys.modules.get(name) is not None


def is_pandas(obj: object, *types: str) -> bool:
    """``isinstance(obj, (pandas.T, ...))`` for the type names ``types`` (e.g. ``"DataFrame"``), without importing
    pandas: False when pandas was never imported."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(obj, tuple(getattr(pandas, t) for t in types))


def is_arrow_array(obj: object) -> bool:
    """Whether ``obj`` is a pyarrow ``Array`` or ``ChunkedArray``, without importing pyarrow."""
    pyarrow = sys.modules.get("pyarrow")
    return pyarrow is not None and isinstance(obj, (pyarrow.Array, pyarrow.ChunkedArray))
