"""A pre-parse of measure strings for what ir-measures' parser rejects with an unhelpful message.

ir-measures reads ``Measure(k=v, ...)@cutoff`` with Python's literal syntax, where ``-1`` is an expression,
not a literal: ``RBU(e=-1)`` and ``RBU@-1`` fail with "values must be str, float, int, bool".
"""

from __future__ import annotations

import re

from prefeval.errors import PrefevalError

__all__ = ["reject_negative_literals"]

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NEGATIVE = re.compile(r"(?:^|[=@(,])\s*(-\s*(?:\d|\.\d|inf\b|nan\b)[\w.+-]*)", re.IGNORECASE)


def reject_negative_literals(text: str) -> None:
    """Raise :class:`PrefevalError` naming ``text`` when a parameter or cutoff in it is a negative number."""
    found = _NEGATIVE.search(_QUOTED.sub("''", text))
    if found:
        raise PrefevalError(f"measure {text.strip()!r}: negative number {found.group(1)!r}: cutoffs and measure "
                            "parameters cannot be negative")
