"""Where :func:`prefeval.compare` and :func:`prefeval.evaluate` find an engine other than in-process.

An engine registers itself when imported, so that compare and evaluate do not depend on the modules above them
that implement engines; the module of a built-in engine is imported when the engine is first asked for (``import
prefeval`` does not import :mod:`prefeval.engines.dask_engine`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from prefeval.errors import PrefevalError

INPROCESS = "inprocess"


@dataclass(frozen=True)
class Engine:
    """An engine: ``compare(qrels, runs, methods, **options)`` with parsed methods, returning a
    :class:`prefeval.compare.Comparison`, and ``evaluate(qrels, runs, measures, rel, **options)`` with parsed
    measures, returning ``(per-query table, run names)``."""

    name: str
    compare: Callable[..., Any]
    evaluate: Callable[..., Any]


_ENGINES: dict[str, Engine] = {}
_BUILT_IN = {"dask": "prefeval.engines.dask_engine"}  # name -> the module that registers it when imported


def register(engine: Engine) -> None:
    """Make ``engine`` available by its name (a name is registered once)."""
    if engine.name == INPROCESS or engine.name in _ENGINES:
        raise ValueError(f"an engine named {engine.name!r} is already registered")
    _ENGINES[engine.name] = engine


def names() -> list[str]:
    """The engine names: ``inprocess`` and the registered ones."""
    return [INPROCESS, *_BUILT_IN, *(name for name in _ENGINES if name not in _BUILT_IN)]


def options(engine: str, client: Any = None, scheduler: str | None = None, workers: int | None = None,
            partitions: int | None = None) -> Engine | None:
    """The registered engine named ``engine`` (``None`` for in-process), after checking the cluster options."""
    if engine in _BUILT_IN and engine not in _ENGINES:
        importlib.import_module(_BUILT_IN[engine])
    if engine != INPROCESS and engine not in _ENGINES:
        raise PrefevalError(f"unknown engine {engine!r}; choose one of {', '.join(names())}")
    if engine == INPROCESS and any(x is not None for x in (client, scheduler, workers, partitions)):
        raise PrefevalError("client, scheduler, workers and partitions apply to engine='dask' only")
    for key, value in (("workers", workers), ("partitions", partitions)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
            raise PrefevalError(f"{key} must be an integer >= 1; got {value!r}")
    if client is not None and scheduler is not None:
        raise PrefevalError("give either client or scheduler, not both")
    return _ENGINES.get(engine)
