"""Renderers of result tables: a :class:`Grid` (a wide table of formatted cells with their marks) as plain aligned
text, Markdown or LaTeX (HTML: :func:`prefeval.report.html.grid_table`), and long-form rows (one record per line) as
csv, json or jsonl.

The objects holding the numbers (:class:`prefeval.Comparison`, :class:`prefeval.engine.table.RunTable`) build
the grid and the rows; these functions only lay them out, so every format carries the same information.

Marks of a cell, in each format:

==============  ==========  =============  ===================  ==================
mark            plain       Markdown       LaTeX                HTML
==============  ==========  =============  ===================  ==================
``*``           ``*``       ``\\*``         ``$^*$``             ``<sup>*</sup>``
``up``          ``▲``       ``▲``          ``$^\\uparrow$``      ``▲``
``down``        ``▼``       ``▼``          ``$^\\downarrow$``    ``▼``
letters ``ab``  `` ab``     ``<sup>ab</sup>``  ``$^{ab}$``       ``<sup>ab</sup>``
best            ``*x*``     ``**x**``      ``\\textbf{x}``       ``<b>x</b>``
==============  ==========  =============  ===================  ==================
"""

from __future__ import annotations

import csv
import io
import json
import math
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from prefeval.core.text import csv_cell, printable
from prefeval.report.text import latex_escape, latex_inline, md_escape, md_inline

__all__ = ["Cell", "Grid", "frame_grid", "cell_text", "FORMATS", "ROW_FORMATS", "plain", "markdown", "latex", "write_rows", "row_text"]

#: formats of the long-form rows
ROW_FORMATS = ("csv", "json", "jsonl")
#: every format a table can be written in: the wide ones, then the long-form rows
FORMATS = ("table", "markdown", "latex", *ROW_FORMATS)

#: the width the note of a plain-text table is wrapped at
NOTE_WIDTH = 100
_SYMBOLS = {"": "", "*": "*", "up": "▲", "down": "▼"}
#: the mark of a significant cell that is not robust to the unjudged documents (``table(robust=True)``)
FRAGILE = "†"
_MD_SYMBOLS = {**_SYMBOLS, "*": "\\*"}
_LATEX_SYMBOLS = {"": "", "*": "$^*$", "up": "$^\\uparrow$", "down": "$^\\downarrow$", "fragile": "$^\\dagger$"}


@dataclass(frozen=True)
class Cell:
    """One cell: its ``text`` (a label, or a number already formatted), a ``mark`` (``""``, ``"*"`` significant,
    ``"up"``/``"down"`` significantly better/worse than a baseline), superscript ``letters`` (the runs a run is
    significantly better than), an interval ``ci`` (text, e.g. ``"±0.031"``) and whether it is the ``best`` of its
    column. ``number``: the text is a number (right-aligned; its sign is typeset in LaTeX)."""

    text: str
    mark: str = ""
    letters: str = ""
    ci: str = ""
    best: bool = False
    number: bool = False
    fragile: bool = False  # significant, but not under every reading of the unjudged documents (table(robust=True))


@dataclass(frozen=True)
class Grid:
    """A wide table: ``header`` (column titles), ``rows`` of :class:`Cell`, a ``caption`` and a ``note`` (what the
    numbers and marks mean; generated from the results). ``markup`` says what the header, the cells' texts and the
    caption are: ``"none"``, text shown as written (every special character escaped); ``"report"``, report texts
    whose ``**bold**`` and ```code``` spans and marks (▲, τ, ...) are typeset (:func:`~prefeval.report.text.md_inline`,
    :func:`~prefeval.report.text.latex_inline`); ``"markdown"``, Markdown written by prefeval (documentation tables),
    kept as it is in Markdown and typeset as a report text in LaTeX."""

    header: list[str]
    rows: list[list[Cell]]
    caption: str = ""
    note: str = ""
    numeric: list[bool] = field(default_factory=list)
    markup: str = "none"

    @classmethod
    def of_texts(cls, header: Sequence[Any], rows: Sequence[Sequence[Any]], caption: str = "",
                 align: str | None = None, markup: str = "report") -> Grid:
        """A grid of texts (``markup``: ``"report"`` or ``"markdown"``): ``align`` is one character per column, ``r``
        for a column of numbers (right-aligned), ``l`` for the others (default: the first column ``l``, the others
        ``r``)."""
        align = align or "l" + "r" * (len(header) - 1)
        return cls([str(h) for h in header], [[Cell(str(x)) for x in row] for row in rows], caption,
                   numeric=[a == "r" for a in align], markup=markup)

    def is_numeric(self, k: int) -> bool:
        """Whether column ``k`` holds numbers (right-aligned)."""
        if self.numeric:
            return self.numeric[k]
        return bool(self.rows) and all(row[k].number for row in self.rows)


