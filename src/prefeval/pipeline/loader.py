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

from prefeval.pipeline import aggregate_step, analyse, evaluation, report, sources  # noqa: F401  (define the steps)
from prefeval.pipeline.base import STEPS, Origin, Step, schema
from prefeval.pipeline.schema import PipelineDefinitionError, normalise

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["read", "apply_overrides", "parse_override", "steps_from_data"]

_ALIASES = {"out": ("report", "out")}


#: The deepest nesting of arrays and tables a definition may have (the schema needs 3: a table of arrays of tables).
MAX_DEPTH = 32


def check_depth(data: Any, file: str) -> None:
    """Refuse arrays or tables nested more than :data:`MAX_DEPTH` levels (walked without recursion), so that no later
    step (overrides, schema, the plan, JSON) recurses that deep."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise PipelineDefinitionError(file, None, f"arrays or tables nested more than {MAX_DEPTH} levels deep")
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


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
    except RecursionError:
        raise PipelineDefinitionError("--set", key, f"nested too deeply (at most {MAX_DEPTH} levels)") from None
    check_depth(value, "--set")
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
        tables = schema()
        if step not in tables:
            raise PipelineDefinitionError("--set", ".".join(parts), f"unknown step {step!r}; known steps: {', '.join(tables)}")
        table = tables[step]
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
    except RecursionError:  # arrays or inline tables nested thousands deep: the parser recurses per level
        raise PipelineDefinitionError(file, None, f"arrays or tables nested too deeply (a definition nests at most "
                                                  f"{MAX_DEPTH} levels)") from None
    except UnicodeDecodeError as exc:
        raise PipelineDefinitionError(file, None, f"not UTF-8 text (TOML files are UTF-8): {exc.reason} at byte "
                                                  f"{exc.start}") from None
    check_depth(data, file)
    data = apply_overrides(data, overrides, cwd)
    spec = normalise(data, file, schema())
    meta = spec.pop("pipeline", {})
    steps = steps_from_data(spec, file)
    name = meta.get("name") or Path(file).name.removesuffix(".toml")
    return steps, name, meta.get("description") or "", file


def steps_from_data(spec: dict[str, Any], file: str | None) -> list[Step]:
    """Step objects from normalised definition data (see :func:`prefeval.pipeline.schema.normalise`): each
    table is built by its step class (:meth:`Step.from_table`), in the order of the definition."""
    base = os.path.dirname(os.path.abspath(file)) if file else os.getcwd()
    steps: list[Step] = []
    for kind, values in spec.items():
        cls = STEPS[kind]
        tables = values if cls.TABLE.repeat else [values]
        for i, v in enumerate(tables):
            key = f"{kind}[{i}]" if len(tables) > 1 else kind
            steps.append(cls.from_table(v, Origin(file=file, key=key, base_dir=base)))
    return steps
