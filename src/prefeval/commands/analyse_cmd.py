"""``prefeval analyse QRELS RUN... -m METHOD... [--metrics METRIC...]``: meta-evaluation of evaluation methods.

Ties, agreement with metrics (ranking pairs, system pairs, Kendall's tau), discriminative power (paired
test with Holm correction, randomised Tukey HSD) and robustness to missing labels and queries, as in the
seed papers (see :mod:`prefeval.analysis`). Example::
    prefeval analyse dl_hard-doc.qrels runs/*.run.gz -m LexiRecall LexiPrecision RPP \\
        --metrics AP nDCG RR R@1000 Rprec --analyses ties,agreement,power
    prefeval analyse qrels.diversity.txt runs/*.run.gz --mu   # metric unanimity, Amigó et al. (2018) Table 2
"""

from __future__ import annotations

import argparse
import json

from prefeval.core.stats import CORRECTIONS
from prefeval.report.tables import FORMATS as ALL_FORMATS

#: the output formats of the analyses' tables (one table per analysis part: no LaTeX or JSON Lines)
FORMATS = tuple(f for f in ALL_FORMATS if f not in ("latex", "jsonl"))


def _csv_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _floats(text: str) -> list[float]:
    try:
        values = [float(x) for x in _csv_list(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError(f"expected at least one number (comma-separated), got {text!r}")
    return values


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", help="TREC qrels file or ir_datasets id")
    parser.add_argument("runs", nargs="+", help="TREC run files (.gz allowed); at least two")
    parser.add_argument("-m", "--methods", nargs="+", default=[],
                        help="methods to judge, e.g. LexiRecall LexiPrecision RPP \"RPP(weighting='dcg')\" "
                             "(required but for --mu)")
    parser.add_argument("--metrics", nargs="*", default=[], help="reference metrics, e.g. AP nDCG RR R@1000 Rprec")
    parser.add_argument("--analyses", type=_csv_list, default=None,
                        help="comma-separated subset of ties,agreement,power,robustness,unanimity (default: all but "
                             "unanimity)")
    parser.add_argument("--mu", action="store_true",
                        help="print the metric unanimity (MU) table of the diversity metrics of Amigó et al. (2018) "
                             "at their parameter grid, incl. RBU (the unanimity analysis; qrels with subtopics)")
    parser.add_argument("--rel", type=int, default=1, help="minimum relevant grade (default 1)")
    parser.add_argument("--depth", type=int, default=None, help="truncate runs to this depth first")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--correction", default="holm", choices=CORRECTIONS,
                        help="multiple-comparison correction of the paired tests (default holm)")
    parser.add_argument("--resamples", type=int, default=10_000, help="randomised Tukey HSD trials (default 10000)")
    parser.add_argument("--fractions", type=_floats, default=[0.2, 0.4, 0.6, 0.8],
                        help="fractions of labels / queries removed (default 0.2,0.4,0.6,0.8)")
    parser.add_argument("--policies", type=_csv_list,
                        default=["uniform", "popularity-weighted", "keep-most-popular"],
                        help="label-removal policies (default: all three)")
    parser.add_argument("--samples", type=int, default=10, help="random samples per fraction (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")


def run(args: argparse.Namespace) -> int:
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    from prefeval.analysis.suite import DEFAULT_ANALYSES, analyse
    from prefeval.errors import PrefevalError
    from prefeval.report.tables import frame_grid, markdown

    if args.resamples < 1:
        raise PrefevalError(f"--resamples must be at least 1; got {args.resamples}")
    if args.analyses is None:
        args.analyses = ["unanimity"] if args.mu else list(DEFAULT_ANALYSES)
    elif args.mu and "unanimity" not in args.analyses:
        args.analyses.append("unanimity")
    if not args.methods and any(a != "unanimity" for a in args.analyses):
        raise PrefevalError("give the methods to judge with -m (only --mu / --analyses unanimity needs none)")
    tables = analyse(args.qrels, args.runs, args.methods, args.metrics, analyses=args.analyses, rel=args.rel,
                     depth=args.depth, alpha=args.alpha, correction=args.correction, n_resamples=args.resamples,
                     fractions=args.fractions, policies=args.policies, samples=args.samples, seed=args.seed)
    if args.format == "json":
        print(json.dumps({name: json.loads(frame.to_json(orient="records")) for name, frame in tables.items()},
                         indent=1))
        return 0
    for k, (name, frame) in enumerate(tables.items()):
        if k:
            print()
        if args.format == "csv":
            print(f"# {name}")
            from prefeval.core.text import csv_cell  # deferred: keeps `prefeval --help` fast

            cells = frame.copy()
            for column in frame.select_dtypes(exclude="number").columns:
                cells[column] = frame[column].astype(object).map(csv_cell)
            print(cells.to_csv(index=False), end="")
        elif args.format == "markdown":
            print(f"### {name}\n")
            print(markdown(frame_grid(frame)), end="")
        else:
            print(f"== {name} ==")
            print(frame.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return 0
