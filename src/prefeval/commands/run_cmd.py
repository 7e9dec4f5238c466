"""``prefeval run PIPELINE.toml [--out DIR] [--set KEY=VALUE ...]``: run a declarative pipeline.

The definition is validated completely (steps, keys, measures, run files, globs, callables, baseline) before
any work starts. Progress bars go to stderr, a short summary to stdout at the end. ``--check`` validates and
prints the plan without running. Schema and examples: docs/pipelines.md.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pipeline", help="pipeline definition (TOML), e.g. pipelines/demo.toml")
    parser.add_argument("--out", "-o", help="output folder (overrides report.out; default out/NAME)")
    parser.add_argument("--set", "-s", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a setting, e.g. --set runs=path/to/runs --set qrels=ID_OR_FILE "
                             "--set simulate.n_queries=50 --set 'evaluate.measures=[\"AP\", \"RR\"]' (repeatable)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    parser.add_argument("--check", action="store_true", help="validate the definition and print the plan; do not run")


def run(args: argparse.Namespace) -> int:
    # deferred: the pipeline modules load pandas and ir-measures; `prefeval --help` stays fast
    from prefeval.pipeline.report import Report
    from prefeval.pipeline.runner import describe_plan, load, terminal_summary

    pipeline = load(args.pipeline, args.overrides)
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
