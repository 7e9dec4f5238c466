"""prefeval's measures as ir-measures ``Measure`` classes (one small class per measure).

Importing this module registers them with ``ir_measures.measures.registry`` so that
``ir_measures.parse_measure("RBU(p=0.8, e=0.03)@20")`` works; the ``prefeval`` provider
(:mod:`prefeval.provider`) evaluates them.

* ``RBU(p=0.8, e=0.03, rel=1, variant='paper')@k``: rank-biased utility (Amigó et al. (2018) §5, Eq. 11).
* ``TSE(rel=1)@k``: total search efficiency with AP exposure, ``1/p_m`` if every relevant document
  is retrieved, else 0 (Diaz & Mitra (2023) §3.2, Eq. 3).
* ``LexiRecall(baseline, rel=1)@k``, ``LexiPrecision(baseline, magnitude='sgn', rel=1)@k``,
  ``RPP(baseline, weighting='uniform', graded=True, subtopics=False, rel=1)@k``: the per-query preference
  of the evaluated run over the ``baseline`` run (a registered name or a TREC run path), positive when the
  evaluated run is preferred (Diaz & Mitra (2023) §5.2 Eq. 11; Diaz (2023) §3; Diaz & Ferraro (2022) Eq. 3–6). ``@k`` truncates both.
"""

from __future__ import annotations

from typing import Any

import ir_measures
from ir_measures.measures.base import _NOT_PROVIDED, Measure, ParamInfo

from prefeval.core import rbu
from prefeval.errors import PrefevalError

_NUMBER = (int, float)
_CUTOFF = ParamInfo(dtype=int, required=False, desc="ranking cutoff: only the top k documents count")
_REL = ParamInfo(dtype=int, default=1, desc="minimum grade for a document to count as relevant")
_BASELINE = ParamInfo(dtype=str, required=True,
                      desc="the run to compare against: a name given to prefeval.register_run or a TREC run path")


def _check_cutoff_rel(measure: Any) -> None:
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



class PrefevalMeasure(Measure):
    """Base class: numbers given as ``p=1`` are stored as ``p=1.0``; invalid values fail at construction."""

    FLOAT_PARAMS: tuple[str, ...] = ()

    def __init__(self, **params: Any) -> None:
        for name in self.FLOAT_PARAMS:
            value = params.get(name)
            if isinstance(value, int) and not isinstance(value, bool):
                params[name] = float(value)
        super().__init__(**params)
        self._check_given()

    def _fail(self, message: str) -> None:
        raise PrefevalError(f"{self.NAME}: {message}")

    def _check_given(self) -> None:
        unknown = sorted(set(self.params) - set(self.SUPPORTED_PARAMS))
        if unknown:
            self._fail(f"unknown parameter(s) {unknown}; supported: {sorted(self.SUPPORTED_PARAMS)}")
        for name, value in self.params.items():
            info = self.SUPPORTED_PARAMS[name]
            if info.dtype is not None and (not isinstance(value, info.dtype) or
                                           (isinstance(value, bool) and info.dtype is not bool)):
                self._fail(f"{name}={value!r} has the wrong type")
            if info.choices is not _NOT_PROVIDED and value not in info.choices:
                self._fail(f"{name}={value!r} is not one of {list(info.choices)}")
        _check_cutoff_rel(self)

    def validate_params(self) -> None:
        if self.validated:
            return
        self._check_given()
        missing = [n for n, info in self.SUPPORTED_PARAMS.items() if info.required and n not in self.params]
        if missing:
            self._fail(f"missing required parameter(s) {missing}, e.g. {self.NAME}(baseline='runs/bm25.run')")
        self.validated = True


class _RBU(PrefevalMeasure):
    """Rank-biased utility (Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018, §5, Eq. 11)::

        RBU@k = sum_{i<=k} p^i * (sum_t w_t r(d_i,t) prod_{j<i} (1 - r(d_j,t)) - e)

    with ``r(d,t) = (2^g - 1) / 2^gmax_t`` (grades below ``rel`` count as 0), aspect weights uniform over
    the aspects with a relevant document, and effort charged only for positions holding a document.
    ``variant='evall'`` gives the scaling of the authors' Java tool / EvALL: ``(1-p)/p`` times the paper value.
    Without ``@k`` the whole ranking counts.
    """

    __name__ = NAME = "RBU"
    FLOAT_PARAMS = ("p", "e")
    SUPPORTED_PARAMS = {
        "cutoff": _CUTOFF,
        "p": ParamInfo(dtype=_NUMBER, default=0.8, desc="patience: probability of moving to the next document"),
        "e": ParamInfo(dtype=_NUMBER, default=0.03, desc="effort (cost) of inspecting a document"),
        "rel": _REL,
        "variant": ParamInfo(dtype=str, choices=["paper", "evall"], default="paper",
                             desc="'paper' = Eq. 11; 'evall' = (1-p)/p times Eq. 11, as the authors' tool"),
    }

    def _check_given(self) -> None:
        super()._check_given()
        rbu.validate_params(self["p"], self["e"], self["variant"])


