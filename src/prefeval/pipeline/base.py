"""Step base class, where a step came from (for error messages), and the validation plan."""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from prefeval.pipeline.schema import PipelineDefinitionError

if TYPE_CHECKING:
    from prefeval.pipeline.context import PipelineContext
    from prefeval.pipeline.progress import Progress


@dataclass(frozen=True)
class Origin:
    """Where a step was declared: the definition file (None when built in Python) and its table key."""

    file: str | None = None
    key: str = ""
    base_dir: str = "."

    def error(self, key: str | None, message: str) -> PipelineDefinitionError:
        dotted = ".".join(k for k in (self.key, key) if k) or None
        return PipelineDefinitionError(self.file or "Pipeline", dotted, message)

    def resolve(self, path: str | os.PathLike) -> str:
        """``path`` relative to the definition's folder (absolute paths unchanged)."""
        path = os.path.expanduser(os.fspath(path))
        return path if os.path.isabs(path) else os.path.normpath(os.path.join(self.base_dir, path))


@dataclass
class Plan:
    """What validation learns before any work: run names, whether topics exist, the measures, ..."""

    run_names: list[str] = field(default_factory=list)
    topics_available: bool = False
    simulated: bool = False
    measures: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    rel: int = 1

    def add_run(self, name: str, origin: Origin, key: str | None) -> None:
        if name in self.run_names:
            raise origin.error(key, f"a run named {name!r} is already defined; run names must be distinct")
        self.run_names.append(name)


class Step:
    """A pipeline step. Subclasses set ``kind`` (the TOML table name) and implement validate and run.

    ``validate(plan)`` checks everything that can be checked without doing the work (files exist,
    globs match, measures parse, callables import) and records what later steps need in ``plan``;
    ``run(context, progress)`` does the work and stores its results in the context.
    """

    kind: ClassVar[str] = ""

    def __init__(self, origin: Origin | None = None) -> None:
        self.origin = origin or Origin(key=self.kind)

    def error(self, key: str | None, message: str) -> PipelineDefinitionError:
        return self.origin.error(key, message)

    def validate(self, plan: Plan) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def run(self, context: PipelineContext, progress: Progress) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def options(self) -> dict[str, Any]:
        """The step's settings (for summary.json)."""
        return {}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.options().items())
        return f"{type(self).__name__}({args})"


def import_callable(spec: str, origin: Origin, key: str, path: str | None = None) -> Any:
    """Import ``"module:function"`` (``module.sub:obj.attr`` allowed); errors name the key and file."""

    if not isinstance(spec, str) or ":" not in spec:
        raise origin.error(key, f"expected \"module:function\", got {spec!r}")
    module_name, _, attr = spec.partition(":")
    if path is not None and path not in sys.path:
        sys.path.insert(0, path)
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise origin.error(key, f"cannot import module {module_name!r} of {spec!r}: {exc}") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise origin.error(key, f"module {module_name!r} has no attribute {attr!r}") from None
    if not callable(obj):
        raise origin.error(key, f"{spec!r} is not callable")
    return obj
