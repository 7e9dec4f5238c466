"""summary.json: the machine-readable result of a pipeline run, with stable keys (see docs/pipelines.md).

NaN and infinite numbers become ``null`` so the file is strict JSON. ``data.queries`` is the number of judged
queries and ``data.query_counts`` the counts the report's sentences state (:class:`prefeval.pipeline.document.
QueryCounts`: judged, with a relevant document, and per measure and method the queries its numbers are over);
``document`` holds the report's blocks, from which ``prefeval report`` renders report.html again.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from prefeval._version import __version__
from prefeval.pipeline.context import PipelineContext
from prefeval.pipeline.document import QueryCounts
from prefeval.pipeline.findings import disagreements
from prefeval.report.document import Block
from prefeval.report.plots import is_figure

__all__ = ["FORMAT", "build_summary", "jsonable"]

FORMAT = "prefeval-pipeline-summary/1"


def jsonable(value: Any) -> Any:
    """Convert numpy/pandas values (recursively) to plain JSON values; NaN/inf -> None, -0.0 -> 0.0."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, pd.DataFrame):
        return [jsonable(r) for r in value.to_dict(orient="records")]
    if isinstance(value, pd.Series):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value) + 0.0  # -0.0 becomes 0.0: a mean or difference of 0 has no sign
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, str):
        return value
    return str(value)


def build_summary(context: PipelineContext, files: list[str], blocks: list[Block] | None = None) -> dict[str, Any]:
    """The summary.json content (keys always present; empty when a step did not run); ``blocks``: the report's
    document (stored under ``document``)."""
    counts = QueryCounts.of(context)
    sim = context.simulation
    means = context.means_table()
    preferences: dict[str, Any] = {}
    if context.comparison is not None:
        for method in context.methods:
            matrix = context.comparison.matrix(method)
            preferences[method] = {
                "matrix": {str(a): {str(b): matrix.loc[a, b] for b in matrix.columns} for a in matrix.index},
                "pairs": context.run_pairs,
                "significant_pairs": context.significant_pairs(method),
                "ties": context.tie_share(method),
            }
    summary = {
        "format": FORMAT,
        "prefeval_version": __version__,
        "pipeline": {"name": context.name, "description": context.description, "source": context.source},
        "data": {
            "simulated": context.simulated,
            "simulation": None if sim is None else {
                "description": sim.describe(), "params": sim.params, "quality": sim.quality,
                "true_order": sim.true_order},
            "qrels": context.qrels_label,
            "rel": context.rel,
            "queries": counts.judged,
            "query_counts": counts.as_json(),
            "runs": list(context.runs),
        },
        "settings": context.settings,
        "baseline": context.baseline,
        "means": {m: {r: means.loc[r, m] for r in means.index} for m in means.columns},
        "versus_baseline": context.versus_baseline if context.versus_baseline is not None else [],
        "preferences": preferences,
        "rankings": {label: frame for label, frame in context.rankings.items()},
        "disagreements": disagreements(context),
        "kendall_tau": ({a: {b: context.kendall_tau.loc[a, b] for b in context.kendall_tau.columns}
                         for a in context.kendall_tau.index} if context.kendall_tau is not None else {}),
        "analysis": {name: {part: value for part, value in parts.items() if not is_figure(value)}
                     for name, parts in context.analysis.items()},
        "check": context.check or {},
        "files": files,
        "timings": {k: round(v, 3) for k, v in context.timings.items()},
        "document": [block.as_json() for block in blocks or []],
    }
    return jsonable(summary)
