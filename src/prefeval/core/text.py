"""The one escaping of user-supplied text (file, run, query and measure names) wherever prefeval prints it: error
and warning lines, plain-text tables, Markdown, LaTeX and HTML.

A name may hold characters a terminal or a document acts on: ESC starts a terminal control sequence (clear the
screen, set the window title), BEL rings, a line break fakes a new line or a new table row, a bidirectional override
(U+202E) reorders what is shown, and a lone surrogate (an undecodable byte of a file name) cannot be written at
all. :func:`printable` writes each such character as its Python escape (``\\x1b``, ``\\n``, ``\\u202e``,
``\\udcff``), so the name is shown, visibly, and never acts.

A csv cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return) is a formula to a
spreadsheet. :func:`csv_cell` follows OWASP's advice ("CSV Injection"): such a text cell is written with a leading
``'``, which spreadsheets show as text; a text that is a plain number (``-1``, ``+2.5``) is left as it is.
"""

from __future__ import annotations

import re

__all__ = ["FORMULA_START", "UNPRINTABLE", "csv_cell", "printable"]

#: Characters written as escapes: C0 controls (line breaks and tabs included), DEL, C1 controls, the
#: bidirectional embeddings, overrides and isolates, the line and paragraph separators, and surrogates.
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(found: re.Match) -> str:
    char = found.group()
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def printable(text: object, keep: str = "") -> str:
    """``str(text)`` with every character of :data:`UNPRINTABLE` except those in ``keep`` (e.g. ``"\\n"`` for a
    message whose own lines are kept) written as its escape: ``"a\\x1b[2Jb"`` -> ``"a\\\\x1b[2Jb"``."""
    text = str(text)
    if keep:
        return UNPRINTABLE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)
    return UNPRINTABLE.sub(_escape, text)


#: The first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value: object) -> object:
    """A value for a csv cell: a text starting with one of :data:`FORMULA_START` (and not a plain number) gets a
    leading ``'`` (OWASP); anything else is returned unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value
