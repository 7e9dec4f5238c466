"""Meta-evaluation: the analyses the seed papers use to judge evaluation methods.

On real runs (a :class:`prefeval.engine.comparison.Comparison`, or qrels + runs):

- :func:`tie_rates` -- fraction of tied ranking pairs per method (Diaz & Mitra (2023) §6.2.2, Diaz (2023) Table 3);
- :func:`sign_agreement`, :func:`system_agreement`, :func:`kendall_tau` -- agreement of a preference with
  a metric per ranking pair and per system pair, and Kendall's tau between system orderings
  (Diaz & Mitra (2023) §6.2.1, Diaz (2023) §4.2, Diaz & Ferraro (2022) §6.1);
- :func:`discriminative_power` -- fraction of system pairs significant under a paired test with Holm
  correction and under randomised Tukey HSD (Diaz & Mitra (2023) §6.2.3, Diaz (2023) Table 4);
- :func:`label_degradation`, :func:`query_subsampling` -- robustness to missing labels and queries
  (Diaz & Mitra (2023) §6.2.4, Diaz & Ferraro (2022) §6.2);

analytic and simulated:

- :func:`tie_probability` -- closed-form tie probabilities for random permutations (Diaz & Mitra (2023) §5.3, App. D;
  Diaz (2023) §3.3); :func:`simulate_ties`, :func:`worst_case_agreement` -- simulations of random rankings
  (Diaz & Mitra (2023) Fig. 6, Table 2);
- :func:`metric_unanimity` (Amigó et al. (2018) §6.1) and :func:`balancing_index` (Ferrante et al. (2015) §6) for any measure.

Every analysis on real runs returns a tidy DataFrame and takes the Comparison (or qrels and runs) first,
so pipeline steps can call it directly.
"""

from __future__ import annotations

from prefeval.analysis.balancing import balancing_curve, balancing_index
from prefeval.analysis.closed_forms import rr_tie_probability_given_p1, tie_probability
from prefeval.analysis.unanimity import metric_unanimity
from prefeval.core.lazy import lazy_attributes

# The rest imports pandas-heavy modules or prefeval.compare: load on first use.
_LAZY = {
    "tie_rates": "prefeval.analysis.ties",
    "sign_agreement": "prefeval.analysis.agreement",
    "system_agreement": "prefeval.analysis.agreement",
    "kendall_tau": "prefeval.analysis.agreement",
    "kendall_tau_a": "prefeval.analysis.agreement",
    "discriminative_power": "prefeval.analysis.discriminative",
    "label_degradation": "prefeval.analysis.degradation",
    "query_subsampling": "prefeval.analysis.degradation",
    "summarise": "prefeval.analysis.degradation",
    "keep_mask": "prefeval.analysis.degradation",
    "load_positions": "prefeval.analysis.position_engine",
    "evaluate_positions": "prefeval.analysis.position_engine",
    "simulate_ties": "prefeval.analysis.random_rankings",
    "simulated_tie_probability": "prefeval.analysis.random_rankings",
    "worst_case_agreement": "prefeval.analysis.random_rankings",
    "random_position_vectors": "prefeval.analysis.random_rankings",
    "metric": "prefeval.analysis.position_methods",
    "preference": "prefeval.analysis.position_methods",
    "analyse": "prefeval.analysis.suite",
    "PIPELINE_ANALYSES": "prefeval.analysis.hooks",
    "option_problem": "prefeval.analysis.hooks",
}


__getattr__, __dir__ = lazy_attributes(__name__, __path__, _LAZY)  # and the submodules


__all__ = ["tie_probability", "rr_tie_probability_given_p1", "metric_unanimity", "balancing_index",
           "balancing_curve", *_LAZY]
