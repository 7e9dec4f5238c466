"""Novelty-based diversity metrics on graded r(d,t), as Amigó et al. (2018) §4.3 analyse them: alpha-nDCG
(Clarke et al. (2008)), NRBP (Clarke et al. (2009)), expected utility EU (Yang & Lad (2009)) and the cube test
CT / ACT (Luo et al. (2013)). Each discounts a document's gain for aspect t by ``(1 - alpha)^c(i,t)``, c(i,t) the
documents relevant to t ranked before i.

ir-measures registers ndeval's ``alpha_nDCG``, ``NRBP`` and ``nNRBP`` (binary judgments, normalised);
``alpha_nDCG_graded`` and ``NRBP_graded`` are the graded definitions, and give ndeval's values with
``gains='binary'`` and ``normalise=True`` / ``normalise='clarke'`` / ``normalise='ideal'``.
"""

from __future__ import annotations

from prefeval.methods._diversity import GAINS, LOG_BASE, kernel_values, nonnegative, unit
from prefeval.methods.references import PAPERS
from prefeval.methods.registry import REL, Declaration, Param, register

ALPHA = Param(float, 0.5, "novelty discount alpha in [0, 1] (Clarke et al. (2008); 0.5 as ndeval)", check=unit())

register(Declaration(
    name="alpha_nDCG_graded",
    kind="metric",
    summary="alpha-DCG@k on graded r(d,t) `sum_i sum_t r(d_i,t)(1-alpha)^c(i,t) / log(i+1)`; `normalise=True`: "
            "over the greedy ideal ranking",
    doc="alpha-DCG@k = sum_{i<=k} sum_t r(d_i,t) (1 - alpha)^c(i,t) / log_b(i+1), unweighted over the aspects "
        "(Amigó et al. (2018) §4.3, the printed form, unnormalised as their fn. 5 allows); normalise=True divides "
        "by the value of the greedy ideal ranking of the judged documents (Clarke et al. (2008) §4.1, as ndeval).",
    citation=PAPERS["clarke-2008"], where="§4",
    params={"rel": REL, "gains": GAINS, "alpha": ALPHA,
            "normalise": Param(bool, False, "divide by the greedy ideal ranking's alpha-DCG (ndeval's alpha-nDCG)"),
            "log_base": LOG_BASE},
    kernel=kernel_values("alpha_nDCG"), aspects=True,
))

register(Declaration(
    name="NRBP_graded",
    kind="metric",
    summary="novelty- and rank-biased precision on graded r(d,t) `sum_i p^(i-1) sum_t r(d_i,t)(1-alpha)^c(i,t)`",
    doc="NRBP = sum_i p^(i-1) sum_t r(d_i,t) (1 - alpha)^c(i,t) (Amigó et al. (2018) §4.3); normalise='clarke' "
        "multiplies by (1 - (1-alpha) p) / |T| (Clarke et al. (2009) §4, ndeval's NRBP), 'ideal' divides by the "
        "greedy ideal ranking's value (ndeval's nNRBP).",
    citation=PAPERS["clarke-2009"], where="§4",
    params={"rel": REL, "gains": GAINS, "alpha": ALPHA,
            "p": Param(float, 0.5, "persistence p in (0, 1) (Clarke et al. (2009)'s beta; 0.5 as ndeval)",
                       check=unit(low_open=True, high_open=True)),
            "normalise": Param(str, "none", "'none' (printed form), 'clarke' (Clarke et al.'s constant) or "
                               "'ideal' (greedy ideal ranking)", choices=("none", "clarke", "ideal"))},
    kernel=kernel_values("NRBP"), aspects=True,
))

register(Declaration(
    name="EU",
    kind="metric",
    summary="expected utility `sum_i (sum_t w(t) r(d_i,t)(1-alpha)^c(i,t) - e) / (1 + log(i))`; can be negative",
    doc="EU = sum_{i<=|d|} (sum_t w(t) r(d_i,t) (1 - alpha)^c(i,t) - e) / (1 + log_b i), the effort e charged for "
        "every ranked document (Amigó et al. (2018) §4.3's form of Yang & Lad (2009)'s model). Yang & Lad leave "
        "cost and discount to the application: e = 0.05 is the middle of the RBU paper's effort grid, alpha = 0.5 "
        "as Clarke et al. (2008).",
    citation=PAPERS["yang-lad-2009"], where="§3",
    params={"rel": REL, "gains": GAINS, "alpha": ALPHA,
            "e": Param(float, 0.05, "effort of inspecting a document (Amigó et al. (2018) §6's grid: "
                       "{0.001, 0.05, 0.1, 0.5})", check=nonnegative),
            "log_base": LOG_BASE},
    kernel=kernel_values("EU"), aspects=True,
))

SATURATION = Param(float, 1.0, "relevance an aspect holds before it is saturated (Luo et al. (2013)'s MaxHeight, "
                   "1 = one fully relevant document)", check=nonnegative)

register(Declaration(
    name="CT",
    kind="metric",
    summary="cube test: novelty-discounted gain that stops once an aspect's cube is full; `form='paper'` "
            "`sum_i gain_i / i`, `'luo'` Gain@k / Time@k",
    doc="CT@k with linear time (one unit per document): gain_i = sum_t w(t) r(d_i,t) (1 - alpha)^c(i,t) while the "
        "relevance accumulated for t is below the saturation level; form='paper' = sum_{i<=k} gain_i / i "
        "(Amigó et al. (2018) §4.3), form='luo' = sum_{i<=k} gain_i / min(k, |d|) (Luo et al. (2013) §4). "
        "alpha = 1 - Luo et al.'s gamma (0.5).",
    citation=PAPERS["luo-2013"], where="§4",
    params={"rel": REL, "gains": GAINS, "alpha": ALPHA, "saturation": SATURATION,
            "form": Param(str, "paper", "'paper' (Amigó et al. (2018) §4.3) or 'luo' (Gain/Time, Luo et al. "
                          "(2013) §4)", choices=("paper", "luo"))},
    kernel=kernel_values("CT"), aspects=True,
))

register(Declaration(
    name="ACT",
    kind="metric",
    summary="average cube test `(1/L) sum_{j<=L} CT@j` (Luo et al.'s CT@j = Gain@j / j, L = min(k, length))",
    doc="ACT@k = (1/L) sum_{j<=L} Gain@j / j with L = min(k, |d|), Gain as CT's (Luo et al. (2013) §4; the "
        "official measure of TREC Dynamic Domain 2015).",
    citation=PAPERS["luo-2013"], where="§4",
    params={"rel": REL, "gains": GAINS, "alpha": ALPHA, "saturation": SATURATION},
    kernel=kernel_values("ACT"), aspects=True,
))
