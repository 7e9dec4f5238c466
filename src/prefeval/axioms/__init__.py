"""Formal constraints as executable checks for any measure (Amigó et al. (2018) §3; Ferrante et al. (2015) §5; Diaz & Mitra (2023) Table 6).

    >>> import prefeval.axioms as axioms
    >>> axioms.check("nDCG@10", constraints="amigo2018")          # DataFrame: constraint, verdict, reason, ...
    >>> axioms.matrix(["P@10", "RBU(p=0.8,e=0.03)@10"])          # measures x constraints, ● / ○ / –

Measures are evaluated through ir-measures on generated qrels and runs (see
:mod:`prefeval.axioms.evaluate` for the encoding); preference methods through prefeval's kernels.
"""

from prefeval.axioms.balance import balancing_index
from prefeval.axioms.check import check
from prefeval.axioms.constraints import CONSTRAINTS, GROUPS, Constraint, select
from prefeval.axioms.model import Case, Judgments, RankingPair
from prefeval.axioms.partial_order import chain, comparable, precedes
from prefeval.axioms.table import PAPER_TABLE1, README_MEASURES, compare_with_paper, matrix
from prefeval.core.lazy import lazy_attributes

__all__ = [
    "CONSTRAINTS", "GROUPS", "PAPER_TABLE1", "README_MEASURES", "Case", "RankingPair", "Constraint", "Judgments",
    "balancing_index", "chain", "check", "comparable", "compare_with_paper", "matrix", "precedes", "select",
]


# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__, __dir__ = lazy_attributes(__name__, __path__)
