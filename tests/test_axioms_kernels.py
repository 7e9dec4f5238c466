"""The parameter claims in the explanations of the axioms table's kernel rows (prefeval.axioms.table.EXPLANATIONS)."""

from __future__ import annotations

import pytest

from prefeval.axioms import check
from prefeval.axioms.table import EXPLANATIONS
from prefeval.data.aspects import kernel_measure

CLAIMS = [
    # (explanation key, kernel, parameters, constraint, verdict the explanation states)
    (("CT@10", "Sat"), "CT", {"k": 10, "saturation": 0.5}, "Sat", "satisfied"),
    (("EU(alpha=0.5,e=0.05)", "CloseTh"), "EU", {"alpha": 0.1, "e": 0.05}, "CloseTh", "satisfied"),
    (("α-nDCG@10 graded", "CloseTh"), "alpha_nDCG", {"k": 10, "alpha": 0.1}, "CloseTh", "satisfied"),
    (("NRBP graded", "CloseTh"), "NRBP", {"p": 0.9, "alpha": 0.5}, "CloseTh", "satisfied"),
    (("ERR-IA@10 graded", "Sat"), "ERR_IA", {"k": 10, "mapping": "binary"}, "Sat", "satisfied"),
    (("nDCG-IA@10", "Red"), "nDCG_IA", {"k": 10, "normalise": False}, "Red", "violated"),
    (("nDCG-IA@10", "MRed"), "nDCG_IA", {"k": 10, "normalise": False}, "MRed", "violated"),
]


@pytest.mark.parametrize(("key", "kernel", "params", "constraint", "verdict"), CLAIMS, ids=[str(c[0]) for c in CLAIMS])
def test_parameter_claims_of_explanations_hold(key, kernel, params, constraint, verdict) -> None:
    assert key in EXPLANATIONS
    params = dict(params)
    result = check(kernel_measure(kernel, k=params.pop("k", None), **params), constraint, cases=30, bound=64)
    assert result.iloc[0]["verdict"] == verdict, result.iloc[0]["reason"]
