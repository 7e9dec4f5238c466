"""TSE: total search efficiency with AP exposure (Diaz & Mitra (2023) §3.2, Eq. 3)."""

from __future__ import annotations

import numpy as np

from prefeval.core import metrics, ties
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
    values=lambda rankings, params: np.array([metrics.tse(P) for P in rankings.position_vectors()], dtype=float),
    positions=lambda P, params: metrics.tse(P),
    tie_probability=ties.last_position,
))
