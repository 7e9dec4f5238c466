"""Run several meta-evaluation analyses on one set of runs (the ``prefeval analyse`` command, pipeline steps).

:func:`analyse` evaluates the runs once (with the position engine when every method allows it, which
gives the same values as :func:`prefeval.engine.compare.compare` in a fraction of the time, else with
``compare``) and returns one DataFrame per table:

========================  ==============================================================
analysis                  tables
========================  ==============================================================
``ties``                  ``ties``
``agreement``             ``sign_agreement``, ``system_agreement``, ``kendall_tau``
``power``                 ``discriminative_power``
``robustness``            ``label_degradation``, ``query_subsampling`` (summaries over samples)
``unanimity``             ``metric_unanimity``: MU of every diversity metric of Amigó et al. (2018) at the
                          paper's parameter grid (:data:`prefeval.analysis.unanimity.PAPER_GRID`), incl. RBU,
                          against all others, per topic (their §6.1, Table 2); needs no methods
``reusability``           ``reusability``: leave-one-run-out of the pool at ``depth`` (Zobel (1998)), every method
                          and metric and their condensed-list variants (:mod:`prefeval.analysis.reusability`)
========================  ==============================================================

``ANALYSES`` lists them; :data:`DEFAULT_ANALYSES` (all but ``unanimity`` and ``reusability``) is what
``prefeval analyse`` runs by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from prefeval.analysis import agreement, degradation, discriminative, reusability, ties, unanimity
from prefeval.analysis.position_engine import evaluate_positions, load_positions, supported
from prefeval.core.stats import check_resamples, check_seed
from prefeval.engine.compare import compare
from prefeval.engine.comparison import Comparison
from prefeval.engine.methods import parse_method
from prefeval.errors import PrefevalError

__all__ = ["ANALYSES", "DEFAULT_ANALYSES", "analyse", "evaluate"]

ANALYSES = ("ties", "agreement", "power", "robustness", "unanimity", "reusability")
DEFAULT_ANALYSES = ("ties", "agreement", "power", "robustness")


def evaluate(qrels: Any, runs: Any, methods: Sequence[Any], *, rel: int = 1, depth: int | None = None,
             data: Any = None) -> tuple[Comparison, Any]:
    """``(comparison, position data or None)``: the position engine when it supports every method, else
    :func:`prefeval.engine.compare.compare`."""
    parsed = [parse_method(m, rel, depth) for m in methods]
    if all(supported(m) for m in parsed):
        data = data if data is not None else load_positions(qrels, runs, depth)
        if all(supported(m, data) for m in parsed):
            return evaluate_positions(data, methods, rel=rel), data
    return compare(qrels, runs, list(methods), rel=rel, depth=depth), data


def analyse(qrels: Any, runs: Any, methods: Sequence[Any], metrics: Sequence[Any] = (), *,
            analyses: Sequence[str] = DEFAULT_ANALYSES, rel: int = 1, depth: int | None = None, alpha: float = 0.05,
            correction: str = "holm", n_resamples: int = 10_000, fractions: Sequence[float] = (0.2, 0.4, 0.6, 0.8),
            policies: Sequence[str] = degradation.POLICIES, samples: int = 10, seed: int = 0,
            comparison: Comparison | None = None) -> dict[str, pd.DataFrame]:
    """Run ``analyses`` for the preference ``methods`` against the reference ``metrics`` (see module doc).

    ``qrels`` / ``runs`` as for :func:`prefeval.engine.compare.compare`; ``comparison`` may pass an existing
    Comparison of all methods and metrics (it is then used for every analysis but ``robustness``).
    """
    unknown = [a for a in analyses if a not in ANALYSES]
    if unknown:
        raise PrefevalError(f"unknown analysis {unknown}; choose from {', '.join(ANALYSES)}")
    # bounds before any evaluation (each analysis checks them again where it uses them)
    check_seed(seed)
    if "robustness" in analyses:
        degradation.check_samples(samples, seed)
    if "power" in analyses:
        check_resamples(n_resamples, test="randomized_tukey_hsd")
    out: dict[str, pd.DataFrame] = {}
    if "unanimity" in analyses:  # the paper's metric grid: independent of methods and metrics
        out["metric_unanimity"] = unanimity.mu_table(unanimity.diversity_scores(qrels, runs, rel=rel))
        if all(a == "unanimity" for a in analyses):
            return out
    everything = list(dict.fromkeys([*methods, *metrics]))
    if not everything:
        raise PrefevalError("no methods given")
    if "reusability" in analyses:
        if depth is None:
            raise PrefevalError("the reusability analysis needs the pool depth: --depth K (depth=K)")
        out["reusability"] = reusability.leave_one_run_out(qrels, runs, everything, depth, rel=rel)
        if all(a in ("unanimity", "reusability") for a in analyses):
            return out
    data = None
    if comparison is None:
        comparison, data = evaluate(qrels, runs, everything, rel=rel, depth=depth)
    labels = comparison.methods
    n_methods = len(list(dict.fromkeys(methods)))
    prefs, refs = labels[:n_methods], labels[n_methods:]
    if "ties" in analyses:
        out["ties"] = ties.tie_rates(comparison)
    if "agreement" in analyses and refs and prefs:
        out["sign_agreement"] = agreement.sign_agreement(comparison, prefs, refs)
        out["system_agreement"] = agreement.system_agreement(comparison, prefs, refs)
        out["kendall_tau"] = agreement.kendall_tau(comparison, prefs, refs)
    if "power" in analyses:
        out["discriminative_power"] = discriminative.discriminative_power(
            comparison, correction=correction, alpha=alpha, n_resamples=n_resamples, seed=seed)
    if "robustness" in analyses:
        out["label_degradation"] = degradation.summarise(degradation.label_degradation(
            qrels, runs, everything, fractions=fractions, policies=policies, samples=samples, rel=rel,
            depth=depth, seed=seed, data=data))
        out["query_subsampling"] = degradation.summarise(degradation.query_subsampling(
            comparison, fractions=fractions, samples=samples, seed=seed))
    return out
