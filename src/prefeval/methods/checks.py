"""Checks of any ir-measures measure before a provider runs, and "did you mean" hints for unknown names.

Standard measures reach C code (pytrec_eval) whose parameters are not validated there: ``nDCG@0`` aborts the
process and ``rel=0`` counts judged non-relevant documents as relevant. These checks turn such inputs into a
:class:`~prefeval.errors.PrefevalError` naming the measure. prefeval's own measures are checked against their
declarations when they are built.
"""

from __future__ import annotations

import difflib
from typing import Any

import ir_measures

from prefeval.errors import PrefevalError
from prefeval.methods.registry import declaration_of


def check_cutoff_rel(measure: Any) -> None:
    """The parameters every measure shares: a cutoff ``@k`` needs k >= 1, and ``rel`` (a grade >= rel is relevant)
    needs rel >= 1, since grade 0 means non-relevant in TREC qrels and a lower threshold would count judged
    non-relevant documents as relevant."""
    params = getattr(measure, "params", {})
    cutoff, rel = params.get("cutoff"), params.get("rel")
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1):
        raise PrefevalError(f"{measure}: the cutoff must be a positive integer, got @{cutoff}")
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, int) or rel < 1):
        raise PrefevalError(f"{measure}: rel must be an integer >= 1 (a grade >= rel is relevant; grade 0 is "
                            f"non-relevant), got rel={rel!r}")


def validate(measure: Any) -> Any:
    """Check ``measure`` (prefeval's or a standard ir-measures one) before any provider runs: known parameters of
    the right type, cutoff >= 1, rel >= 1; a :class:`PrefevalError` naming the measure otherwise (never a crash in
    a provider's C code). Returns ``measure``. prefeval's measures check their values when built; a missing
    baseline is reported where one is needed (a preference without it is a mean over the other runs in
    :func:`prefeval.evaluate`)."""
    if declaration_of(measure) is not None:
        return measure
    check_cutoff_rel(measure)
    try:
        measure.validate_params()
    except (ValueError, TypeError, AssertionError, KeyError) as exc:
        raise PrefevalError(f"{measure}: {exc}") from None
    return measure


def did_you_mean(text: str) -> str:
    """``"; did you mean A, B?"`` naming the registered ir-measures / prefeval measures closest to the name in
    ``text`` (``difflib``), or ``""``."""
    head = text.split("(", 1)[0].split("@", 1)[0].strip()
    names = list(ir_measures.measures.registry)
    close = difflib.get_close_matches(head, names, n=4, cutoff=0.5)
    if not close:  # a different case (ndcg): compare case-insensitively
        lower = {n.lower(): n for n in names}
        close = [lower[c] for c in difflib.get_close_matches(head.lower(), list(lower), n=4, cutoff=0.5)]
    return f"; did you mean {', '.join(close)}?" if close else ""
