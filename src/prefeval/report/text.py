"""Text helpers shared by the reports of :mod:`prefeval.compare`, the commands and :mod:`prefeval.pipeline`."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from prefeval.core.text import printable

__all__ = ["INLINE_MARKUP", "LATEX_SPECIAL", "MARKDOWN_SPECIAL", "inline_markup", "latex_escape", "md_escape"]

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
