"""Text helpers shared by the reports of :mod:`prefeval.compare`, the commands and :mod:`prefeval.pipeline`: escaping
for Markdown, LaTeX and HTML, the inline marks of a report text (``**bold**``, ```code```), number formatting and
file-name slugs."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from prefeval.core.stats import MIN_QUERIES
from prefeval.core.text import printable

__all__ = ["INLINE_MARKUP", "LATEX_SPECIAL", "MARKDOWN_SPECIAL", "REPORT_LATEX", "UP", "DOWN", "inline_markup",
           "latex_escape", "md_escape", "md_inline", "latex_inline", "fmt", "fmt_p", "plural", "slug", "path_slug",
           "interval_text", "undefined_interval"]

#: The marks of a value significantly better / worse than the baseline.
UP, DOWN = "▲", "▼"

#: LaTeX's special characters and their escaped forms.
LATEX_SPECIAL: dict[str, str] = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                                 "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def latex_escape(text: Any, table: Mapping[str, str] = LATEX_SPECIAL) -> str:
    """``str(text)`` with control characters written as escapes (:func:`~prefeval.core.text.printable`), then every
    character found in ``table`` (default: LaTeX's special characters) replaced."""
    return "".join(table.get(ch, ch) for ch in printable(text))


#: Characters that Markdown (CommonMark/GFM) or HTML could read as markup, and their escaped forms: HTML
#: tags and entities become character references, emphasis, code, link, table and strike-through marks
#: get a backslash, and a line break becomes a space (a string never starts a new block).
MARKDOWN_SPECIAL: dict[str, str] = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "\\": "\\\\", "`": "\\`", "*": "\\*",
                                    "_": "\\_", "[": "\\[", "]": "\\]", "|": "\\|", "~": "\\~", "\n": " ",
                                    "\r": " "}


def md_escape(text: Any) -> str:
    """``str(text)`` made inert in Markdown and HTML (see :data:`MARKDOWN_SPECIAL`): shown as written, never
    as a tag, link, image, emphasis, code span or table cell boundary; other control characters are written as
    escapes (:func:`~prefeval.core.text.printable`)."""
    return "".join(MARKDOWN_SPECIAL.get(ch, ch) for ch in printable(text, keep="\n\r"))


#: The inline marks of a report text: ``**bold**`` and ```code``` spans.
INLINE_MARKUP = re.compile(r"(\*\*[^*]+\*\*|`[^`]+`)")


def inline_markup(text: Any, bold: Callable[[str], str], code: Callable[[str], str],
                  plain: Callable[[str], str]) -> str:
    """``str(text)`` with each ``**bold**`` span given to ``bold``, each ```code``` span to ``code`` (their content,
    without the marks) and every other run of characters to ``plain``, joined: one reading of the marks for the
    Markdown, LaTeX and HTML reports."""
    out = []
    for token in INLINE_MARKUP.split(str(text)):
        if token.startswith("**") and token.endswith("**") and len(token) > 4:
            out.append(bold(token[2:-2]))
        elif token.startswith("`") and token.endswith("`") and len(token) > 2:
            out.append(code(token[1:-1]))
        else:
            out.append(plain(token))
    return "".join(out)


#: ``&lt;`` that Markdown could not read as the start of a tag or an autolink (``<`` followed by a digit,
#: a space, ``=`` ...) is written as ``<`` itself, so report.md reads ``p<0.001`` as text too.
_INERT_LT = re.compile(r"&lt;(?![A-Za-z/!?])")


#: Characters a ```code``` span of a report text may not hold in Markdown (then it is written as escaped text).
CODE_SPAN_UNSAFE = frozenset("`|<>&\n\r")


def md_inline(text: Any) -> str:
    """Markdown of a report text: its ``**bold**`` and ```code``` spans kept, every other character escaped
    (:func:`md_escape`), so names, titles and descriptions are shown as written. Inside a code span Markdown reads
    every character literally (``bm25_rm3`` stays as written) except :data:`CODE_SPAN_UNSAFE` (a backtick, a table
    cell boundary, HTML that a lenient renderer might read, a line break) and control characters: a span holding one
    of them is shown as escaped plain text instead."""

    def code(inner: str) -> str:
        safe = printable(inner) == inner and not CODE_SPAN_UNSAFE.intersection(inner)
        return f"`{inner}`" if safe else md_escape(inner)

    return _INERT_LT.sub("<", inline_markup(text, lambda inner: f"**{md_escape(inner)}**", code, md_escape))


#: LaTeX's special characters plus the report's marks and symbols.
REPORT_LATEX = {**LATEX_SPECIAL, UP: r"$^\blacktriangle$", DOWN: r"$^\blacktriangledown$", "τ": r"$\tau$",
                 "α": r"$\alpha$", "–": "--", "≥": r"$\geq$", "<": r"\textless{}", ">": r"\textgreater{}",
                 "|": r"\textbar{}", "≠": r"$\neq$", "±": r"$\pm$", "−": "-"}


def latex_inline(text: Any) -> str:
    """LaTeX of a report text: ``**bold**`` as ``\\textbf``, ```code``` as ``\\texttt``, everything else escaped
    (:func:`latex_escape` with :data:`REPORT_LATEX`); no Markdown mark reaches the LaTeX file."""
    return inline_markup(text, lambda inner: rf"\textbf{{{latex_escape(inner, REPORT_LATEX)}}}",
                         lambda inner: rf"\texttt{{{latex_escape(inner, REPORT_LATEX)}}}",
                         lambda plain: latex_escape(plain, REPORT_LATEX))


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


def undefined_interval(queries: int) -> str:
    """Why the confidence interval of a mean over ``queries`` per-query values is undefined (NaN in
    :func:`prefeval.core.stats.t_interval`): fewer than :data:`~prefeval.core.stats.MIN_QUERIES` values, else
    values that do not vary (no estimate of the standard error)."""
    if queries < MIN_QUERIES:
        return f"undefined (fewer than {MIN_QUERIES} queries)"
    return f"undefined (the {queries} per-query values do not vary)"


def interval_text(low: float, high: float, queries: int, digits: int = 4, level: str = "95%") -> str:
    """A confidence interval of a mean in words: ``"95% CI 0.2100 to 0.3500"``, or ``"95% CI undefined (fewer than 2
    queries)"`` where it is NaN (:func:`undefined_interval`); never a zero-width interval in its place."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{level} CI {undefined_interval(queries)}"
    return f"{level} CI {low:.{digits}f} to {high:.{digits}f}"


#: At most this many items are named in a list of a note (the others counted: :func:`named_items`).
SHOWN_ITEMS = 5


def named_items(items: list[str]) -> str:
    """The first :data:`SHOWN_ITEMS` of ``items`` joined by commas, then ``" and N more"`` for the others."""
    more = f" and {len(items) - SHOWN_ITEMS} more" if len(items) > SHOWN_ITEMS else ""
    return ", ".join(items[:SHOWN_ITEMS]) + more


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun in the number it takes: ``plural(1, "query", "queries")`` is ``1 query``."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


def slug(text: str) -> str:
    """A file-name-safe version of a method or measure name (``RPP(weighting='dcg')`` -> ``RPP_weighting_dcg``)."""
    return re.sub(r"[^A-Za-z0-9@.+-]+", "_", text).strip("_").replace("@", "_at_") or "x"


def path_slug(name: str) -> str:
    """A pipeline name as one safe path component (no separators, no leading dot): ``../../x`` -> ``x``."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", str(name)).strip("._-") or "pipeline"
