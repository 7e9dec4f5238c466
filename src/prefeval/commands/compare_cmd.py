"""``prefeval compare QRELS RUN... -m METHOD...``: compare many runs pairwise (see :func:`prefeval.compare`).

Output (``--format``):

* ``table`` (default): a Markdown table, one row per pair of runs and one column per method, with the mean
  per-query preference and ``*`` where the difference is significant; with ``--aggregate``, the system ranking
  of every method follows;
* ``csv`` / ``json``: the summary with significance columns (``Comparison.to_frame``), or with ``--aggregate``
  the rankings (``method, rank, run, score``), or with ``--per-query`` the per-query values; json is an array of
  objects, one per line, with exact floats and ``null`` for NaN;
* ``latex``: a booktabs ``tabular`` of the summary (plus the rankings with ``--aggregate``).
"""

from __future__ import annotations

import argparse
import io
import sys

from prefeval.commands.engine_args import add_engine_arguments, engine_options
from prefeval.core.aggregate import AGGREGATES, TIES
from prefeval.core.stats import CORRECTIONS, TESTS

FORMATS = ("table", "csv", "json", "latex")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", help="TREC qrels file or ir_datasets id")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (.gz allowed); named by file name")
    parser.add_argument("-m", "--method", dest="methods", action="append", nargs="+", required=True,
                        metavar="METHOD",
                        help="preference or measure, e.g. LexiRecall \"LexiPrecision(magnitude='rr')\" "
                             "\"RPP(weighting='dcg')\" nDCG@10 (repeatable)")
    parser.add_argument("--rel", type=int, default=1, help="minimum grade of a relevant document (default 1)")
    parser.add_argument("--depth", type=int, default=None, help="truncate every run to its top K documents")
    parser.add_argument("--test", choices=TESTS, default=None,
                        help="significance test (default: sign for preferences, t for metrics)")
    parser.add_argument("--correction", choices=CORRECTIONS, default=None,
                        help="multiple-comparison correction over all pairs (default holm; none for HSD)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--resamples", type=int, default=10_000,
                        help="resamples of the permutation and randomized Tukey HSD tests (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the randomised tests (default 0)")
    parser.add_argument("--aggregate", choices=AGGREGATES, default=None,
                        help="also rank the systems with this aggregation")
    parser.add_argument("--ties", choices=TIES, default="shared",
                        help="tie rule inside one query: shared (tied runs do not vote, share Borda points; "
                             "default) or pref_aggregate (ties broken by run name, descending, as the authors' "
                             "pref_aggregate tool does)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="MC4: run this many power-iteration steps from the all-ones vector instead of "
                             "to convergence (the authors' tool uses 10)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    parser.add_argument("--per-query", action="store_true", help="output the per-query preferences instead")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    add_engine_arguments(parser)


def run(args: argparse.Namespace) -> int:
    # deferred: keeps `prefeval --help` fast (ir-measures and prefeval load on use; pandas only where needed)
    from prefeval.compare import VALUE_TESTS, compare
    from prefeval.errors import PrefevalError
    from prefeval.inputs import qrels_table, run_name

    methods = [name for group in args.methods for name in group]
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
    progress = not args.quiet
    engine = engine_options(args)
    qrels = qrels_table(args.qrels)  # TREC files are read into columns: no pandas with pyarrow
    runs = {}
    for path in args.runs:  # read one at a time while ranking (by the Dask engine's tasks with --engine dask)
        name = run_name(path)
        if name in runs:
            raise PrefevalError(f"two runs are named {name!r} (from their file names); rename one of them")
        runs[name] = path
    # per-query preferences are kept only for the output or a test that needs them; the rest streams
    keep = bool(args.per_query or args.test in VALUE_TESTS)
    result = compare(qrels, runs, methods, rel=args.rel, depth=args.depth, per_query=keep, progress=progress,
                     **engine)
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
    elif args.format == "table":
        out.write(result.to_markdown(**options))
        if rankings is not None:
            out.write(f"\nRankings ({args.aggregate}):\n\n")
            out.write(_markdown(*rankings))
    elif args.format == "latex":
        out.write(result.to_latex(**options))
        if rankings is not None:
            out.write("\n" + _latex(*rankings))
    elif rankings is not None:
        _write_rows(*rankings, args.format, out)
    else:
        _write_rows(*result.report_rows(**options), args.format, out)
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
    # deferred: keeps `prefeval --help` fast
    import numpy as np

    pairs = np.triu_indices(len(result.runs), 1)
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
    csv module, floats by ``repr``, NaN empty), written a block of rows per method and query at once."""
    import csv  # deferred: keeps `prefeval --help` fast

    def cell(text: str) -> str:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="").writerow([text])
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
    """Rows of Python values in ``fmt``: csv (the text of pandas' ``to_csv(index=False)``: floats by ``repr``, NaN
    empty), json (an array of objects, one per line; floats exact, NaN ``null``), latex or a Markdown table."""
    if fmt == "csv":
        import csv  # deferred: keeps `prefeval --help` fast

        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([None if v != v else v for v in row] for row in rows)
    elif fmt == "json":
        import json  # deferred: keeps `prefeval --help` fast

        separator = "["
        for row in rows:
            record = {name: None if v != v else v for name, v in zip(header, row)}
            out.write(f"{separator}\n{json.dumps(record, ensure_ascii=False, allow_nan=False)}")
            separator = ","
        out.write("[]\n" if separator == "[" else "\n]\n")
    elif fmt == "latex":
        out.write(_latex(header, rows))
    else:
        out.write(_markdown(header, rows))


def _cells(rows) -> list[list[str]]:
    return [[f"{v:.4f}" if isinstance(v, float) else str(v) for v in row] for row in rows]


def _latex(header, rows) -> str:
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    from prefeval._text import latex_escape

    lines = ["\\begin{tabular}{" + "l" * len(header) + "}", "\\toprule",
             " & ".join(latex_escape(str(c)) for c in header) + " \\\\", "\\midrule"]
    lines += [" & ".join(latex_escape(c) for c in row) + " \\\\" for row in _cells(rows)]
    return "\n".join([*lines, "\\bottomrule", "\\end{tabular}"]) + "\n"


def _markdown(header, rows) -> str:
    # deferred: keeps `prefeval --help` fast
    from prefeval._text import md_escape

    header = [str(c) for c in header]
    cells = [[md_escape(c) for c in row] for row in _cells(rows)]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    return "\n".join(lines) + "\n"
