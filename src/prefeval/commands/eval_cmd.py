"""``prefeval eval QRELS RUN MEASURE...``: the ``ir_measures`` command with prefeval's measures available, and
``prefeval eval QRELS RUN [RUN ...] -m MEASURE...``: a run x measure table with significance.

The first form has the arguments and output formats of ``ir_measures`` (tsv or jsonl, summary or per query), so it
can replace it in scripts; with ``-q`` the lines are grouped by query, as ``ir_measures -q`` prints them (queries sorted
by id, each query's measures in the order given, every judged query included). QRELS may
also be an ir_datasets id; MEASURE may also be any trec_eval name ir-measures' trec_eval parser reads (``map``,
``ndcg_cut_10``, ``P.5``, ``ndcg_cut.10,20``), and is printed as written (``map`` stays ``map``; ``ndcg_cut_10``
and ``nDCG@10`` given together are two lines). Every measure reads the same canonical input (README, "Input
semantics"): the run is ranked once (ties by doc id descending, a repeated document at its first position) and
conflicting qrels lines are resolved (the last line wins), whichever provider computes the measure.

The second form (``-m``, or several runs) prints :func:`prefeval.table`: each run's mean per measure, tested against
``--baseline`` or between all runs, as plain text, Markdown, LaTeX, csv, json or jsonl (``--format``). Runs are
named by file name (as ``compare`` names them) or ``NAME=PATH``. Options may come before or after the positional
arguments.
"""

from __future__ import annotations

import argparse
import json
import sys

from prefeval.commands.common import (
    ARGUMENT_RULE,
    add_progress_arguments,
    baseline_name,
    is_run_argument,
    named_runs,
    progress_enabled,
    split_off_positionals,
)
from prefeval.commands.engine_args import add_engine_arguments, engine_options
from prefeval.core.stats import CORRECTIONS, TESTS
from prefeval.report.tables import FORMATS as TABLE_FORMATS

PLACES = 4
SUMMARY_QID = "all"
MAX_PLACES = 17


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", nargs="?", metavar="QRELS", help="TREC qrels file or ir_datasets id")
    parser.add_argument("rest", nargs="*", metavar="RUN [MEASURE]",
                        help="TREC run file(s) (.gz allowed; NAME=PATH names a run), then (without -m) measures, "
                             "e.g. nDCG@10 'RBU(p=0.8)@20' \"RPP(baseline='bm25.run')\". " + ARGUMENT_RULE)
    parser.add_argument("-m", "--measures", dest="table_measures", action="append", nargs="+", metavar="MEASURE",
                        help="measures of a run x measure table (several runs; preferences LexiRecall, "
                             "LexiPrecision, RPP are columns too)")
    parser.add_argument("--places", "-p", type=int, default=None,
                        help=f"decimal places, 0 to {MAX_PLACES} (-1: all, in the table 6; default {PLACES})")
    parser.add_argument("--by_query", "-q", action="store_true", help="one line per query")
    parser.add_argument("--no_summary", "-n", action="store_true", help="with -q: omit the 'all' lines")
    parser.add_argument("--output_format", "-o", choices=["tsv", "jsonl"], default="tsv")
    parser.add_argument("--provider", help="evaluate with this ir-measures provider only")
    parser.add_argument("--rel", "-l", type=int, default=None,
                        help="minimum grade of a relevant document for every measure that takes one")
    table = parser.add_argument_group("run x measure table (-m, or several runs)")
    table.add_argument("--baseline", metavar="RUN", default=None, action="append",
                       help="test every other run against this one (its name or path) per measure; repeat for "
                            "several baselines (one table each)")
    table.add_argument("--test", choices=TESTS, default=None,
                       help="significance test (default: t for metrics, sign for preferences)")
    table.add_argument("--correction", choices=CORRECTIONS, default=None,
                       help="correction over the runs (with --baseline) or pairs within a measure (default holm)")
    table.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    table.add_argument("--depth", type=int, default=None, help="truncate every run to its top K documents")
    table.add_argument("--ci", nargs="?", const="t", default=None, choices=("t", "bootstrap"),
                       help="95%% confidence intervals of the means (and differences with the baseline): t "
                            "(Student's t, the default of --ci) or bootstrap (percentile, over queries)")
    table.add_argument("--family", choices=("measure", "table"), default="measure",
                       help="correction family: per baseline and measure (default) or the whole table")
    table.add_argument("--seed", type=int, default=0,
                       help="random seed of the bootstrap and the randomised tests (default 0)")
    table.add_argument("--resamples", type=int, default=10_000,
                       help="resamples of the bootstrap and the randomised tests (default 10000)")
    table.add_argument("--robust", action="store_true",
                       help="test every significant cell again with unjudged documents removed (condensed lists) and "
                            "judged relevant within each run's top --depth (else 1000); marks the cells that do not "
                            "hold in all three readings (field robust)")
    table.add_argument("--format", choices=TABLE_FORMATS, default=None,
                       help="table (plain text, default), markdown, latex, csv, json (one document), jsonl")
    add_progress_arguments(parser)
    add_engine_arguments(parser)


