"""The ``prefeval`` command: its parser and the one-line error handling shared by every subcommand.

Each subcommand is a module of ``prefeval.commands`` with ``add_arguments(parser)`` and ``run(args) -> int``
(heavy imports happen in ``run``); ``COMMANDS`` registers it and ``EXAMPLES`` gives the example line its
``--help`` shows."""

from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import shutil
import sys
import textwrap
import warnings

from prefeval._version import __version__
from prefeval.core.text import printable
from prefeval.errors import PrefevalError

COMMANDS = {
    "check": ("prefeval.commands.check_cmd", "check qrels and runs before evaluating: coverage, Judged@k, ties, repeats"),
    "eval": ("prefeval.commands.eval_cmd", "evaluate runs: a run x measure table with significance, or one run like ir_measures"),
    "compare": ("prefeval.commands.compare_cmd", "compare many runs pairwise with preference methods and metrics"),
    "run": ("prefeval.commands.run_cmd", "run a declarative pipeline (a TOML file or a built-in name, e.g. demo)"),
    "report": ("prefeval.commands.report_cmd", "render report.html of a pipeline output folder again from its data"),
    "pipelines": ("prefeval.commands.pipelines_cmd", "list the built-in pipeline definitions"),
    "datasets": ("prefeval.commands.datasets_cmd", "use ir_datasets benchmarks offline: seed their files, see what is cached"),
    "analyse": ("prefeval.commands.analyse_cmd", "meta-evaluation: ties, agreement, discriminative power, robustness"),
    "axioms": ("prefeval.commands.axioms_cmd", "check measures against formal constraints (axioms)"),
    "example": ("prefeval.commands.example_cmd", "write a small simulated collection (qrels, runs) to try prefeval on"),
}


#: The longest error message printed (the rest is cut, with its length said).
MAX_MESSAGE = 2000


def build_parser(command: str | None = None) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser of every command and each command's own parser, or with ``command`` only that command's options
    (the other commands are listed with their help but their modules are not imported)."""
    parser = argparse.ArgumentParser(prog="prefeval", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"prefeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands = {}
    for name, (module_name, help_text) in COMMANDS.items():
        command_parser = commands[name] = sub.add_parser(name, help=help_text, description=_filled(help_text),
                                                         formatter_class=argparse.RawDescriptionHelpFormatter)
        if command is None or name == command:
            module = importlib.import_module(module_name)
            module.add_arguments(command_parser)
            command_parser.set_defaults(_module=module)
            if name in EXAMPLES:
                command_parser.epilog = "\n\n".join(filter(None, [command_parser.epilog, "example:\n  " + EXAMPLES[name]]))
            if command_parser.epilog:
                command_parser.epilog = _filled(command_parser.epilog)
    return parser, commands


DESCRIPTION = ("Offline evaluation of rankings: ir-measures' metrics, preference-based evaluation (LexiRecall, "
               "LexiPrecision, RPP), rank-biased utility (RBU), significance, rank aggregation, meta-evaluation "
               "and axioms.")
EPILOG = ("Try it on a simulated collection: prefeval example example (it writes example/qrels.txt and five runs); "
          "each command's --help ends with an example that runs on those files. Input semantics, measures and "
          "guides: the documentation (docs/ in the repository; mkdocs serve).")

#: One example line per command, shown at the end of its ``--help``; run on the files of ``prefeval example
#: example`` (tests/test_doc_examples.py runs each).
EXAMPLES = {
    "check": "prefeval check example/qrels.txt example/*.run",
    "eval": "prefeval eval example/qrels.txt example/*.run -m nDCG@10 \"RBU(p=0.8)@20\" RPP --baseline bm25",
    "compare": "prefeval compare example/qrels.txt example/*.run -m LexiRecall RPP nDCG@10 --aggregate mc4",
    "run": "prefeval run example/pipeline.toml --out out/example",
    "report": "prefeval report out/example",  # issue 27's command (renders report.html again), once registered
    "pipelines": "prefeval pipelines --path",
    "datasets": "prefeval datasets info msmarco-passage/trec-dl-hard",
    "analyse": "prefeval analyse example/qrels.txt example/*.run -m LexiRecall RPP --metrics AP nDCG@10 "
               "--analyses ties,agreement",
    "axioms": "prefeval axioms nDCG@10 \"RBU(p=0.8,e=0.03)@10\" --constraints amigo2018",
    "example": "prefeval example example",
}


def _filled(text: str) -> str:
    """``text`` with each paragraph wrapped to the terminal's width as argparse wraps help text (whitespace made one
    space), except a paragraph with an indented line (an example), kept as written; printed as it is by
    :class:`argparse.RawDescriptionHelpFormatter`."""
    width = max(shutil.get_terminal_size().columns - 2, 11)  # argparse.HelpFormatter's width
    return "\n\n".join(paragraph if "\n  " in paragraph
                        else textwrap.fill(re.sub(r"\s+", " ", paragraph, flags=re.ASCII).strip(), width)
                        for paragraph in text.split("\n\n"))


class _ClosedOutput(io.TextIOBase):
    """Standard output when the process started without one: counts what would have been written."""

    lost = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.lost += len(text)
        return len(text)


def main(argv: list[str] | None = None) -> int:
    # Arrow's default allocator (mimalloc) keeps tens of MB reserved after reading a few small files; the system
    # allocator gives them back. Set before pyarrow loads; a value the user set wins.
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    if sys.stdout is None:  # started with standard output closed (`prefeval ... >&-`): what is written is counted,
        sys.stdout = _ClosedOutput()  # and an error at the end says it was lost (as `cat file >&-` fails)
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        command = argv[0] if argv and argv[0] in COMMANDS else None
        parser, commands = build_parser(command)
        args = parse_command(commands[command], command, argv[1:]) if command else parser.parse_args(argv)
    except KeyboardInterrupt:
        print("prefeval: interrupted", file=sys.stderr)
        return 130
    if not getattr(args, "_module", None):
        parser.print_help()
        return 2
    return run_command(args)


def parse_command(sub: argparse.ArgumentParser, command: str, argv: list[str]) -> argparse.Namespace:
    """The arguments of ``command`` (parsed by its parser ``sub``), options before, after or between the positional
    arguments (``parse_intermixed_args``; a command whose parser it cannot handle is parsed as usual)."""
    try:
        args = sub.parse_intermixed_args(argv)
    except TypeError:  # a parser with sub-commands of its own
        args = sub.parse_args(argv)
    args.command = command
    return args


def run_command(args: argparse.Namespace) -> int:
    """Run the chosen command; every failure becomes one ``prefeval CMD: error: ...`` line and a non-zero
    exit code, never a traceback (a closed output pipe ends the command quietly, as Unix tools do)."""
    def fail(message: str) -> int:
        message = printable(message, keep="\n")  # a name's control characters never reach the terminal
        if len(message) > MAX_MESSAGE:  # an error echoing a huge input stays short
            message = f"{message[:MAX_MESSAGE]}... ({len(message) - MAX_MESSAGE:,} more characters)"
        print(f"prefeval {args.command}: error: {message}", file=sys.stderr)
        return 1

    def warn(message, category, filename, lineno, file=None, line=None) -> None:
        print(f"prefeval {args.command}: warning: {printable(message, keep=chr(10))}", file=sys.stderr)

    try:
        with warnings.catch_warnings():  # a warning is one line too, naming the command
            warnings.showwarning = warn
            code = int(args._module.run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        lost = getattr(sys.stdout, "lost", 0)
        if lost and code == 0:
            return fail(f"standard output is closed: {lost:,} characters of output could not be written")
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
