"""Checks of any ir-measures measure before a provider runs, and "did you mean" hints for unknown names.

Standard measures reach C code (pytrec_eval) whose parameters are not validated there: ``nDCG@0`` aborts the
process and ``rel=0`` counts judged non-relevant documents as relevant. These checks turn such inputs into a
:class:`~prefeval.errors.PrefevalError` naming the measure. prefeval's own measures are checked against their
declarations when they are built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from prefeval._lazy import lazy_module
from prefeval.errors import PrefevalError
from prefeval.methods.registry import cutoff_problem, declaration_of, rel_problem

if TYPE_CHECKING:
    import ir_measures
else:
    ir_measures = lazy_module("ir_measures")  # loads on use (the names of its registry)


def check_cutoff_rel(measure: Any) -> None:
    """The parameters every measure shares: a cutoff ``@k`` needs k >= 1 and ``rel`` needs rel >= 1
    (:func:`~prefeval.methods.registry.cutoff_problem`, :func:`~prefeval.methods.registry.rel_problem`)."""
    params = getattr(measure, "params", {})
    problem = cutoff_problem(params.get("cutoff"))
    if problem is None and params.get("rel") is not None:
        rel = params["rel"]
        problem = rel_problem(rel) and f"{rel_problem(rel)}, got rel={rel!r}"
    if problem:
        raise PrefevalError(f"{measure}: {problem}")


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
    import difflib  # deferred: error messages only

    head = text.split("(", 1)[0].split("@", 1)[0].strip()
    names = list(ir_measures.measures.registry)
    close = difflib.get_close_matches(head, names, n=4, cutoff=0.5)
    if not close:  # a different case (ndcg): compare case-insensitively
        lower = {n.lower(): n for n in names}
        close = [lower[c] for c in difflib.get_close_matches(head.lower(), list(lower), n=4, cutoff=0.5)]
    return f"; did you mean {', '.join(close)}?" if close else ""