#: options of the table form only, with their defaults
_TABLE_ONLY = {"baseline": None, "test": None, "correction": None, "alpha": 0.05, "depth": None, "ci": None,
               "family": "measure", "seed": 0, "resamples": 10_000, "format": None}
#: options of the ir_measures form only: their defaults and how they are written
_SINGLE_ONLY = {"by_query": False, "no_summary": False, "output_format": "tsv", "provider": None}
_SINGLE_OPTIONS = {"by_query": "-q/--by_query", "no_summary": "-n/--no_summary",
                   "output_format": "-o/--output_format", "provider": "--provider"}


def split_arguments(args: argparse.Namespace) -> tuple[str, list[str], list[str], bool]:
    """``(qrels, runs, measures, table form)`` from the parsed arguments. The first positional is QRELS and the
    second a run; every other is a run or a measure by one rule (:data:`~prefeval.commands.common.ARGUMENT_RULE`,
    :func:`~prefeval.commands.common.is_run_argument`): a path separator makes a run, a measure name a measure,
    an existing file a run, anything else is "run file not found". ``-m`` values are measures (a run typed after
    them is taken back by the same rule). The table form: ``-m``, several runs, or an option of the table."""
    # deferred: keeps `prefeval --help` fast
    from prefeval.errors import PrefevalError

    given = ([args.qrels] if args.qrels is not None else []) + list(args.rest)
    if args.table_measures:
        measures, extra = [], []
        for group in args.table_measures:
            kept, rest = split_off_positionals(group)
            measures += kept
            extra += rest
        given += extra
        if len(given) < 2 or not measures:
            raise PrefevalError("the following arguments are required: QRELS RUN [RUN ...] -m MEASURE [MEASURE ...]")
        return given[0], given[1:], measures, True
    if len(given) < 3:
        raise PrefevalError("the following arguments are required: QRELS RUN MEASURE [MEASURE ...] "
                            "(or QRELS RUN [RUN ...] -m MEASURE [MEASURE ...])")
    runs, measures = given[1:2], []
    for value in given[2:]:
        (runs if is_run_argument(value) else measures).append(value)
    if not measures:
        raise PrefevalError("no measures given: QRELS RUN MEASURE... or QRELS RUN [RUN ...] -m MEASURE...")
    table = len(runs) > 1 or any(getattr(args, key) != default for key, default in _TABLE_ONLY.items())
    return given[0], runs, measures, table


def parse_measures(texts: list[str], rel: int | None = None) -> list[tuple[str, object]]:
    """``(label, measure)`` of measure names (several may share one argument, separated by spaces) as
    :func:`prefeval.evaluate` reads them (ir-measures syntax or trec_eval names, parameters checked, "did you mean"
    hints); every bad one reported. The label is the name as written, also when ``rel`` changes the measure (``map``
    under ``-l 2`` is printed ``map``, as trec_eval prints it); a name standing for several measures gives each
    measure's own name; each label once."""
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    import prefeval.engine.provider  # noqa: F401  (registers prefeval's measures and provider)
    from prefeval.engine.evaluate import parse_measures as parse
    from prefeval.errors import PrefevalError

    labelled, errors = [], []
    for text in texts:
        # One argument may hold several measures separated by spaces (as with `ir_measures`), or one measure
        # whose parameters contain spaces ("RPP(baseline='bm25', rel=2)"): try the whole argument first.
        try:
            names = [text] if parse(text.strip()) else []
        except PrefevalError:
            names = text.split() if len(text.split()) > 1 else [text]
        for name in names:
            try:
                found = parse(name.strip(), rel)
                plain = parse(name.strip()) if rel is not None else found
            except PrefevalError as exc:
                errors.append(str(exc))
                continue
            for measure in found:
                label = name.strip() if len(found) == 1 and len(plain) == 1 else str(measure)
                if all(label != existing for existing, _ in labelled):
                    labelled.append((label, measure))
    if errors:
        raise PrefevalError(errors[0] if len(errors) == 1 else f"{len(errors)} bad measures: " + "; ".join(errors))
    return labelled


