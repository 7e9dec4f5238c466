"""Pipeline steps as units: each declares its table, needs and provides; a new step is one class."""

from __future__ import annotations

import pytest

from prefeval.errors import PrefevalError
from prefeval.pipeline import STEPS, Evaluate, Pipeline, Qrels, Report, Runs, schema
from prefeval.pipeline.base import Step, order, step_classes
from prefeval.pipeline.schema import Key, Table


def test_built_in_steps_declare_their_tables_and_run_in_dependency_order():
    assert [c.kind for c in step_classes()] == ["qrels", "simulate", "recsys", "runs", "retrieve", "check", "evaluate",
                                                 "compare", "aggregate", "analyse", "report"]
    for cls in STEPS.values():
        for name, key in cls.TABLE.keys.items():
            assert key.doc, (cls.kind, name)
        assert cls.NEEDS <= {p for other in STEPS.values() for p in other.PROVIDES}, cls.kind
    steps = [Report("out"), Evaluate(["AP"]), Runs("runs"), Qrels("qrels.txt"), Runs("more")]
    assert [s.kind for s in order(steps)] == ["qrels", "runs", "runs", "evaluate", "report"]
    assert [s.paths for s in order(steps) if s.kind == "runs"] == [["runs"], ["more"]]


@pytest.fixture
def counting_step():
    class Count(Step):
        """Counts the runs (an example of a step added outside prefeval)."""

        kind = "count"
        TABLE = Table(doc="count the runs", keys={"label": Key("str", "runs", "what to call them")})
        NEEDS = frozenset({"runs"})
        PROVIDES = frozenset({"count"})

        def __init__(self, label: str = "runs", origin=None) -> None:
            super().__init__(origin)
            self.label = label

        def validate(self, plan) -> None:
            pass

        def run(self, context, progress) -> None:
            context.analysis[self.label] = len(context.runs)

    yield Count
    STEPS.pop("count", None)


def test_a_new_step_is_one_class(counting_step, tmp_path):
    assert "count" in schema() and list(schema())[-1] == "count"
    definition = tmp_path / "p.toml"
    definition.write_text('[count]\nlabel = "n"\n\n[simulate]\nn_queries = 5\nn_runs = 3\n\n'
                          '[evaluate]\nmeasures = ["AP"]\n', encoding="utf-8")
    pipeline = Pipeline.from_toml(definition)
    assert [s.kind for s in pipeline._ordered()] == ["simulate", "evaluate", "count"]
    context = pipeline.run(progress=False)
    assert context.analysis["n"] == 3
    with pytest.raises(PrefevalError, match=r"\[count\] is already defined"):
        type("Other", (Step,), {"kind": "count", "TABLE": counting_step.TABLE})
