"""Declarative evaluation pipelines: sources -> retrieval -> evaluation -> comparison -> aggregation -> report.

Steps are Python objects that compose in code::
    import prefeval
    from prefeval.pipeline import Simulate, Evaluate, Compare, Aggregate, Report
    result = prefeval.Pipeline([Simulate(n_queries=100), Evaluate(["nDCG@10", "AP"]),
                                Compare(["LexiRecall", "RPP"]), Aggregate(baseline="sim01"),
                                Report("out/demo")]).run()

and a TOML file (``pipelines/*.toml``, schema in docs/pipelines.md) is one way to build them
(:func:`load`, or ``prefeval run FILE.toml``).
"""

from prefeval.core.lazy import lazy_attributes
from prefeval.pipeline.aggregate_step import Aggregate
from prefeval.pipeline.analyse import Analyse
from prefeval.pipeline.base import STEPS, Origin, Plan, Step, schema
from prefeval.pipeline.check_step import Check
from prefeval.pipeline.context import PipelineContext
from prefeval.pipeline.evaluation import Compare, Evaluate
from prefeval.pipeline.report import Report
from prefeval.pipeline.runner import Pipeline, load, terminal_summary
from prefeval.pipeline.schema import PipelineDefinitionError
from prefeval.pipeline.sources import Qrels, Recsys, Retrieve, Runs, Simulate

SCHEMA = schema()
"""The tables of a definition (``[pipeline]`` and the built-in steps), as declared by the step classes."""

__all__ = [
    "Pipeline", "PipelineContext", "PipelineDefinitionError", "load", "terminal_summary", "SCHEMA",
    "Step", "STEPS", "Origin", "Plan", "schema",
    "Qrels", "Simulate", "Recsys", "Runs", "Retrieve", "Evaluate", "Compare", "Aggregate", "Analyse", "Report",
    "Check",
]


# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__, __dir__ = lazy_attributes(__name__, __path__)
