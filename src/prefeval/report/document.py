"""The report document: format-neutral blocks (headings, paragraphs, tables, figures, lists, interactive views)
and their Markdown (report.md) and LaTeX (report.tex) renderings; report.html renders the same blocks
(:mod:`prefeval.report.html`).

The pipeline builds the blocks from its results (:mod:`prefeval.pipeline.document`); tables are written by the one
table writer of each format (:func:`prefeval.report.tables.markdown`, :func:`prefeval.report.tables.latex`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from prefeval.report.tables import Grid, latex, markdown
from prefeval.report.text import latex_inline, md_inline

__all__ = ["Block", "table_captions", "render_markdown", "render_latex"]


@dataclass
class Block:
    """``kind``: heading (level, text), text, table (header, rows, caption = text, label, align),
    image (caption = text, file name = label or "" when no file was written, ``key`` names the figure:
    ``means``, ``heatmap:<method>``, ``analysis:<name>:<part>``), items (list of strings), view (an
    interactive view of report.html named by ``key``, with ``text`` describing it; the other formats skip it)."""

    kind: str
    text: str = ""
    level: int = 2
    header: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    label: str = ""
    align: str | None = None
    items: list[str] = field(default_factory=list)
    key: str = ""

    def as_json(self) -> dict[str, Any]:
        """The block as plain JSON values (stored in summary.json so ``prefeval report`` can render it again)."""
        return {k: v for k, v in asdict(self).items() if v not in ("", [], None) or k == "kind"}

    @classmethod
    def of_grid(cls, grid: Grid, caption: str, label: str = "") -> Block:
        """A table block of ``grid``'s header and cells' texts (a grid without marks or intervals, e.g.
        :func:`prefeval.report.check.runs_grid`), its columns of numbers right-aligned."""
        if any(c.mark or c.letters or c.ci or c.best or c.fragile for row in grid.rows for c in row):
            raise ValueError("a table block holds texts only; this grid has marks")
        return cls("table", text=caption, header=list(grid.header), label=label,
                   rows=[[cell.text for cell in row] for row in grid.rows],
                   align="".join("r" if grid.is_numeric(k) else "l" for k in range(len(grid.header))))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Block:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


def table_captions(blocks: Sequence[Block]) -> dict[int, str]:
    """``{block index: "Table N: caption"}`` for the table blocks, numbered in order (as LaTeX numbers them),
    so report.md, report.html and report.tex name each table alike."""
    tables = [i for i, block in enumerate(blocks) if block.kind == "table"]
    return {i: f"Table {n}: {blocks[i].text}" for n, i in enumerate(tables, 1)}


def render_markdown(blocks: list[Block]) -> str:
    """Markdown text of the report blocks; all text goes through :func:`~prefeval.report.text.md_inline`,
    so run names, titles and descriptions cannot inject HTML, links or table cells. Each table has its
    caption above it (``*Table N: ...*``); figures without a file and the HTML-only views are left out."""
    parts = []
    captions = table_captions(blocks)
    for i, block in enumerate(blocks):
        if block.kind == "heading":
            parts.append("#" * block.level + " " + md_inline(block.text))
        elif block.kind == "text":
            parts.append(md_inline(block.text))
        elif block.kind == "table":
            grid = Grid.of_texts(block.header, block.rows, align=block.align)
            parts.append(f"*{md_inline(captions[i])}*\n\n" + markdown(grid).rstrip("\n"))
        elif block.kind == "image" and block.label:
            parts.append(f"![{md_inline(block.text)}](<{block.label}>)")
        elif block.kind == "items":
            parts.append("\n".join(f"- {md_inline(item)}" for item in block.items))
    return "\n\n".join(parts) + "\n"


def render_latex(blocks: list[Block]) -> str:
    """A standalone LaTeX document (booktabs tables; figures included with graphicx)."""
    lines = [r"\documentclass{article}", r"\usepackage[utf8]{inputenc}", r"\usepackage{booktabs,amssymb,graphicx}",
             r"\usepackage[margin=2cm,landscape]{geometry}", r"\begin{document}"]
    for block in blocks:
        if block.kind == "heading":
            command = {1: "section*", 2: "subsection*"}.get(block.level, "subsubsection*")
            if block.level == 2:
                lines.append(r"\clearpage")
            lines.append(rf"\{command}{{{latex_inline(block.text)}}}")
        elif block.kind == "text":
            lines.append(latex_inline(block.text) + "\n")
        elif block.kind == "table":
            grid = Grid.of_texts(block.header, block.rows, caption=block.text, align=block.align)
            lines.append(latex(grid, label=block.label, fit_width=True).rstrip("\n"))
        elif block.kind == "image" and block.label:
            lines += [r"\begin{figure}[!htbp]", r"\centering",
                      rf"\includegraphics[width=0.8\linewidth]{{{block.label}}}",
                      rf"\caption{{{latex_inline(block.text)}}}", r"\end{figure}"]
        elif block.kind == "items":
            lines += [r"\begin{itemize}"] + [rf"\item {latex_inline(i)}" for i in block.items] + [r"\end{itemize}"]
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"
