"""Score generated comparisons with any measure: ir-measures metrics, prefeval preferences, callables.

Metrics are evaluated by prefeval's one evaluation function (:func:`prefeval.engine.values.measure_values`, as
:func:`prefeval.evaluate` evaluates them) in one batch: every ranking of every comparison becomes its own query
(numeric ids, as gdeval requires) with its own copy of the case's qrels, and the run gives the i-th document of a
ranking of length n the score n - i, so the intended order never depends on tie-breaking. Qrels encoding:

* measures that understand aspects (ir-measures' pyndeval measures — ERR_IA, alpha_nDCG, NRBP, P_IA,
  AP_IA, StRecall, … — and prefeval's RBU) get one qrels row per (document, subtopic) with the subtopic
  id in ``iteration``; an aspect of weight c/C is c identical subtopics (see :mod:`prefeval.axioms.model`);
* other measures get one row per document with ``r(d) = max_t r(d,t)``, as the RBU paper does for
  single-aspect metrics in its experiments (Amigó et al. (2018) §6.2).

Every ranking is a judged query, so every one gets a value (a ranking the measure's provider gives none for scores
the measure's default, 0, as in :func:`prefeval.evaluate`); a callable's missing query counts as missing (NaN).

Preference methods (LexiRecall, LexiPrecision, RPP) are evaluated on the position vectors of the two
rankings with prefeval's kernels (:mod:`prefeval.core.lexicographic`, :mod:`prefeval.core.rpp`):
the value is ``pref(left, right)``; positive means left is preferred. ``@k`` truncates both rankings.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

import prefeval.engine.provider  # noqa: F401  (prefeval's provider in ir-measures' pipeline: resolve() finds it)
from prefeval import methods
from prefeval.axioms.model import Judgments, RankingPair
from prefeval.core.graded import GradedRankings
from prefeval.data.positions import QueryPositions
from prefeval.data.ranking import rank_run
from prefeval.engine.values import measure_values
from prefeval.errors import PrefevalError
from prefeval.methods.checks import validate
from prefeval.methods.names import parse_names
from prefeval.methods.registry import declaration_of

__all__ = ["KernelScorer", "MetricScorer", "PreferenceScorer", "Scorer", "build_frames", "resolve"]

ASPECT_PROVIDERS = frozenset({"pyndeval"})
GRADE_LIMITS = {"gdeval": 4}
"""Highest grade a provider accepts (gdeval.pl rejects judgments above 4)."""

_NDEVAL_WARNING = "All queries have only 1 subtopic"


@dataclass
class Scorer:
    """Common interface: ``values(comparisons) -> (left, right)`` arrays.

    For metrics these are Q(left) and Q(right); for preferences ``left`` is pref(left, right) and
    ``right`` is all zeros, so that ``left - right`` is the margin in both cases.
    """

    label: str
    kind: str = "metric"  # or "preference"
    cutoff: int | None = None
    aspects: bool = False
    grade_cap: int | None = None
    unavailable: str | None = None  # reason the measure cannot be evaluated at all
    provider: str | None = None

    def values(self, comparisons: Sequence[RankingPair]) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


@dataclass
class MetricScorer(Scorer):
    """A metric evaluated through ir-measures (or a callable ``f(qrels, run) -> {query_id: value}``)."""

    measure: Any = None
    function: Callable[[pd.DataFrame, pd.DataFrame], Mapping[str, float]] | None = None

    def values(self, comparisons: Sequence[RankingPair]) -> tuple[np.ndarray, np.ndarray]:
        qrels, run, sides = _batch(comparisons, aspects=self.aspects, grade_cap=self.grade_cap)
        if self.function is not None:
            scores = {str(k): float(v) for k, v in dict(self.function(qrels, run)).items()}
        else:
            scores = _measure_scores(self.measure, qrels, run, quiet_ndeval=self.provider == "pyndeval")
        values = np.array([scores.get(str(q), np.nan) for q in range(1, int(sides.max(initial=0)) + 1)])
        return values[sides[:, 0] - 1], values[sides[:, 1] - 1]


def _measure_scores(measure: Any, qrels: pd.DataFrame, run: pd.DataFrame, quiet_ndeval: bool) -> dict[str, float]:
    """``measure`` on every ranking of the batch by :func:`~prefeval.engine.values.measure_values`; pyndeval's
    'only 1 subtopic' notice is dropped (single-aspect cases are meant)."""
    buffer = io.StringIO()
    with contextlib.redirect_stderr(buffer) if quiet_ndeval else contextlib.nullcontext():
        found = measure_values(qrels, {"rankings": rank_run(run, name="rankings")}, [measure])
    other = [line for line in buffer.getvalue().splitlines() if line and _NDEVAL_WARNING not in line]
    if other:
        sys.stderr.write("\n".join(other) + "\n")
    return dict(zip(found.query_ids.tolist(), found.values[0, :, 0].tolist()))


@dataclass
class PreferenceScorer(Scorer):
    """A preference method of the registry (LexiRecall, LexiPrecision, RPP, ...) on the two rankings, with the
    kernel its declaration names (:mod:`prefeval.methods`)."""

    name: str = ""
    params: dict = field(default_factory=dict)

    def values(self, comparisons: Sequence[RankingPair]) -> tuple[np.ndarray, np.ndarray]:
        declaration = methods.get(self.name)
        params = declaration.complete({k: v for k, v in self.params.items() if k != "baseline"})
        rel = int(params["rel"])
        out = np.zeros(len(comparisons), dtype=np.float64)
        for idx, comp in enumerate(comparisons):
            grades = _judged_grades(comp.judgments)  # (D + anchors, subtopics)
            best = grades.max(axis=1)
            relevant = np.flatnonzero(best >= rel)
            if not len(relevant):  # no relevant document: not applicable (the provider gives 0)
                out[idx] = np.nan
                continue
            query = QueryPositions(
                query_id=str(idx), doc_ids=relevant, grades=best[relevant],
                doc_pos=np.stack([_doc_positions(comp.left, relevant, self.cutoff),
                                  _doc_positions(comp.right, relevant, self.cutoff)]),
                subtopics=grades[relevant].T >= rel)
            out[idx] = declaration.pairwise(query, 0, 1, params)
        return out, np.zeros_like(out)


@dataclass
class KernelScorer(Scorer):
    """A metric of the registry (RBU, TSE, ...) computed with the kernel its declaration names.

    Same definition as the ir-measures provider (:mod:`prefeval.engine.provider`): the rankings as
    :class:`~prefeval.core.graded.GradedRankings`, grades below ``rel`` counted as 0, aspects = the subtopics
    with a relevant document, ``@k``. It skips the provider's per-query pandas work; the tests assert that
    both give the same values.
    """

    name: str = ""
    params: dict = field(default_factory=dict)

    def values(self, comparisons: Sequence[RankingPair]) -> tuple[np.ndarray, np.ndarray]:
        declaration = methods.get(self.name)
        params = declaration.complete(self.params)
        rel = int(params["rel"])
        queries, sides = _queries(comparisons)
        out = np.full(len(queries), np.nan)
        groups: dict[tuple[int, int], list[tuple[int, np.ndarray, np.ndarray, int]]] = {}
        for q, (judgments, ranking) in enumerate(queries):
            grades = _judged_grades(judgments)
            grades = np.where(grades >= rel, grades, 0)
            gmax = grades.max(axis=0)
            kept = gmax > 0
            ranked = list(ranking)[:self.cutoff] if self.cutoff else list(ranking)
            ranked = grades[ranked][:, kept] if ranked else np.zeros((0, int(kept.sum())), np.int64)
            if kept.any():  # else no relevant document: not applicable (the provider gives 0)
                n_relevant = int((grades.max(axis=1) > 0).sum())
                groups.setdefault(ranked.shape, []).append((q, ranked, gmax[kept], n_relevant))
        for members in groups.values():  # one kernel call per ranking shape
            rankings = GradedRankings.stack([g for _, g, _, _ in members], [m for _, _, m, _ in members],
                                            [n for _, _, _, n in members])
            out[[q for q, _, _, _ in members]] = declaration.values(rankings, params)
        return out[sides[:, 0]], out[sides[:, 1]]


def _doc_positions(ranking: Sequence[int], relevant: np.ndarray, cutoff: int | None) -> np.ndarray:
    """1-based position of each relevant document (row index into the judged grades) or +inf."""
    ranked = list(ranking)[:cutoff] if cutoff else list(ranking)
    where = {doc: pos for pos, doc in enumerate(ranked, start=1)}
    return np.array([where.get(int(d), np.inf) for d in relevant], dtype=np.float64)


def _judged_grades(judgments: Judgments, grade_cap: int | None = None) -> np.ndarray:
    """(documents + anchors, subtopics) grade matrix; anchors are the rows after the documents."""
    grades = np.asarray(judgments.grades, dtype=np.int64).reshape(judgments.n_docs, judgments.n_aspects)
    anchors = judgments.anchors(grade_cap)
    if anchors:
        extra = np.zeros((len(anchors), judgments.n_aspects), dtype=np.int64)
        for row, (t, g) in enumerate(anchors):
            extra[row, t] = g
        grades = np.vstack([grades, extra])
    return np.repeat(grades, judgments.copies, axis=1)


def _queries(comparisons: Sequence[RankingPair]) -> tuple[list[tuple[Judgments, tuple[int, ...]]], np.ndarray]:
    """Distinct (judgments, ranking) pairs of a batch and, per comparison, the indices of its two sides.

    DeepTh and CloseTh compare the same rankings in opposite directions, so each distinct ranking is
    evaluated once.
    """
    index: dict[tuple[Judgments, tuple[int, ...]], int] = {}
    sides = np.empty((len(comparisons), 2), dtype=np.int64)
    for i, comp in enumerate(comparisons):
        for j, ranking in enumerate((comp.left, comp.right)):
            sides[i, j] = index.setdefault((comp.judgments, ranking), len(index))
    return list(index), sides


def _batch(comparisons: Sequence[RankingPair], aspects: bool, grade_cap: int | None = None
           ) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """:func:`build_frames` and a ``(comparisons, 2)`` array of the query ids (as integers) of each comparison's left
    and right ranking."""
    queries, sides = _queries(comparisons)
    qrels: dict[str, list] = {"query_id": [], "doc_id": [], "relevance": [], "iteration": []}
    run: dict[str, list] = {"query_id": [], "doc_id": [], "score": []}
    rows_of: dict[Judgments, tuple[list[str], list[int], list[str]]] = {}
    for q, (judgments, ranking) in enumerate(queries, start=1):
        rows = rows_of.get(judgments)
        if rows is None:
            rows = rows_of[judgments] = _qrels_rows(judgments, aspects, grade_cap)
        qid = str(q)
        names, grades, iterations = rows
        qrels["query_id"] += [qid] * len(names)
        qrels["doc_id"] += names
        qrels["relevance"] += grades
        qrels["iteration"] += iterations
        n = len(ranking)
        run["query_id"] += [qid] * n
        run["doc_id"] += [f"d{d}" for d in ranking]
        run["score"] += range(n, 0, -1)
    qrels_frame = pd.DataFrame(qrels).astype({"relevance": "int64"})
    run_frame = pd.DataFrame(run).astype({"score": "float64"})
    return qrels_frame, run_frame, sides + 1


def _qrels_rows(judgments: Judgments, aspects: bool, grade_cap: int | None) -> tuple[list[str], list[int], list[str]]:
    """The doc ids, grades and iterations of one case's qrels rows (:func:`build_frames`)."""
    grades = _judged_grades(judgments, grade_cap)
    names = [f"d{d}" for d in range(judgments.n_docs)] + [f"a{t}" for t, _ in judgments.anchors(grade_cap)]
    if not aspects:
        return names, grades.max(axis=1).tolist(), ["0"] * len(names)
    rows: tuple[list[str], list[int], list[str]] = ([], [], [])
    for d, name in enumerate(names):
        hits = np.flatnonzero(grades[d] > 0).tolist()
        if hits:  # one row per aspect the document is relevant to
            rows[0].extend([name] * len(hits))
            rows[1].extend(int(grades[d, s]) for s in hits)
            rows[2].extend(str(s + 1) for s in hits)
        else:  # judged non-relevant, for the first aspect
            rows[0].append(name)
            rows[1].append(0)
            rows[2].append("1")
    return rows


