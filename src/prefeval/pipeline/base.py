"""Step base class, where a step came from (for error messages), and the validation plan."""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from prefeval.errors import PrefevalError
from prefeval.pipeline.schema import PIPELINE, PipelineDefinitionError, Table

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
    _known_runs: set[str] = field(default_factory=set, repr=False)

    def add_run(self, name: str, origin: Origin, key: str | None) -> None:
        if len(self._known_runs) != len(self.run_names):  # run_names was set directly
            self._known_runs = set(self.run_names)
        if name in self._known_runs:  # a set: adding n runs takes linear time, not quadratic
            raise origin.error(key, f"a run named {name!r} is already defined; run names must be distinct")
        self.run_names.append(name)
        self._known_runs.add(name)


class Step:
    """A pipeline step. A subclass declares ``kind`` (the TOML table name), its ``TABLE`` (keys with type,
    default and description, :class:`~prefeval.pipeline.schema.Table`), what it ``NEEDS`` from earlier steps
    and what it ``PROVIDES`` to later ones (names such as ``"qrels"``, ``"runs"``, ``"per_query"``), and
    whether it may appear more than once (``SINGLE``); defining the subclass registers it in :data:`STEPS`.

    ``validate(plan)`` checks everything that can be checked without doing the work (files exist,
    globs match, measures parse, callables import) and records what later steps need in ``plan``;
    ``run(context, progress)`` does the work and stores its results in the context.
    """

    kind: ClassVar[str] = ""
    TABLE: ClassVar[Table | None] = None
    NEEDS: ClassVar[frozenset[str]] = frozenset()
    PROVIDES: ClassVar[frozenset[str]] = frozenset()
    SINGLE: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.TABLE is None or not cls.kind:
            return
        known = STEPS.get(cls.kind)
        if known is not None and (known.__module__, known.__qualname__) != (cls.__module__, cls.__qualname__):
            raise PrefevalError(f"pipeline step [{cls.kind}] is already defined by {known.__qualname__}")
        STEPS[cls.kind] = cls

    def __init__(self, origin: Origin | None = None) -> None:
        self.origin = origin or Origin(key=self.kind)

    @classmethod
    def from_table(cls, values: dict[str, Any], origin: Origin) -> Step:
        """The step built from its normalised table (every declared key present): by default each key is the
        constructor argument of the same name."""
        return cls(**values, origin=origin)

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


STEPS: dict[str, type[Step]] = {}
"""Step classes by table name, in the order they were defined."""


def _sorted(items: list[Any], needs: Any, provides: Any, rank: Any) -> list[Any]:
    """Stable topological sort: each item after every pending item that provides something it needs; among
    the items ready to go, the one with the lowest ``rank`` first."""
    pending, done = list(items), []
    while pending:
        waiting = {name for item in pending for name in provides(item)}
        ready = [item for item in pending if not (needs(item) & (waiting - provides(item)))]
        if not ready:
            raise PrefevalError("pipeline steps need each other in a cycle: "
                                + ", ".join(f"{getattr(i, '__name__', type(i).__name__)} needs {sorted(needs(i))}"
                                            for i in pending))
        first = min(ready, key=rank)
        done.append(first)
        pending.remove(first)
    return done


def step_classes() -> list[type[Step]]:
    """The registered step classes, each after the steps providing what it needs (otherwise in the order
    they were defined): the order in which steps run."""
    defined = list(STEPS.values())
    return _sorted(defined, lambda c: c.NEEDS, lambda c: c.PROVIDES, defined.index)


def schema() -> dict[str, Table]:
    """The tables a definition may hold: ``[pipeline]`` and every registered step's, in running order."""
    return {"pipeline": PIPELINE, **{cls.kind: cls.TABLE for cls in step_classes()}}


def order(steps: list[Step]) -> list[Step]:
    """``steps`` in running order: each after every step that provides something it needs; otherwise in the
    order of :func:`step_classes`, then as given."""
    kinds = [cls.kind for cls in step_classes()]
    index = {id(step): i for i, step in enumerate(steps)}
    return _sorted(list(steps), lambda s: s.NEEDS, lambda s: s.PROVIDES,
                   lambda s: (kinds.index(s.kind) if s.kind in kinds else len(kinds), index[id(s)]))


_DEFERRED = contextvars.ContextVar("prefeval_imports_deferred", default=False)


@contextlib.contextmanager
def imports_deferred() -> Iterator[None]:
    """Within the block, :func:`import_callable` only checks (``prefeval run --check``): it validates the
    ``"module:function"`` syntax and finds the top-level module with :func:`importlib.util.find_spec`,
    without importing it, so none of the pipeline's own code runs."""
    token = _DEFERRED.set(True)
    try:
        yield
    finally:
        _DEFERRED.reset(token)


def _not_imported(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("this callable was only checked (imports_deferred), not imported")


def import_callable(spec: str, origin: Origin, key: str, path: str | None = None) -> Any:
    """Import ``"module:function"`` (``module.sub:obj.attr`` allowed); errors name the key and file.

    Inside :func:`imports_deferred` nothing is imported: the syntax is checked, the top-level module found,
    and a placeholder returned."""

    if not isinstance(spec, str) or ":" not in spec:
        raise origin.error(key, f"expected \"module:function\", got {spec!r}")
    module_name, _, attr = spec.partition(":")
    names = module_name.split(".") + attr.split(".")
    if not all(part.isidentifier() for part in names):
        raise origin.error(key, f"expected \"module:function\" (Python names separated by dots), got {spec!r}")
    if _DEFERRED.get():
        top = module_name.split(".")[0]
        found = top in sys.modules or importlib.machinery.PathFinder.find_spec(
            top, ([path] if path else []) + sys.path) is not None or importlib.util.find_spec(top) is not None
        if not found:
            raise origin.error(key, f"cannot find module {top!r} of {spec!r} (not imported: --check runs no code)")
        return _not_imported
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
