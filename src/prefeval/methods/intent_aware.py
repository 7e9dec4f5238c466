"""Intent-aware metrics (Agrawal et al. (2009) §6.1; Amigó et al. (2018) §4.2): sum_t w(t) M_t over the aspects t,
w uniform over the subtopics with a relevant document; and graded RBP, the single-aspect member of the family.

ir-measures (through pyndeval/ndeval) already registers ``P_IA``, ``AP_IA``, ``ERR_IA`` and ``MAP_IA``; they
binarise every judgment and follow ndeval's input conventions. prefeval's versions have distinct names
(``Prec_IA``, ``AveP_IA``, ``ERR_IA_graded``) and prefeval's input semantics (one ranking rule, ``rel``, every
judged query counted); with ``gains='binary'`` and the same ranking they coincide with ndeval's per topic.
"""

from __future__ import annotations

from prefeval.methods._diversity import GAINS, LOG_BASE, kernel_values, unit
from prefeval.methods.references import PAPERS
from prefeval.methods.registry import REL, Declaration, Param, register

P_RBP = Param(float, 0.8, "persistence p in (0, 1) (Moffat & Zobel (2008) §4; 0.8 as the RBU paper's grid)",
              check=unit(low_open=True, high_open=True))

register(Declaration(
    name="Prec_IA",
    kind="metric",
    summary="intent-aware precision `sum_t w(t) (relevant to t in the top k) / k` (ir-measures' `P_IA` is ndeval's)",
    doc="P-IA@k = sum_t w(t) |{i <= k : r(d_i,t) > 0}| / k, the denominator k even for shorter rankings (as ndeval); "
        "without @k, the ranking's length.",
    citation=PAPERS["agrawal-2009"], where="§6.1",
    params={"rel": REL},
    kernel=kernel_values("P_IA"), aspects=True,
))

register(Declaration(
    name="AveP_IA",
    kind="metric",
    summary="intent-aware average precision `sum_t w(t) AP_t` (ndeval's MAP-IA per topic)",
    doc="AP-IA = sum_t w(t) AP_t, AP_t = (1/R_t) sum_{i: d_i relevant to t} Prec_t@i, R_t the judged documents "
        "relevant to t.",
    citation=PAPERS["agrawal-2009"], where="§6.1",
    params={"rel": REL},
    kernel=kernel_values("AP_IA"), aspects=True,
))

register(Declaration(
    name="RR_IA",
    kind="metric",
    summary="intent-aware reciprocal rank `sum_t w(t) / rank of the first document relevant to t`",
    doc="RR-IA@k = sum_t w(t) / (rank of the first document relevant to t within k; 0 if none).",
    citation=PAPERS["amigo-2018"], where="§4.2",
    params={"rel": REL},
    kernel=kernel_values("RR_IA"), aspects=True,
))

register(Declaration(
    name="nDCG_IA",
    kind="metric",
    summary="intent-aware nDCG `sum_t w(t) DCG_t@k / IDCG_t@k` with gains r(d,t)",
    doc="nDCG-IA@k = sum_t w(t) DCG_t@k / IDCG_t@k, DCG_t@k = sum_{i<=k} r(d_i,t) / log_b(i+1), IDCG_t@k from "
        "the judged documents sorted by r(d,t); normalise=False gives DCG-IA.",
    citation=PAPERS["agrawal-2009"], where="§6.1",
    params={"rel": REL, "gains": GAINS,
            "normalise": Param(bool, True, "divide each aspect's DCG by its ideal DCG (False: DCG-IA, "
                               "Amigó et al. (2018) Table 2)"),
            "log_base": LOG_BASE},
    kernel=kernel_values("nDCG_IA"), aspects=True,
))

register(Declaration(
    name="ERR_IA_graded",
    kind="metric",
    summary="intent-aware ERR on graded r(d,t) (ir-measures' `ERR_IA` is ndeval's, binary)",
    doc="ERR-IA@k = sum_t w(t) sum_{i<=k} (1/i) r(d_i,t) prod_{j<i} (1 - r(d_j,t)) (Chapelle et al. (2009) §4 "
        "with Agrawal et al.'s scheme), r(d,t) graded as RBU's.",
    citation=PAPERS["chapelle-2009"], where="§4",
    params={"rel": REL, "gains": GAINS},
    kernel=kernel_values("ERR_IA"), aspects=True,
))

register(Declaration(
    name="RBP_IA",
    kind="metric",
    summary="intent-aware rank-biased precision `sum_t w(t) (1-p) sum_i p^(i-1) r(d_i,t)`",
    doc="RBP-IA = sum_t w(t) (1 - p) sum_i p^(i-1) r(d_i,t) (Moffat & Zobel (2008) Eq. 6 with graded gains, "
        "Agrawal et al.'s scheme; Amigó et al. (2018) §4.2).",
    citation=PAPERS["moffat-zobel-2008"], where="§4, Eq. 6",
    params={"rel": REL, "gains": GAINS, "p": P_RBP},
    kernel=kernel_values("RBP_IA"), aspects=True,
))

register(Declaration(
    name="RBP_graded",
    kind="metric",
    summary="graded rank-biased precision `(1-p) sum_i p^(i-1) r(d_i)`, r(d) = max_t r(d,t)",
    doc="RBP = (1 - p) sum_i p^(i-1) r(d_i) with graded r(d) = max_t r(d,t) (Amigó et al. (2018) §6.2's "
        "single-aspect reduction); cwl_eval's RBP binarises the judgments instead.",
    citation=PAPERS["moffat-zobel-2008"], where="§4, Eq. 6",
    params={"rel": REL, "gains": GAINS, "p": P_RBP},
    kernel=kernel_values("RBP_IA", single_aspect=True), aspects=True,
))
