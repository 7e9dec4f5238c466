"""Checks of any ir-measures measure before a provider runs, and "did you mean" hints for unknown names.

Standard measures reach C code (pytrec_eval) whose parameters are not validated there: ``nDCG@0`` aborts the
process and ``rel=0`` counts judged non-relevant documents as relevant. These checks turn such inputs into a
:class:`~prefeval.errors.PrefevalError` naming the measure. prefeval's own measures are checked against their
declarations when they are built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from prefeval.core.lazy import lazy_module
from prefeval.errors import PrefevalError
from prefeval.methods.registry import cutoff_problem, declaration_of, declarations, rel_problem

if TYPE_CHECKING:
    import ir_measures
else:
    ir_measures = lazy_module("ir_measures")  # loads on use (the names of its registry)


#: ir-measures provider (or Python module) -> the prefeval extra that installs it.
EXTRAS = {"pyndeval": "diversity", "cwl_eval": "diversity", "matplotlib": "plot"}


def install_hint(package: str) -> str:
    """The pip command that installs ``package`` through prefeval's extras."""
    return f"pip install 'prefeval[{EXTRAS[package]}]'"


#: Longest measure text echoed in an error message (a 100,000-character name must not make a 100 KB line).
MAX_ECHO = 120


def shorten(text: str, limit: int = MAX_ECHO) -> str:
    """``text`` cut to ``limit`` characters (with the number of characters left out) for an error message."""
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit:,} more characters)"


def measure_text(measure: Any) -> str:
    """The measure as ir-measures writes it, or (when its ``repr`` fails: a parameter the measure does not
    support, e.g. ``nDCG(rel=2)``) its name and parameters as given; shortened for an error message."""
    try:
        text = str(measure)
    except Exception:  # ir-measures' repr looks every parameter up among the supported ones
        params = dict(getattr(measure, "params", {}))
        cutoff = params.pop("cutoff", None)
        inner = ",".join(f"{k}={v!r}" for k, v in params.items())
        text = f"{getattr(measure, 'NAME', type(measure).__name__)}{f'({inner})' if inner else ''}" \
               f"{f'@{cutoff}' if cutoff is not None else ''}"
    return shorten(text)


def check_cutoff_rel(measure: Any) -> None:
    """The parameters every measure shares: a cutoff ``@k`` needs k >= 1 and ``rel`` needs rel >= 1
    (:func:`~prefeval.methods.registry.cutoff_problem`, :func:`~prefeval.methods.registry.rel_problem`)."""
    params = getattr(measure, "params", {})
    problem = cutoff_problem(params.get("cutoff"))
    if problem is None and params.get("rel") is not None:
        rel = params["rel"]
        problem = rel_problem(rel) and f"{rel_problem(rel)}, got rel={rel!r}"
    if problem:
        raise PrefevalError(f"{measure_text(measure)}: {problem}")


def _unsupported(measure: Any) -> str | None:
    """The parameters ``measure`` was given but does not take (ir-measures then fails with a KeyError)."""
    supported = getattr(measure, "SUPPORTED_PARAMS", None)
    if supported is None:
        return None
    extra = [k for k in getattr(measure, "params", {}) if k not in supported]
    if not extra:
        return None
    name = getattr(measure, "NAME", type(measure).__name__)
    return (f"{name} takes no parameter {', '.join(extra)} (it takes {', '.join(supported) or 'none'})"
            + ("; the relevance threshold of a gain-based measure is set by its gains" if "rel" in extra else ""))


#: Grades and gains reach trec_eval as C ints.
_C_INT = 2**31 - 1


def _gains_problem(measure: Any) -> str | None:
    """A standard measure's ``gains`` must map integer grades to integer gains (trec_eval's C ints)."""
    gains = getattr(measure, "params", {}).get("gains")
    if gains is None:
        return None
    if not isinstance(gains, dict):
        return f"gains must map grades to gains, e.g. gains={{0: 0, 1: 1, 2: 3}}; got {shorten(repr(gains))}"
    for grade, gain in gains.items():
        for what, value in (("grade", grade), ("gain", gain)):
            if isinstance(value, bool) or not isinstance(value, int) or abs(value) > _C_INT:
                return (f"gains must map integer grades to integer gains (|value| <= {_C_INT}), as trec_eval "
                        f"takes them; got {what} {value!r}")
    return None


def validate(measure: Any) -> Any:
    """Check ``measure`` (prefeval's or a standard ir-measures one) before any provider runs: known parameters of
    the right type, cutoff >= 1, rel >= 1; a :class:`PrefevalError` naming the measure otherwise (never a crash in
    a provider's C code). Returns ``measure``. prefeval's measures check their values when built; a missing
    baseline is reported where one is needed (a preference without it is a mean over the other runs in
    :func:`prefeval.evaluate`)."""
    if declaration_of(measure) is not None:
        return measure
    problem = _unsupported(measure)
    if problem:
        raise PrefevalError(f"{measure_text(measure)}: {problem}")
    check_cutoff_rel(measure)
    try:
        measure.validate_params()
    except (ValueError, TypeError, AssertionError, KeyError) as exc:
        raise PrefevalError(f"{measure_text(measure)}: {shorten(str(exc))}") from None
    problem = _gains_problem(measure) or _missing_provider(measure)
    if problem:
        raise PrefevalError(f"{measure_text(measure)}: {problem}")
    return measure


def _missing_provider(measure: Any) -> str | None:
    """When only providers that are not installed support ``measure`` (e.g. ``alpha_nDCG`` without pyndeval): what
    to install, prefeval's extra where one installs the provider (e.g. ``pip install 'prefeval[diversity]'``), else
    in the words of the provider's install instructions. Checked with the measure, before any file is read."""
    try:
        candidates = [p for p in ir_measures.DefaultPipeline.providers if p.supports(measure)]
    except Exception:  # a provider that cannot judge the measure: the evaluation reports it
        return None
    if not candidates or any(p.is_available() for p in candidates):
        return None
    hints = []
    for provider in candidates:
        try:
            how = install_hint(provider.NAME) if provider.NAME in EXTRAS else provider.install_instructions()
            hints.append(f"{provider.NAME} ({how})")
        except Exception:  # no instructions
            hints.append(provider.NAME)
    return f"needs an optional package that is not installed: {' or '.join(hints)}"


def did_you_mean(text: str) -> str:
    """``"; did you mean A, B?"`` naming the registered ir-measures / prefeval measures closest to the name in
    ``text`` (``difflib``), or ``""``."""
    import difflib  # deferred: error messages only

    head = text.split("(", 1)[0].split("@", 1)[0].strip()
    names = list(dict.fromkeys([*ir_measures.measures.registry, *(d.name for d in declarations())]))
    close = difflib.get_close_matches(head, names, n=4, cutoff=0.5)
    if not close:  # a different case (ndcg): compare case-insensitively
        lower = {n.lower(): n for n in names}
        close = [lower[c] for c in difflib.get_close_matches(head.lower(), list(lower), n=4, cutoff=0.5)]
    return f"; did you mean {', '.join(close)}?" if close else ""
