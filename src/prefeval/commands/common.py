"""Arguments every command shares: progress bars, runs named ``NAME=PATH``, and positional arguments typed after
an option that takes several values (``prefeval compare -m RPP LexiRecall QRELS RUN RUN``)."""

from __future__ import annotations

import argparse
import os
import re
import sys

__all__ = ["ARGUMENT_RULE", "add_progress_arguments", "progress_enabled", "is_run_argument", "measure_problem",
           "split_off_positionals", "named_runs"]


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


#: How a command tells run files from measures among its arguments (``prefeval eval --help`` and the docs state it).
ARGUMENT_RULE = ("An argument with a path separator (before any parenthesis) is a run file; any other argument that "
                 "parses as a measure is a measure (write ./NAME for a run file named like a measure); anything "
                 "else must be an existing run file (NAME=PATH names one): a name shaped like a measure is "
                 "reported as a measure, any other as 'run file not found'.")


def _is_path_like(value: str) -> bool:
    """A separator outside parentheses (measure names have none; a baseline path sits inside
    ``RPP(baseline='...')``)."""
    head = value.split("(", 1)[0]
    return "/" in head or os.sep in head


def _exists(value: str) -> bool:
    name, sep, path = value.partition("=")
    return os.path.exists(value) or bool(sep and name and path and os.path.exists(path))


#: the shape of a measure name without parsing it: ``Name``, ``Name(...)``, ``@k`` (ir-measures syntax), or a
#: trec_eval name (``P.5``, ``ndcg_cut.10,20``)
_CALL_SHAPE = re.compile(r"\s*[^\W\d]\w*\s*(?:\(.*\))?\s*(?:@\s*\S*)?\s*", re.DOTALL)
_TREC_SHAPE = re.compile(r"\s*[A-Za-z]\w*[._][0-9][0-9.,]*\s*")


def _measure_shaped(value: str) -> bool:
    parts = [value, *value.split()] if " " in value.strip() else [value]
    shaped = [bool(_CALL_SHAPE.fullmatch(p) or _TREC_SHAPE.fullmatch(p)) for p in parts]
    return shaped[0] or (len(shaped) > 1 and all(shaped[1:]))


def measure_problem(value: str) -> str | None:
    """Why ``value`` is not one or more measures (names separated by blanks, as ``ir_measures`` takes them), or
    ``None`` when it is one. prefeval's preferences are read without ir-measures."""
    # deferred: keeps `prefeval --help` fast (ir-measures loads on use, only for names other than preferences)
    from prefeval.errors import PrefevalError
    from prefeval.methods.registry import canonical_text, parse_call

    try:
        own = parse_call(canonical_text(value.strip()))
    except PrefevalError:
        own = None
    if own is not None and own.declaration.kind == "preference":
        return None
    # deferred: ir-measures loads only for names other than prefeval's preferences
    from prefeval.methods.names import parse_names

    try:
        parse_names(value)
        return None
    except PrefevalError as exc:
        problem = str(exc)
    parts = value.split()
    if len(parts) > 1 and problem.startswith("cannot parse"):
        try:
            for part in parts:
                parse_names(part)
            return None
        except PrefevalError as exc:  # the part at fault
            problem = str(exc)
    return problem


def is_run_argument(value: str, missing_is_measure: bool = False) -> bool:
    """Whether a command-line argument is a run file rather than a measure, by :data:`ARGUMENT_RULE`. An argument
    that is no file and has a measure's shape (``Bogus@3``, ``LexiRecall(baseline=None)``) is a measure, whose
    problem the measure parser reports with its hints; any other is a :class:`~prefeval.errors.PrefevalError`
    "run file not found: NAME". ``missing_is_measure``: an argument that is no file and has a measure's shape is a
    measure without being parsed (the values of ``-m``: parsed where they are used)."""
    from prefeval.errors import PrefevalError  # deferred: keeps `prefeval --help` fast

    if _is_path_like(value):
        return True
    if missing_is_measure and not _exists(value) and _measure_shaped(value):  # an option's value (-m) shaped
        return False  # like a measure: a measure, parsed (and any problem reported) where it is used
    problem = measure_problem(value)
    if problem is None:
        return False
    if _exists(value):
        return True
    from prefeval.core.text import printable  # deferred: keeps `prefeval --help` fast

    if not problem.startswith("cannot parse"):  # a measure's shape (an unknown name, a bad value): a measure,
        return False  # reported with the other measures' problems and hints
    raise PrefevalError(f"run file not found: {printable(value)} (and it is not a measure name either)")


def split_off_positionals(values: list[str]) -> tuple[list[str], list[str]]:
    """``values`` of a many-valued option (``-m``) split where the positional arguments typed after it start: at
    the first run file by :func:`is_run_argument` (:data:`ARGUMENT_RULE`). ``(option values, positionals)``."""
    for k, value in enumerate(values):
        if is_run_argument(value, missing_is_measure=True):
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
