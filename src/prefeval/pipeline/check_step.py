"""The ``Check`` step: ``prefeval check`` on the pipeline's qrels and runs before any evaluation (run by default).

Its findings (:func:`prefeval.engine.check.check`: coverage, documents per query, Judged@k, ties, repeats, non-finite
scores, the qrels' grades and warnings) go to ``check`` in summary.json and to the report's "Input checks" section;
Judged@k with k the deepest cutoff of the evaluate and compare steps' measures (else 10, as the run x measure table:
``judged_depth``) goes beside the means in the report's overview and effectiveness table.
``[check] enabled = false`` leaves it out. A collection generated partition by partition (``[recsys]`` on the Dask
engine) is not materialised for it: the step then records that it was skipped.
"""

from __future__ import annotations

from typing import Any

from prefeval.engine.check import check
from prefeval.engine.methods import judged_depth, parse_methods
from prefeval.pipeline.base import Origin, Plan, Step
from prefeval.pipeline.context import PipelineContext
from prefeval.pipeline.progress import Progress
from prefeval.pipeline.schema import Key, Table

__all__ = ["Check"]


class Check(Step):
    """``prefeval check`` of the qrels and runs (see the module docstring)."""

    kind = "check"
    TABLE = Table(doc="checks of the qrels and runs before evaluation (Judged@k, coverage, ties, repeats)", keys={
        "enabled": Key("bool", True, "run the checks (default true)"),
    })
    NEEDS = frozenset({"qrels", "runs"})
    PROVIDES = frozenset({"check"})

    def __init__(self, enabled: bool = True, origin: Origin | None = None) -> None:
        super().__init__(origin)
        self.enabled = enabled

    def options(self) -> dict[str, Any]:
        return {"enabled": self.enabled}

    def validate(self, plan: Plan) -> None:
        if not isinstance(self.enabled, bool):
            raise self.error("enabled", f"must be true or false; got {self.enabled!r}")

    def run(self, context: PipelineContext, progress: Progress) -> None:
        if not self.enabled:
            return
        if context.qrels is None or any(run is None for run in context.runs.values()):
            context.check = {"skipped": "the collection is generated partition by partition"}
            return
        depth = judged_depth(parse_methods(_measures(context.settings), context.rel))
        with progress.stage("check"):
            context.check = {**check(context.collection(), context.runs, rel=context.rel, depth=depth).to_dict(),
                             "judged_depth": depth}


def _measures(settings: dict[str, Any]) -> list[str]:
    """The measures and methods of the evaluate and compare steps (their settings)."""
    return [*settings.get("evaluate", {}).get("measures", []), *settings.get("compare", {}).get("methods", [])]
