"""Imports on first use, so that ``import prefeval`` and the commands stay light: the one lazy-import helper.

A module binds ``pd = lazy_module("pandas")`` (under ``if not TYPE_CHECKING``, with the real import for type
checkers); the first attribute access (``pd.DataFrame``) imports pandas. Nothing is put in ``sys.modules`` before
that, so ``"pandas" in sys.modules`` keeps telling whether pandas was imported. Dispatch on a pandas type goes
through :func:`is_pandas`, which never imports pandas: an object cannot be a DataFrame if pandas was never
imported.

A package binds ``__getattr__, __dir__ = lazy_attributes(__name__, __path__, {...})`` (PEP 562): its submodules and
the names it lists are imported on first access (``prefeval.data.simulate`` after ``import prefeval`` alone), and
``dir()`` lists them.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable, Iterable, Mapping
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


def lazy_attributes(package: str, path: Iterable[str] = (),
                    attributes: Mapping[str, str | tuple[str, str | None]] | None = None,
                    ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module ``__getattr__`` and ``__dir__`` (PEP 562) for ``package``: each name of ``attributes`` (``name ->
    module``: that module's attribute ``name``; ``name -> (module, attribute)``, or ``(module, None)`` for the
    module itself) and each submodule found in ``path`` (the package's ``__path__``) is imported on first access,
    as ``import`` would, and then bound in the package; ``dir(package)`` lists them all."""
    submodules = frozenset(info.name for info in pkgutil.iter_modules(list(path)))
    table = {name: (target, name) if isinstance(target, str) else target for name, target in (attributes or {}).items()}

    def __getattr__(name: str) -> Any:
        if name in table:
            module_name, attr = table[name]
            module = importlib.import_module(module_name)
            value = module if attr is None else getattr(module, attr)
            setattr(sys.modules[package], name, value)
            return value
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")  # binds itself in the package
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *table, *submodules})

    return __getattr__, __dir__


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
