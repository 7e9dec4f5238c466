"""LexiRecall: lexicographic recall (Diaz & Mitra (2023) §5.2, Eq. 11)."""

from __future__ import annotations

from prefeval.core import lexicographic, ties
from prefeval.methods.references import PAPERS
from prefeval.methods.registry import REL, Declaration, register

METHOD = register(Declaration(
    name="LexiRecall",
    kind="preference",
    summary="+1 / 0 / −1: preference of the run over the baseline",
    doc="+1 if the run retrieves more relevant documents (fewer: -1); otherwise the deepest differing "
        "relevant position decides (the leximin over all recall requirements).",
    citation=PAPERS["diaz-mitra-2023"],
    where="§5.2, Eq. 11",
    aliases=("lr",),
    params={"rel": REL},
    kernel=lambda queries, params: lexicographic.lexirecall_matrices([q.doc_pos for q in queries]),
    position_based=True,
    tie_probability=ties.every_position,
))
