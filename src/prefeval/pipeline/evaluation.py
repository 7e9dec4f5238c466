"""Work steps: ``Evaluate`` (metrics via :func:`prefeval.evaluate`) and ``Compare`` (pairwise preferences via
:func:`prefeval.compare`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from prefeval.engine.compare import compare
from prefeval.engine.evaluate import evaluate, parse_measures, system_values
from prefeval.engine.memory import check_pairs
from prefeval.engine.methods import parse_method
from prefeval.engine.registry import check_scheduler_address
from prefeval.errors import PrefevalError
from prefeval.methods.registry import rel_problem
from prefeval.pipeline.base import Origin, Plan, Step
from prefeval.pipeline.context import PipelineContext
from prefeval.pipeline.progress import Progress
from prefeval.pipeline.schema import Key, Table

__all__ = ["Evaluate", "Compare", "check_measure", "check_method"]


def check_measure(name: str, rel: int | None = None) -> list[str]:
    """Parse a metric name as :func:`prefeval.evaluate` does (ir-measures syntax or a trec_eval name; prefeval's
    measures registered); return the names of the measures it stands for, with ``rel`` applied.

    Raises ValueError with the reason when it does not parse.
    """

    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"expected a measure name, got {name!r}")
    try:
        return [str(m) for m in parse_measures([name], rel)]
    except PrefevalError as exc:
        raise ValueError(str(exc)) from None


def check_method(name: str) -> str:
    """Check a comparison method (a preference method or a metric) without running it; return its label."""

    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"expected a method name, got {name!r}")
    try:
        return parse_method(name).label
    except PrefevalError as exc:
        raise ValueError(str(exc)) from None


def _checked_names(step: Step, values: Any, key: str, check: Callable[[str], Any], noun: str) -> list[str]:
    """The names of option ``key``, each checked with ``check`` (errors name ``key[i]``), none twice."""
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, Sequence) or not values:
        raise step.error(key, "give at least one name")
    names = [str(v) if not isinstance(v, str) else v for v in values]
    for i, name in enumerate(names):
        try:
            check(name)
        except ValueError as exc:
            raise step.error(f"{key}[{i}]", str(exc)) from None
    if len(set(names)) != len(names):
        raise step.error(key, f"a {noun} is listed twice")
    return names


#: where a step computes (``prefeval.compare`` / ``prefeval.evaluate`` ``engine=``), shared by both steps
ENGINE_KEYS = {
    "engine": Key("str", "inprocess", "where to compute: inprocess, or dask (partitions of the queries on a Dask "
                  "cluster; pip install 'prefeval[dask]')", choices=("inprocess", "dask")),
    "scheduler": Key("str", "", "with engine = \"dask\": address of a running Dask scheduler "
                     "(tcp://host:8786); empty: a local cluster"),
    "workers": Key("int|null", None, "with engine = \"dask\" and no scheduler: local worker processes "
                   "(default: one per core)", minimum=1),
}


class EngineStep(Step):
    """A work step with the engine keys (:data:`ENGINE_KEYS`)."""

    def _engine_init(self, engine: str, scheduler: str, workers: int | None) -> None:
        self.engine, self.scheduler, self.workers = engine, scheduler, workers

    def _engine_options(self) -> dict[str, Any]:
        return {"engine": self.engine, "scheduler": self.scheduler, "workers": self.workers}

    def _check_rel(self) -> None:
        if self.rel is not None and rel_problem(self.rel):
            raise self.error("rel", f"{rel_problem(self.rel)}; got {self.rel!r}")

    def _check_engine(self) -> None:
        self._check_rel()
        if self.engine == "inprocess" and (self.scheduler or self.workers is not None):
            raise self.error("engine", "scheduler and workers need engine = \"dask\"")
        if self.scheduler and self.workers is not None:
            raise self.error("workers", "workers starts a local cluster; a scheduler has its own workers")
        if self.scheduler:
            try:
                check_scheduler_address(self.scheduler)
            except PrefevalError as exc:
                raise self.error("scheduler", str(exc).removeprefix("scheduler: ")) from None

    def _inputs(self, context: PipelineContext) -> tuple[Any, Any, dict[str, Any]]:
        """``(qrels, runs, engine keyword arguments)`` for compare / evaluate: a generated collection goes to the
        Dask engine as it is, and is materialised (once) for the in-process engine, which reads the qrels coded once
        for every step (:meth:`PipelineContext.collection`)."""
        if self.engine == "inprocess":
            if context.generated is not None and context.qrels is None:
                context.qrels, runs = context.generated.materialise()
                context.runs.update(runs)
            return context.collection(), context.runs, {}
        options = {"engine": self.engine, "scheduler": self.scheduler or None, "workers": self.workers}
        if context.generated is not None and context.qrels is None:
            return None, context.generated, options
        return context.qrels, context.runs, options


class Evaluate(EngineStep):
    """Evaluate every run with metrics: any ir-measures measure and prefeval's (RBU, TSE, ...).

    ``rel`` (default: the qrels step's) is passed to :func:`prefeval.evaluate` and applies to the measures
    that take a relevance threshold. Per-query values and the official means are both kept.
    """

    kind = "evaluate"
    TABLE = Table(doc="metrics (ir-measures and prefeval measures)", primary="measures", keys={
        "measures": Key("str|list[str]", [], "measure names as ir-measures parses them, e.g. \"nDCG@10\", "
                        "\"AP(rel=2)\", \"RBU(p=0.8)@20\""),
        "rel": Key("int|null", None, "relevance threshold for binary measures (default: qrels.rel)"),
        **ENGINE_KEYS,
    })
    NEEDS = frozenset({"qrels", "runs"})
    PROVIDES = frozenset({"per_query"})

    def __init__(self, measures: Sequence[str] | str, rel: int | None = None, origin: Origin | None = None,
                 engine: str = "inprocess", scheduler: str = "", workers: int | None = None) -> None:
        super().__init__(origin)
        self.measures = [measures] if isinstance(measures, str) else list(measures)
        self.rel = rel
        self._engine_init(engine, scheduler, workers)

    def options(self) -> dict[str, Any]:
        return {"measures": self.measures, "rel": self.rel, **self._engine_options()}

    def validate(self, plan: Plan) -> None:
        plan.measures = _checked_names(self, self.measures, "measures", check_measure, "measure")
        self._check_engine()

    def run(self, context: PipelineContext, progress: Progress) -> None:
        rel = self.rel if self.rel is not None else context.rel
        parsed = parse_measures(self.measures, rel)
        qrels, runs, engine = self._inputs(context)
        with progress.stage("evaluation"):  # one call: qrels processed once, free preferences see every run
            table = evaluate(qrels, runs, self.measures, per_query=True, rel=rel,
                             progress=progress.enabled, **engine)  # the `given` column keeps the measures as written
        table["measure"] = table["measure"].astype(str)
        context.measures = [str(m) for m in parsed]
        context.per_query = table
        context.means = system_values(table, parsed, list(context.runs))
        context.settings["evaluate"] = {"measures": self.measures, "rel": rel, "computed": context.measures,
                                        **self._engine_options()}


class Compare(EngineStep):
    """Compare all pairs of runs per query with preference methods (and metrics, as metric differences)."""

    kind = "compare"
    TABLE = Table(doc="pairwise preferences between all runs", primary="methods", keys={
        "methods": Key("str|list[str]", [], "preference methods (LexiRecall, LexiPrecision, "
                       "LexiPrecision(magnitude='rr'), RPP, RPP(weighting='dcg'), ...) or metrics"),
        "rel": Key("int|null", None, "relevance threshold (default: qrels.rel)"),
        **ENGINE_KEYS,
    })
    NEEDS = frozenset({"qrels", "runs"})
    PROVIDES = frozenset({"comparison"})

    def __init__(self, methods: Sequence[str] | str, rel: int | None = None, origin: Origin | None = None,
                 engine: str = "inprocess", scheduler: str = "", workers: int | None = None) -> None:
        super().__init__(origin)
        self.methods = [methods] if isinstance(methods, str) else list(methods)
        self.rel = rel
        self._engine_init(engine, scheduler, workers)

    def options(self) -> dict[str, Any]:
        return {"methods": self.methods, "rel": self.rel, **self._engine_options()}

    def validate(self, plan: Plan) -> None:
        self._check_engine()
        names = _checked_names(self, self.methods, "methods", check_method, "method")
        if len(plan.run_names) < 2:
            raise self.error(None, f"comparing needs at least two runs; the pipeline has {len(plan.run_names)}")
        try:
            check_pairs(len(plan.run_names), len(names))
        except PrefevalError as exc:
            raise self.error("methods", str(exc)) from None
        plan.methods = names

    def run(self, context: PipelineContext, progress: Progress) -> None:
        rel = self.rel if self.rel is not None else context.rel
        qrels, runs, engine = self._inputs(context)
        with progress.stage("comparison"):
            context.comparison = compare(qrels, runs, self.methods, rel=rel, progress=progress.enabled, **engine)
        context.methods = list(self.methods)
        context.settings["compare"] = {"methods": self.methods, "rel": rel, **self._engine_options()}
