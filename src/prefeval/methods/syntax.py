"""A pre-parse of measure strings for what ir-measures' parser rejects with an unhelpful message.

ir-measures reads ``Measure(k=v, ...)@cutoff`` with Python's syntax, so it accepts (and silently changes) what a
measure name should not hold, and rejects with an unhelpful message what it should name:

- ``-1`` is an expression, not a literal: ``RBU(e=-1)`` and ``RBU@-1`` fail with "values must be str, float, int,
  bool";
- a repeated parameter ``RBU(p=0.8,p=0.9)`` keeps the last value;
- a cutoff is read as a Python number: ``RBU@0x4`` is ``@4``, ``@1_0`` is ``@10``;
- identifiers are NFKC-normalised: ``ＲＲ`` (fullwidth letters) is ``RR``.

:func:`check_measure_syntax` refuses each of these, naming the measure.
"""

from __future__ import annotations

import re
import unicodedata

from prefeval.errors import PrefevalError

__all__ = ["check_measure_syntax", "reject_negative_literals"]

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NEGATIVE = re.compile(r"(?:^|[=@(,])\s*(-\s*(?:\d|\.\d|inf\b|nan\b)[\w.+-]*)", re.IGNORECASE)


def reject_negative_literals(text: str) -> None:
    """Raise :class:`PrefevalError` naming ``text`` when a parameter or cutoff in it is a negative number."""
    found = _NEGATIVE.search(_QUOTED.sub("''", text))
    if found:
        raise PrefevalError(f"measure {text.strip()!r}: negative number {found.group(1)!r}: cutoffs and measure "
                            "parameters cannot be negative")


#: a cutoff: ``@`` and decimal digits, at the end
_CUTOFF = re.compile(r"@\s*(\S*)\s*$")
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_KEYWORD = re.compile(r"(?:^|[(,])\s*([^\s=(),]+)\s*=")


def check_measure_syntax(text: str) -> None:
    """Raise :class:`PrefevalError` naming ``text`` when it holds a negative number
    (:func:`reject_negative_literals`), outside quotes a character that Python's NFKC normalisation of identifiers
    would change (fullwidth ``ＲＲ``; ``α_nDCG`` stays), a parameter given twice, or a cutoff other than decimal
    digits."""
    reject_negative_literals(text)
    bare = _QUOTED.sub("''", text)
    strange = next((ch for ch in bare if not ch.isascii() and unicodedata.normalize("NFKC", ch) != ch), None)
    if strange is not None:
        name = unicodedata.name(strange, f"U+{ord(strange):04X}")
        raise PrefevalError(f"measure {text.strip()!r}: {strange!r} ({name}) would be read as "
                            f"{unicodedata.normalize('NFKC', strange)!r}; write the measure as its name is spelled "
                            "(quoted values may hold any character)")
    inner = bare[bare.find("(") + 1:bare.rfind(")")] if "(" in bare and ")" in bare else ""
    keys = _KEYWORD.findall(inner)
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise PrefevalError(f"measure {text.strip()!r}: parameter {', '.join(repeated)} given more than once")
    tail = bare[bare.rfind(")") + 1:] if ")" in bare else bare
    found = _CUTOFF.search(tail)
    if found is not None and not _DECIMAL.fullmatch(found.group(1)):
        raise PrefevalError(f"measure {text.strip()!r}: the cutoff after @ must be written in decimal digits "
                            f"(e.g. @10; IPrec's recall level @0.1); got {found.group(1)!r}")
