"""TSE: total search efficiency with AP exposure (Diaz & Mitra (2023) §3.2, Eq. 3)."""

from __future__ import annotations

from prefeval.core import metrics, ties
from prefeval.core.positions import vectors_each
from prefeval.methods.references import PAPERS
from prefeval.methods.registry import REL, Declaration, register

METHOD = register(Declaration(
    name="TSE",
    kind="metric",
    summary="`1/p_m` (position of the last relevant document) if every relevant document is retrieved, else 0",
    doc="1/p_m when every relevant document is retrieved (p_m = position of the last one), else 0 "
        "(pessimistic imputation).",
    citation=PAPERS["diaz-mitra-2023"],
    where="§3.2, Eq. 3",
    params={"rel": REL},
    kernel=lambda rankings, params: vectors_each(metrics.tse, rankings.position_vectors()),
    position_based=True,
    tie_probability=ties.last_position,
))