def build_frames(comparisons: Sequence[RankingPair], aspects: bool,
                 grade_cap: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels and run of a batch as canonical frames (qrels: query_id, doc_id, relevance, iteration; run: query_id,
    doc_id, score), one query (id ``"1"``, ``"2"``, …) per distinct ranking.

    Documents are ``d<index>``; anchors ``a<aspect>``. With ``aspects`` every document gets a row for each subtopic
    it is relevant to (documents relevant to none: one row with grade 0 for subtopic 1); without, one row with its
    highest grade and iteration ``"0"``. The i-th document of a ranking of length n scores n - i.
    """
    qrels, run, _ = _batch(comparisons, aspects, grade_cap)
    return qrels, run


def _provider_of(measure: Any) -> tuple[Any | None, str | None]:
    """The ir-measures provider DefaultPipeline would use, or (None, reason)."""
    would = []
    for provider in ir_measures.DefaultPipeline.providers:
        try:
            supported = provider.supports(measure)
        except Exception:  # a provider rejecting the measure's parameters
            supported = False
        if supported:
            if provider.is_available():
                return provider, None
            would.append(f"{provider.NAME} ({provider.install_instructions() or 'unavailable'})")
    if would:
        return None, f"no available ir-measures provider; it would need {', '.join(would)}"
    return None, "no ir-measures provider supports it"


def resolve(measure: Any, label: str | None = None, direct: bool = True) -> Scorer:
    """Turn a measure string, ir-measures measure object, or callable into a :class:`Scorer`.

    Strings are read by :func:`prefeval.methods.names.parse_names` and every measure is checked by
    :func:`prefeval.methods.checks.validate`, as :func:`prefeval.evaluate` reads and checks them.
    ``LexiRecall``, ``LexiPrecision`` and ``RPP`` (any parameters; ``baseline`` is ignored) become
    preference scorers. A callable ``f(qrels, run)`` returning ``{query_id: value}`` is scored like a
    metric and receives aspect-aware qrels. With ``direct``, prefeval's RBU and TSE are computed with
    their kernels (:class:`KernelScorer`, same values) instead of through ir-measures and the prefeval
    provider. Raises :class:`PrefevalError` for an unparsable string or a measure those checks refuse.
    """

    if callable(measure) and not hasattr(measure, "NAME"):
        name = label or getattr(measure, "__name__", repr(measure))
        return MetricScorer(label=name, aspects=True, function=measure)
    if isinstance(measure, str):
        text = measure
        found = parse_names(text)  # the one reading of a measure name (eval's, compare's, pipelines')
        if len(found) != 1:
            raise PrefevalError(f"measure {text!r} stands for {len(found)} measures "
                                f"({', '.join(map(str, found))}); check them one by one")
        measure = found[0]
        label = label or text
    validate(measure)  # the checks every entry point makes (cutoff >= 1, rel >= 1, known parameters), before work
    label = label or str(measure)
    params = dict(getattr(measure, "params", {}))
    cutoff = params.get("cutoff")
    cutoff = cutoff if isinstance(cutoff, int) else None
    declaration = declaration_of(measure)
    if declaration is not None and declaration.kind == "preference":
        return PreferenceScorer(label=label, kind="preference", cutoff=cutoff,
                                aspects=declaration.reads_subtopics(declaration.complete(params)),
                                name=declaration.name, params=params)
    provider, reason = _provider_of(measure)
    name = getattr(provider, "NAME", None)
    if direct and declaration is not None and name == "prefeval":
        return KernelScorer(label=label, cutoff=cutoff, aspects=declaration.aspects, provider=name,
                            name=declaration.name, params=params)
    aspects = name in ASPECT_PROVIDERS or (declaration is not None and declaration.aspects)
    return MetricScorer(label=label, cutoff=cutoff, aspects=aspects, grade_cap=GRADE_LIMITS.get(name),
                        unavailable=reason, provider=name, measure=measure)