def frame_grid(frame: Any, digits: int = 4, caption: str = "") -> Grid:
    """A :class:`Grid` of a table of values (a pandas DataFrame, its index left out): floats with ``digits``
    decimals, the other values as text; a column of numbers is right-aligned."""
    def text(value: Any) -> str:
        return f"{value:.{digits}f}" if isinstance(value, float) else str(value)

    rows = [[Cell(text(v), number=isinstance(v, (int, float)) and not isinstance(v, bool)) for v in row]
            for row in frame.itertuples(index=False)]
    return Grid([str(c) for c in frame.columns], rows, caption)


def cell_text(cell: Cell, text: str, best: Callable[[str], str], marks: Mapping[str, str], ci: Callable[[str], str],
              letters: Callable[[str], str]) -> str:
    """A cell in one format: its ``text`` (already in that format), ``best(text)`` when it is the best of its column,
    then its mark (``marks[cell.mark]``), ``ci(cell.ci)`` and ``letters(cell.letters)`` when it has them: the one
    order of a cell's parts in the plain, Markdown, LaTeX and HTML tables."""
    if cell.best:
        text = best(text)
    text += marks[cell.mark]
    if cell.ci:
        text += ci(cell.ci)
    if cell.letters:
        text += letters(cell.letters)
    if cell.fragile:  # after the marks it qualifies
        text += marks.get("fragile", FRAGILE)
    return text


def _one_line(text: str) -> str:
    """Plain text of a label: control characters written as escapes (:func:`~prefeval.core.text.printable`), so one
    row stays one line and nothing reaches the terminal as a control sequence."""
    return printable(text)


def _plain_cell(cell: Cell) -> str:
    return cell_text(cell, _one_line(cell.text), lambda t: f"*{t}*", _SYMBOLS, lambda ci: f" {ci}",
                     lambda letters: f" {letters}")


