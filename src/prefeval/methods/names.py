"""Measure names as users write them: ir-measures syntax, or any name ir-measures' trec_eval parser accepts.

:func:`parse_names` is the one reading of a measure name for :func:`prefeval.evaluate`, :func:`prefeval.compare`,
``prefeval eval``/``compare`` and pipelines. A name is read with ir-measures' parser (``nDCG@10``, ``AP(rel=2)``,
prefeval's ``RBU@20``); where that parser does not know it, with ir-measures' trec_eval parser
(``ir_measures.parse_trec_measure``): ``map``, ``P_5``, ``P.5``, ``ndcg_cut.10,20`` (two measures),
``iprec_at_recall_0.10``, ``recall`` (trec_eval's default cutoffs). A name that parser knows but no provider
computes (``gm_map``, ``Rndcg``, ``relstring``) is reported as such, not as unknown.
"""

from __future__ import annotations

import contextlib
import io
import re
from typing import TYPE_CHECKING, Any

from prefeval.core.lazy import lazy_module
from prefeval.errors import PrefevalError
from prefeval.methods.checks import did_you_mean
from prefeval.methods.registry import canonical_text, declarations
from prefeval.methods.syntax import check_measure_syntax

if TYPE_CHECKING:
    import ir_measures

    from prefeval.methods import measures as _measures
else:
    ir_measures = lazy_module("ir_measures")  # loads on use
    _measures = lazy_module("prefeval.methods.measures")  # prefeval's measures in ir-measures: load on use

__all__ = ["parse_names", "trec_measures"]

#: the shape of a trec_eval measure name: a name, optionally ``.p1,p2`` or ``_p1,p2`` with numeric parameters
_TREC_SHAPE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:[._][0-9][0-9.,]*)?")
#: the message of ``ir_measures.parse_trec_measure`` for a name it knows but no provider computes
_UNSUPPORTED = "but not yet supported"


def trec_measures(text: str) -> list[Any] | None:
    """The measures of a trec_eval name (``map``, ``P.5``, ``ndcg_cut.10,20``) by ir-measures' trec_eval parser,
    ``None`` when ``text`` is not one; a :class:`PrefevalError` for a name it knows that no provider computes."""
    if not _TREC_SHAPE.fullmatch(text):
        return None
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # its nickname expansion prints the names it skips
            found = list(ir_measures.parse_trec_measure(text))
    except ValueError as exc:
        if _UNSUPPORTED in str(exc):
            raise PrefevalError(f"measure {text!r} is a trec_eval measure that ir-measures knows but that is not "
                                "supported by any installed provider") from None
        if "unkonwn measure" in str(exc) or "unknown measure" in str(exc):
            return None
        raise PrefevalError(f"cannot parse trec_eval measure {text!r}: {exc}") from None
    except (TypeError, KeyError, AttributeError, ImportError):
        return None
    return found or None


def parse_names(text: str, kind: str = "measure") -> list[Any]:
    """The measure objects one name stands for (usually one; a trec_eval name with several parameters, several).

    ``kind`` names the thing in messages (``"measure"``, ``"method"``). Negative parameters, repeated ones,
    characters other than ASCII and cutoffs other than decimal digits are rejected first
    (:func:`~prefeval.methods.syntax.check_measure_syntax`); an unknown name gets "did you mean" hints."""
    text = canonical_text(text.strip())
    check_measure_syntax(text)
    syntax_error = None
    try:
        return [_measures.parse_measure(text)]
    except NameError:
        pass
    except PrefevalError as exc:
        raise PrefevalError(f"{kind} {text!r}: {exc}") from None
    except (SyntaxError, ValueError, TypeError, AssertionError, KeyError) as exc:
        syntax_error = exc
    found = trec_measures(text)
    if found:
        return found
    if syntax_error is not None:
        raise PrefevalError(f"cannot parse {kind} {text!r}: {syntax_error}") from None
    if kind == "method":
        names = ", ".join(d.name for d in declarations("preference"))
        raise PrefevalError(f"unknown method {text!r}: not a prefeval preference ({names}) nor an ir-measures "
                            f"measure or trec_eval name{did_you_mean(text)}")
    raise PrefevalError(f"unknown {kind} {text!r}: neither an ir-measures/prefeval measure nor a trec_eval name"
                        f"{did_you_mean(text)}")