class _TSE(PrefevalMeasure):
    """Total search efficiency with AP exposure (Diaz & Mitra, Diaz & Mitra (2023) §3.2, Eq. 3): ``1/p_m`` when every
    relevant document is retrieved (``p_m`` = position of the last one), else 0 (pessimistic imputation)."""

    __name__ = NAME = "TSE"
    SUPPORTED_PARAMS = {"cutoff": _CUTOFF, "rel": _REL}


class _LexiRecall(PrefevalMeasure):
    """Lexicographic recall of the run over ``baseline`` per query (Diaz & Mitra (2023) §5.2, Eq. 11): +1 if the run
    retrieves more relevant documents (fewer: -1); otherwise the deepest differing relevant position decides."""

    __name__ = NAME = "LexiRecall"
    SUPPORTED_PARAMS = {"cutoff": _CUTOFF, "baseline": _BASELINE, "rel": _REL}


class _LexiPrecision(PrefevalMeasure):
    """Lexicographic precision of the run over ``baseline`` per query (Diaz (2023) §3): the first recall level
    whose positions differ decides; ``magnitude='rr'`` returns ``1/p_i - 1/p'_i`` there instead of the sign."""

    __name__ = NAME = "LexiPrecision"
    SUPPORTED_PARAMS = {
        "cutoff": _CUTOFF,
        "baseline": _BASELINE,
        "magnitude": ParamInfo(dtype=str, choices=["sgn", "rr"], default="sgn", desc="sign or RR difference"),
        "rel": _REL,
    }


class _RPP(PrefevalMeasure):
    """Recall-paired preference of the run over ``baseline`` per query (Diaz & Ferraro (2022) Eq. 3–6, §5.3):
    ``sum_i w_i sgn(p'_i - p_i)`` over recall levels, averaged over grade thresholds (``graded=True``) or,
    with ``subtopics=True``, over subtopics plus the background population, weighted by population size."""

    __name__ = NAME = "RPP"
    SUPPORTED_PARAMS = {
        "cutoff": _CUTOFF,
        "baseline": _BASELINE,
        "weighting": ParamInfo(dtype=str, choices=["uniform", "inverse", "dcg"], default="uniform",
                               desc="recall-level weights: 1/m, proportional to 1/i, or to 1/log2(i+1)"),
        "graded": ParamInfo(dtype=bool, default=True, desc="average over grade thresholds >= rel "
                            "(does not apply with subtopics=True)"),
        "subtopics": ParamInfo(dtype=bool, default=False, desc="subtopic RPP (Eq. 6) with background population"),
        "rel": _REL,
    }

    def _check_given(self) -> None:
        super()._check_given()
        if self.params.get("subtopics") and self.params.get("graded"):
            self._fail("subtopic RPP (subtopics=True, Diaz & Ferraro (2022) Eq. 6) has one binary population per "
                       "subtopic (grade >= rel) plus the background population, so graded=True does not apply; "
                       "drop graded= or give graded=False")


RBU = _RBU()
TSE = _TSE()
LexiRecall = _LexiRecall()
LexiPrecision = _LexiPrecision()
RPP = _RPP()

MEASURES = {m.NAME: m for m in (RBU, TSE, LexiRecall, LexiPrecision, RPP)}
PREFERENCES = ("LexiRecall", "LexiPrecision", "RPP")


def validate(measure: Any) -> Any:
    """Check ``measure`` (prefeval's or a standard ir-measures one) before any provider runs: known parameters of
    the right type, cutoff >= 1, rel >= 1; a :class:`PrefevalError` naming the measure otherwise (never a crash in
    a provider's C code). Returns ``measure``. prefeval's measures check their values when built; a missing
    baseline is reported where one is needed (a preference without it is a mean over the other runs in
    :func:`prefeval.evaluate`)."""
    if is_prefeval_measure(measure):
        return measure
    _check_cutoff_rel(measure)
    try:
        measure.validate_params()
    except (ValueError, TypeError, AssertionError, KeyError) as exc:
        raise PrefevalError(f"{measure}: {exc}") from None
    return measure


def did_you_mean(text: str) -> str:
    """``"; did you mean A, B?"`` naming the registered ir-measures / prefeval measures closest to the name in
    ``text`` (``difflib``), or ``""``."""
    import difflib

    head = text.split("(", 1)[0].split("@", 1)[0].strip()
    names = list(ir_measures.measures.registry)
    close = difflib.get_close_matches(head, names, n=4, cutoff=0.5)
    if not close:  # a different case (ndcg): compare case-insensitively
        lower = {n.lower(): n for n in names}
        close = [lower[c] for c in difflib.get_close_matches(head.lower(), list(lower), n=4, cutoff=0.5)]
    return f"; did you mean {', '.join(close)}?" if close else ""


def is_prefeval_measure(measure: Any) -> bool:
    """Whether ``measure`` is one of prefeval's (by class origin, so it survives a module reload)."""
    return getattr(measure, "NAME", None) in MEASURES and type(measure).__module__ == __name__


def register() -> None:
    """Register the measures with ir-measures (idempotent: importing twice must not fail)."""
    registry = ir_measures.measures.registry
    for name, measure in MEASURES.items():
        if name not in registry:
            ir_measures.measures.register(measure, name=name)
        elif not is_prefeval_measure(registry[name]):
            raise PrefevalError(f"ir-measures already has a different measure named {name}")
