"""Heavy dependencies imported on first use, so that ``import prefeval`` and the commands stay light.

A module binds ``pd = lazy_module("pandas")`` (under ``if not TYPE_CHECKING``, with the real import for type
checkers); the first attribute access (``pd.DataFrame``) imports pandas. Nothing is put in ``sys.modules`` before
that, so ``"pandas" in sys.modules`` keeps telling whether pandas was imported. Dispatch on a pandas type goes
through :func:`is_pandas`, which never imports pandas: an object cannot be a DataFrame if pandas was never
imported.

:func:`when_imported` runs code once another package has been imported (by anyone): prefeval registers its measures
with ir-measures when ir-measures is imported, without importing ir-measures itself. What it buys, measured on the
2-core development machine: importing ir-measures takes 0.19-0.48 s (it loads pandas and its providers' modules),
which ``import prefeval`` -- and so ``prefeval compare``, whose whole run of 14 DL-Hard runs takes about 0.45 s --
would otherwise pay.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable, Iterable
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


def when_imported(name: str, callback: Callable[[], None], *, within: tuple[str, ...] = ()) -> None:
    """Call ``callback()`` once the module ``name`` has been imported: now if it is already, else right after its
    import completes (whoever imports it). When that import happens while one of the modules ``within`` is being
    imported (e.g. a module that imports ``name`` at its top, and that ``callback`` imports too), the call waits for
    those imports to complete, so that ``callback`` finds them whole. A post-import hook in the manner of PEP 369
    (withdrawn; Python has none built in): a finder first on ``sys.meta_path`` wraps the loaders of these modules,
    and removes itself once the callback has run."""
    if loaded(name):
        callback()
        return
    sys.meta_path.insert(0, _PostImportHook(name, callback, within))


class _PostImportHook:
    """The finder of :func:`when_imported`: finds nothing itself; wraps the loader the other finders give."""

    def __init__(self, name: str, callback: Callable[[], None], within: tuple[str, ...]) -> None:
        self.name, self.callback, self.watched = name, callback, {name, *within}
        self.running: set[str] = set()  # watched modules whose code is running

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in self.watched:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _HookedLoader(spec.loader, self, fullname)
                return spec
        return None

    def executed(self) -> None:
        """After a watched module ran: the callback, once ``name`` is imported and no watched module is running."""
        if self.running or not loaded(self.name) or self not in sys.meta_path:
            return
        sys.meta_path.remove(self)
        self.callback()


class _HookedLoader:
    """Runs a module with its own loader (which the module keeps), then tells the hook."""

    def __init__(self, loader: Any, hook: _PostImportHook, name: str) -> None:
        self.loader, self.hook, self.name = loader, hook, name

    def __getattr__(self, attr: str) -> Any:  # the rest of the loader's interface (resources, code, ...)
        return getattr(self.loader, attr)

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__loader__ = module.__spec__.loader = self.loader  # nothing of the hook stays in the module
        self.hook.running.add(self.name)
        try:
            self.loader.exec_module(module)
        finally:
            self.hook.running.discard(self.name)
        self.hook.executed()


def submodules_on_access(package: str, path: Iterable[str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for ``package`` whose folder is ``path`` (its ``__path__``): after
    ``import prefeval``, ``prefeval.data.simulate`` imports the submodule ``simulate`` on that first access, as
    ``import prefeval.data.simulate`` would, so every dotted name of the documentation works as written while
    ``import prefeval`` stays light."""
    names = frozenset(info.name for info in pkgutil.iter_modules(list(path)))

    def __getattr__(name: str) -> Any:
        if name in names:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
