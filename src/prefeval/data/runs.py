"""Named runs that baseline-bound measures (``RPP(baseline='bm25')``) can refer to.

A ``baseline`` parameter is a string: a name registered with :func:`register_run`, or a path to a
TREC run file (read once and cached by path and modification time).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from prefeval.core.lazy import lazy_module
from prefeval.data.inputs import run_frame
from prefeval.errors import PrefevalError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

_REGISTERED: dict[str, pd.DataFrame] = {}
_FILE_CACHE: dict[tuple[str, float], pd.DataFrame] = {}


def register_run(name: str, run: Any) -> None:
    """Make ``run`` (DataFrame, dict of dicts, records or path) available as ``baseline=name``. The run is
    copied: changing the given DataFrame later does not change the registered run."""
    if not isinstance(name, str) or not name:
        raise PrefevalError("register_run: the name must be a non-empty string")
    _REGISTERED[name] = run_frame(run, name).copy()


def resolve_run(baseline: str) -> pd.DataFrame:
    """The canonical run a ``baseline`` string refers to (registered name first, then file path)."""
    if baseline in _REGISTERED:
        return _REGISTERED[baseline]
    if os.path.isfile(baseline):
        key = (os.path.abspath(baseline), os.path.getmtime(baseline))
        if key not in _FILE_CACHE:
            _FILE_CACHE[key] = run_frame(baseline, baseline)
        return _FILE_CACHE[key]
    known = ", ".join(sorted(_REGISTERED)) or "none"
    raise PrefevalError(f"baseline {baseline!r} is neither a run registered with prefeval.register_run "
                        f"(registered: {known}) nor an existing run file")


@contextlib.contextmanager
def registered(runs: Mapping[str, pd.DataFrame]) -> Iterator[None]:
    """Register ``runs`` (name -> canonical run, copied as by :func:`register_run`) while the block lasts; earlier
    registrations come back after."""
    saved = {name: _REGISTERED[name] for name in runs if name in _REGISTERED}
    _REGISTERED.update({name: run.copy() for name, run in runs.items()})
    try:
        yield
    finally:
        for name in runs:
            if name in saved:
                _REGISTERED[name] = saved[name]
            else:
                _REGISTERED.pop(name, None)
