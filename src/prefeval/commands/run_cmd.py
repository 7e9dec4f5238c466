"""``prefeval run PIPELINE.toml [--out DIR] [--set KEY=VALUE ...]``: run a declarative pipeline.

``PIPELINE`` is a TOML file or the name of a built-in definition shipped with the package (``prefeval
pipelines`` lists them): ``prefeval run demo``. ``pipelines/NAME.toml`` that does not exist in the current
folder (e.g. the README's command outside the checkout) also names the built-in ``NAME``.

The definition is validated completely (steps, keys, measures, run files, globs, callables, baseline) before
any work starts. Progress bars go to stderr, a short summary to stdout at the end. ``--check`` validates and
prints the plan without running. Schema and examples: docs/pipelines.md.
"""

from __future__ import annotations

import argparse
import os
from importlib import resources
from pathlib import Path


def builtin_pipelines() -> dict[str, Path]:
    """The pipeline definitions shipped in the package (``prefeval/pipelines/*.toml``), by name."""
    folder = resources.files("prefeval") / "pipelines"
    return {entry.name.removesuffix(".toml"): Path(str(entry))
            for entry in sorted(folder.iterdir(), key=lambda e: e.name) if entry.name.endswith(".toml")}


def resolve_pipeline(arg: str) -> str:
    """``arg`` if it is an existing file, else the built-in definition it names (``NAME``, ``NAME.toml`` or
    ``pipelines/NAME.toml``); an unknown name fails with the list of built-ins."""
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pipeline", help="pipeline definition (TOML file), or a built-in name such as demo "
                                         "(see `prefeval pipelines`)")
    parser.add_argument("--out", "-o", help="output folder (overrides report.out; default out/NAME)")
    parser.add_argument("--set", "-s", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a setting, e.g. --set runs=path/to/runs --set qrels=ID_OR_FILE "
                             "--set simulate.n_queries=50 --set 'evaluate.measures=[\"AP\", \"RR\"]' (repeatable)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    parser.add_argument("--check", action="store_true", help="validate the definition and print the plan; do not run")


def run(args: argparse.Namespace) -> int:
    from prefeval.pipeline.loader import load
    from prefeval.pipeline.report import Report
    from prefeval.pipeline.runner import describe_plan, terminal_summary

    pipeline = load(resolve_pipeline(args.pipeline), args.overrides)
    report = next((s for s in pipeline.steps if isinstance(s, Report)), None)
    if report is None:
        report = Report()
        pipeline.steps.append(report)
    if args.out is not None:
        report.out = args.out
    if args.check:
        print(describe_plan(pipeline, pipeline.validate()))
        return 0
    context = pipeline.run(progress=not args.quiet)
    print(terminal_summary(context))
    return 0
