"""Where :func:`prefeval.compare` and :func:`prefeval.evaluate` find an engine other than in-process.

:data:`ENGINES` names the module of each engine; it is imported when the engine is first asked for (``import
prefeval`` does not import :mod:`prefeval.engine.dask_engine`, nor Dask).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from prefeval.core.lazy import lazy_module
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


#: The engines other than in-process: name -> the module defining its ``compare`` and ``evaluate``.
ENGINES = {"dask": lazy_module("prefeval.engine.dask_engine")}


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
    """The engine names: ``inprocess`` and those of :data:`ENGINES`."""
    return [INPROCESS, *ENGINES]


def options(engine: str, client: Any = None, scheduler: str | None = None, workers: int | None = None,
            partitions: int | None = None) -> Engine | None:
    """The engine named ``engine`` (``None`` for in-process), after checking the cluster options."""
    if engine != INPROCESS and engine not in ENGINES:
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
    if engine == INPROCESS:
        return None
    module = ENGINES[engine]
    return Engine(engine, module.compare, module.evaluate)
