"""``prefeval compare QRELS RUN... -m METHOD...``: compare many runs pairwise (see :func:`prefeval.compare`).

Output (``--format``), the same information in each:

* ``table`` (default): plain aligned text, one row per pair of runs and one column per method, with the mean
  per-query preference and ``*`` where the difference is significant; with ``--aggregate``, the system ranking
  of every method follows; ``markdown`` and ``latex`` (booktabs) the same tables;
* ``csv`` / ``json`` / ``jsonl``: the summary with significance columns (``Comparison.to_frame``) and, with
  ``--aggregate``, the rankings (``method, rank, run, score``) in the same long table, told apart by a first column
  ``table`` (``summary`` or ``ranking``); with ``--per-query`` the per-query values instead. json is one JSON
  document (an array of objects, one per line), jsonl one object per line (JSON Lines); floats exact, ``null``
  for NaN.

``--baseline RUN`` keeps only the pairs of each other run with RUN (``run_a`` the run, ``run_b`` the baseline),
corrected over those pairs. Runs are named by file name, or ``NAME=PATH``. Options may come before or after the
positional arguments.
"""

from __future__ import annotations

import argparse
import io
import sys

from prefeval.commands.common import (
    add_progress_arguments,
    baseline_name,
    named_runs,
    progress_enabled,
    split_off_positionals,
)
from prefeval.commands.engine_args import add_engine_arguments, engine_options
from prefeval.core.aggregate import AGGREGATES, TIES
from prefeval.core.stats import CORRECTIONS, TESTS
from prefeval.report.tables import FORMATS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", nargs="?", metavar="QRELS", help="TREC qrels file or ir_datasets id")
    parser.add_argument("runs", nargs="*", metavar="RUN",
                        help="TREC run files (.gz allowed); named by file name, or NAME=PATH")
    parser.add_argument("-m", "--method", dest="methods", action="append", nargs="+",
                        metavar="METHOD",
                        help="preference or measure, e.g. LexiRecall \"LexiPrecision(magnitude='rr')\" "
                             "\"RPP(weighting='dcg')\" nDCG@10 (repeatable; required)")
    parser.add_argument("--baseline", metavar="RUN", default=None,
                        help="only the pairs of each other run with this run (its name, or its path), corrected "
                             "over those pairs")
    parser.add_argument("--rel", "-l", type=int, default=1, help="minimum grade of a relevant document (default 1)")
    parser.add_argument("--depth", type=int, default=None, help="truncate every run to its top K documents")
    parser.add_argument("--test", choices=TESTS, default=None,
                        help="significance test (default: sign for preferences, t for metrics)")
    parser.add_argument("--correction", choices=CORRECTIONS, default=None,
                        help="multiple-comparison correction over the pairs (default holm; none for HSD)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--resamples", type=int, default=10_000,
                        help="resamples of the permutation and randomized Tukey HSD tests (default 10000)")
    parser.add_argument("--seed", type=int, default=0,
                        help="random seed of the randomised tests and the bootstrap interval (default 0)")
    parser.add_argument("--ci", nargs="?", const="t", default=None, choices=("t", "bootstrap"),
                        help="95%% confidence interval of each pair's mean (ci_low, ci_high in csv/json): t "
                             "(Student's t, the default of --ci) or bootstrap (percentile, over queries; --resamples, "
                             "--seed)")
    parser.add_argument("--aggregate", choices=AGGREGATES, default=None,
                        help="also rank the systems with this aggregation")
    parser.add_argument("--ties", choices=TIES, default="shared",
                        help="tie rule inside one query: shared (tied runs do not vote, share Borda points; "
                             "default) or pref_aggregate (ties broken by run name, descending, as the authors' "
                             "pref_aggregate tool does)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="MC4: run this many power-iteration steps from the all-ones vector instead of "
                             "to convergence (the authors' tool uses 10)")
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="output format (default table: plain text; markdown, latex, csv, json, jsonl)")
    parser.add_argument("--per-query", action="store_true", help="output the per-query preferences instead")
    add_progress_arguments(parser, quiet=True)
    add_engine_arguments(parser)


def positionals(args: argparse.Namespace) -> tuple[str, list[str], list[str]]:
    """``(qrels, runs, methods)`` from the parsed arguments, the positional arguments typed after ``-m`` taken back
    from it (``-m RPP LexiRecall QRELS RUN RUN``)."""
    # deferred: keeps `prefeval --help` fast
    from prefeval.errors import PrefevalError

    methods, extra = [], []
    for group in args.methods or []:
        kept, rest = split_off_positionals(group)
        methods += kept
        extra += rest
    given = ([args.qrels] if args.qrels is not None else []) + list(args.runs) + extra
    if not methods:
        raise PrefevalError("the following arguments are required: -m/--method (e.g. -m RPP nDCG@10)")
    if len(given) < 3:
        raise PrefevalError("the following arguments are required: QRELS RUN RUN... (at least two runs)")
    return given[0], given[1:], methods


