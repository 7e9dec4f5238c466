"""prefeval's methods as ir-measures ``Measure`` classes, generated from their declarations.

Every method of :mod:`prefeval.methods` becomes a measure class here (parameters, defaults, choices and
descriptions from its declaration); importing this module registers them with
``ir_measures.measures.registry`` so that ``ir_measures.parse_measure("RBU(p=0.8, e=0.03)@20")`` works
(:func:`parse_measure`), and the ``prefeval`` provider (:mod:`prefeval.engine.provider`) evaluates them. A method
registered later gets its measure class, registered too, at once.

* ``RBU(p=0.8, e=0.03, rel=1, variant='paper')@k``: rank-biased utility (Amigó et al. (2018) §5, Eq. 11).
* ``TSE(rel=1)@k``: total search efficiency with AP exposure, ``1/p_m`` if every relevant document
  is retrieved, else 0 (Diaz & Mitra (2023) §3.2, Eq. 3).
* ``LexiRecall(baseline, rel=1)@k``, ``LexiPrecision(baseline, magnitude='sgn', rel=1)@k``,
  ``RPP(baseline, weighting='uniform', graded=True, subtopics=False, rel=1)@k``: the per-query preference
  of the evaluated run over the ``baseline`` run (a registered name or a TREC run path), positive when the
  evaluated run is preferred (Diaz & Mitra (2023) §5.2 Eq. 11; Diaz (2023) §3; Diaz & Ferraro (2022)
  Eq. 3–6). ``@k`` truncates both.
"""

from __future__ import annotations

from typing import Any

import ir_measures
from ir_measures.measures.base import Measure, ParamInfo

from prefeval import methods
from prefeval.errors import PrefevalError
from prefeval.methods.registry import Declaration

_CUTOFF = ParamInfo(dtype=int, required=False, desc="ranking cutoff: only the top k documents count")
_BASELINE = ParamInfo(dtype=str, required=True,
                      desc="the run to compare against: a name given to prefeval.register_run or a TREC run path")


class PrefevalMeasure(Measure):
    """Base class: parameters are checked against the method's declaration when the measure is built
    (numbers given as ``p=1`` are stored as ``p=1.0``; invalid values fail at construction)."""

    DECLARATION: Declaration

    def __init__(self, **params: Any) -> None:
        declared = self.DECLARATION.params
        for name, value in params.items():
            if name in declared:
                try:
                    params[name] = declared[name].validate(name, value)
                except PrefevalError:
                    pass  # reported with the method's name by check() below
        super().__init__(**params)
        self.DECLARATION.check(self.params)

    def __repr__(self) -> str:
        """ir-measures' name, built once: measures are hashed and compared by it for every per-query value."""
        text = self.__dict__.get("_repr")
        if text is None:
            text = self.__dict__["_repr"] = super().__repr__()
        return text

    def __hash__(self) -> int:
        return hash(repr(self))

    def validate_params(self) -> None:
        if self.validated:
            return
        self.DECLARATION.check(self.params)
        missing = [n for n, info in self.SUPPORTED_PARAMS.items() if info.required and n not in self.params]
        if missing:
            raise PrefevalError(f"{self.NAME}: missing required parameter(s) {missing}, "
                                f"e.g. {self.NAME}(baseline='runs/bm25.run')")
        self.validated = True


def _param_info(param: methods.Param) -> ParamInfo:
    dtype = param.dtype
    if dtype is float:
        dtype = (int, float)  # ir-measures' parser gives p=1 as an int
    choices = {} if param.choices is None else {"choices": list(param.choices)}
    return ParamInfo(dtype=dtype, default=param.default, desc=param.desc, **choices)


def measure_class(declaration: Declaration) -> type[PrefevalMeasure]:
    """The ir-measures measure class of a method: ``cutoff`` (``@k``), ``baseline`` for a preference, and
    the declared parameters."""
    supported = {"cutoff": _CUTOFF}
    if declaration.kind == "preference":
        supported["baseline"] = _BASELINE
    supported.update({name: _param_info(p) for name, p in declaration.params.items()})
    doc = f"{declaration.name} ({declaration.reference}): {declaration.doc or declaration.summary}"
    return type(f"_{declaration.name}", (PrefevalMeasure,), {
        "__name__": declaration.name, "NAME": declaration.name, "DECLARATION": declaration,
        "SUPPORTED_PARAMS": supported, "__doc__": doc, "__module__": __name__,
    })


MEASURES: dict[str, PrefevalMeasure] = {}
"""Measure objects by method name (kept in step with the method registry)."""


def _added(declaration: Declaration) -> None:
    MEASURES[declaration.name] = measure_class(declaration)()
    _register_one(declaration.name)


def _removed(declaration: Declaration) -> None:
    MEASURES.pop(declaration.name, None)
    registry = ir_measures.measures.registry
    if methods.declaration_of(registry.get(declaration.name)) is declaration:
        del registry[declaration.name]


def is_prefeval_measure(measure: Any) -> bool:
    """Whether ``measure`` is one of prefeval's (its class was generated from a registered declaration)."""
    return methods.declaration_of(measure) is not None


def _register_one(name: str) -> None:
    registry = ir_measures.measures.registry
    if name not in registry:
        ir_measures.measures.register(MEASURES[name], name=name)
    elif not is_prefeval_measure(registry[name]):
        raise PrefevalError(f"ir-measures already has a different measure named {name}")


methods.listen(_added, _removed)  # every method: now, and each one registered later

RBU = MEASURES[methods.rbu.METHOD.name]
TSE = MEASURES[methods.tse.METHOD.name]
LexiRecall = MEASURES[methods.lexirecall.METHOD.name]
LexiPrecision = MEASURES[methods.lexiprecision.METHOD.name]
RPP = MEASURES[methods.rpp.METHOD.name]


def parse_measure(text: str) -> Any:
    """``ir_measures.parse_measure(text)``, with prefeval's measures among the names it knows (this module registers
    them when imported): the way prefeval parses a measure's text."""
    return ir_measures.parse_measure(text)
