"""RBU: rank-biased utility (Amigó et al. (2018) §5, Eq. 11)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prefeval.core import diversity, rbu
from prefeval.methods.references import PAPERS
from prefeval.methods.registry import REL, Declaration, Param, register


def values(rankings, params: Mapping[str, Any]):
    """RBU of every ranking in one kernel call; aspect weights uniform over the aspects with a relevant document."""
    r = rbu.relevance_probabilities(rankings.grades, rankings.gmax[:, None, :])
    return rbu.rbu(r, rankings.aspect_weights(), params["p"], params["e"], length=rankings.length,
                   variant=params["variant"])


METHOD = register(Declaration(
    name="RBU",
    kind="metric",
    summary="rank-biased utility, Eq. 11 of Amigó et al. (SIGIR 2018); `variant='evall'` = `(1-p)/p` × that, "
            "the scale of the authors' Java tool / EvALL",
    doc="RBU@k = sum_{i<=k} p^i * (sum_t w_t r(d_i,t) prod_{j<i} (1 - r(d_j,t)) - e) with r(d,t) = "
        "(2^g - 1) / 2^gmax_t (grades below rel count as 0), aspect weights uniform over the aspects with a "
        "relevant document, and effort charged only for positions holding a document. variant='evall' gives the "
        "scaling of the authors' Java tool / EvALL: (1-p)/p times the paper value.",
    citation=PAPERS["amigo-2018"],
    where="§5, Eq. 11",
    params={
        "p": Param(float, 0.8, "patience: probability of moving to the next document"),
        "e": Param(float, 0.03, "effort (cost) of inspecting a document"),
        "rel": REL,
        "variant": Param(str, "paper", "'paper' = Eq. 11; 'evall' = (1-p)/p times Eq. 11, as the authors' tool",
                         choices=("paper", "evall")),
    },
    kernel=values,
    aspects=True,
    validate=lambda params, given: rbu.validate_params(params["p"], params["e"], params["variant"]) and None,
))

diversity.KERNELS[METHOD.name] = diversity.rbu_kernel  # the per-aspect kernel, for prefeval.data.aspects and unanimity
