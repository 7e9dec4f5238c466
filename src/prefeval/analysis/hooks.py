"""The analyses :mod:`prefeval.analysis` offers to pipelines (``[analyse] analyses = [...]``).

Each entry of :data:`PIPELINE_ANALYSES` is ``function(context, **options) -> {part: DataFrame | Figure}``
(the hook contract of :mod:`prefeval.pipeline.analyse`). The pipeline's runs are evaluated once and the
result is shared by the analyses of one pipeline run: the preference methods of the ``compare`` step
(option ``methods`` overrides) against the reference metrics (option ``metrics``; default: the ``evaluate``
step's measures plus the compare step's metrics). Figures need matplotlib (the ``plot`` extra) and are
left out without it.

=====================  =====================================================================================
name                   parts
=====================  =====================================================================================
``ties``               ``ties`` (+ bar chart)
``agreement``          ``sign_agreement``, ``system_agreement``, ``kendall_tau`` (+ heatmap)
``power``              ``discriminative_power`` (+ bar chart)
``robustness``         ``label_degradation``, ``query_subsampling`` summaries (+ line charts)
``tie_probability``    closed-form tie probabilities, Diaz & Mitra (2023) Tables 3 and 4 (no data needed)
``worst_case``         simulated agreement with the worst case, Diaz & Mitra (2023) Table 2 (option ``n_queries``)
``unanimity``          metric unanimity of every metric against the others, per query (Amigó et al. (2018) §6.1)
``unanimity_grid``     the same for the diversity metrics of Amigó et al. (2018) at their parameter grid, incl. RBU
                       (their Table 2; :data:`prefeval.analysis.unanimity.PAPER_GRID`; qrels with subtopics)
``balancing``          balancing index of the metrics for run lengths ``lengths`` (Ferrante et al. (2015) §6)
``reusability``        ``reusability``: leave-one-run-out of the pool at depth ``depth`` (default 100; Zobel (1998)),
                       the methods and metrics and their condensed-list variants
                       (:mod:`prefeval.analysis.reusability`)
=====================  =====================================================================================
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from prefeval.analysis import agreement, degradation, discriminative, reusability, ties
from prefeval.analysis.balancing import balancing_index
from prefeval.analysis.closed_forms import tie_probability
from prefeval.analysis.random_rankings import worst_case_agreement
from prefeval.analysis.suite import evaluate
from prefeval.analysis.unanimity import diversity_scores, metric_unanimity, mu_table
from prefeval.core.stats import CORRECTIONS, check_resamples, check_seed
from prefeval.engine.methods import parse_method
from prefeval.engine.significance import FAMILY_WISE_TESTS
from prefeval.errors import PrefevalError

__all__ = ["PIPELINE_ANALYSES", "option_problem"]

_CACHE: dict[str, Any] = {}


def _roles(context: Any, methods: Sequence[str] | None, metrics: Sequence[str] | None) -> tuple[list, list]:
    kinds = {m: parse_method(m).kind for m in context.methods}
    prefs = list(methods) if methods is not None else [m for m in context.methods if kinds[m] == "preference"]
    if metrics is None:
        metrics = list(context.settings.get("evaluate", {}).get("computed", context.measures))
        metrics += [m for m in context.methods if kinds[m] == "metric" and m not in metrics]
    return prefs, list(metrics)


def _evaluated(context: Any, methods: Sequence[str] | None, metrics: Sequence[str] | None):
    """(comparison, position data, preference labels, metric labels), computed once per pipeline run."""
    prefs, refs = _roles(context, methods, metrics)
    if not prefs and not refs:
        raise PrefevalError("analyse: no methods to analyse; add a compare step or give options.methods")
    key = (id(context), tuple(prefs), tuple(refs))
    cached = _CACHE.get("entry")
    if cached is not None and cached[0] is context and cached[1] == key:
        return cached[2]
    comparison, data = evaluate(context.qrels, context.runs, list(dict.fromkeys([*prefs, *refs])), rel=context.rel)
    labels = comparison.methods
    result = (comparison, data, labels[:len(dict.fromkeys(prefs))], labels[len(dict.fromkeys(prefs)):])
    _CACHE["entry"] = (context, key, result)
    return result


def _figure(width: float = 6.0, height: float = 3.5, panels: int | None = None):
    """``(figure, axes)`` with the Agg backend, or ``(None, None)`` without matplotlib. ``panels``: a row
    of that many axes sharing the y axis (``axes`` is then a list), else one axis."""
    try:
        # deferred: matplotlib is optional (the plot extra)
        import matplotlib

        matplotlib.use("Agg", force=False)
        # deferred: matplotlib is optional (the plot extra)
        import matplotlib.pyplot as plt
    except ImportError:
        return None, None
    if panels is None:
        return plt.subplots(figsize=(width, height))
    fig, axes = plt.subplots(1, panels, figsize=(width, height), sharey=True, squeeze=False)
    return fig, list(axes[0])


def run_ties(context: Any, methods: Sequence[str] | None = None, metrics: Sequence[str] | None = None) -> dict:
    comparison, _, _, _ = _evaluated(context, methods, metrics)
    table = ties.tie_rates(comparison)
    out: dict[str, Any] = {"ties": table}
    fig, ax = _figure()
    if fig is not None:
        ax.barh(table["method"], table["fraction_tied"], color="tab:blue")
        ax.invert_yaxis()
        ax.set_xlabel("fraction of ranking pairs tied")
        ax.set_xlim(0, 1)
        ax.set_title("Ties between rankings of the same query")
        fig.tight_layout()
        out["ties_plot"] = fig
    return out


def run_agreement(context: Any, methods: Sequence[str] | None = None, metrics: Sequence[str] | None = None,
                  method_ties: str = "disagree") -> dict:
    comparison, _, prefs, refs = _evaluated(context, methods, metrics)
    if not prefs or not refs:
        raise PrefevalError("analyse: agreement needs preference methods and reference metrics")
    sign = agreement.sign_agreement(comparison, prefs, refs, method_ties=method_ties)
    out: dict[str, Any] = {
        "sign_agreement": sign,
        "system_agreement": agreement.system_agreement(comparison, prefs, refs, method_ties=method_ties),
        "kendall_tau": agreement.kendall_tau(comparison, prefs, refs),
    }
    fig, ax = _figure(1.2 + 1.1 * len(refs), 0.8 + 0.6 * len(prefs))
    if fig is not None:
        grid = sign.pivot(index="method", columns="reference", values="agreement").reindex(index=prefs, columns=refs)
        image = ax.imshow(grid.to_numpy(dtype=float), vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(refs)), refs, rotation=30, ha="right")
        ax.set_yticks(range(len(prefs)), prefs)
        for (i, j), value in np.ndenumerate(grid.to_numpy(dtype=float)):
            ax.text(j, i, "-" if np.isnan(value) else f"{value:.2f}", ha="center", va="center",
                    color="black" if value > 0.6 else "white")
        ax.set_title("Ranking-pair sign agreement")
        fig.colorbar(image, ax=ax)
        fig.tight_layout()
        out["agreement_heatmap"] = fig
    return out


def run_power(context: Any, methods: Sequence[str] | None = None, metrics: Sequence[str] | None = None,
              alpha: float = 0.05, correction: str = "holm", n_resamples: int = 10_000, seed: int = 0,
              uncorrected: bool = True) -> dict:
    comparison, _, _, _ = _evaluated(context, methods, metrics)
    table = discriminative.discriminative_power(comparison, correction=correction, alpha=alpha,
                                                n_resamples=n_resamples, seed=seed)
    if uncorrected and correction != "none":  # also the raw paired-test rate, informative when few pairs survive
        raw = discriminative.discriminative_power(comparison, tests="paired", correction="none", alpha=alpha)
        table = pd.concat([table, raw], ignore_index=True)
    out: dict[str, Any] = {"discriminative_power": table}
    fig, ax = _figure()
    if fig is not None:
        table = table.assign(family=np.where(table["test"].isin(FAMILY_WISE_TESTS), "Tukey HSD",
                                             "paired (" + table["correction"] + ")"))
        grid = table.pivot(index="method", columns="family", values="fraction").reindex(comparison.methods)
        grid.plot.bar(ax=ax, rot=30)
        ax.set_ylabel(f"fraction of run pairs with p < {alpha}")
        ax.set_ylim(0, 1)
        ax.set_title("Discriminative power")
        fig.tight_layout()
        out["power_plot"] = fig
    return out


def run_robustness(context: Any, methods: Sequence[str] | None = None, metrics: Sequence[str] | None = None,
                   fractions: Sequence[float] = (0.2, 0.4, 0.6, 0.8),
                   policies: Sequence[str] = degradation.POLICIES, samples: int = 10, seed: int = 0) -> dict:
    comparison, data, prefs, refs = _evaluated(context, methods, metrics)
    labels = degradation.summarise(degradation.label_degradation(
        context.qrels, context.runs, [*prefs, *refs], fractions=fractions, policies=policies, samples=samples,
        rel=context.rel, seed=seed, data=data))
    queries = degradation.summarise(degradation.query_subsampling(comparison, fractions=fractions, samples=samples,
                                                                  seed=seed))
    out: dict[str, Any] = {"label_degradation": labels, "query_subsampling": queries}
    for value, title in (("agreement_mean", "agreement with full-label preferences"),
                         ("fraction_tied_mean", "fraction of ranking pairs tied")):
        fig, axes = _figure(4 * len(policies), 3.5, panels=len(policies))
        if fig is None:
            return out
        for ax, policy in zip(axes, policies):
            part = labels[labels["policy"] == policy]
            for method, rows in part.groupby("method", sort=False):
                ax.plot(rows["fraction_removed"], rows[value], marker="o", label=method)
            ax.set_title(policy)
            ax.set_xlabel("fraction of relevant labels removed")
        axes[0].set_ylabel(title)
        axes[-1].legend(fontsize="small")
        fig.tight_layout()
        out[f"labels_{value.removesuffix('_mean')}_plot"] = fig
    fig, ax = _figure()
    if fig is None:
        return out
    for method, rows in queries.groupby("method", sort=False):
        ax.plot(rows["fraction_removed"], rows["tau_mean"], marker="o", label=method)
    ax.set_xlabel("fraction of queries removed")
    ax.set_ylabel("Kendall's tau-b with all queries")
    ax.legend(fontsize="small")
    fig.tight_layout()
    out["queries_tau_plot"] = fig
    return out


def run_tie_probability(context: Any = None, m: int = 10, n: int = 10**6,
                        corpus_sizes: Sequence[int] = (10**3, 10**4, 10**5, 10**6),
                        relevant_counts: Sequence[int] = (1, 5, 10, 25, 50)) -> dict:
    measures = ["TSE", "R@1000", "Rprec", "RR", "LexiRecall"]

    def row(n_: int, m_: int) -> dict:
        return {"n": n_, "m": m_, **{name: float(tie_probability(name, n_, m_)) for name in measures}}

    return {"by_corpus_size": pd.DataFrame([row(size, m) for size in corpus_sizes]),
            "by_relevant_count": pd.DataFrame([row(n, count) for count in relevant_counts])}


def run_worst_case(context: Any = None, n_queries: int = 10_000, seed: int = 0) -> dict:
    return {"worst_case_agreement": worst_case_agreement(n_queries=n_queries, seed=seed)}


def run_unanimity(context: Any, metrics: Sequence[str] | None = None) -> dict:
    if context.per_query is None or context.per_query.empty:
        raise PrefevalError("analyse: unanimity needs per-query metric values (an evaluate step)")
    frame = context.per_query
    if metrics is not None:
        frame = frame[frame["measure"].astype(str).isin([str(m) for m in metrics])]
    if frame["measure"].nunique() < 2:
        raise PrefevalError("analyse: unanimity needs at least two metrics")
    table = metric_unanimity(frame[["run", "query_id", "measure", "value"]], by="query_id")
    return {"metric_unanimity": table}


def run_unanimity_grid(context: Any) -> dict:
    scores = diversity_scores(context.qrels, context.runs, rel=context.rel)
    return {"metric_unanimity_grid": mu_table(scores)}


def run_balancing(context: Any, metrics: Sequence[str] | None = None,
                  lengths: Sequence[int] = (10, 20, 100)) -> dict:
    if metrics is None:
        metrics = list(context.measures) if context is not None else []
    if not metrics:
        raise PrefevalError("analyse: balancing needs metrics (an evaluate step or options.metrics)")
    rows = []
    for measure in metrics:
        row: dict[str, Any] = {"measure": str(measure)}
        for n in lengths:
            row[f"B({n})"] = balancing_index(str(measure), int(n))
        rows.append(row)
    return {"balancing_index": pd.DataFrame(rows)}


def run_reusability(context: Any, methods: Sequence[str] | None = None, metrics: Sequence[str] | None = None,
                    depth: int = 100) -> dict:
    prefs, refs = _roles(context, methods, metrics)
    measures = list(dict.fromkeys([*prefs, *refs]))
    if not measures:
        raise PrefevalError("analyse: reusability needs methods or metrics (a compare or evaluate step)")
    return {"reusability": reusability.leave_one_run_out(context.qrels, context.runs, measures, depth,
                                                         rel=context.rel)}


PIPELINE_ANALYSES = {
    "ties": run_ties,
    "agreement": run_agreement,
    "power": run_power,
    "robustness": run_robustness,
    "tie_probability": run_tie_probability,
    "worst_case": run_worst_case,
    "unanimity": run_unanimity,
    "unanimity_grid": run_unanimity_grid,
    "balancing": run_balancing,
    "reusability": run_reusability,
}


def _bounds(key: str, value: Any) -> None:
    """The bounds of the options the analyses above share (a PrefevalError without the key's name)."""
    if key == "samples":
        degradation.check_samples(value, name="the value")  # "must be an integer between ..."
    elif key == "seed":
        check_seed(value, name="the value")
    elif key == "n_resamples":
        check_resamples(value, test="randomized_tukey_hsd", name="the value")
    elif key == "alpha" and not 0 < value < 1:
        raise PrefevalError(f"must be between 0 and 1; got {value!r}")
    elif key == "correction" and value not in CORRECTIONS:
        raise PrefevalError(f"must be one of {', '.join(CORRECTIONS)}; got {value!r}")
    elif key == "policies" and any(p not in degradation.POLICIES for p in value):
        raise PrefevalError(f"must name policies among {', '.join(degradation.POLICIES)}; got {list(value)!r}")
    elif key == "fractions" and any(isinstance(f, bool) or not 0 <= f < 1 for f in value):
        raise PrefevalError(f"must be numbers in [0, 1); got {list(value)!r}")
    elif key in ("n_queries", "m", "n", "depth") and value < 1:
        raise PrefevalError(f"must be an integer >= 1; got {value!r}")


def _type_problem(default: Any, value: Any) -> str | None:
    """Why ``value`` cannot stand for an option whose default is ``default`` (None when it can)."""
    if default is None or default is inspect.Parameter.empty:
        return None
    if isinstance(default, bool):
        return None if isinstance(value, bool) else f"must be true or false; got {value!r}"
    if isinstance(default, int):
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        return None if ok else f"must be an integer; got {value!r}"
    if isinstance(default, float):
        ok = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
        return None if ok else f"must be a number; got {value!r}"
    if isinstance(default, str):
        return None if isinstance(value, str) else f"must be a string; got {value!r}"
    if isinstance(default, Sequence):
        if isinstance(value, str) or not isinstance(value, Sequence):
            return f"must be a list; got {value!r}"
        for item in value:
            problem = _type_problem(default[0], item) if len(default) else None
            if problem:
                return problem.replace("must be", "must hold only", 1)
    return None


def option_problem(functions: Mapping[str, Callable[..., Any]], options: Mapping[str, Any]
                   ) -> tuple[str, str] | None:
    """``(key, message)`` for the first option that an analysis among ``functions`` cannot take (wrong type,
    out of bounds), else None: pipelines check their ``options`` with it before any work."""
    for key, value in options.items():
        for function in functions.values():
            try:
                parameter = inspect.signature(function).parameters.get(key)
            except (TypeError, ValueError):  # pragma: no cover
                continue
            problem = _type_problem(parameter.default, value) if parameter is not None else None
            if problem:
                return key, problem
        if any(key in _parameters(f) for f in functions.values()):
            try:
                _bounds(key, value)
            except (PrefevalError, TypeError) as exc:
                return key, str(exc)
    return None


def _parameters(function: Callable[..., Any]) -> Mapping[str, Any]:
    try:
        return inspect.signature(function).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return {}
