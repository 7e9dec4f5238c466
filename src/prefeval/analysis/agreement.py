"""Agreement between evaluation methods: per ranking pair and per system ordering.

**Ranking-pair sign agreement** (Diaz & Mitra (2023) §6.2.1, Fig. 8; Diaz (2023) §4.2 item 1; Diaz & Ferraro (2022) §6.1 "sa").
Over all pairs of rankings of the same query (one row of ``Comparison.per_query`` each), restricted to
the pairs on which the *reference* (usually a metric) is strict::

    agreement(method, reference) = #{pairs: ref strict, sgn(method) = sgn(ref)} / #{pairs: ref strict}

Tie rule (``method_ties``): ``"disagree"`` (default, Diaz & Mitra (2023) §6.2.1: a method tie on a pair the metric
separates is a disagreement), ``"exclude"`` (drop such pairs from the denominator) or ``"half"`` (count
them 1/2). ``|value| <= tol`` is a tie (``prefeval.core.stats.TIE_TOL``).

**System-level sign agreement** (Diaz (2023) §4.2 item 2): the same over pairs of *systems*, with the mean
per-query preference (for a metric: the difference of means) in place of the per-query value.

**Kendall's tau between system orderings** (Diaz & Mitra (2023) §6.2.1, Fig. 9; Diaz & Ferraro (2022) §6.1, Table 2). Each
method orders the systems with ``Comparison.ranking(method, aggregate=...)`` (default MC4 for
preferences, the mean for metrics, as in the papers); tau is computed on the aggregate scores, so
systems with equal scores are ties, except for MC4, whose ordering (a permutation) is used because
its stationary scores tie at 0 below a Condorcet winner. ``variant="b"`` (default) is tau-b (``scipy.stats.kendalltau``),
which corrects for ties; ``variant="a"`` is tau-a, ``(concordant - discordant) / C(S, 2)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from prefeval.analysis._frames import TIE_TOL, per_query_frame, select_methods
from prefeval.core.aggregate import KEY_DECIMALS
from prefeval.errors import PrefevalError

__all__ = ["sign_agreement", "sign_counts", "system_agreement", "kendall_tau", "kendall_tau_a", "kendall_tau_b",
           "ordering_key", "ranking_values", "TIE_RULES"]

TIE_RULES = ("disagree", "exclude", "half")
_KEYS = ["query_id", "run_a", "run_b"]
_COLUMNS = ["method", "reference", "pairs", "agree", "disagree", "method_ties", "agreement"]


def sign_counts(method_values: np.ndarray, ref_values: np.ndarray, tie_rule: str = "disagree",
                tol: float = TIE_TOL) -> dict[str, Any]:
    """Sign agreement of paired values with reference values, over the pairs the reference separates
    (``|ref| > tol``; see module doc): ``pairs, agree, disagree, method_ties, agreement``."""
    if tie_rule not in TIE_RULES:
        raise PrefevalError(f"unknown tie rule {tie_rule!r}; choose one of {', '.join(TIE_RULES)}")
    strict = np.abs(ref_values) > tol
    m = method_values[strict]
    r = ref_values[strict]
    m_sign = np.where(np.abs(m) <= tol, 0, np.sign(m))
    pairs = int(strict.sum())
    agree = int((m_sign == np.sign(r)).sum())
    ties = int((m_sign == 0).sum())
    disagree = pairs - agree - ties
    if tie_rule == "disagree":
        denominator, numerator = pairs, float(agree)
    elif tie_rule == "exclude":
        denominator, numerator = pairs - ties, float(agree)
    else:
        denominator, numerator = pairs, agree + 0.5 * ties
    return {"pairs": pairs, "agree": agree, "disagree": disagree, "method_ties": ties,
            "agreement": numerator / denominator if denominator else np.nan}


def _pairs_of(methods: list[str], references: list[str]) -> list[tuple[str, str]]:
    return [(m, r) for m in methods for r in references if m != r]


def _agreement_table(values: pd.DataFrame, methods: list[str], references: list[str], tie_rule: str,
                     tol: float) -> pd.DataFrame:
    """:func:`sign_counts` of every (method, reference) pair; ``values`` has one column per method."""
    rows = []
    for m, r in _pairs_of(methods, references):
        both = values[[m, r]].dropna()
        counts = sign_counts(both[m].to_numpy(np.float64), both[r].to_numpy(np.float64), tie_rule, tol)
        rows.append({"method": m, "reference": r, **counts})
    return pd.DataFrame(rows, columns=_COLUMNS)


def sign_agreement(comparison: Any, methods: str | Sequence[str] | None = None,
                   references: str | Sequence[str] | None = None, *, method_ties: str = "disagree",
                   tol: float = TIE_TOL) -> pd.DataFrame:
    """Ranking-pair sign agreement of each method with each reference (see module doc).

    ``comparison``: a Comparison or its ``per_query`` frame. ``methods`` / ``references`` default to the
    comparison's preferences / metrics when the kinds are known (a Comparison), else to all methods.
    Returns ``method, reference, pairs, agree, disagree, method_ties, agreement`` (``pairs``: ranking pairs
    the reference separates).
    """
    frame = per_query_frame(comparison)
    methods, references = _default_roles(comparison, frame, methods, references)
    wide = frame.pivot_table(index=_KEYS, columns="method", values="value", aggfunc="first", sort=False)
    return _agreement_table(wide, methods, references, method_ties, tol)


def system_agreement(comparison: Any, methods: str | Sequence[str] | None = None,
                     references: str | Sequence[str] | None = None, *, method_ties: str = "disagree",
                     tol: float = TIE_TOL) -> pd.DataFrame:
    """System-pair sign agreement (Diaz (2023) §4.2): signs of the mean per-query preferences of every pair of
    systems; same columns as :func:`sign_agreement` (``pairs``: system pairs the reference separates)."""
    frame = per_query_frame(comparison)
    methods, references = _default_roles(comparison, frame, methods, references)
    means = frame.groupby(["method", "run_a", "run_b"], sort=False)["value"].mean().unstack("method")
    return _agreement_table(means, methods, references, method_ties, tol)


def _kinds(comparison: Any) -> dict[str, str]:
    results = getattr(comparison, "results", None)
    if isinstance(results, Mapping):
        return {label: r.method.kind for label, r in results.items()}
    return {}


def _default_roles(comparison: Any, frame: pd.DataFrame, methods, references) -> tuple[list[str], list[str]]:
    kinds = _kinds(comparison)
    present = select_methods(frame, None)
    if methods is None:
        prefs = [m for m in present if kinds.get(m) == "preference"]
        methods = prefs or present
    if references is None:
        mets = [m for m in present if kinds.get(m) == "metric"]
        references = mets or present
    return select_methods(frame, methods), select_methods(frame, references)


def kendall_tau_a(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-a: ``(concordant - discordant) / C(n, 2)``; tied pairs count in neither."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = len(x)
    if n < 2 or len(y) != n:
        raise PrefevalError(f"Kendall's tau needs two score vectors of the same length >= 2, got {len(x)}, {len(y)}")
    i, j = np.triu_indices(n, 1)
    return float((np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])).sum() / len(i))


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b (``scipy.stats.kendalltau``), which corrects for ties in either vector."""
    return _tau(x, y, "b")[0]


