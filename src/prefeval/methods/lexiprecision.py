"""LexiPrecision: lexicographic precision (Diaz (2023) §3)."""

from __future__ import annotations

from prefeval.core import lexicographic, ties
from prefeval.methods.references import PAPERS
from prefeval.methods.registry import REL, Declaration, Param, register

METHOD = register(Declaration(
    name="LexiPrecision",
    kind="preference",
    summary="sign (or RR difference) at the first differing recall level",
    doc="The first recall level whose positions differ decides; magnitude='rr' returns 1/p_i - 1/p'_i there "
        "instead of the sign (rrLP; sgnLP is the default).",
    citation=PAPERS["diaz-2023"],
    where="§3",
    aliases=("lp", ("sgnlp", {"magnitude": "sgn"}), ("rrlp", {"magnitude": "rr"})),
    params={
        "magnitude": Param(str, "sgn", "sign or RR difference", choices=("sgn", "rr")),
        "rel": REL,
    },
    kernel=lambda queries, params: lexicographic.lexiprecision_matrices([q.doc_pos for q in queries],
                                                                        params["magnitude"]),
    position_based=True,
    tie_probability=ties.every_position,  # a tie in sign is a tie in RR difference
))
