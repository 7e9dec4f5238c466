"""Arguments every command shares: progress bars, runs named ``NAME=PATH``, and positional arguments typed after
an option that takes several values (``prefeval compare -m RPP LexiRecall QRELS RUN RUN``)."""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["add_progress_arguments", "progress_enabled", "split_off_positionals", "named_runs"]


def add_progress_arguments(parser: argparse.ArgumentParser, quiet: bool = False) -> None:
    """``--progress`` / ``--no-progress`` (and ``-q``/``--quiet`` for ``--no-progress`` where ``quiet``)."""
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bars on stderr (default: only when stderr is a terminal)")
    if quiet:
        parser.add_argument("--quiet", "-q", dest="progress", action="store_false",
                            help="no progress bars (same as --no-progress)")


def progress_enabled(args: argparse.Namespace) -> bool:
    """Whether to show progress bars: as ``--progress``/``--no-progress`` say, else only when stderr is a terminal
    (a file, a pipe or a CI log gets no bar fragments)."""
    chosen = getattr(args, "progress", None)
    if chosen is not None:
        return bool(chosen)
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def _is_positional(value: str) -> bool:
    """A value that cannot be a measure name: an existing path, or a path-like text (a separator outside
    parentheses; measure names have none, a baseline path sits inside ``RPP(baseline='...')``)."""
    if os.path.exists(value):
        return True
    head = value.split("(", 1)[0]
    return "/" in head or os.sep in head


def split_off_positionals(values: list[str]) -> tuple[list[str], list[str]]:
    """``values`` of a many-valued option split where the positional arguments typed after it start (the first
    value that is a file or a path, :func:`_is_positional`): ``(option values, positionals)``."""
    for k, value in enumerate(values):
        if _is_positional(value):
            return values[:k], values[k:]
    return values, []


def named_runs(values: list[str]) -> dict[str, str]:
    """Run arguments as ``name -> path``: ``NAME=PATH`` names a run (when ``NAME=PATH`` is not itself a file), a
    path alone is named by its file name as :func:`prefeval.compare` names it; two runs with one name are an
    error."""
    # deferred: keeps `prefeval --help` fast
    from prefeval.data.inputs import run_name
    from prefeval.errors import PrefevalError

    runs: dict[str, str] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if sep and name and path and not os.path.exists(value) and "/" not in name and os.sep not in name:
            name = name.strip()
        else:
            name, path = run_name(value), value
        if name in runs:
            raise PrefevalError(f"two runs are named {name!r}; rename one of them or name them NAME=PATH")
        runs[name] = path
    return runs


def baseline_name(baseline: str | None, runs: dict[str, str]) -> str | None:
    """The run name ``--baseline`` gives: a run's name, or the path it was given as."""
    # deferred: keeps `prefeval --help` fast
    from prefeval.errors import PrefevalError

    if baseline is None or baseline in runs:
        return baseline
    for name, path in runs.items():
        if path == baseline:
            return name
    raise PrefevalError(f"--baseline {baseline!r} is not one of the runs: {', '.join(runs)}")
