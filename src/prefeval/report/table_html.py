"""A :class:`~prefeval.report.tables.Grid` as an HTML ``<table>`` (for notebooks' ``_repr_html_`` and
``to_html()``): caption, header, rows and the note in a footer, every text escaped."""

from __future__ import annotations

from html import escape

from prefeval.report.tables import Cell, Grid

__all__ = ["html_table"]

_SYMBOLS = {"": "", "*": "<sup>*</sup>", "up": "▲", "down": "▼"}


def _cell(cell: Cell, numeric: bool) -> str:
    text = escape(cell.text)
    if cell.best:
        text = f"<b>{text}</b>"
    text += _SYMBOLS[cell.mark]
    if cell.ci:
        text += f" <small>{escape(cell.ci)}</small>"
    if cell.letters:
        text += f"<sup>{escape(cell.letters)}</sup>"
    align = ' style="text-align: right"' if numeric else ' style="text-align: left"'
    return f"<td{align}>{text}</td>"


def html_table(grid: Grid) -> str:
    """The grid as one ``<table>`` element (caption, ``<thead>``, ``<tbody>``, the note in ``<tfoot>``)."""
    numeric = [grid.is_numeric(k) for k in range(len(grid.header))]
    parts = ['<table class="prefeval-table">']
    if grid.caption:
        parts.append(f"<caption>{escape(grid.caption)}</caption>")
    parts.append("<thead><tr>" + "".join(
        f'<th style="text-align: {"right" if numeric[k] else "left"}">{escape(h)}</th>'
        for k, h in enumerate(grid.header)) + "</tr></thead>")
    parts.append("<tbody>")
    parts += ["<tr>" + "".join(_cell(c, numeric[k]) for k, c in enumerate(row)) + "</tr>" for row in grid.rows]
    parts.append("</tbody>")
    if grid.note:
        parts.append(f'<tfoot><tr><td colspan="{len(grid.header)}"><small>{escape(grid.note)}</small></td></tr>'
                     "</tfoot>")
    parts.append("</table>")
    return "\n".join(parts) + "\n"
