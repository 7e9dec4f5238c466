"""LexiRecall: lexicographic recall (Diaz & Mitra (2023) §5.2, Eq. 11)."""

from __future__ import annotations

import numpy as np

from prefeval.core import lexicographic, ties
from prefeval.core.positions import position_vectors
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
    pairwise=lambda query, a, b, params: lexicographic.lexirecall(position_vectors(query.doc_pos[a]),
                                                                  position_vectors(query.doc_pos[b])),
    matrix=lambda query, params: lexicographic.lexirecall_matrix(position_vectors(query.doc_pos), np.float64),
    positions=lambda A, B, params: lexicographic.lexirecall(A, B),
    tie_probability=ties.every_position,
))