#: scipy's ``kendalltau(method="auto")`` takes the exact p-value of tau without ties up to this many systems
TAU_EXACT_SYSTEMS = 33


def tau_p_method(x: np.ndarray, y: np.ndarray, tau: float | None = None) -> str:
    """Which p-value ``scipy.stats.kendalltau(x, y)`` (``method="auto"``, what :func:`_tau` calls) gives for tau-b:
    ``"exact"`` (its exact null distribution, taken when neither vector has ties and there are at most
    :data:`TAU_EXACT_SYSTEMS` systems or at most one discordant or one concordant pair) or ``"approximate
    (ties)"`` / ``"approximate"`` (its normal approximation, the only one with ties: a p-value that need not
    follow tau's order across tables with and without ties). Kendall (1938, 1945); scipy's rule, tested against
    ``scipy.stats.kendalltau`` with each method named. ``tau``: scipy's tau-b of ``x`` and ``y`` when known already."""
    x, y = np.asarray(x), np.asarray(y)
    if len(np.unique(x)) < len(x) or len(np.unique(y)) < len(y):
        return "approximate (ties)"
    n = len(x)
    if n <= TAU_EXACT_SYSTEMS:
        return "exact"
    pairs = n * (n - 1) // 2
    # without ties tau = (pairs - 2 discordant) / pairs: the discordant pairs from scipy's tau
    tau = float(sps.kendalltau(x, y).statistic) if tau is None else tau
    discordant = round(pairs * (1 - tau) / 2)
    return "exact" if min(discordant, pairs - discordant) <= 1 else "approximate"


