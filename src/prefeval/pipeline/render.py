"""Plain Markdown and LaTeX (booktabs) tables, and number formatting, without extra dependencies."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from prefeval.report.text import LATEX_SPECIAL, inline_markup, md_escape
from prefeval.report.text import latex_escape as _latex_escape

__all__ = ["fmt", "fmt_p", "plural", "md_inline", "md_table", "latex_inline", "latex_table", "latex_escape", "slug",
           "path_slug"]


UP, DOWN = "▲", "▼"


def fmt(value: Any, digits: int = 4, signed: bool = False) -> str:
    """A number with ``digits`` decimals (``+`` sign when ``signed``); NaN/None as an en dash."""
    if value is None:
        return "–"
    if isinstance(value, (bool, str)):
        return str(value)
    if isinstance(value, int):
        return f"{value:+d}" if signed else str(value)
    value = float(value)
    if math.isnan(value):
        return "–"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def fmt_p(value: Any) -> str:
    """A p-value: 3 significant digits, ``<0.001`` below 0.001."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun in the number it takes: ``plural(1, "query", "queries")`` is ``1 query``."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


#: ``&lt;`` that Markdown could not read as the start of a tag or an autolink (``<`` followed by a digit,
#: a space, ``=`` ...) is written as ``<`` itself, so report.md reads ``p<0.001`` as text too.
_INERT_LT = re.compile(r"&lt;(?![A-Za-z/!?])")


def md_inline(text: Any) -> str:
    """Markdown of a report text: its ``**bold**`` and ```code``` spans kept, every other character escaped
    (:func:`prefeval.report.text.md_escape`), so names, titles and descriptions are shown as written. A code span
    whose content Markdown or HTML could read as markup is shown as escaped plain text instead."""

    def code(inner: str) -> str:
        return f"`{inner}`" if md_escape(inner) == inner else md_escape(inner)

    return _INERT_LT.sub("<", inline_markup(text, lambda inner: f"**{md_escape(inner)}**", code, md_escape))


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> str:
    """A GitHub-flavoured Markdown table; ``align`` is one character per column (l, r, c); cells are
    :func:`md_inline` text."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(md_inline(h) for h in header) + " |",
             "| " + " | ".join(rule[a] for a in align) + " |"]
    lines += ["| " + " | ".join(md_inline(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


#: LaTeX's special characters plus the report's marks and symbols.
_REPORT_LATEX = {**LATEX_SPECIAL, UP: r"$^\blacktriangle$", DOWN: r"$^\blacktriangledown$", "τ": r"$\tau$",
                 "α": r"$\alpha$", "–": "--", "≥": r"$\geq$", "<": r"\textless{}", ">": r"\textgreater{}",
                 "|": r"\textbar{}", "≠": r"$\neq$", "±": r"$\pm$", "−": "-"}


def latex_escape(text: Any) -> str:
    """Escape LaTeX special characters (and render the report's marks)."""
    return _latex_escape(text, _REPORT_LATEX)


def latex_inline(text: Any) -> str:
    """LaTeX of a report text: ``**bold**`` as ``\\textbf``, ```code``` as ``\\texttt``, everything else escaped
    (:func:`latex_escape`); no Markdown mark reaches the LaTeX file."""
    return inline_markup(text, lambda inner: rf"\textbf{{{latex_escape(inner)}}}",
                         lambda inner: rf"\texttt{{{latex_escape(inner)}}}", latex_escape)


def latex_table(header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str, label: str,
                align: str | None = None) -> str:
    """A ``table`` float with a booktabs ``tabular`` in ``\\small`` type, scaled to the line width when it has
    more than 8 columns (needs ``\\usepackage{booktabs,amssymb,graphicx}``)."""
    align = align or "l" + "r" * (len(header) - 1)
    tabular = [rf"\begin{{tabular}}{{{align}}}", r"\toprule",
               " & ".join(latex_inline(h) for h in header) + r" \\", r"\midrule"]
    tabular += [" & ".join(latex_inline(x) for x in row) + r" \\" for row in rows]
    tabular += [r"\bottomrule", r"\end{tabular}"]
    if len(header) > 8:
        tabular = [r"\resizebox{\linewidth}{!}{%", *tabular, "}"]
    return "\n".join([r"\begin{table}[!htbp]", r"\centering", r"\small",
                      rf"\caption{{{latex_inline(caption)}}}", rf"\label{{{label}}}", *tabular, r"\end{table}"])


def slug(text: str) -> str:
    """A file-name-safe version of a method or measure name (``RPP(weighting='dcg')`` -> ``RPP_weighting_dcg``)."""
    return re.sub(r"[^A-Za-z0-9@.+-]+", "_", text).strip("_").replace("@", "_at_") or "x"


def path_slug(name: str) -> str:
    """A pipeline name as one safe path component (no separators, no leading dot): ``../../x`` -> ``x``."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", str(name)).strip("._-") or "pipeline"