def plain(grid: Grid) -> str:
    """Plain aligned text for a terminal (no escapes): a header, a rule, the rows, then the note."""
    cells = [[_one_line(h) for h in grid.header]] + [[_plain_cell(c) for c in row] for row in grid.rows]
    widths = [max(len(row[k]) for row in cells) for k in range(len(grid.header))]
    lines = []
    for row in cells:
        parts = [text.rjust(w) if grid.is_numeric(k) else text.ljust(w) for k, (text, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(parts).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    text = ("\n".join([grid.caption, ""]) + "\n" if grid.caption else "") + "\n".join(lines) + "\n"
    return text + ("\n" + textwrap.fill(grid.note, NOTE_WIDTH, break_on_hyphens=False) + "\n" if grid.note else "")


#: how each kind of text (:attr:`Grid.markup`) is written in Markdown and in LaTeX
_MD_TEXT: dict[str, Callable[[Any], str]] = {"none": md_escape, "report": md_inline, "markdown": str}
_LATEX_TEXT: dict[str, Callable[[Any], str]] = {"none": latex_escape, "report": latex_inline, "markdown": latex_inline}


def _md_cell(cell: Cell, markup: str = "none") -> str:
    return cell_text(cell, _MD_TEXT[markup](cell.text), lambda t: f"**{t}**", _MD_SYMBOLS, lambda ci: f" {md_escape(ci)}",
                     lambda letters: f"<sup>{md_escape(letters)}</sup>")


def markdown(grid: Grid) -> str:
    """A GitHub-flavoured Markdown table (labels escaped, numbers right-aligned), the caption above, the note below."""
    escape = _MD_TEXT[grid.markup]
    lines = ["| " + " | ".join(escape(h) for h in grid.header) + " |",
             "|" + "|".join("---:" if grid.is_numeric(k) else "---" for k in range(len(grid.header))) + "|"]
    lines += ["| " + " | ".join(_md_cell(c, grid.markup) for c in row) + " |" for row in grid.rows]
    head = f"{escape(grid.caption)}\n\n" if grid.caption else ""
    return head + "\n".join(lines) + "\n" + (f"\n{md_escape(grid.note)}\n" if grid.note else "")


def _latex_number(text: str) -> str:
    """A formatted number with its sign in math mode (``+0.12`` -> ``$+$0.12``)."""
    if text[:1] in "+-":
        return f"${text[0]}${latex_escape(text[1:])}"
    return latex_escape(text)


def _latex_cell(cell: Cell, markup: str = "none") -> str:
    text = _latex_number(cell.text) if cell.number and markup == "none" else _LATEX_TEXT[markup](cell.text)
    return cell_text(cell, text,
                     lambda t: f"\\textbf{{{t}}}", _LATEX_SYMBOLS, lambda ci: " " + ci.replace("±", "$\\pm$"),
                     lambda letters: f"$^{{\\mathrm{{{latex_escape(letters)}}}}}$")


def latex(grid: Grid, label: str | None = None, fit_width: bool = False) -> str:
    """A booktabs ``table`` float with a ``tabular`` in ``\\small`` type, caption and note, that compiles as is in a
    document loading ``booktabs`` (every label escaped; signs and marks in math mode). ``fit_width``: a table of more
    than 8 columns is scaled to the line width (``\\resizebox``, which needs ``graphicx``)."""
    spec = "".join("r" if grid.is_numeric(k) else "l" for k in range(len(grid.header)))
    escape = _LATEX_TEXT[grid.markup]
    lines = ["\\begin{table}[!htbp]", "\\centering", "\\small"]
    if grid.caption:
        lines.append(f"\\caption{{{escape(grid.caption)}}}")
    if label:
        lines.append(f"\\label{{{latex_escape(label)}}}")
    tabular = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(escape(h) for h in grid.header) + " \\\\",
               "\\midrule"]
    tabular += [" & ".join(_latex_cell(c, grid.markup) for c in row) + " \\\\" for row in grid.rows]
    tabular += ["\\bottomrule", "\\end{tabular}"]
    if fit_width and len(grid.header) > 8:
        tabular = ["\\resizebox{\\linewidth}{!}{%", *tabular, "}"]
    lines += tabular
    if grid.note:
        note = latex_escape(grid.note)
        for symbol, math_text in (("▲", "$\\uparrow$"), ("▼", "$\\downarrow$"), ("±", "$\\pm$")):
            note = note.replace(symbol, math_text)
        lines += ["", "\\smallskip", f"\\parbox{{\\linewidth}}{{\\footnotesize {note}}}"]
    lines.append("\\end{table}")
    return "\n".join(lines) + "\n"


def _value(v: Any) -> Any:
    """A value for csv/json: NaN as ``None``, numpy scalars as Python ones, sequences as lists."""
    if hasattr(v, "item") and not isinstance(v, (list, tuple, str)):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, tuple):
        return list(v)
    return v


def _csv_value(v: Any) -> Any:
    v = _value(v)
    if isinstance(v, list):
        v = ";".join(map(str, v))
    return csv_cell(v)


def write_rows(header: Sequence[str], rows: Iterable[Sequence[Any]], fmt: str, out: IO[str]) -> None:
    """Long-form rows of Python values in ``fmt``: ``csv`` (floats by ``repr``, NaN/None empty, a list of names
    joined by ``;``, a text that spreadsheets read as a formula with a leading ``'``:
    :func:`~prefeval.core.text.csv_cell`), ``json`` (one JSON document: an array of objects, one per line; floats
    exact, NaN ``null``) or ``jsonl`` (JSON Lines: one object per line)."""
    header = list(header)
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([_csv_value(v) for v in row] for row in rows)
        return
    if fmt not in ("json", "jsonl"):
        raise ValueError(f"unknown row format {fmt!r}; choose one of {', '.join(ROW_FORMATS)}")
    separator = "["
    for row in rows:
        record = json.dumps({name: _value(v) for name, v in zip(header, row)}, ensure_ascii=False, allow_nan=False)
        if fmt == "jsonl":
            out.write(record + "\n")
            continue
        out.write(f"{separator}\n{record}")
        separator = ","
    if fmt == "json":
        out.write("[]\n" if separator == "[" else "\n]\n")


def row_text(header: Sequence[str], rows: Iterable[Sequence[Any]], fmt: str) -> str:
    """:func:`write_rows` into a string."""
    buffer = io.StringIO()
    write_rows(header, rows, fmt, buffer)
    return buffer.getvalue()
