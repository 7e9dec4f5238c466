"""The constraint × measure matrix and its cell-by-cell comparison with Table 1 of Amigó et al. (2018).

Table 1 of the RBU paper (Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018) lost its ●/○ glyphs in the
text we have; :data:`PAPER_TABLE1` is our reconstruction from the paper's prose (§4 and §5),
where ``?`` marks a cell inferred rather than stated. :data:`EXPLANATIONS` gives, for every cell where
the checker's verdict for an ir-measures/prefeval implementation differs from the paper, the reason
(a cutoff, a parameter, how the implementation handles grades or aspects, or an erratum of the paper).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from prefeval.axioms.check import check
from prefeval.axioms.constraints import GROUPS, select
from prefeval.data.aspects import kernel_measure as build_kernel_measure
from prefeval.integrations.extras import check_measures
from prefeval.methods import rbu
from prefeval.methods.measures import parse_measure

__all__ = ["EXPLANATIONS", "KERNEL_MEASURES", "PAPER_ROWS", "PAPER_TABLE1", "README_MEASURES", "SYMBOLS", "compare_with_paper",
           "kernel_measure", "matrix", "measure_name", "paper_row"]

SYMBOLS = {"satisfied": "●", "violated": "○", "not applicable": "–"}

KERNEL_MEASURES: dict[str, tuple[str, dict[str, Any], str]] = {
    "RBP(p=0.8) graded": ("RBP_IA", {"p": 0.8, "single_aspect": True}, "RBP"),
    "RR-IA@10": ("RR_IA", {"k": 10}, "RR-IA@k"),
    "nDCG-IA@10": ("nDCG_IA", {"k": 10}, "nDCG-IA@k"),
    "ERR-IA@10 graded": ("ERR_IA", {"k": 10}, "ERR-IA@k"),
    "RBP-IA(p=0.8)": ("RBP_IA", {"p": 0.8}, "RBP-IA"),
    "S-RR@100%": ("S_RR", {}, "S-RR@100%"),
    "NRBP graded": ("NRBP", {"p": 0.5, "alpha": 0.5}, "NRBP"),
    "D#-nDCG@10": ("D_sharp_nDCG", {"k": 10, "lam": 0.5}, "D#-Measure@k"),
    "α-nDCG@10 graded": ("alpha_nDCG", {"k": 10, "alpha": 0.5}, "α-nDCG@k"),
    "EU(alpha=0.5,e=0.05)": ("EU", {"alpha": 0.5, "e": 0.05}, "EU"),
    "CT@10": ("CT", {"k": 10, "alpha": 0.5, "saturation": 1.0}, "CT@k"),
}
"""Table 1 rows computed with prefeval's diversity kernels (:mod:`prefeval.core.diversity`) on graded r(d,t)
(the ERR mapping of RBU): label -> (kernel, parameters, Table 1 row). "graded" marks the paper's graded form of a
measure whose ir-measures implementation binarises grades."""

README_MEASURES = (
    "P@10", "RR", "AP", "nDCG@10", "ERR@10", "RBP(rel=1,p=0.8)", "RBP(p=0.8) graded", "P_IA@10", "RR-IA@10",
    "AP_IA", "nDCG-IA@10", "ERR_IA@10", "ERR-IA@10 graded", "RBP-IA(p=0.8)", "StRecall@10", "S-RR@100%", "NRBP",
    "NRBP graded", "D#-nDCG@10", "alpha_nDCG@10", "α-nDCG@10 graded", "EU(alpha=0.5,e=0.05)", "CT@10",
    "RBU(p=0.8,e=0.03)@10", "RBU(p=0.99,e=0.001)@10",
)
"""The measures of the axioms table (docs/axioms.md): every row of Table 1, in its order (RBP needs ``rel=`` in ir-measures)."""

_KEYS = GROUPS["amigo2018"]


def _row(cells: str) -> dict[str, str]:
    return dict(zip(_KEYS, cells.split()))


PAPER_TABLE1: dict[str, dict[str, str]] = {
    # Pri Deep DeepTh CloseTh Conf | AspDiv Red MRed Sat AspRel  ("?" = inferred from the prose)
    "P@k": _row("○ ○ ● ○ ○ ○ ○ ○ ○ ○"),
    "RR": _row("○ ○ ● ○ ○ ○ ○ ○ ○ ○"),
    "AP": _row("○ ○ ○ ● ○ ○ ○ ○ ○ ○"),
    "nDCG@k": _row("● ● ○ ● ○ ○ ○ ○ ○ ○"),
    "ERR@k": _row("● ● ● ○ ○ ○ ○ ○ ○ ○"),
    "RBP": _row("● ● ● ● ○ ○ ○ ○ ○ ○"),
    "P-IA@k": _row("○ ○ ● ○ ○ ○ ○ ○? ○ ●"),
    "RR-IA@k": _row("○ ○ ● ○ ○ ○ ○ ○? ● ●"),
    "AP-IA": _row("○ ○ ○ ● ○ ○ ○ ○? ○ ●"),
    "nDCG-IA@k": _row("● ● ○ ● ○ ● ○ ○? ○ ●"),
    "ERR-IA@k": _row("● ● ● ○ ○ ● ● ● ● ●"),
    "RBP-IA": _row("● ● ● ● ○ ● ○ ○? ○ ●"),
    "S-Recall@k": _row("○ ○ ●? ○ ○ ○ ○ ○ ● ○"),
    "S-RR@100%": _row("○ ○ ●? ○ ○ ○ ○ ○ ● ○"),
    "NRBP": _row("● ● ● ● ○ ●? ●? ○? ○? ○?"),
    "D#-Measure@k": _row("●? ●? ●? ●? ○ ●? ○? ○? ○? ●"),
    "α-nDCG@k": _row("● ● ● ● ○ ● ● ○ ○ ○"),
    "EU": _row("● ● ● ● ● ● ● ○ ○ ●"),
    "CT@k": _row("●? ●? ●? ○ ○ ●? ●? ○? ● ●?"),
    "RBU@k": _row("● ● ● ● ● ● ● ● ● ●"),
}
"""Table 1 of Amigó et al. (2018) as reconstructed from its prose (Pri, Deep, DeepTh, CloseTh, Conf, AspDiv, Red, MRed,
Sat, AspRel); P@k, RR and AP are "undefined" (○) for the graded Pri/Deep."""

PAPER_ROWS = {
    "P": "P@k", "RR": "RR", "AP": "AP", "nDCG": "nDCG@k", "ERR": "ERR@k", "RBP": "RBP", "P_IA": "P-IA@k",
    "AP_IA": "AP-IA", "ERR_IA": "ERR-IA@k", "nERR_IA": "ERR-IA@k", "alpha_nDCG": "α-nDCG@k",
    "alpha_DCG": "α-nDCG@k", "StRecall": "S-Recall@k", "NRBP": "NRBP", "nNRBP": "NRBP", rbu.METHOD.name: "RBU@k",
}
"""ir-measures / prefeval measure name -> row of Table 1."""

_BINARY_NDEVAL = ("ir-measures evaluates it with ndeval (pyndeval), which binarises every judgment "
                  "(grade >= rel), so the graded difference the constraint turns on is a tie; the paper "
                  "analyses the measure on graded r(d,t).")
_BINARY_CWL = ("ir-measures' RBP (cwl_eval) requires rel= and binarises grades, so two relevant documents "
               "of different grades tie; the paper's RBP uses graded gains.")
_MAX_REDUCTION = ("a single-aspect measure is evaluated on r(d) = max_t r(d,t) (the paper's own reduction, "
                  "§6.2); a document more relevant to every aspect then has a higher grade, which a graded "
                  "measure rewards. The paper marks standard metrics ○ because they ignore aspects.")
_CUTOFF_DEEPTH = ("cutoff: for n >= k the second ranking has no relevant document in the top k, so every @k "
                  "measure satisfies DeepTh; the paper reasons without a cutoff.")
_P_CLOSE = ("with k >= 4, two relevant documents at ranks 3–4 beat one at rank 1 (m = 2), so P@k satisfies "
            "CloseTh as defined; the paper's ○ contradicts its definition (Amigó et al. (2018) §3).")
_WEIGHTS = ("qrels cannot carry aspect weights, so the checker encodes w(t) by replicating subtopics; a "
            "measure that sums over subtopics then weights aspects and AspRel holds. The paper's ○ refers to "
            "the formula, which has no w(t); with uniform weights (ir-measures' only option) AspRel is untestable.")

_COUNT_NOVELTY = ("graded r(d,t) with a count-based novelty discount (1-alpha)^c(i,t): moving up (or adding) a "
                  "low-grade document increments c and discounts a later higher-grade document for the same aspect "
                  "by (1-alpha), which can outweigh the gain (Ferrante et al.'s replacement/swap fail for graded "
                  "alpha-DCG for the same reason); the paper's argument treats the discount as if it followed the "
                  "grades. With binary grades there is nothing to move up.")
_ALPHA_CLOSE = ("parameter: alpha = 0.5 discounts the m later relevant documents so much that they never beat one "
                "at rank 1; alpha = 0.1 satisfies it (as for ir-measures' alpha_nDCG).")
_ERR_SAT = ("under the ERR mapping r = (2^g - 1)/2^gmax < 1, so even a top-grade document leaves the aspect "
            "unsatisfied with probability 2^-gmax and a further document still adds a little; the paper's argument "
            "needs r_max = 1 (with mapping='binary', r = 1, the kernel satisfies Sat; RBU passes it only through "
            "its effort e > 0).")
_IA_NORMALISED = ("per-aspect normalisation: the generated qrels judge the ranked documents (plus d and d'), so the "
                  "aspect covered more often in the ranking also has more relevant documents and a larger IDCG_t, "
                  "and a document for the other aspect gains more. The paper argues with a fixed number of "
                  "relevant documents per aspect; the unnormalised DCG-IA (normalise=False) violates both.")
_CT_SATURATION = ("parameter: with the saturation level 1 and the ERR mapping (r < 1), one document never fills an "
                  "aspect's cube, so appending another still adds gain; CT with saturation = 0.5 satisfies Sat.")

EXPLANATIONS: dict[tuple[str, str], str] = {
    ("P", "CloseTh"): _P_CLOSE,
    ("P_IA", "CloseTh"): _P_CLOSE + " P-IA reduces to P@k on one aspect.",
    ("RR", "Sat"): ("max reduction: RR ignores everything after the first relevant document, so appending one "
                    "never increases it and the non-strict Sat holds trivially (the paper: standard metrics "
                    "'do not satisfy' diversity constraints; it gives RR-IA ● for the same reason)."),
    ("nDCG", "DeepTh"): _CUTOFF_DEEPTH,
    ("nDCG", "AspDiv"): _MAX_REDUCTION,
    ("ERR", "AspDiv"): _MAX_REDUCTION,
    ("RBP", "Pri"): _BINARY_CWL,
    ("RBP", "Deep"): _BINARY_CWL,
    ("ERR_IA", "Pri"): _BINARY_NDEVAL,
    ("ERR_IA", "Deep"): _BINARY_NDEVAL,
    ("ERR_IA", "AspDiv"): _BINARY_NDEVAL,
    ("ERR_IA", "MRed"): _BINARY_NDEVAL + " MRed needs graded previous documents.",
    ("ERR_IA", "Sat"): ("ndeval gives every relevant document the same satisfaction probability below 1, so no "
                        "grade saturates an aspect; the paper's argument needs r_max = 1."),
    ("alpha_nDCG", "Pri"): _BINARY_NDEVAL,
    ("alpha_nDCG", "Deep"): _BINARY_NDEVAL,
    ("alpha_nDCG", "AspDiv"): _BINARY_NDEVAL,
    ("alpha_nDCG", "CloseTh"): ("parameter: with ir-measures' default alpha = 0.5, "
                                "sum_j (1-alpha)^j / log2(m+j+2) < 1 for every m (Amigó et al. (2018): CloseTh fails "
                                "for large alpha); alpha_nDCG(alpha=0.1)@10 satisfies it."),
    ("alpha_nDCG", "AspRel"): _WEIGHTS,
    ("StRecall", "AspRel"): _WEIGHTS,
    ("NRBP", "Pri"): _BINARY_NDEVAL,
    ("NRBP", "Deep"): _BINARY_NDEVAL,
    ("NRBP", "AspDiv"): _BINARY_NDEVAL,
    ("NRBP", "CloseTh"): ("parameters: ir-measures' NRBP has patience beta = 0.5, below the p ≈ 0.755 that "
                          "RBP-like measures need for CloseTh (Amigó et al. (2018)), and novelty alpha = 0.5, which "
                          "discounts the later relevant documents further; NRBP(beta=0.9) satisfies it "
                          "(NRBP(beta=0.8) does not, unlike RBP with p = 0.8)."),
    ("NRBP", "AspRel"): _WEIGHTS,
    ("RBP(p=0.8) graded", "AspDiv"): _MAX_REDUCTION,
    ("nDCG-IA@10", "DeepTh"): _CUTOFF_DEEPTH,
    ("nDCG-IA@10", "Red"): _IA_NORMALISED,
    ("nDCG-IA@10", "MRed"): _IA_NORMALISED,
    ("ERR-IA@10 graded", "Sat"): _ERR_SAT,
    ("NRBP graded", "Pri"): _COUNT_NOVELTY,
    ("NRBP graded", "CloseTh"): ("parameter: NRBP's default patience p = 0.5 (ndeval's beta) is below the "
                                 "p ≈ 0.755 RBP-like measures need for CloseTh (Amigó et al. (2018)); p = 0.9 satisfies it."),
    ("NRBP graded", "AspRel"): _WEIGHTS,
    ("α-nDCG@10 graded", "Pri"): _COUNT_NOVELTY,
    ("α-nDCG@10 graded", "AspDiv"): _COUNT_NOVELTY,
    ("α-nDCG@10 graded", "CloseTh"): _ALPHA_CLOSE,
    ("α-nDCG@10 graded", "AspRel"): _WEIGHTS,
    ("EU(alpha=0.5,e=0.05)", "Pri"): _COUNT_NOVELTY,
    ("EU(alpha=0.5,e=0.05)", "AspDiv"): _COUNT_NOVELTY,
    ("EU(alpha=0.5,e=0.05)", "CloseTh"): _ALPHA_CLOSE.replace("(as for ir-measures' alpha_nDCG)",
                                                              "(EU 'inherits' alpha-nDCG's CloseTh, §4.3)"),
    ("CT@10", "Pri"): _COUNT_NOVELTY,
    ("CT@10", "AspDiv"): _COUNT_NOVELTY,
    ("CT@10", "Red"): ("saturation: with binary r = 1/2 and the saturation level 1, an aspect is full after two "
                       "documents; when both aspects are full, appending d or d' adds nothing (a tie). The paper's "
                       "inferred ●? assumes the less covered aspect is still open."),
    ("CT@10", "Sat"): _CT_SATURATION,
}
"""(measure name, constraint) -> why the checker's verdict differs from Table 1 (the measures of README_MEASURES); a
:data:`KERNEL_MEASURES` measure is keyed by its label."""


def paper_row(measure: Any) -> str | None:
    """Row of Table 1 for a measure (string or object), or ``None`` when the paper does not analyse it."""
    if isinstance(measure, str) and measure in KERNEL_MEASURES:
        return KERNEL_MEASURES[measure][2]
    name = measure_name(measure)
    return PAPER_ROWS.get(name) if name else None


def kernel_measure(label: str):
    """The Python-function measure of a :data:`KERNEL_MEASURES` label (for :func:`~prefeval.axioms.check`)."""
    name, params, _ = KERNEL_MEASURES[label]
    return build_kernel_measure(name, **params)


def measure_name(measure: Any) -> str | None:
    """ir-measures ``NAME`` of a measure string or object (``None`` if it does not parse); a
    :data:`KERNEL_MEASURES` label is its own name."""
    if isinstance(measure, str) and measure in KERNEL_MEASURES:
        return measure
    if isinstance(measure, str):
        try:
            measure = parse_measure(measure)
        except Exception:
            return None
    return getattr(measure, "NAME", None)


def matrix(measures: Sequence[Any] = README_MEASURES, constraints: str | Iterable[str] | None = "amigo2018",
           cases: int | None = None, seed: int = 0, **options: Any) -> pd.DataFrame:
    """Verdict symbols (● satisfied, ○ violated, – not applicable), one row per measure, one column per constraint.

    The full :func:`~prefeval.axioms.check` results are in ``result.attrs["checks"]`` (long format).
    """
    check_measures(measures, "the axioms table")
    keys = [c.key for c in select(constraints)]
    checks = [check(kernel_measure(m), keys, cases=cases, seed=seed, label=m, **options)
              if isinstance(m, str) and m in KERNEL_MEASURES else check(m, keys, cases=cases, seed=seed, **options)
              for m in measures]
    long = pd.concat(checks, ignore_index=True)
    wide = long.assign(symbol=long["verdict"].map(SYMBOLS)).pivot(index="measure", columns="constraint",
                                                                   values="symbol")
    labels = list(dict.fromkeys(long["measure"]))
    wide = wide.reindex(index=labels, columns=keys)
    wide.columns.name = None
    wide.attrs["checks"] = long
    return wide


def compare_with_paper(wide: pd.DataFrame) -> pd.DataFrame:
    """Cell-by-cell comparison of a :func:`matrix` with :data:`PAPER_TABLE1`.

    Returns one row per (measure, constraint) with a Table 1 cell: ``measure, paper_row, constraint,
    ours, paper, agrees, explanation`` (the explanation from :data:`EXPLANATIONS` where they differ).
    """
    rows = []
    for label in wide.index:
        row = paper_row(label)
        if row is None:
            continue
        name = measure_name(label)
        for key in wide.columns:
            paper = PAPER_TABLE1[row].get(key)
            if paper is None:
                continue
            ours = wide.loc[label, key]
            agrees = ours == paper.rstrip("?")
            rows.append({"measure": label, "paper_row": row, "constraint": key, "ours": ours, "paper": paper,
                         "agrees": agrees, "explanation": "" if agrees else EXPLANATIONS.get((name, key), "")})
    return pd.DataFrame(rows, columns=["measure", "paper_row", "constraint", "ours", "paper", "agrees",
                                       "explanation"])
