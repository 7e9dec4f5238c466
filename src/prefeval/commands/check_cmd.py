"""``prefeval check QRELS RUN...``: what to know about the qrels and runs before evaluating them.

Per run: judged queries covered and queries only in the run, documents per query, Judged@k (k = 5, 10, 20, 100),
tied scores in the top 10, repeated documents and non-finite scores; for the qrels: the grade histogram and the judged
queries without a relevant document. A warning line for each finding that would change a number
(:mod:`prefeval.engine.check`). Plain text, or ``--format json``.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="TREC qrels file or ir_datasets id")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (NAME=PATH names a run)")
    parser.add_argument("--rel", "-l", type=int, default=1,
                        help="minimum grade of a relevant document (default 1)")
    parser.add_argument("--format", choices=["text", "json"], default="text", help="plain text (default) or json")


def run(args: argparse.Namespace) -> int:
    import json  # deferred: keeps `prefeval --help` fast

    from prefeval.commands.common import named_runs
    from prefeval.engine.check import check
    from prefeval.report.check import check_text

    result = check(args.qrels, named_runs(args.runs), rel=args.rel)
    print(json.dumps(result.to_dict(), indent=2) if args.format == "json" else check_text(result), end="\n"
          if args.format == "json" else "")
    return 0
