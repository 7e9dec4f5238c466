"""``prefeval eval QRELS RUN MEASURE...``: the ``ir_measures`` command with prefeval's measures available.

Same arguments and output formats as ``ir_measures`` (tsv or jsonl, summary or per query), so it can
replace it in scripts. QRELS may also be an ir_datasets id; MEASURE may also be a trec_eval name
(``ndcg_cut_10``), as in pipelines. Every measure reads the same canonical input (README, "Input semantics"):
the run is ranked once (ties by doc id descending, a repeated document at its first position) and conflicting
qrels lines are resolved (the last line wins), whichever provider computes the measure.
"""

from __future__ import annotations

import argparse
import json
import sys

from prefeval.commands.engine_args import add_engine_arguments, engine_options

PLACES = 4
SUMMARY_QID = "all"
MAX_PLACES = 17


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", help="TREC qrels file or ir_datasets id")
    parser.add_argument("run", help="TREC run file (.gz allowed)")
    parser.add_argument("measures", nargs="+", help="measures, e.g. nDCG@10 'RBU(p=0.8)@20' \"RPP(baseline='bm25.run')\"")
    parser.add_argument("--places", "-p", type=int, default=PLACES,
                        help=f"decimal places, 0 to {MAX_PLACES} (-1: all)")
    parser.add_argument("--by_query", "-q", action="store_true", help="one line per query")
    parser.add_argument("--no_summary", "-n", action="store_true", help="with -q: omit the 'all' lines")
    parser.add_argument("--output_format", "-o", choices=["tsv", "jsonl"], default="tsv")
    parser.add_argument("--provider", help="evaluate with this ir-measures provider only")
    add_engine_arguments(parser)


def parse_measures(texts: list[str]) -> list:
    """Parse measure names (several may share one argument, separated by spaces) as :func:`prefeval.evaluate`
    does (ir-measures syntax or trec_eval names, parameters checked, "did you mean" hints); report every bad one."""
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    import prefeval.provider  # noqa: F401  (registers prefeval's measures and provider)
    from prefeval.errors import PrefevalError
    from prefeval.evaluate import parse_measures as parse

    measures, errors = [], []
    for text in texts:
        # One argument may hold several measures separated by spaces (as with `ir_measures`), or one measure
        # whose parameters contain spaces ("RPP(baseline='bm25', rel=2)"): try the whole argument first.
        try:
            names = [text] if parse(text.strip()) else []
        except PrefevalError:
            names = text.split() if len(text.split()) > 1 else [text]
        for name in names:
            try:
                found = parse(name.strip())
            except PrefevalError as exc:
                errors.append(str(exc))
                continue
            measures += [m for m in found if m not in measures]
    if errors:
        raise PrefevalError("cannot parse measures:\n  " + "\n  ".join(errors))
    return measures


def run(args: argparse.Namespace) -> int:
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    import ir_measures
    from ir_measures import Metric

    from prefeval.errors import PrefevalError
    from prefeval.evaluate import iter_metrics, metric_evaluators, ranked_inputs

    measures = parse_measures(args.measures)
    if args.no_summary and not args.by_query:
        raise PrefevalError("--no_summary (-n) only works with --by_query (-q)")
    if not -1 <= args.places <= MAX_PLACES:
        raise PrefevalError(f"--places must be -1 (all) or 0 to {MAX_PLACES}; got {args.places}")
    engine = engine_options(args)
    if engine:
        return _run_on_engine(args, measures, engine)
    qrels, _, ranked = ranked_inputs(args.qrels, {args.run: args.run})
    provider = None
    if args.provider:
        if args.provider not in ir_measures.providers.registry:
            raise PrefevalError(f"unknown provider {args.provider!r}; known: {sorted(ir_measures.providers.registry)}")
        provider = ir_measures.providers.registry[args.provider]
    output = _writer(args)
    try:
        # as ir_measures.iter_calc / calc_aggregate, with each provider given its fastest input (dicts for all but
        # prefeval's), built once from the one ranking
        evaluators = metric_evaluators(measures, qrels, provider)
        aggregators = {m: m.aggregator() for m in measures}
        for metric in iter_metrics(evaluators, ranked[args.run]):
            if args.by_query:
                output(metric)
            aggregators[metric.measure].add(metric.value)
        if not args.by_query or not args.no_summary:
            for m in measures:
                output(Metric(SUMMARY_QID, m, aggregators[m].result()))
                _explain(m, aggregators[m].result(), qrels)
    except (AssertionError, RuntimeError) as exc:
        raise PrefevalError(str(exc)) from exc
    return 0


def _run_on_engine(args: argparse.Namespace, measures: list, engine: dict) -> int:
    """The same output computed by :func:`prefeval.evaluate` on another engine (partitions of the queries)."""
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    from ir_measures import Metric

    from prefeval.errors import PrefevalError
    from prefeval.evaluate import evaluate
    from prefeval.inputs import qrels_frame

    if args.provider:
        raise PrefevalError("--provider applies to --engine inprocess only")
    table = evaluate(args.qrels, {args.run: args.run}, measures, per_query=True, **engine)
    by_name = {str(m): m for m in measures}
    aggregators = {m: m.aggregator() for m in measures}
    output = _writer(args)
    for query_id, name, value in zip(table["query_id"], table["measure"], table["value"]):
        if args.by_query:
            output(Metric(query_id, by_name[name], value))
        aggregators[by_name[name]].add(value)
    if not args.by_query or not args.no_summary:
        qrels = qrels_frame(args.qrels)
        for m in measures:
            output(Metric(SUMMARY_QID, m, aggregators[m].result()))
            _explain(m, aggregators[m].result(), qrels)
    return 0


def _warn(message: str) -> None:
    print(f"prefeval eval: warning: {message}", file=sys.stderr)


def _explain(measure, value: float, qrels) -> None:
    """Say why a summary value is nan, or 0 only because no query has a relevant document."""
    rel = measure.params.get("rel", 1) if isinstance(getattr(measure, "params", None), dict) else 1
    rel = rel if isinstance(rel, int) else 1
    relevant = qrels.loc[qrels["relevance"] >= rel, "query_id"].nunique()
    if relevant == 0:
        _warn(f"{measure} is {value}: no query has a relevant document (grade >= {rel}) in the qrels")
    elif value != value:
        _warn(f"{measure} is nan: {measure} is undefined on these inputs")


def _writer(args: argparse.Namespace):
    fmt = "" if args.places == -1 else f".{args.places}f"

    def tsv(metric) -> None:
        prefix = f"{metric.query_id}\t" if args.by_query else ""
        print(f"{prefix}{metric.measure}\t{metric.value:{fmt}}")

    def jsonl(metric) -> None:
        record = {"query_id": metric.query_id, "measure": str(metric.measure), "value": metric.value}
        if not args.by_query:
            del record["query_id"]
        print(json.dumps(record))

    return tsv if args.output_format == "tsv" else jsonl
