"""``prefeval run PIPELINE.toml [--out DIR] [--set KEY=VALUE ...]``: run a declarative pipeline.

The definition is validated completely (steps, keys, measures, run files, globs, callables, baseline, the
output folder) before any work starts. Progress bars go to stderr, a short summary to stdout at the end.
``--check`` validates and prints the plan without running or importing anything. The output folder is
written atomically (see :mod:`prefeval.pipeline.output`). Schema and examples: docs/pipelines.md.

A pipeline file can run code, as a Makefile can: ``retrieve.callable`` and ``analyse.callables`` name Python
functions that ``prefeval run`` imports and calls. Run only pipeline files you trust.
"""

from __future__ import annotations

import argparse

CODE_WARNING = ("A pipeline file can run code, as a Makefile can: retrieve.callable and analyse.callables name "
                "Python functions that are imported and called. Run only pipeline files you trust; --check "
                "imports nothing.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = CODE_WARNING
    parser.add_argument("pipeline", help="pipeline definition (TOML), e.g. pipelines/demo.toml")
    parser.add_argument("--out", "-o", help="output folder (overrides report.out; default out/NAME)")
    parser.add_argument("--set", "-s", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a setting, e.g. --set runs=path/to/runs --set qrels=ID_OR_FILE "
                             "--set simulate.n_queries=50 --set 'evaluate.measures=[\"AP\", \"RR\"]' (repeatable)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    parser.add_argument("--check", action="store_true",
                        help="validate the definition and the output folder and print the plan; runs and imports "
                             "nothing (callables are only looked up)")
    parser.add_argument("--force", action="store_true",
                        help="write into an output folder that holds files prefeval did not write (they are left "
                             "alone; prefeval's files of the same name are replaced)")


def run(args: argparse.Namespace) -> int:
    from prefeval.pipeline.base import imports_deferred
    from prefeval.pipeline.loader import load
    from prefeval.pipeline.report import Report
    from prefeval.pipeline.runner import describe_plan, terminal_summary

    pipeline = load(args.pipeline, args.overrides)
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
        print(describe_plan(pipeline, plan) + f"\n  output folder: {folder.path}")
        return 0
    context = pipeline.run(progress=not args.quiet)
    print(terminal_summary(context))
    return 0
