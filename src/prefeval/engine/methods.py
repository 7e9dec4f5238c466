"""Method strings and measure objects as the methods :func:`prefeval.compare` evaluates.

A method is either one of prefeval's preferences, named as in ir-measures (``"LexiRecall"``, Diaz & Mitra (2023)
§5.2; ``"LexiPrecision(magnitude='rr')"``, Diaz (2023) §3; ``"RPP(weighting='dcg')"``, ``"RPP(graded=False)@100"``,
Diaz & Ferraro (2022) Eq. 3-6), computed per query for all pairs of runs by the kernels of :mod:`prefeval.core`, or any other ir-measures measure (``"nDCG@10"``, ``"AP(rel=2)"``, ``"RBU@20"``), which becomes
the metric-difference preference ``mu(a) - mu(b)`` per query (:mod:`prefeval.methods.metric_difference`).

:func:`parse_method` gives a :class:`Method`: its label, the measure, its kind, its relevance threshold ``rel`` (the
method's own ``rel=`` wins over the comparison's) and the depth the runs are truncated to (a preference's ``@k``
and the comparison's ``depth``, the smaller). A name standing for several measures (the trec_eval name
``ndcg_cut.10,20``) gives one method per measure in :func:`parse_methods`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from prefeval.errors import PrefevalError
from prefeval.methods.checks import validate
from prefeval.methods.names import parse_names
from prefeval.methods.registry import canonical_text, declaration_of, parse_call, rel_problem
from prefeval.methods.syntax import check_measure_syntax


@dataclass(frozen=True)
class Method:
    """One comparison method: its label, the ir-measures measure (for a preference given by name, the
    :class:`~prefeval.methods.registry.MethodCall` standing for it), and how it is evaluated.

    ``kind`` is ``"preference"`` (LexiRecall, LexiPrecision, RPP) or ``"metric"`` (any other measure);
    ``rel`` the relevance threshold; ``depth`` the truncation of the runs (``None``: whole runs); ``run_depth`` the
    comparison's depth alone (a preference with ``judged_only=True`` cuts the runs there, removes their unjudged
    documents, then applies its ``@k`` to the condensed list).
    """

    label: str
    measure: Any
    kind: str
    rel: int
    depth: int | None
    run_depth: int | None = None

    @property
    def key(self) -> str:
        """What is computed, whatever the method is called: the measure, ``rel`` and ``depth`` (two methods with one
        key give the same values)."""
        return f"{self.measure!r}|rel={self.rel}|depth={self.depth}"


#: Measures whose ``rel`` is not a threshold but a filter: ``NumRet`` counts every retrieved document (trec_eval's
#: ``num_ret``, at every ``-l``), and ``NumRet(rel=r)`` only those of grade >= r; a comparison's ``rel`` leaves them.
REL_FILTERS = frozenset({"NumRet"})
#: Names of the number of relevant retrieved documents (``NumRet(rel=1)`` in ir-measures): under a comparison's ``rel=r``
#: they count the documents of grade >= r, as every other measure's "relevant" does (``trec_eval -l r``'s
#: ``num_rel_ret``).
RELEVANT_RETRIEVED = frozenset({"NumRelRet", "num_rel_ret"})


def apply_rel(measure: Any, rel: int, text: str | None = None) -> Any:
    """``measure`` (written as ``text``, if given as a name) with the relevance threshold ``rel`` applied where it
    takes one and does not set its own: ``NumRet`` stays a count of every retrieved document (:data:`REL_FILTERS`),
    while ``NumRelRet`` / ``num_rel_ret`` count the retrieved documents of grade >= ``rel``
    (:data:`RELEVANT_RETRIEVED`). The one rule of :func:`parse_method` and :func:`prefeval.evaluate`."""
    if isinstance(text, str) and text.strip() in RELEVANT_RETRIEVED:
        return measure(rel=int(rel))
    if "rel" in getattr(measure, "SUPPORTED_PARAMS", {}) and "rel" not in measure.params \
            and getattr(measure, "NAME", None) not in REL_FILTERS:
        return measure(rel=int(rel))
    return measure


def _parse_texts(text: str) -> list[Any]:
    """The measures a method name stands for: one of prefeval's preferences (no ir-measures needed), else the
    measures of :func:`~prefeval.methods.names.parse_names` (several for a trec_eval name such as
    ``ndcg_cut.10,20``)."""
    stripped = canonical_text(text.strip())
    check_measure_syntax(stripped)
    own = parse_call(stripped)  # one of prefeval's preferences: no ir-measures needed (its measures are for metrics)
    if own is not None and own.declaration.kind == "preference":
        return [own]
    return parse_names(text, "method")


def parse_methods(methods: Sequence[Any], rel: int = 1, depth: int | None = None) -> list[Method]:
    """:func:`parse_method` of each of ``methods``; a name standing for several measures (the trec_eval name
    ``ndcg_cut.10,20``) gives one method per measure, each labelled by the measure (``nDCG@10``)."""
    out = []
    for method in methods:
        found = _parse_texts(method) if isinstance(method, str) else None
        if found is not None and len(found) > 1:
            out += [parse_method(m, rel, depth) for m in found]
        else:
            out.append(parse_method(method, rel, depth))
    return out


def parse_method(method: Any, rel: int = 1, depth: int | None = None) -> Method:
    """A :class:`Method` from a name (ir-measures syntax) or a measure object. A name of one of prefeval's preferences
    gives a :class:`~prefeval.methods.registry.MethodCall` (which stands for the ir-measures measure of that name),
    other names the ir-measures measure.

    The method's own ``rel=`` overrides ``rel``; a preference's ``@k`` truncates the runs to
    ``min(k, depth)``. A metric that has a ``rel`` parameter receives ``rel`` unless it sets its own.
    """
    if isinstance(method, str):
        found = _parse_texts(method)
        if len(found) > 1:
            raise PrefevalError(f"method {method.strip()!r} stands for {len(found)} measures "
                                f"({', '.join(map(str, found))}); give them one by one")
        label, measure = method.strip(), found[0]
    elif hasattr(method, "NAME") and hasattr(method, "params"):
        label, measure = str(method), method
    else:
        raise PrefevalError(f"cannot use {method!r} as a method: give a name such as 'LexiRecall' or 'nDCG@10', "
                            "or an ir-measures measure")
    declaration = declaration_of(measure)
    if declaration is not None and declaration.kind == "preference":
        if "baseline" in measure.params:
            raise PrefevalError(f"method {label!r}: compare() pairs every run with every other run; "
                                "drop the baseline parameter")
        eff_rel = int(measure.params.get("rel", rel))
        if "rel" not in measure.params and rel != 1:
            measure = measure(rel=rel)
        cutoff = measure.params.get("cutoff")
        eff_depth = cutoff if depth is None else (depth if cutoff is None else min(depth, cutoff))
        return Method(label, measure, "preference", eff_rel, eff_depth, depth)
    supported = getattr(measure, "SUPPORTED_PARAMS", {})
    if rel != 1:
        measure = apply_rel(measure, rel, method if isinstance(method, str) else None)
    validate(measure)
    eff_rel = int(measure.params.get("rel", rel)) if "rel" in supported else rel
    return Method(label, measure, "metric", eff_rel, depth, depth)


def method_list(methods: Any, what: str, example: str) -> list[Any]:
    """``methods`` as a list: one name or measure object is a list of one; an error naming ``what`` (with
    ``example``) when there is none."""
    if isinstance(methods, str) or hasattr(methods, "NAME"):
        methods = [methods]
    methods = list(methods)
    if not methods:
        raise PrefevalError(f"no {what} given; e.g. {what}={example}")
    return methods


def check_run_options(rel: Any, depth: Any) -> None:
    """The checks of a comparison's ``rel`` (:func:`~prefeval.methods.registry.rel_problem`; ``None``: each
    measure's own) and ``depth`` (``None``, or a positive integer), before any work."""
    if rel is not None and rel_problem(rel):
        raise PrefevalError(f"{rel_problem(rel)}; got {rel!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1):
        raise PrefevalError(f"depth must be a positive integer; got {depth!r}")


#: Judged@k's depth when no method has a cutoff
JUDGED_DEPTH = 10


def judged_depth(methods: Sequence[Method]) -> int:
    """The k of the Judged@k stated beside a table or comparison: the deepest cutoff among ``methods``' measures,
    else :data:`JUDGED_DEPTH`."""
    cutoffs = [getattr(m.measure, "params", {}).get("cutoff") for m in methods]
    return max((c for c in cutoffs if isinstance(c, int) and not isinstance(c, bool)), default=JUDGED_DEPTH)


@dataclass(frozen=True)
class JudgedAt:
    """ir-measures' ``Judged@k`` as a table or comparison states it beside its methods: the share of a run's top
    ``cutoff`` documents that the qrels judge (Buckley & Voorhees (2004)), 0 for a query the run lacks. It has that
    measure's name, parameters, ``str`` / ``repr`` (``Judged@k``) and default, so the results read the same, without
    loading ir-measures (comparing TREC files of preferences does not); :func:`prefeval.engine.blocks.evaluate_block`
    counts it from the ranks of the judged documents, as it does ir-measures' ``Judged@k``."""

    cutoff: int
    NAME = "Judged"
    DEFAULT = 0.0

    @property
    def params(self) -> dict[str, int]:
        return {"cutoff": self.cutoff}

    def __str__(self) -> str:
        return f"Judged@{self.cutoff}"

    __repr__ = __str__


def judged_method(methods: Sequence[Method], depth: int | None = None) -> Method:
    """The Judged@k metric (:class:`JudgedAt`) stated beside ``methods``: k by :func:`judged_depth`, the runs cut at
    ``depth`` as theirs."""
    k = judged_depth(methods)
    return Method(f"Judged@{k}", JudgedAt(k), "metric", 1, depth, depth)
