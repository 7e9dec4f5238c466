"""``prefeval axioms [--table] MEASURE...``: check measures against formal constraints.

Without ``--table``: one block per measure, one line per constraint (verdict and reason) and, for a
violation, the smallest counterexample found. With ``--table``: the constraint × measure matrix
(● satisfied, ○ violated, – not applicable); ``--paper`` adds the cell-by-cell comparison with Table 1
of the RBU paper (Amigó et al. (2018)). With no MEASURE, ``--table`` uses the measures of Table 1 of Amigó et al. (2018). ``--balance N``
prints the balancing index B(n), n = 1..N, of each measure (Ferrante et al. (2015) §6).
"""

from __future__ import annotations

import argparse

from prefeval.report.tables import FORMATS as ALL_FORMATS

#: the output formats of the checks and the matrix (text, Markdown or CSV)
FORMATS = tuple(f for f in ALL_FORMATS if f in ("table", "markdown", "csv"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("measures", nargs="*", metavar="MEASURE",
                        help="ir-measures names (e.g. nDCG@10 'RBU(p=0.8,e=0.03)@10'), LexiRecall, "
                             "LexiPrecision, RPP; with --table and none: the measures of Table 1 of Amigó et al. (2018)")
    parser.add_argument("--table", action="store_true", help="print the constraint x measure matrix")
    parser.add_argument("--paper", action="store_true",
                        help="with --table: compare each cell with Table 1 of Amigó et al. (2018) and explain differences")
    parser.add_argument("--constraints", "-c", default=None,
                        help="comma-separated keys or groups: amigo2018, relevance, diversity, ferrante2015, table6, "
                             "all (default: all; with --table: amigo2018)")
    parser.add_argument("--cases", type=int, default=None, help="random cases per constraint (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the case generators (default 0)")
    parser.add_argument("--bound", type=int, default=None,
                        help="largest n searched by the Deepness/Closeness Thresholds (default 512)")
    parser.add_argument("--balance", type=int, metavar="N", default=None,
                        help="print the balancing index B(n) for n = 1..N instead (Ferrante et al. (2015) §6; binary grades)")
    parser.add_argument("--format", "-f", choices=FORMATS, default="table", help="output format (default table)")


def run(args: argparse.Namespace) -> int:
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    from prefeval.axioms import check, compare_with_paper, matrix
    from prefeval.axioms.table import README_MEASURES
    from prefeval.errors import PrefevalError

    if args.cases is not None and args.cases < 1:
        raise PrefevalError(f"--cases must be >= 1, got {args.cases}")
    options = {} if args.bound is None else {"bound": args.bound}
    if args.balance is not None:
        return _print_balance(args.measures, args.balance)
    if args.table:
        measures = args.measures or list(README_MEASURES)
        wide = matrix(measures, constraints=args.constraints or "amigo2018", cases=args.cases, seed=args.seed,
                      **options)
        if args.format == "csv":
            print(wide.to_csv(), end="")
        elif args.format == "markdown":
            from prefeval.report.reference import axioms_table  # deferred: with the rest of prefeval

            print(axioms_table(wide, paper=args.paper))
        else:
            print(wide.to_string())
        if args.paper:
            _print_paper(compare_with_paper(wide), wide)
        return 0
    if not args.measures:
        raise PrefevalError("name at least one measure (or use --table)")
    results = [check(m, args.constraints, cases=args.cases, seed=args.seed, **options) for m in args.measures]
    if args.format == "csv":
        # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
        import pandas as pd

        print(pd.concat(results).drop(columns="counterexample").to_csv(index=False), end="")
        return 0
    for frame in results:
        _print_check(frame, markdown_format=args.format == "markdown")
    return 0


def _print_balance(measures: list[str], up_to: int) -> int:
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    from prefeval.axioms import balancing_index
    from prefeval.axioms.balance import check_length
    from prefeval.errors import PrefevalError

    if not measures or up_to < 1:
        raise PrefevalError("--balance N needs N >= 1 and at least one measure")
    check_length(up_to)  # before the first of the N evaluations
    width = max(len(m) for m in measures)
    print(f"{'n':<{width}}  " + " ".join(f"{n:>4}" for n in range(1, up_to + 1)))
    for measure in measures:
        values = [balancing_index(measure, n) for n in range(1, up_to + 1)]
        print(f"{measure:<{width}}  " + " ".join(f"{'-' if v is None else v:>4}" for v in values))
    return 0


def _print_check(frame, markdown_format: bool) -> None:
    label = frame["measure"].iloc[0]
    if markdown_format:
        from prefeval.report.tables import frame_grid, markdown  # deferred: with the rest of prefeval

        print(f"### `{label}`\n")
        print(markdown(frame_grid(frame[["constraint", "verdict", "reason"]])))
        return
    print(label)
    width = max(len(c) for c in frame["constraint"])
    for row in frame.itertuples():
        line = f"  {row.constraint:<{width}}  {row.verdict}"
        print(line + (f"  ({row.reason})" if row.reason and row.verdict != "violated" else ""))
        if row.verdict == "violated":
            print(f"  {'':<{width}}    {row.reason}")
            print(f"  {'':<{width}}    left:  {row.left}")
            print(f"  {'':<{width}}    right: {row.right}")
            print(f"  {'':<{width}}    qrels: {row.qrels}")
            values = (f"pref(left, right) = {row.left_value:.6g}" if row.relation.startswith("pref")
                      else f"Q(left) = {row.left_value:.6g}, Q(right) = {row.right_value:.6g}")
            print(f"  {'':<{width}}    required {row.relation}; got {values}")
    print()


def _print_paper(comparison, wide) -> None:
    analysed = set(comparison["measure"])
    missing = [m for m in wide.index if m not in analysed]
    differ = comparison[~comparison["agrees"]]
    print(f"\nTable 1 of Amigó et al. (2018): {int(comparison['agrees'].sum())} of {len(comparison)} cells agree.")
    for row in differ.itertuples():
        why = row.explanation or "no recorded explanation"
        print(f"  {row.measure} / {row.constraint}: ours {row.ours}, paper {row.paper} ({row.paper_row}) - {why}")
    if missing:
        print(f"  not in Table 1: {', '.join(missing)}")
