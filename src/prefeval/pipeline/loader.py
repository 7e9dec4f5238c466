"""Build a :class:`~prefeval.pipeline.runner.Pipeline` from a TOML definition, with ``--set`` overrides.

Paths in the file are relative to the file's folder; paths given in overrides are relative to the current
folder (what you typed on the command line). Override syntax: ``STEP.KEY=VALUE`` (``retrieve.N.KEY`` picks the
N-th ``[[retrieve]]`` table, N from 0; deeper parts address keys of table-valued settings, e.g.
``retrieve.options.k=100``), or ``STEP=VALUE`` for a step's main key (``runs`` -> ``runs.paths``, ``qrels`` ->
``qrels.source``, ``evaluate`` -> ``evaluate.measures``, ``compare`` -> ``compare.methods``, ``report``/``out``
-> ``report.out``, ``retrieve`` -> ``retrieve.callable``). VALUE is read as a TOML value when it parses as one
(``50``, ``true``, ``["AP", "RR"]``, ``'text'``) and as a plain string otherwise.
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prefeval.pipeline.aggregation import Aggregate
from prefeval.pipeline.analyse import Analyse
from prefeval.pipeline.base import Origin, Step
from prefeval.pipeline.evaluation import Compare, Evaluate
from prefeval.pipeline.report import Report
from prefeval.pipeline.schema import SCHEMA, PipelineDefinitionError, normalise
from prefeval.pipeline.sources import Qrels, Retrieve, Runs, Simulate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["read", "apply_overrides", "parse_override", "steps_from_data"]

_ALIASES = {"out": ("report", "out")}


def parse_override(text: str) -> tuple[list[str], Any, str]:
    """``"a.b=value"`` -> (["a", "b"], parsed value, raw value text)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise PipelineDefinitionError("--set", text, "expected KEY=VALUE (e.g. runs=path/to/runs or simulate.n_queries=50)")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key.split("."), value, raw


def _coerce(kind: str, value: Any, raw: str) -> Any:
    """Keep the typed text of string settings (``--set aggregate.baseline=2019`` is the run "2019")."""
    if kind in ("str", "str|list[str]", "file|list[str]") and not isinstance(value, (str, list)):
        return raw
    return value


def _resolve_override_path(key: str, value: Any, cwd: str) -> Any:
    def absolute(item: Any, must_exist: bool) -> Any:
        if not isinstance(item, str) or os.path.isabs(os.path.expanduser(item)) or item.startswith("irds:"):
            return item
        candidate = os.path.normpath(os.path.join(cwd, os.path.expanduser(item)))
        return candidate if (not must_exist or os.path.exists(candidate)) else item

    if isinstance(value, list):
        return [absolute(v, key != "paths") for v in value]
    return absolute(value, key != "paths")


def apply_overrides(data: dict[str, Any], overrides: Sequence[str], cwd: str | None = None) -> dict[str, Any]:
    """Apply ``--set`` overrides to raw definition data (a copy is returned)."""

    data = copy.deepcopy(data)
    cwd = cwd or os.getcwd()
    for text in overrides:
        parts, value, raw = parse_override(text)
        if len(parts) == 1 and parts[0] in _ALIASES:
            parts = list(_ALIASES[parts[0]])
        step = parts[0]
        if step not in SCHEMA:
            raise PipelineDefinitionError("--set", ".".join(parts), f"unknown step {step!r}; known steps: {', '.join(SCHEMA)}")
        table = SCHEMA[step]
        rest = parts[1:]
        target_tables: list[dict[str, Any]]
        if table.repeat:
            existing = data.get(step, [])
            existing = [existing] if isinstance(existing, dict) else list(existing)
            if rest and rest[0].isdigit():
                index = int(rest.pop(0))
                while len(existing) <= index:
                    existing.append({})
            elif len(existing) > 1:
                raise PipelineDefinitionError("--set", ".".join(parts), f"there are {len(existing)} [[{step}]] tables: "
                                              f"say which, e.g. {step}.0.{'.'.join(rest) or table.primary}")
            elif not existing:
                existing.append({})
                index = 0
            else:
                index = 0
            data[step] = existing
            target_tables = [existing[index]]
        else:
            current = data.setdefault(step, {})
            if not isinstance(current, dict):
                raise PipelineDefinitionError("--set", step, f"[{step}] is not a table in the definition")
            target_tables = [current]
        if not rest:
            if table.primary is None:
                raise PipelineDefinitionError("--set", step, f"say which key of [{step}] to set: "
                                              f"{', '.join(f'{step}.{k}' for k in table.keys)}")
            rest = [table.primary]
        key = rest[0]
        if key not in table.keys:
            raise PipelineDefinitionError("--set", ".".join(parts), f"[{step}] has no key {key!r}; "
                                          f"known keys: {', '.join(table.keys)}")
        spec = table.keys[key]
        if len(rest) > 1 and spec.kind != "table":
            raise PipelineDefinitionError("--set", ".".join(parts), f"{step}.{key} is not a table")
        value = _coerce(spec.kind, value, raw) if len(rest) == 1 else value
        if spec.path:
            value = _resolve_override_path(key, value, cwd)
        for target in target_tables:
            node = target
            for part in rest[:-1]:
                node = node.setdefault(part, {})
            node[rest[-1]] = value
    return data


