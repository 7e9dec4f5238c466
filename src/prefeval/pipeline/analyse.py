"""The optional ``Analyse`` step: a hook for meta-evaluation (:mod:`prefeval.analysis`) and your own analyses.

Hook contract. An analysis is a callable ``function(context, **options)`` that receives the
:class:`~prefeval.pipeline.context.PipelineContext` after the aggregate step (qrels, runs, per-query metric
values, the :class:`~prefeval.engine.comparison.Comparison`, rankings, ...; it must not modify it) and returns either a
DataFrame or a dict ``{part name: DataFrame | matplotlib Figure | number | string}``. DataFrames become tables
in report.md/report.tex and ``analysis_<name>_<part>.csv``; figures become PNGs; numbers and strings are
printed. Everything except figures is also stored under ``analysis`` in summary.json.

Named analyses (``analyses = ["ties", "agreement", ...]``) are looked up in
``prefeval.analysis.PIPELINE_ANALYSES`` (a dict name -> callable); ``callables = ["module:function"]`` adds
any other function. ``options`` are passed to every analysis as keyword arguments, filtered to the ones its
signature accepts (unless it takes ``**kwargs``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from prefeval import analysis
from prefeval.errors import PrefevalError
from prefeval.pipeline.base import Origin, Plan, Step, import_callable
from prefeval.pipeline.context import PipelineContext
from prefeval.pipeline.progress import Progress
from prefeval.pipeline.schema import Key, Table

__all__ = ["Analyse", "registered_analyses"]


def registered_analyses() -> dict[str, Callable[..., Any]]:
    """The analyses ``prefeval.analysis`` offers to pipelines: its ``PIPELINE_ANALYSES`` (name -> callable)."""
    try:
        registry = getattr(analysis, "PIPELINE_ANALYSES", {})
    except ImportError:
        return {}
    return dict(registry() if callable(registry) else registry)


def _accepted(function: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, Any]:
    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return dict(options)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(options)
    return {k: v for k, v in options.items() if k in params}


class Analyse(Step):
    """Run analyses after aggregation (see the module docstring for the hook contract)."""

    kind = "analyse"
    TABLE = Table(doc="meta-evaluation hooks (prefeval.analysis or your own callables)", keys={
        "analyses": Key("str|list[str]", [], "names from prefeval.analysis.PIPELINE_ANALYSES: ties, agreement, power, "
                        "robustness, ..."),
        "callables": Key("str|list[str]", [], "extra \"module:function\" analyses, called as function(context, **options)"),
        "options": Key("table", {}, "keyword arguments passed to every analysis"),
    })
    NEEDS = frozenset({"per_query", "comparison", "rankings", "significance"})
    PROVIDES = frozenset({"analyses"})

    def __init__(self, analyses: Sequence[str] | str = (), callables: Sequence[Any] | Any = (),
                 options: Mapping[str, Any] | None = None, origin: Origin | None = None) -> None:
        super().__init__(origin)
        self.analyses = [analyses] if isinstance(analyses, str) else list(analyses)
        self.callables = [callables] if isinstance(callables, str) or callable(callables) else list(callables)
        self.kwargs = dict(options or {})
        self._functions: dict[str, Callable[..., Any]] = {}

    def options(self) -> dict[str, Any]:
        return {"analyses": self.analyses,
                "callables": [c if isinstance(c, str) else getattr(c, "__qualname__", "callable") for c in self.callables],
                "options": self.kwargs}

    def validate(self, plan: Plan) -> None:
        if not self.analyses and not self.callables:
            raise self.error("analyses", "give at least one analysis name or callable")
        registry = registered_analyses() if self.analyses else {}
        for i, name in enumerate(self.analyses):
            if name not in registry:
                known = ", ".join(sorted(registry)) or "none yet"
                raise self.error(f"analyses[{i}]", f"unknown analysis {name!r}; prefeval.analysis offers: {known}")
            self._functions[name] = registry[name]
        for i, spec in enumerate(self.callables):
            if isinstance(spec, str):
                function = import_callable(spec, self.origin, f"callables[{i}]")
                name = spec.rpartition(":")[2]
            elif callable(spec):
                function, name = spec, getattr(spec, "__name__", f"analysis{i + 1}")
            else:
                raise self.error(f"callables[{i}]", f"expected \"module:function\" or a callable, got {spec!r}")
            self._functions[name] = function
        named = {name: self._functions[name] for name in self.analyses}  # your own callables check their options
        problem = analysis.option_problem(named, self.kwargs) if named and self.kwargs else None
        if problem:
            raise self.error(f"options.{problem[0]}", problem[1])

    def run(self, context: PipelineContext, progress: Progress) -> None:
        with progress.stage("analysis"):
            for name, function in progress.iterate(list(self._functions.items()), desc="analyses", unit="analysis"):
                try:
                    result = function(context, **_accepted(function, self.kwargs))
                except PrefevalError:
                    raise
                except Exception as exc:
                    raise PrefevalError(f"{self.origin.file or 'Pipeline'}: analyse: analysis {name!r} failed: "
                                        f"{type(exc).__name__}: {exc}") from exc
                if isinstance(result, pd.DataFrame):
                    result = {"table": result}
                elif result is None:
                    result = {}
                elif not isinstance(result, Mapping):
                    result = {"result": result}
                context.analysis[name] = dict(result)
        context.settings["analyse"] = self.options()
