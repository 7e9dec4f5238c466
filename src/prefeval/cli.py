"""The ``prefeval`` command. Each subcommand lives in ``prefeval.commands.<name>``
and exposes ``add_arguments(parser)`` and ``run(args) -> int``; heavy imports happen in ``run``."""

from __future__ import annotations

import argparse
import importlib
import sys

from prefeval.errors import PrefevalError

COMMANDS = {
    "eval": ("prefeval.commands.eval_cmd", "evaluate runs with ir-measures and prefeval measures (like `ir_measures`)"),
    "compare": ("prefeval.commands.compare_cmd", "compare many runs pairwise with preference methods and metrics"),
    "run": ("prefeval.commands.run_cmd", "run a declarative pipeline (a TOML file or a built-in name, e.g. demo)"),
    "pipelines": ("prefeval.commands.pipelines_cmd", "list the built-in pipeline definitions"),
    "datasets": ("prefeval.commands.datasets_cmd", "inspect ir_datasets ids and seed files for offline use"),
    "analyse": ("prefeval.commands.analyse_cmd", "meta-evaluation: ties, agreement, discriminative power, robustness"),
    "axioms": ("prefeval.commands.axioms_cmd", "check measures against formal constraints"),
}


def build_parser() -> argparse.ArgumentParser:
    from prefeval import __version__

    parser = argparse.ArgumentParser(prog="prefeval", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"prefeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a command still under construction
            if exc.name != module_name:
                raise
            continue
        module.add_arguments(sub.add_parser(name, help=help_text, description=help_text))
        sub.choices[name].set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_module", None):
        parser.print_help()
        return 2
    try:
        return int(args._module.run(args) or 0)
    except (PrefevalError, FileNotFoundError) as exc:
        print(f"prefeval {args.command}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
