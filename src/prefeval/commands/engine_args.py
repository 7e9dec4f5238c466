"""The ``--engine {inprocess,dask} [--scheduler ADDRESS] [--workers N]`` options of ``compare`` and ``eval``."""

from __future__ import annotations

import argparse
from typing import Any

ENGINES = ("inprocess", "dask")


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the engine options to a command."""
    group = parser.add_argument_group("engine")
    group.add_argument("--engine", choices=ENGINES, default="inprocess",
                       help="inprocess (default) or dask: partitions of the queries on a Dask cluster, same results "
                            "(needs pip install 'prefeval[dask]')")
    group.add_argument("--scheduler", metavar="ADDRESS", default=None,
                       help="with --engine dask: address of a running Dask scheduler (tcp://host:8786); default: a "
                            "local cluster")
    group.add_argument("--workers", type=int, metavar="N", default=None,
                       help="with --engine dask and no --scheduler: local worker processes (default: one per core)")


def engine_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for :func:`prefeval.compare` / :func:`prefeval.evaluate` (empty for in-process)."""
    # deferred: keeps `prefeval --help` fast
    from prefeval.errors import PrefevalError

    if args.engine == "inprocess":
        if args.scheduler is not None or args.workers is not None:
            raise PrefevalError("--scheduler and --workers need --engine dask")
        return {}
    if args.scheduler is not None and args.workers is not None:
        raise PrefevalError("--workers starts a local cluster; with --scheduler the cluster has its own workers")
    return {"engine": args.engine, "scheduler": args.scheduler, "workers": args.workers}