def run(args: argparse.Namespace) -> int:
    # deferred: keeps `prefeval --help` fast (ir-measures and prefeval load on use; pandas only where needed)
    from prefeval.data.inputs import qrels_table
    from prefeval.engine.compare import compare
    from prefeval.engine.significance import VALUE_TESTS
    from prefeval.errors import PrefevalError

    qrels_arg, run_args, methods = positionals(args)
    if not 0 < args.alpha < 1:
        raise PrefevalError(f"--alpha must be between 0 and 1; got {args.alpha}")
    if args.resamples < 1:
        raise PrefevalError(f"--resamples must be at least 1; got {args.resamples}")
    # deferred: keeps `prefeval --help` fast; the bounds of the randomised tests and MC4 steps, before any reading
    from prefeval.core.aggregate import check_iterations
    from prefeval.core.stats import check_resamples, check_seed

    check_resamples(args.resamples, name="--resamples")
    check_seed(args.seed, name="--seed")
    check_iterations(args.iterations, len(args.runs), name="--iterations")
    progress = progress_enabled(args)
    engine = engine_options(args)
    runs = named_runs(run_args)  # read one at a time while ranking (by the Dask engine's tasks with --engine dask)
    baseline = baseline_name(args.baseline, runs)
    qrels = qrels_table(qrels_arg)  # TREC files are read into columns: no pandas with pyarrow
    # per-query preferences are kept only for the output or a test that needs them; the rest streams
    keep = bool(args.per_query or args.test in VALUE_TESTS or args.ci == "bootstrap")
    result = compare(qrels, runs, methods, rel=args.rel, depth=args.depth, per_query=keep, progress=progress,
                     baseline=baseline, **engine)
    # n_resamples and seed drive the randomised tests (permutation, randomized Tukey HSD)
    options = {"test": args.test, "correction": args.correction, "alpha": args.alpha,
               "n_resamples": args.resamples, "seed": args.seed}
    rankings = None
    if args.aggregate:
        if args.iterations is not None and args.aggregate != "mc4":
            raise PrefevalError("--iterations applies to --aggregate mc4 only")
        options_mc4 = {"iterations": args.iterations} if args.iterations is not None else {}
        rankings = _ranking_rows(result, args.aggregate, args.ties, **options_mc4)
    out = sys.stdout
    if args.per_query and args.format == "csv":  # written from the result's arrays
        _write_per_query_csv(result, out)
    elif args.per_query:
        _write_rows(PER_QUERY_COLUMNS, _per_query_rows(result), args.format, out)
    elif args.format in ("table", "markdown", "latex"):
        from prefeval.report.comparison import comparison_text  # deferred: keeps `prefeval --help` fast

        out.write(comparison_text(result, args.format, **options))
        if rankings is not None:
            out.write(f"\nRankings ({args.aggregate}):\n\n" if args.format != "latex" else "\n")
            _write_rows(*rankings, args.format, out)
    else:
        from prefeval.report.comparison import long_rows  # deferred: keeps `prefeval --help` fast

        _write_rows(*long_rows(result.report_rows(ci=args.ci, **options), rankings), args.format, out)
    return 0


def _ranking_rows(result, aggregate: str, ties: str, **options) -> tuple[list[str], list[tuple]]:
    """Header and rows of every method's ranking (``method, rank, run, [level,] score``)."""
    header, rows = ["method"], []
    for method in result.methods:
        columns, ranking = result.ranking_rows(method, aggregate=aggregate, ties=ties, **options)
        header = ["method", *columns]
        rows += [(method, *row) for row in ranking]
    return header, rows


#: the columns of ``Comparison.per_query``
PER_QUERY_COLUMNS = ("method", "query_id", "run_a", "run_b", "value")


def _per_query_blocks(result):
    """``(method, query, pairs, values)`` for each method and query of ``result`` (a :class:`prefeval.Comparison`),
    in the order of ``result.per_query``, from its per-query arrays without building the frame: ``pairs`` are the
    ``(run_a, run_b)`` indices into ``result.runs`` (the same for every block), ``values`` a list of floats."""
    pairs = result.pair_indices  # every pair, or those with the baseline
    for label, r in result.results.items():
        X = r.pair_values(pairs)  # (pairs, queries)
        for q, query in enumerate(r.query_ids.astype(str).tolist()):
            yield label, query, pairs, X[:, q].tolist()


def _per_query_rows(result):
    """The rows of ``result.per_query`` (:data:`PER_QUERY_COLUMNS`)."""
    runs = result.runs
    for label, query, (a, b), values in _per_query_blocks(result):
        yield from zip([label] * len(values), [query] * len(values), [runs[k] for k in a], [runs[k] for k in b],
                       values)


def _write_per_query_csv(result, out) -> None:
    """``result.per_query`` as csv, the text of ``result.per_query.to_csv(index=False)`` (text fields quoted by the
    csv module, a formula-like name with a leading ``'``, floats by ``repr``, NaN empty), written a block of rows per method and query at once."""
    import csv  # deferred: keeps `prefeval --help` fast

    from prefeval.core.text import csv_cell  # deferred: keeps `prefeval --help` fast

    def cell(text: str) -> str:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="").writerow([csv_cell(text)])
        return buffer.getvalue()

    names = [cell(run) for run in result.runs]
    out.write(",".join(PER_QUERY_COLUMNS) + "\n")
    pair_cells = None
    for label, query, (a, b), values in _per_query_blocks(result):
        if pair_cells is None:
            pair_cells = [f"{names[i]},{names[j]}," for i, j in zip(a.tolist(), b.tolist())]
        prefix = f"{cell(label)},{cell(query)},"
        out.write("".join([f"{prefix}{pair}{'' if v != v else repr(v)}\n" for pair, v in zip(pair_cells, values)]))


def _write_rows(header, rows, fmt: str, out) -> None:
    """Rows of Python values in ``fmt``: csv, json (one document), jsonl (JSON Lines)
    (:func:`prefeval.report.tables.write_rows`), or a table in plain text, Markdown or LaTeX."""
    # deferred: keeps `prefeval --help` fast
    from prefeval.report.comparison import ranking_grid, render
    from prefeval.report.tables import ROW_FORMATS, write_rows

    if fmt in ROW_FORMATS:
        write_rows(header, rows, fmt, out)
    else:
        out.write(render(ranking_grid(list(header), [list(row) for row in rows]), fmt))
