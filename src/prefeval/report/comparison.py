"""The report of a :class:`prefeval.Comparison`: its summary table (one row per pair, one column per method, the
mean preference with ``*`` where significant) in every format, and its long-form rows with the rankings.

The numbers come from the comparison (:meth:`~prefeval.Comparison.tests`, :meth:`~prefeval.Comparison.pair_sums`,
:meth:`~prefeval.Comparison.report_rows`, :meth:`~prefeval.Comparison.ranking_rows`); this module lays them out.
"""

from __future__ import annotations

from typing import Any

from prefeval.engine.significance import FAMILY_WISE_TESTS
from prefeval.report.html import grid_table
from prefeval.report.tables import Cell, Grid, latex, markdown, plain

__all__ = ["describe_test", "judged_note", "comparison_grid", "comparison_text", "comparison_html", "ranking_grid", "long_rows"]


def describe_test(test: str, correction: str, family: str) -> str:
    """``"t test, holm correction over FAMILY"`` (or ``no correction``; a family-wise test says so)."""
    if test in FAMILY_WISE_TESTS:
        return f"{test}, family-wise over all pairs"
    return f"{test} test, " + ("no correction" if correction == "none" else f"{correction} correction over {family}")


def judged_note(table: Any) -> str:
    """The runs whose Judged@k (:attr:`prefeval.engine.table.RunTable.judged`, :attr:`prefeval.Comparison.judged`)
    is below 1, with their values: the share of their top k documents the measures read without a judgment, as
    non-relevant."""
    if not table.judged:
        return ""
    field = table.judged_field
    k = field.partition("@")[2]
    below = [f"{run} {value:.3f}" for run, value in table.judged.items() if value < 1]
    if not below:
        return f"{field} = 1 for every run: every top-{k} document is judged."
    return (f"{field} (share of a run's top {k} documents that are judged; the measures read the others as "
            f"non-relevant) below 1: {', '.join(below)}.")


def comparison_grid(c: Any, test: str | None = None, correction: str | None = None, alpha: float = 0.05,
                    digits: int = 3, **options: Any) -> Grid:
    """The summary of ``c`` as a :class:`~prefeval.report.tables.Grid`: header ``run_a, run_b, method...``, one
    row per pair (in :meth:`~prefeval.Comparison.summary`'s order), each cell the mean preference of ``run_a`` over
    ``run_b`` marked ``*`` where significant, and the note naming the queries, tests and correction."""
    columns, used = [], []
    for label in c.methods:
        r, test_used, correction_used, res = c.tests(label, test, correction, alpha, **options)
        means = c.pair_sums(r).mean.tolist()
        columns.append([Cell(f"{v:+.{digits}f}", "*" if significant else "", number=True)
                        for v, significant in zip(means, res.significant.tolist())])
        used.append((label, test_used, correction_used, res.undefined))
    rows = [[Cell(a), Cell(b), *(cells[p] for cells in columns)] for p, (a, b) in enumerate(c.pairs)]
    n = len(c.pairs)
    family = (f"the {n} pair{'s' if n != 1 else ''} with the baseline {c.baseline}" if c.baseline is not None
              else f"all {n} pair{'s' if n != 1 else ''}")
    tests = "; ".join(f"{label}: {describe_test(t, k, family)}"
                      + (f", {u} undefined test{'s' if u != 1 else ''} left out (no p-value, never *)" if u else "")
                      for label, t, k, u in used)
    note = (f"Mean per-query preference of run_a over run_b over {c._queries_note()} "
            f"(positive: run_a preferred); * = significant at alpha={alpha} ({tests}).")
    if judged := judged_note(c):
        note += " " + judged
    header = ["run_a", "run_b", *c.methods]
    return Grid(header, rows, note=note, numeric=[False, False] + [True] * len(c.methods))


def comparison_text(c: Any, fmt: str, test: str | None = None, correction: str | None = None, alpha: float = 0.05,
                    digits: int = 3, **options: Any) -> str:
    """The summary table of ``c`` as ``fmt``: ``table`` (plain aligned text), ``markdown`` or ``latex``."""
    grid = comparison_grid(c, test, correction, alpha, digits, **options)
    return _render(grid, fmt)


#: a notebook shows at most this many pairs of a comparison (``to_html(max_rows=None)``: all)
HTML_ROWS = 100


def comparison_html(c: Any, test: str | None = None, correction: str | None = None, alpha: float = 0.05,
                    digits: int = 3, max_rows: int | None = HTML_ROWS, **options: Any) -> str:
    """The summary table of ``c`` as an HTML ``<table>`` with a caption; at most ``max_rows`` pairs (the caption
    says how many are shown)."""
    grid = comparison_grid(c, test, correction, alpha, digits, **options)
    caption = f"Comparison of {len(c.runs)} runs" + (f" against {c.baseline}" if c.baseline is not None else "")
    rows = grid.rows
    if max_rows is not None and len(rows) > max_rows:
        caption += f" (the first {max_rows} of {len(rows)} pairs)"
        rows = rows[:max_rows]
    return grid_table(Grid(grid.header, rows, caption, grid.note, grid.numeric))


def ranking_grid(header: list[str], rows: list[list[Any]], caption: str = "") -> Grid:
    """Rows of rankings (``method, rank, run, [level,] score``) as a grid (floats with 4 decimals)."""
    cells = [[Cell(f"{v:.4f}" if isinstance(v, float) else str(v), number=isinstance(v, (int, float)))
              for v in row] for row in rows]
    numeric = [bool(rows) and isinstance(rows[0][k], (int, float)) for k in range(len(header))]
    return Grid([str(h) for h in header], cells, caption=caption, numeric=numeric)


def _render(grid: Grid, fmt: str) -> str:
    if fmt == "markdown":
        return markdown(grid)
    if fmt == "latex":
        return latex(grid)
    if fmt == "table":
        return plain(grid)
    raise ValueError(f"unknown table format {fmt!r}")


def render(grid: Grid, fmt: str) -> str:
    """A grid as ``table`` (plain text), ``markdown``, ``latex`` or ``html``."""
    return grid_table(grid) if fmt == "html" else _render(grid, fmt)


def long_rows(summary: tuple[list[str], list[list]], rankings: tuple[list[str], list[list]] | None
              ) -> tuple[list[str], list[list]]:
    """The summary rows (:meth:`~prefeval.Comparison.report_rows`) and, when given, the ranking rows of every
    method, as one long-form table: with rankings, a first column ``table`` (``summary`` or ``ranking``) and the
    union of both headers (a column a row does not have is empty); what ``compare --format csv|json|jsonl``
    writes, so that those formats carry everything the table does."""
    header, rows = summary
    if rankings is None:
        return header, rows
    ranking_header, ranking_rows = rankings
    union = ["table", *header, *[h for h in ranking_header if h not in header]]
    out = [["summary", *(dict(zip(header, row)).get(h) for h in union[1:])] for row in rows]
    out += [["ranking", *(dict(zip(ranking_header, row)).get(h) for h in union[1:])] for row in ranking_rows]
    return union, out