def run(args: argparse.Namespace) -> int:
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    from prefeval.errors import PrefevalError

    qrels_arg, run_args, texts, table = split_arguments(args)
    places = PLACES if args.places is None else args.places
    if not -1 <= places <= MAX_PLACES:
        raise PrefevalError(f"--places must be -1 (all) or 0 to {MAX_PLACES}; got {places}")
    per_run = table and args.by_query and not args.table_measures \
        and all(getattr(args, key) == default for key, default in _TABLE_ONLY.items())
    if table and not per_run:
        return _run_table(args, qrels_arg, run_args, texts, places)
    runs = named_runs(run_args)
    args.qrels, args.places = qrels_arg, places
    labelled = parse_measures(texts, args.rel)
    if args.no_summary and not args.by_query:
        raise PrefevalError("--no_summary (-n) only works with --by_query (-q)")
    engine = engine_options(args)
    # several runs with -q: each run's lines in turn, named by the run (as trec_eval -q users run it per run)
    args.run_label = None
    for name, path in runs.items():
        args.run, args.run_label = path, (name if per_run else None)
        if engine:
            _run_on_engine(args, labelled, engine)
        else:
            _run_single(args, labelled)
    return 0


def _run_table(args: argparse.Namespace, qrels: str, run_args: list[str], measures: list[str], places: int) -> int:
    """The run x measure table (:func:`prefeval.table`) in ``--format``."""
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    from prefeval.engine.significance import correction_for
    from prefeval.engine.table import table
    from prefeval.errors import PrefevalError

    given = [_SINGLE_OPTIONS[key] for key, default in _SINGLE_ONLY.items() if getattr(args, key) != default]
    if given:
        raise PrefevalError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to the form QRELS RUN "
                            "MEASURE... (one run), not to the table (-m or several runs; --format chooses its output)")
    if not 0 < args.alpha < 1:
        raise PrefevalError(f"--alpha must be between 0 and 1; got {args.alpha}")
    from prefeval.core.stats import check_resamples, check_seed  # deferred: with the rest of prefeval

    check_resamples(args.resamples, name="--resamples")
    check_seed(args.seed, name="--seed")
    runs = named_runs(run_args)
    baselines = [baseline_name(b, runs) for b in args.baseline or []]
    baseline = None if not baselines else baselines[0] if len(baselines) == 1 else baselines
    # the default correction: holm, none for a test that controls the family-wise error itself
    result = table(qrels, runs, measures, baseline=baseline, test=args.test,
                   correction=correction_for(args.test or "t", args.correction), alpha=args.alpha,
                   rel=args.rel, depth=args.depth, ci=args.ci, family=args.family, progress=progress_enabled(args),
                   n_resamples=args.resamples, seed=args.seed, robust=args.robust, **engine_options(args))
    sys.stdout.write(result.to_text(args.format or "table", digits=max(places, 0) if places >= 0 else 6))
    return 0


def _run_single(args: argparse.Namespace, labelled: list) -> int:
    """The ir_measures form: one run, tsv or jsonl lines, per query grouped by query."""
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    import ir_measures

    from prefeval.engine.evaluate import evaluate_values
    from prefeval.errors import PrefevalError  # deferred: with the rest of prefeval

    measures = list(dict.fromkeys(m for _, m in labelled))
    provider = None
    if args.provider:
        if args.provider not in ir_measures.providers.registry:
            raise PrefevalError(f"unknown provider {args.provider!r}; known: {sorted(ir_measures.providers.registry)}")
        provider = ir_measures.providers.registry[args.provider]
        for measure in measures:
            if not _supports(provider, measure):
                others = [p.NAME for p in ir_measures.DefaultPipeline.providers if _supports(p, measure)]
                raise PrefevalError(f"--provider {args.provider} does not compute {measure}" +
                                    (f"; {', '.join(others)} does" if others else ""))
    _write(args, labelled, evaluate_values(args.qrels, {args.run: args.run}, measures, provider=provider))
    return 0


