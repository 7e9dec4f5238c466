"""Where :func:`prefeval.compare` and :func:`prefeval.evaluate` find an engine other than in-process.

An engine registers itself when imported, so that compare and evaluate do not depend on the modules above them
that implement engines; the module of a built-in engine is imported when the engine is first asked for (``import
prefeval`` does not import :mod:`prefeval.engine.dask_engine`).
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
    :class:`prefeval.engine.comparison.Comparison`, and ``evaluate(qrels, runs, measures, rel, **options)`` with parsed
    measures, returning ``(per-query table, run names)``."""

    name: str
    compare: Callable[..., Any]
    evaluate: Callable[..., Any]


_ENGINES: dict[str, Engine] = {}
_BUILT_IN = {"dask": "prefeval.engine.dask_engine"}  # name -> the module that registers it when imported


def register(engine: Engine) -> None:
    """Make ``engine`` available by its name (a name is registered once)."""
    if engine.name == INPROCESS or engine.name in _ENGINES:
        raise ValueError(f"an engine named {engine.name!r} is already registered")
    _ENGINES[engine.name] = engine


#: The protocols of a Dask scheduler address prefeval connects to (``inproc://`` exists inside one process only).
SCHEDULER_PROTOCOLS = ("tcp", "tls", "ws", "wss")


def check_scheduler_address(address: Any) -> str:
    """``address`` as ``protocol://host:port`` (``host:port`` means ``tcp://``), or a :class:`PrefevalError` saying
    what is wrong with it, before any connection: an empty address, no port, a web address (``http://``: the
    dashboard, not the scheduler), ``inproc://`` (only inside one Python process), an unknown protocol."""
    example = "e.g. tcp://127.0.0.1:8786"
    if not isinstance(address, str) or not address.strip():
        raise PrefevalError(f"scheduler: the address is empty ({address!r}); give the scheduler's address, {example}, "
                            "or leave it out for a local cluster")
    text = address.strip()
    protocol, sep, location = text.partition("://")
    if not sep:
        protocol, location = "tcp", text
    protocol = protocol.lower()
    shown = text if len(text) <= 100 else text[:100] + "..."
    if protocol in ("http", "https"):
        raise PrefevalError(f"scheduler: {shown!r} is a web address (the dashboard's?); the scheduler listens on "
                            f"another port and protocol, {example}")
    if protocol == "inproc":
        raise PrefevalError(f"scheduler: {shown!r} is an in-process address, reachable only from the Python process "
                            f"that made it; give a tcp:// address, or pass client= a distributed.Client")
    if protocol not in SCHEDULER_PROTOCOLS:
        raise PrefevalError(f"scheduler: {shown!r}: unknown protocol {protocol!r}; use one of "
                            f"{', '.join(p + '://' for p in SCHEDULER_PROTOCOLS)} ({example})")
    host, colon, port = location.rstrip("/").rpartition(":")
    if not colon or not host or host in ("[", "[]") or not port.isdigit() or not 0 < int(port) < 65536:
        raise PrefevalError(f"scheduler: {shown!r} has no valid port; give host and port, e.g. "
                            f"{protocol}://{location.split(':')[0] or '127.0.0.1'}:8786")
    return f"{protocol}://{host}:{int(port)}"


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
    if scheduler is not None:
        check_scheduler_address(scheduler)
    return _ENGINES.get(engine)
