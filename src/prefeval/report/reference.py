"""Tables of the documentation, written by the one Markdown table writer (:func:`prefeval.report.tables.markdown`):
the measure table of docs/guide/measures.md from the method registry, and the axioms matrix of docs/axioms.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prefeval.axioms.table import compare_with_paper
from prefeval.methods.registry import JUDGED_ONLY, declarations
from prefeval.report.tables import Grid, markdown

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["measure_table", "axioms_table"]


def measure_table() -> str:
    """The measure table of docs/guide/measures.md: one row per registered method, from its declaration (without
    :data:`~prefeval.methods.registry.JUDGED_ONLY`, which every method takes; the page says it once)."""
    rows = []
    for d in declarations():
        own = {name: p for name, p in d.params.items() if p is not JUDGED_ONLY}
        names = (["baseline"] if d.kind == "preference" else []) + list(own)
        defaults = []
        for name, p in own.items():
            others = [c for c in (p.choices or ()) if c != p.default]
            extra = f" ({', '.join(f'`{c!r}`' for c in others)})" if others else ""
            defaults.append(f"`{name}={p.default!r}`{extra}")
        rows.append([f"`{d.name}({', '.join(names)})@k`", ", ".join(defaults), d.summary])
    return markdown(Grid.of_texts(["measure", "parameters (defaults)", "per-query value"], rows, align="lll",
                                  markup="markdown"))


def axioms_table(wide: pd.DataFrame, paper: bool = True) -> str:
    """A Markdown table of an axioms matrix (:func:`prefeval.axioms.matrix`); with ``paper``, a cell that differs
    from Table 1 of Amigó et al. (2018) shows ``**ours** (paper's)``."""
    differ = ({(r.measure, r.constraint): r.paper for r in compare_with_paper(wide).itertuples() if not r.agrees}
              if paper else {})
    rows = []
    for label in wide.index:
        cells = [f"`{label}`"]
        for key in wide.columns:
            cell = wide.loc[label, key]
            cells.append(f"**{cell}** ({differ[(label, key)]})" if (label, key) in differ else str(cell))
        rows.append(cells)
    header = ["measure", *map(str, wide.columns)]
    return markdown(Grid.of_texts(header, rows, align="l" * len(header), markup="markdown")).rstrip("\n")
