"""Text helpers shared by the reports of :mod:`prefeval.compare`, the commands and :mod:`prefeval.pipeline`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["LATEX_SPECIAL", "latex_escape"]

#: LaTeX's special characters and their escaped forms.
LATEX_SPECIAL: dict[str, str] = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                                 "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def latex_escape(text: Any, table: Mapping[str, str] = LATEX_SPECIAL) -> str:
    """``str(text)`` with every character found in ``table`` (default: LaTeX's special characters) replaced."""
    return "".join(table.get(ch, ch) for ch in str(text))
