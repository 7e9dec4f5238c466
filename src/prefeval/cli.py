"""The ``prefeval`` command. Each subcommand lives in ``prefeval.commands.<name>``
and exposes ``add_arguments(parser)`` and ``run(args) -> int``; heavy imports happen in ``run``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

from prefeval._version import __version__
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


#: The longest error message printed (the rest is cut, with its length said).
MAX_MESSAGE = 2000


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with ``command`` only that command's options (the other commands are
    listed with their help but their modules are not imported)."""
    parser = argparse.ArgumentParser(prog="prefeval", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"prefeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        if command is None or name == command:
            module = importlib.import_module(module_name)
            module.add_arguments(command_parser)
            command_parser.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    # Arrow's default allocator (mimalloc) keeps tens of MB reserved after reading a few small files; the system
    # allocator gives them back. Set before pyarrow loads; a value the user set wins.
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    if sys.stdout is None:  # started with standard output closed (`prefeval ... >&-`): as a closed pipe, quietly
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the life of the process
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("prefeval: interrupted", file=sys.stderr)
        return 130
    if not getattr(args, "_module", None):
        parser.print_help()
        return 2
    return run_command(args)


def run_command(args: argparse.Namespace) -> int:
    """Run the chosen command; every failure becomes one ``prefeval CMD: error: ...`` line and a non-zero
    exit code, never a traceback (a closed output pipe ends the command quietly, as Unix tools do)."""
    def fail(message: str) -> int:
        if len(message) > MAX_MESSAGE:  # an error echoing a huge input stays short
            message = f"{message[:MAX_MESSAGE]}... ({len(message) - MAX_MESSAGE:,} more characters)"
        print(f"prefeval {args.command}: error: {message}", file=sys.stderr)
        return 1

    def warn(message, category, filename, lineno, file=None, line=None) -> None:
        print(f"prefeval {args.command}: warning: {message}", file=sys.stderr)

    try:
        with warnings.catch_warnings():  # a warning is one line too, naming the command
            warnings.showwarning = warn
            code = int(args._module.run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except (PrefevalError, FileNotFoundError) as exc:
        return fail(str(exc))
    except BrokenPipeError:  # `prefeval eval ... | head`: stop quietly, as Unix tools do
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # nothing more is written at exit
        except (OSError, ValueError):
            pass
        return 128 + 13  # like a process ended by SIGPIPE
    except KeyboardInterrupt:
        print(f"prefeval {args.command}: interrupted", file=sys.stderr)
        return 130
    except UnicodeDecodeError as exc:
        return fail(f"cannot decode a file as UTF-8 ({exc.reason} at byte {exc.start})")
    except OSError as exc:
        what = f"{exc.filename}: " if exc.filename else ""
        return fail(f"{what}{exc.strerror or exc}")
    except Exception as exc:  # a bug, not bad input: still one line, with a way to see the traceback
        if os.environ.get("PREFEVAL_TRACEBACK"):
            raise
        return fail(f"unexpected {type(exc).__name__}: {exc} (please report it; PREFEVAL_TRACEBACK=1 shows the "
                    "traceback)")


if __name__ == "__main__":
    sys.exit(main())
