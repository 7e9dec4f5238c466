"""``prefeval run PIPELINE.toml [--out DIR] [--set KEY=VALUE ...]``: run a declarative pipeline.

``PIPELINE`` is a TOML file or the name of a built-in definition shipped with the package (``prefeval
pipelines`` lists them): ``prefeval run demo``. ``pipelines/NAME.toml`` that does not exist in the current
folder (e.g. ``prefeval run pipelines/demo.toml`` outside the checkout) also names the built-in ``NAME``.

The definition is validated completely (steps, keys, measures, run files, globs, callables, baseline, the
output folder) before any work starts. Progress bars go to stderr, a short summary to stdout at the end.
``--check`` validates and prints the plan without running or importing anything. The output folder is
written atomically (see :mod:`prefeval.pipeline.output`). Schema and examples: docs/pipelines.md.

A pipeline file can run code, as a Makefile can: ``retrieve.callable`` and ``analyse.callables`` name Python
functions that ``prefeval run`` imports and calls. Run only pipeline files you trust.
"""

from __future__ import annotations

import argparse
import os
from importlib import resources
from pathlib import Path

from prefeval.commands.common import add_progress_arguments, progress_enabled
from prefeval.core.text import printable


def builtin_pipelines() -> dict[str, Path]:
    """The pipeline definitions shipped in the package (``prefeval/pipelines/*.toml``), by name."""
    folder = resources.files("prefeval") / "pipelines"
    return {entry.name.removesuffix(".toml"): Path(str(entry))
            for entry in sorted(folder.iterdir(), key=lambda e: e.name) if entry.name.endswith(".toml")}


def resolve_pipeline(arg: str) -> str:
    """``arg`` if it is an existing file, else the built-in definition it names (``NAME``, ``NAME.toml`` or
    ``pipelines/NAME.toml``); an unknown name fails with the list of built-ins."""
    # deferred: keeps `prefeval --help` fast
    from prefeval.errors import PrefevalError

    if os.path.exists(arg):
        return arg
    path = Path(arg)
    builtins = builtin_pipelines()
    name = path.name.removesuffix(".toml")
    if name in builtins and str(path.parent) in (".", "pipelines"):
        return str(builtins[name])
    raise PrefevalError(f"pipeline definition not found: {arg} (no such file, and not a built-in pipeline: "
                        f"{', '.join(builtins)})")

CODE_WARNING = ("A pipeline file can run code, as a Makefile can: retrieve.callable and analyse.callables name "
                "Python functions that are imported and called. Run only pipeline files you trust; --check "
                "imports nothing.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = CODE_WARNING
    parser.add_argument("pipeline", help="pipeline definition (TOML file), or a built-in name such as demo "
                                         "(see `prefeval pipelines`)")
    parser.add_argument("--out", "-o", help="output folder (overrides report.out; default out/NAME)")
    parser.add_argument("--set", "-s", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a setting, e.g. --set runs=path/to/runs --set qrels=ID_OR_FILE "
                             "--set simulate.n_queries=50 --set 'evaluate.measures=[\"AP\", \"RR\"]' (repeatable)")
    add_progress_arguments(parser, quiet=True)
    parser.add_argument("--check", action="store_true",
                        help="validate the definition and the output folder and print the plan; runs and imports "
                             "nothing (callables are only looked up)")
    parser.add_argument("--force", action="store_true",
                        help="write into an output folder that holds files prefeval did not write (they are left "
                             "alone; prefeval's files of the same name are replaced)")


def run(args: argparse.Namespace) -> int:
    # deferred: the pipeline modules load pandas and ir-measures; `prefeval --help` stays fast
    from prefeval.pipeline.base import imports_deferred
    from prefeval.pipeline.report import Report
    from prefeval.pipeline.runner import describe_plan, load, terminal_summary

    pipeline = load(resolve_pipeline(args.pipeline), args.overrides)
    report = next((s for s in pipeline.steps if isinstance(s, Report)), None)
    if report is None:
        report = Report()
        pipeline.steps.append(report)
    if args.out is not None:
        report.out = args.out
    report.force = args.force
    if args.check:
        with imports_deferred():
            plan = pipeline.validate()
        folder = report.folder(pipeline.name)
        folder.check()
        print(printable(describe_plan(pipeline, plan) + f"\n  output folder: {folder.path}", keep="\n"))
        return 0
    try:
        context = pipeline.run(progress=progress_enabled(args))
    except OSError as exc:
        if exc.filename or not exc.strerror:  # the error names its file already (or is no system error)
            raise
        from prefeval.errors import PrefevalError  # deferred: with the rest of prefeval

        # a write without a file name (a full disk: "No space left on device"): name the folder being written
        raise PrefevalError(f"{printable(report.folder(pipeline.name).path)}: {exc.strerror} (while writing the "
                            "output; the folder is left as it was)") from None
    print(printable(terminal_summary(context), keep="\n"))
    return 0
