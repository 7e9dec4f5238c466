"""Subtopic coverage metrics: S-Recall and S-RR (Zhai et al. (2003) §3) and D#-nDCG (Sakai & Song (2011) §3),
which mixes S-Recall (Sakai's I-rec) with D-nDCG. The aspects are the subtopics with a relevant document.

ir-measures registers ndeval's S-recall as ``StRecall``; ``S_Recall`` is prefeval's (same value per topic on the
same ranking and aspects).
"""

from __future__ import annotations

from prefeval.methods._diversity import GAINS, LOG_BASE, kernel_values, unit
from prefeval.methods.references import PAPERS
from prefeval.methods.registry import REL, Declaration, Param, register

register(Declaration(
    name="S_Recall",
    kind="metric",
    summary="subtopic recall: share of the query's subtopics covered by the top k",
    doc="S-Recall@k = |{t : some d_i, i <= k, is relevant to t}| / |T|, T the subtopics with a relevant document.",
    citation=PAPERS["zhai-2003"], where="§3",
    params={"rel": REL},
    kernel=kernel_values("S_Recall"), aspects=True,
))

register(Declaration(
    name="S_RR",
    kind="metric",
    summary="subtopic reciprocal rank at 100% recall: 1 / first rank covering every subtopic, 0 if never",
    doc="S-RR@100% = 1 / min{i : d_1..d_i cover every subtopic with a relevant document}; 0 if the ranking "
        "(within k) never does.",
    citation=PAPERS["zhai-2003"], where="§3",
    params={"rel": REL},
    kernel=kernel_values("S_RR"), aspects=True,
))

register(Declaration(
    name="D_sharp_nDCG",
    kind="metric",
    summary="D#-nDCG: `lam` × I-rec@k + (1 - `lam`) × D-nDCG@k (global gain sum_t w(t) r(d,t))",
    doc="D#-nDCG@k = lam I-rec@k + (1 - lam) D-nDCG@k; I-rec = S-Recall, D-nDCG = nDCG over the global gain "
        "GG(d) = sum_t w(t) r(d,t) with the ideal ranking of the judged documents by GG (Sakai et al. (2010)).",
    citation=PAPERS["sakai-song-2011"], where="§3",
    params={"rel": REL, "gains": GAINS,
            "lam": Param(float, 0.5, "weight of I-rec (Sakai & Song (2011)'s gamma; their default 0.5)",
                         check=unit()),
            "log_base": LOG_BASE},
    kernel=kernel_values("D_sharp_nDCG"), aspects=True,
))
