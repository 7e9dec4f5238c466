""":class:`prefeval.engine.check.Check` as tables: one row per run (:func:`runs_grid`) and the qrels' lines
(:func:`qrels_lines`); :func:`check_text` is ``prefeval check``'s plain output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prefeval.engine.check import CUTOFFS, TIE_DEPTH, Check
from prefeval.report.tables import Cell, Grid, plain

__all__ = ["runs_grid", "qrels_lines", "check_text"]


def runs_grid(result: Check | Mapping[str, Any]) -> Grid:
    """One row per run: judged queries covered, queries only in the run, documents per query, Judged@k (each k
    checked), ties, repeated documents and non-finite scores; the note says what they are. ``result``: a
    :class:`~prefeval.engine.check.Check` or its plain data (:meth:`~prefeval.engine.check.Check.to_dict`, as a
    pipeline's summary.json holds it): ``prefeval check`` and the pipeline report's "Input checks" show this one
    table."""
    found = result.to_dict() if isinstance(result, Check) else result
    runs = found["runs"]
    cutoffs = sorted(runs[0]["judged_at"], key=int) if runs else [str(k) for k in CUTOFFS]
    header = ["run", "judged queries", "run only", "docs min/median/max", *(f"Judged@{k}" for k in cutoffs),
              f"tied top {TIE_DEPTH}", "tied docs", "repeated", "non-finite"]
    rows = []
    for run in runs:
        rows.append([Cell(run["name"]), Cell(f"{run['judged_covered']}/{run['judged_queries']}", number=True),
                     Cell(str(run["run_only"]), number=True),
                     Cell(f"{run['docs_min']}/{run['docs_median']:g}/{run['docs_max']}", number=True),
                     *(Cell(f"{run['judged_at'][k]:.3f}", number=True) for k in cutoffs),
                     Cell(f"{run['tied_queries']}/{run['run_queries']}", number=True),
                     Cell(f"{run['tied_share']:.1%}", number=True), Cell(str(run["repeated"]), number=True),
                     Cell(str(run["non_finite"]), number=True)])
    note = (f"Judged@k: share of the top k documents the qrels judge (ir-measures' Judged@k; every measure reads the "
            f"others as non-relevant), mean over the {found['qrels']['queries']} judged queries. tied top {TIE_DEPTH}: "
            f"queries whose top {TIE_DEPTH} holds a score another of their documents has; tied docs: share of documents "
            "whose score another document of the query has. repeated: documents dropped as repeats within a query.")
    return Grid(header, rows, note=note)


def qrels_lines(result: Check) -> list[str]:
    """The qrels in a few lines: queries, judgments, the grade histogram, queries without a relevant document."""
    q = result.qrels
    grades = ", ".join(f"{grade}: {count}" for grade, count in q.grades.items())
    lines = [f"qrels: {q.queries} judged queries, {q.judgments} judgments; grades {grades}"]
    lines.append(f"judged queries without a document at grade >= {q.rel}: {q.no_relevant}"
                 + (f" (e.g. {', '.join(q.no_relevant_examples)})" if q.no_relevant else ""))
    return lines


def check_text(result: Check) -> str:
    """``prefeval check``'s plain text: the qrels' lines, the runs' table, then one line per warning."""
    warnings = result.warnings
    tail = ["", f"{len(warnings)} warning(s):", *(f"- {line}" for line in warnings)] if warnings else \
        ["", "no warnings"]
    return "\n".join(qrels_lines(result)) + "\n\n" + plain(runs_grid(result)) + "\n".join(tail) + "\n"