def _tau(x: np.ndarray, y: np.ndarray, variant: str) -> tuple[float, float]:
    if variant == "a":
        return kendall_tau_a(x, y), np.nan
    if variant == "b":
        res = sps.kendalltau(x, y, variant="b")  # scipy's own choice of the p-value's method (tau_p_method)
        return float(res.statistic), float(res.pvalue)
    raise PrefevalError(f"unknown Kendall tau variant {variant!r}; choose 'a' or 'b'")


def ranking_values(frame: pd.DataFrame, runs: Sequence[str] | None = None) -> pd.Series:
    """The values a system ranking (``run``, ``score`` and, for MC4, ``level`` columns) orders the runs by,
    higher = better, indexed by run (in ``runs`` order if given): the tau of two rankings is computed on these.

    The ``score`` itself (a metric's mean, Borda points, Copeland score, win rate, a true quality), so equal
    scores are ties; for MC4 the pair (level, mass within the level) as ``-2 * level + mass`` (masses are in
    [0, 1], so a lower level always ranks higher). Values are rounded to
    :data:`prefeval.core.aggregate.KEY_DECIMALS` decimals, so floating-point noise does not break a tie.
    """
    by_run = frame.set_index("run")
    value = by_run["score"].astype(np.float64)
    if "level" in by_run.columns:
        value = -2.0 * by_run["level"].astype(np.float64) + value
    value = value.round(KEY_DECIMALS)
    return value if runs is None else value.reindex(list(runs))


def ordering_key(comparison: Any, method: str, aggregate: str | None = None,
                 options: Mapping[str, Any] | None = None) -> pd.Series:
    """Per-run ordering key of ``method``'s system ranking, higher = better (:func:`ranking_values`; default
    aggregate per kind: ``mc4`` for preferences, ``mean`` for metrics). ``options`` (e.g. ``iterations``,
    ``ties``) are passed to MC4 only.
    """
    agg = aggregate or _default_agg(comparison, method)
    ranking = comparison.ranking(method, aggregate=agg, **(dict(options or {}) if agg == "mc4" else {}))
    return ranking_values(ranking)


def _default_agg(comparison: Any, method: str) -> str:
    return "mean" if _kinds(comparison).get(method) == "metric" else "mc4"


def _scores(comparison: Any, method: str, aggregate: str | Mapping[str, str] | None,
            options: Mapping[str, Any]) -> pd.Series:
    """:func:`ordering_key` with ``aggregate`` given for all methods or per method."""
    agg = aggregate.get(method) if isinstance(aggregate, Mapping) else aggregate
    return ordering_key(comparison, method, agg, options)


def kendall_tau(comparison: Any, methods: str | Sequence[str] | None = None,
                references: str | Sequence[str] | None = None, *,
                aggregate: str | Mapping[str, str] | None = None, variant: str = "b",
                mc4_options: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Kendall's tau between the system orderings of each method and each reference (see module doc).

    ``comparison`` must be a :class:`prefeval.engine.comparison.Comparison` (the orderings need its per-query
    tensors). ``methods`` / ``references`` default to its preferences / metrics; with
    ``references="all"`` every unordered pair of methods is reported. ``aggregate``: one name for all
    methods or a mapping method -> aggregate (default per kind: ``mc4`` / ``mean``).
    Returns ``method, reference, systems, tau, p_value, p_method`` (``p_value`` from scipy for tau-b, NaN for
    tau-a; ``p_method`` says whether it is exact or scipy's normal approximation, which ties force:
    :func:`tau_p_method`).
    """
    if not hasattr(comparison, "ranking"):
        raise PrefevalError("kendall_tau needs a prefeval Comparison (system orderings), not a per-query frame")
    frame = per_query_frame(comparison)
    options = dict(mc4_options or {})
    if isinstance(references, str) and references == "all":
        chosen = select_methods(frame, methods)
        pairs = list(combinations(chosen, 2))
    else:
        ms, rs = _default_roles(comparison, frame, methods, references)
        pairs = _pairs_of(ms, rs)
    cache: dict[str, pd.Series] = {}
    rows = []
    for m, r in pairs:
        for key in (m, r):
            if key not in cache:
                cache[key] = _scores(comparison, key, aggregate, options)
        x = cache[m]
        y = cache[r].reindex(x.index)
        tau, p = _tau(x.to_numpy(), y.to_numpy(), variant)
        how = tau_p_method(x.to_numpy(), y.to_numpy(), tau) if variant == "b" else "undefined"
        rows.append({"method": m, "reference": r, "systems": len(x), "tau": tau, "p_value": p, "p_method": how})
    out = pd.DataFrame(rows, columns=["method", "reference", "systems", "tau", "p_value", "p_method"])
    out.attrs.update(variant=variant)
    return out