def _supports(provider, measure) -> bool:
    try:
        return bool(provider.supports(measure))
    except Exception:  # a provider refusing the measure's parameters
        return False


def _write(args: argparse.Namespace, labelled: list, values) -> None:
    """The lines of the ir_measures form from the one run's :class:`~prefeval.engine.values.MeasureValues`: per
    query (each query's measures together, each under every label it was given as), then the summary ``all``
    lines in the order given."""
    from prefeval.engine.values import summed  # deferred: with the rest of prefeval

    output = _writer(args)
    index = {m: k for k, m in enumerate(values.measures)}
    counts = {m for m in values.measures if summed(m)}  # trec_eval's counts: printed as integers, as trec_eval does

    def number(measure, value: float) -> float | int:
        return int(value) if measure in counts and value == int(value) else float(value)

    if args.by_query and not args.no_summary and SUMMARY_QID in values.query_ids.tolist():
        _warn(f"a query is named {SUMMARY_QID!r}, as the summary lines are: its lines come first, the summary "
              f"lines last (-n omits the summary)")
    if args.by_query:
        per_query = values.values[:, :, 0]
        for q, query_id in enumerate(values.query_ids.tolist()):
            for label, measure in labelled:
                output(str(query_id), label, number(measure, per_query[index[measure], q]))
    summary = values.aggregates()[:, 0]
    if not args.by_query or not args.no_summary:
        for label, measure in labelled:
            output(SUMMARY_QID, label, number(measure, summary[index[measure]]))
        for measure in values.measures:
            _explain(measure, float(summary[index[measure]]), values.max_grade)


def _run_on_engine(args: argparse.Namespace, labelled: list, engine: dict) -> int:
    """The same output computed by :func:`prefeval.evaluate` on another engine (partitions of the queries)."""
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    from prefeval.data.collection import Collection
    from prefeval.engine.evaluate import evaluate
    from prefeval.engine.values import MeasureValues
    from prefeval.errors import PrefevalError

    if args.provider:
        raise PrefevalError("--provider applies to --engine inprocess only")
    measures = list(dict.fromkeys(m for _, m in labelled))
    collection = Collection.of(args.qrels)  # read once: evaluated, and its highest grade for the explanations
    table = evaluate(collection, {args.run: args.run}, measures, per_query=True, progress=progress_enabled(args),
                     **engine)
    _write(args, labelled, MeasureValues.from_frame(table, measures, collection.max_grade))
    return 0


def _warn(message: str) -> None:
    print(f"prefeval eval: warning: {message}", file=sys.stderr)


def _explain(measure, value: float, max_grade: int | None) -> None:
    """Say why a summary value is nan, or 0 only because no query has a relevant document (``max_grade``: the
    highest grade in the qrels)."""
    rel = measure.params.get("rel", 1) if isinstance(getattr(measure, "params", None), dict) else 1
    rel = rel if isinstance(rel, int) else 1
    if max_grade is None or max_grade < rel:
        _warn(f"{measure} is {value}: no query has a relevant document (grade >= {rel}) in the qrels")
    elif value != value:
        _warn(f"{measure} is nan: {measure} is undefined on these inputs")


def _writer(args: argparse.Namespace):
    fmt = "" if args.places == -1 else f".{args.places}f"

    run = getattr(args, "run_label", None)  # several runs: each line starts with its run's name

    def tsv(query_id: str, label: str, value: float | int) -> None:
        prefix = (f"{run}\t" if run is not None else "") + (f"{query_id}\t" if args.by_query else "")
        print(f"{prefix}{label}\t{value if isinstance(value, int) else format(value, fmt)}")

    def jsonl(query_id: str, label: str, value: float) -> None:
        record = {"run": run, "query_id": query_id, "measure": label, "value": value}
        if run is None:
            del record["run"]
        if not args.by_query:
            del record["query_id"]
        print(json.dumps(record))

    return tsv if args.output_format == "tsv" else jsonl
