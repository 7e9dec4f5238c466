"""``check(measure)``: run the formal constraints against one measure and report verdicts.

For each selected constraint the cases are generated (:mod:`prefeval.axioms.cases`), all comparisons of
all constraints are scored in one batch (:mod:`prefeval.axioms.evaluate`), and the constraint's
quantifier turns the outcomes into a verdict:

* ``satisfied``: no generated case violates it (for DeepTh/CloseTh/Sat: a witness was found);
* ``violated``: at least one case does; the smallest counterexample is reported;
* ``not applicable``: the measure could not be evaluated on these cases (the reason says why).

A comparison *holds* when ``Q(left) - Q(right) > tol`` (strict) or ``>= -tol`` (non-strict), with
``tol = 1e-10 · max(1, |Q(left)|, |Q(right)|)`` so that floating-point noise (e.g. RBU with p = 1 summing
the same terms in another order) is not mistaken for a strict improvement. For preferences the margin
is ``pref(left, right)``. Verdicts are empirical: "satisfied" means no counterexample among the cases
tried, not a proof.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from prefeval.axioms.cases import Settings
from prefeval.axioms.constraints import CONSTRAINTS, Constraint, select
from prefeval.axioms.evaluate import Scorer, resolve
from prefeval.axioms.model import Case, RankingPair
from prefeval.core.stats import check_seed

__all__ = ["COLUMNS", "DEFAULT_CASES", "check"]

DEFAULT_CASES = 100
DEFAULT_BOUND = 512
MAX_LENGTH = 8
COLUMNS = ["measure", "constraint", "name", "source", "verdict", "reason", "cases", "comparisons",
           "violations", "relation", "left", "right", "qrels", "left_value", "right_value", "counterexample"]
_TEXT_LIMIT = 24  # rankings longer than this are shown as run-length grades


def check(measure: Any, constraints: str | Iterable[str] | None = None, cases: int | None = None,
          seed: int = 0, *, bound: int = DEFAULT_BOUND, max_length: int | None = None,
          label: str | None = None, direct: bool = True) -> pd.DataFrame:
    """Check ``measure`` against formal constraints (Amigó et al. (2018) §3, Ferrante et al. (2015) §5, Diaz & Mitra (2023) Table 6).

    Args:
        measure: an ir-measures measure object or string (``"nDCG@10"``, ``"RBU(p=0.8,e=0.03)@10"``),
            a preference method (``"LexiRecall"``, ``"LexiPrecision(magnitude='rr')"``, ``"RPP"``), or a
            callable ``f(qrels, run) -> {query_id: value}`` taking canonical frames.
        constraints: keys or groups (``"amigo2018"``, ``"ferrante2015"``, ``"table6"``, ``"all"``); default all.
        cases: random cases per universally quantified constraint (default 100).
        seed: seed of the case generators (each constraint draws from its own stream).
        bound: largest n (m) searched by the Deepness/Closeness Thresholds (default 512).
        max_length: longest generated ranking; default 8, or ``cutoff - 1`` for a measure with a smaller
            cutoff (at least 4), so that every generated document lies within the cutoff.
        label: name of the measure in the result (default: the string given, or ``str(measure)``).
        direct: compute prefeval's RBU and TSE with their kernels (identical values, much faster than
            prefeval's ir-measures provider); ``False`` goes through the provider, by
            :func:`prefeval.engine.values.measure_values` as every metric.

    Returns:
        DataFrame with one row per constraint: ``measure, constraint, name, source, verdict, reason,
        cases, comparisons, violations, relation`` and, for a violation, the smallest counterexample
        found: ``left``, ``right`` (rankings as ``d<id>:<grade>``), ``qrels`` (all judgments),
        ``left_value``, ``right_value`` (for preferences ``left_value`` = pref(left, right)) and the
        :class:`~prefeval.axioms.model.RankingPair` itself in ``counterexample``.
    """
    scorer = resolve(measure, label, direct=direct)
    chosen = select(constraints)
    if max_length is None:
        max_length = MAX_LENGTH if scorer.cutoff is None else max(4, min(MAX_LENGTH, scorer.cutoff - 1))
    settings = Settings(cases=DEFAULT_CASES if cases is None else cases, max_length=max_length,
                        grade_cap=scorer.grade_cap, bound=bound)
    if scorer.unavailable:
        return _frame([_row(scorer, c, "not applicable", scorer.unavailable) for c in chosen])
    keys = list(CONSTRAINTS)
    check_seed(seed)
    generated = {c.key: c.generate(np.random.default_rng([seed, keys.index(c.key)]), settings) for c in chosen}
    outcomes = _score(scorer, generated)
    rows = []
    for constraint in chosen:
        result = outcomes[constraint.key]
        if isinstance(result, str):
            rows.append(_row(scorer, constraint, "not applicable", result, generated[constraint.key]))
        else:
            rows.append(_decide(scorer, constraint, generated[constraint.key], *result, settings))
    return _frame(rows)


def _score(scorer: Scorer, generated: dict[str, list[Case]]) -> dict[str, Any]:
    """Values per constraint: (left, right) arrays over its flattened comparisons, or an error text."""
    flat = {key: [comp for case in found for comp in case.comparisons] for key, found in generated.items()}
    everything = [comp for comps in flat.values() for comp in comps]
    try:
        left, right = scorer.values(everything)
    except Exception:  # isolate the constraint(s) the measure cannot handle
        return {key: _score_one(scorer, comps) for key, comps in flat.items()}
    out: dict[str, Any] = {}
    start = 0
    for key, comps in flat.items():
        stop = start + len(comps)
        out[key] = _check_values(left[start:stop], right[start:stop], scorer)
        start = stop
    return out


def _score_one(scorer: Scorer, comps: Sequence[RankingPair]) -> Any:
    try:
        left, right = scorer.values(comps)
    except Exception as exc:
        return f"the measure failed on these cases: {type(exc).__name__}: {str(exc).strip()[:300]}"
    return _check_values(left, right, scorer)


def _check_values(left: np.ndarray, right: np.ndarray, scorer: Scorer) -> Any:
    missing = np.isnan(left) | np.isnan(right)
    if missing.any():
        return (f"the measure returned no value for {int(missing.sum())} of {len(left)} comparisons "
                "(e.g. a query without a document of grade >= rel is not evaluated)")
    return left, right


def _holds(left: np.ndarray, right: np.ndarray, strict: np.ndarray) -> np.ndarray:
    tol = 1e-10 * np.maximum(1.0, np.maximum(np.abs(left), np.abs(right)))
    margin = left - right
    return np.where(strict, margin > tol, margin >= -tol)


def _decide(scorer: Scorer, constraint: Constraint, found: list[Case], left: np.ndarray, right: np.ndarray,
            settings: Settings) -> dict:
    comps = [comp for case in found for comp in case.comparisons]
    holds = _holds(left, right, np.array([c.strict for c in comps], dtype=bool))
    margin = left - right
    spans, start = [], 0
    for case in found:
        spans.append(range(start, start + len(case.comparisons)))
        start += len(case.comparisons)
    quantifier = constraint.quantifier
    witness: int | None = None
    if quantifier == "all":
        failing = np.flatnonzero(~holds)
        if failing.size == 0:
            return _row(scorer, constraint, "satisfied", "", found)
        witness = min(failing, key=lambda i: comps[i].size())
        reason = f"{failing.size} of {len(comps)} cases violate it"
        violations = int(failing.size)
    elif quantifier == "exists":
        bad = [k for k, span in enumerate(spans) if not holds[span].any()]
        if not bad:
            found_at = [comps[span[int(np.argmax(holds[span]))]].note for span in spans]
            return _row(scorer, constraint, "satisfied", _per_family(found, found_at, "smallest"), found)
        span = spans[bad[0]]
        witness = span[int(np.argmax(margin[span]))]
        reason = (f"no {comps[span[0]].note.split('=')[0]} <= {settings.bound} works for "
                  f"{found[bad[0]].family}; closest at {comps[witness].note}")
        violations = len(bad)
    elif quantifier == "eventually":
        bad = [k for k, span in enumerate(spans) if not holds[span[-1]]]
        if not bad:
            since = [comps[span[_tail_start(holds[span], True)]].note for span in spans]
            return _row(scorer, constraint, "satisfied", _per_family(found, since, "holds from"), found)
        span = spans[bad[0]]
        witness = span[_tail_start(holds[span], False)]
        reason = (f"fails for {found[bad[0]].family} at every searched "
                  f"{comps[witness].note.split('=')[0]} from {comps[witness].note} to the bound {settings.bound}")
        violations = len(bad)
    elif quantifier == "exists_family":
        families: dict[str, list[int]] = {}
        for k, case in enumerate(found):
            families.setdefault(case.family, []).extend(spans[k])
        good = [fam for fam, idx in families.items() if holds[idx].all()]
        if good:
            return _row(scorer, constraint, "satisfied", f"holds with {good[0]}", found)
        last = list(families)[-1]
        failing = [i for i in families[last] if not holds[i]]
        witness = min(failing, key=lambda i: comps[i].size())
        reason = f"no candidate works ({', '.join(families)}); e.g. {last}"
        violations = len(families)
    else:  # pragma: no cover - constraint table is fixed
        raise ValueError(f"unknown quantifier {quantifier!r}")
    return _row(scorer, constraint, "violated", reason, found, comps[witness], left[witness], right[witness],
                violations)


def _tail_start(holds: np.ndarray, value: bool) -> int:
    """Index where the final run of entries equal to ``value`` starts."""
    other = np.flatnonzero(holds != value)
    return int(other[-1]) + 1 if other.size else 0


def _per_family(found: list[Case], notes: list[str], verb: str) -> str:
    return "; ".join(f"{case.family}: {verb} {note}" for case, note in zip(found, notes))


def _row(scorer: Scorer, constraint: Constraint, verdict: str, reason: str, found: list[Case] | None = None,
         witness: RankingPair | None = None, left: float = np.nan, right: float = np.nan,
         violations: int = 0) -> dict:
    preference = scorer.kind == "preference"
    strict = witness.strict if witness is not None else _strict(found)
    relation = ("pref(left, right) " + (">" if strict else ">=") + " 0" if preference
                else "Q(left) " + (">" if strict else ">=") + " Q(right)")
    if witness is not None and witness.note and verdict == "violated":
        reason = f"{reason} ({witness.note})" if witness.note not in reason else reason
    return {
        "measure": scorer.label, "constraint": constraint.key, "name": constraint.name,
        "source": constraint.source, "verdict": verdict, "reason": reason,
        "cases": len(found or []), "comparisons": sum(len(c.comparisons) for c in found or []),
        "violations": violations, "relation": relation,
        "left": _ranking(witness, "left"), "right": _ranking(witness, "right"),
        "qrels": witness.judgments.describe() if witness is not None else "",
        "left_value": float(left), "right_value": np.nan if preference else float(right),
        "counterexample": witness,
    }


def _strict(found: list[Case] | None) -> bool:
    return bool(found) and found[0].comparisons[0].strict


def _ranking(comp: RankingPair | None, side: str) -> str:
    if comp is None:
        return ""
    ranking = comp.left if side == "left" else comp.right
    if len(ranking) <= _TEXT_LIMIT:
        return comp.ranking_text(side)
    grades = [comp.judgments.grades[d] for d in ranking]
    parts, start = [], 0
    for k in range(1, len(grades) + 1):
        if k == len(grades) or grades[k] != grades[start]:
            g = grades[start]
            text = str(g[0]) if len(g) == 1 else "(" + ",".join(map(str, g)) + ")"
            parts.append(f"{text}×{k - start}" if k - start > 1 else text)
            start = k
    return "grades [" + " ".join(parts) + "]"


def _frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return frame.astype({"cases": "int64", "comparisons": "int64", "violations": "int64"})
