"""RPP: recall-paired preference (Diaz & Ferraro (2022) Eq. 3-6)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from prefeval.core import rpp
from prefeval.errors import PrefevalError
from prefeval.methods.references import PAPERS
from prefeval.methods.registry import REL, Declaration, Param, register


def populations(query, params: Mapping[str, Any]) -> np.ndarray:
    """The pseudo-populations of one query (Diaz & Ferraro (2022) §5.3): subtopics plus the background
    population (``subtopics=True``), grade thresholds >= ``rel`` (``graded=True``) or all relevant documents."""
    if params["subtopics"]:  # a query without subtopics keeps only the background population
        membership = query.subtopics if query.subtopics is not None else np.zeros((0, len(query.grades)), bool)
        return rpp.subtopic_populations(membership, background=True)
    if params["graded"]:
        return rpp.graded_populations(query.grades, params["rel"])
    return np.ones((1, len(query.grades)), dtype=bool)


def validate(params: Mapping[str, Any], given: Mapping[str, Any]) -> None:
    """Subtopic RPP has one binary population per subtopic, so an explicit ``graded=True`` is rejected."""
    if params["subtopics"] and given.get("graded"):
        raise PrefevalError("RPP: subtopic RPP (subtopics=True, Diaz & Ferraro (2022) Eq. 6) has one binary "
                            "population per subtopic (grade >= rel) plus the background population, so "
                            "graded=True does not apply; drop graded= or give graded=False")


METHOD = register(Declaration(
    name="RPP",
    kind="preference",
    summary="recall-paired preference in [−1, 1]",
    doc="sum_i w_i sgn(p'_i - p_i) over recall levels, averaged over grade thresholds (graded=True) or, with "
        "subtopics=True, over subtopics plus the background population, weighted by population size.",
    citation=PAPERS["diaz-ferraro-2022"],
    where="Eq. 3-6",
    params={
        "weighting": Param(str, "uniform", "recall-level weights: 1/m, proportional to 1/i, or to 1/log2(i+1)",
                           choices=("uniform", "inverse", "dcg")),
        "graded": Param(bool, True, "average over grade thresholds >= rel (does not apply with subtopics=True)"),
        "subtopics": Param(bool, False, "subtopic RPP (Eq. 6) with background population"),
        "rel": REL,
    },
    kernel=lambda queries, params: rpp.rpp_matrices([q.doc_pos for q in queries],
                                                    [populations(q, params) for q in queries], params["weighting"]),
    position_based=True,
    subtopics=lambda params: params["subtopics"],
    validate=validate,
))