def read(path: str | os.PathLike, overrides: Sequence[str] = (), cwd: str | None = None
         ) -> tuple[list[Step], str, str, str]:
    """Read, override, validate against the schema and build the steps defined in ``path``; returns
    ``(steps, name, description, file)`` (:func:`prefeval.pipeline.load` makes the pipeline).

    Schema errors (unknown step or key, wrong type) are raised here; the steps' own checks (files, globs,
    measures, callables) run in :meth:`Pipeline.validate`, which :meth:`Pipeline.run` calls before any work.
    """
    file = os.fspath(path)
    if not os.path.isfile(file):
        raise PipelineDefinitionError(file, None, "pipeline definition not found")
    try:
        with open(file, "rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise PipelineDefinitionError(file, None, f"invalid TOML: {exc}") from None
    data = apply_overrides(data, overrides, cwd)
    spec = normalise(data, file)
    meta = spec.pop("pipeline", {})
    steps = steps_from_data(spec, file)
    name = meta.get("name") or Path(file).name.removesuffix(".toml")
    return steps, name, meta.get("description") or "", file


def steps_from_data(spec: dict[str, Any], file: str | None) -> list[Step]:
    """Step objects from normalised definition data (see :func:`prefeval.pipeline.schema.normalise`)."""
    base = os.path.dirname(os.path.abspath(file)) if file else os.getcwd()
    steps: list[Step] = []
    for kind, values in spec.items():
        tables = values if SCHEMA[kind].repeat else [values]
        for i, v in enumerate(tables):
            key = f"{kind}[{i}]" if len(tables) > 1 else kind
            origin = Origin(file=file, key=key, base_dir=base)
            if kind == "qrels":
                steps.append(Qrels(v["source"], topics=v["topics"], rel=v["rel"], queries=v["queries"], origin=origin))
            elif kind == "simulate":
                params = {k: v[k] for k in v if k != "runs"}
                steps.append(Simulate(runs=v["runs"], origin=origin, **params))
            elif kind == "runs":
                steps.append(Runs(v["paths"], exclude=v["exclude"], origin=origin))
            elif kind == "retrieve":
                steps.append(Retrieve(v["callable"], name=v["name"], options=v["options"], path=v["path"],
                                      batch_size=v["batch_size"], origin=origin))
            elif kind == "evaluate":
                steps.append(Evaluate(v["measures"], rel=v["rel"], origin=origin))
            elif kind == "compare":
                steps.append(Compare(v["methods"], rel=v["rel"], origin=origin))
            elif kind == "aggregate":
                steps.append(Aggregate(rankings=v["rankings"], test=v["test"], metric_test=v["metric_test"],
                                       correction=v["correction"], alpha=v["alpha"], baseline=v["baseline"],
                                       origin=origin))
            elif kind == "analyse":
                steps.append(Analyse(v["analyses"], callables=v["callables"], options=v["options"], origin=origin))
            elif kind == "report":
                formats = v["formats"]
                explicit = formats != list(SCHEMA["report"].keys["formats"].default)
                steps.append(Report(v["out"], formats=formats if explicit else None, title=v["title"],
                                    digits=v["digits"], origin=origin))
    return steps
