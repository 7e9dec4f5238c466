"""``prefeval pipelines``: list the built-in pipeline definitions, one line each (``prefeval run NAME``)."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--path", action="store_true", help="also print where each definition file is")


def run(args: argparse.Namespace) -> int:
    # deferred: keeps `prefeval --help` fast
    from prefeval.commands.run_cmd import builtin_pipelines
    from prefeval.pipeline.loader import tomllib

    builtins = builtin_pipelines()
    width = max(len(name) for name in builtins)
    for name, path in builtins.items():
        with open(path, "rb") as handle:
            description = tomllib.load(handle).get("pipeline", {}).get("description", "")
        print(f"{name:<{width}}  {description}" + (f"  [{path}]" if args.path else ""))
    return 0
