"""The schema of pipeline definitions (``pipelines/*.toml``), and validation of raw TOML data against it.

A definition is a TOML document whose top-level tables are *steps* (plus the optional ``[pipeline]``
metadata table). Each step class declares its table (``Step.TABLE``): every key has a type, a default and a
one-line description; docs/pipelines.md documents the same schema (a test checks that every declared key is
documented there). Errors raise
:class:`PipelineDefinitionError` naming the file and the key, e.g.
``pipelines/x.toml: evaluate.measures[1]: unknown measure 'nDCG@x'``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from prefeval.errors import PrefevalError

__all__ = ["Key", "Table", "PIPELINE", "PipelineDefinitionError", "normalise", "where"]


class PipelineDefinitionError(PrefevalError):
    """A pipeline definition is malformed; ``file`` and ``key`` say where."""

    def __init__(self, file: str | None, key: str | None, message: str) -> None:
        self.file, self.key = file, key
        super().__init__(f"{where(file, key)}: {message}")


def where(file: str | None, key: str | None) -> str:
    """``file: key`` (either part may be missing) for error messages."""
    parts = [file or "pipeline definition"]
    if key:
        parts.append(key)
    return ": ".join(parts)


@dataclass(frozen=True)
class Key:
    """One key of a step table.

    ``kind``: ``str``, ``int``, ``float``, ``bool``, ``list[str]``, ``list[float]``, ``table`` (free-form),
    ``str|list[str]`` (a single string is wrapped in a list), ``file|list[str]`` (a file name or a list),
    ``int|null`` (an int, or "none"/absent).
    ``path``: the value names files, resolved relative to the definition file (overrides given on the
    command line: relative to the current directory).
    """

    kind: str
    default: Any = None
    doc: str = ""
    choices: tuple[Any, ...] | None = None
    path: bool = False
    minimum: float | None = None


@dataclass(frozen=True)
class Table:
    """A step table: its keys, whether it may repeat (``[[retrieve]]``) and its documentation."""

    keys: dict[str, Key]
    doc: str = ""
    repeat: bool = False
    primary: str | None = None   # the key set by ``--set STEP=VALUE``
    conflicts: tuple[str, ...] = field(default_factory=tuple)


#: the ``[pipeline]`` metadata table (the steps declare their own tables: ``Step.TABLE``)
PIPELINE = Table(doc="metadata (optional)", keys={
    "name": Key("str", None, "pipeline name (default: the file name without .toml)"),
    "description": Key("str", "", "one line shown at the top of the report"),
})


def _suggest(name: str, known: Any) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_value(key: Key, value: Any, file: str | None, dotted: str) -> Any:
    def fail(message: str) -> None:
        raise PipelineDefinitionError(file, dotted, message)

    kind = key.kind
    if kind == "int|null":
        if value is None or (isinstance(value, str) and value.lower() in ("none", "null", "")):
            return None
        kind = "int"
    if kind == "str":
        if not isinstance(value, str):
            fail(f"expected a string, got {value!r}")
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            fail(f"expected an integer, got {value!r}")
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            fail(f"expected a number, got {value!r}")
        value = float(value)
    elif kind == "bool":
        if not isinstance(value, bool):
            fail(f"expected true or false, got {value!r}")
    elif kind == "table":
        if not isinstance(value, dict):
            fail(f"expected a table (e.g. {{ k = 10 }}), got {value!r}")
    elif kind == "list[float]":
        if not isinstance(value, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                   for v in value):
            fail(f"expected a list of numbers, got {value!r}")
        value = [float(v) for v in value]
    elif kind == "file|list[str]" and isinstance(value, str):
        pass
    elif kind in ("list[str]", "str|list[str]", "file|list[str]"):
        if isinstance(value, str) and kind == "str|list[str]":
            value = [value]
        if not isinstance(value, list):
            fail(f"expected a list of strings, got {value!r}")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise PipelineDefinitionError(file, f"{dotted}[{i}]", f"expected a string, got {item!r}")
    else:  # pragma: no cover - schema error
        raise AssertionError(kind)
    if key.minimum is not None and isinstance(value, (int, float)) and value < key.minimum:
        fail(f"must be >= {key.minimum:g}, got {value!r}")
    if key.choices is not None:
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if item not in key.choices:
                label = f"{dotted}[{i}]" if isinstance(value, list) else dotted
                raise PipelineDefinitionError(file, label, f"{item!r} is not one of {list(key.choices)}"
                                              + _suggest(str(item), key.choices))
    return value


def normalise(data: dict[str, Any], file: str | None, schema: dict[str, Table]) -> dict[str, Any]:
    """Check raw definition data against ``schema`` (table name -> :class:`Table`, e.g.
    :func:`prefeval.pipeline.base.schema`); return it with defaults filled in.

    Repeating tables (``retrieve``) become lists of tables. Unknown steps, unknown keys, wrong types
    and values outside the allowed choices raise :class:`PipelineDefinitionError`.
    """
    out: dict[str, Any] = {}
    for name, raw in data.items():
        if name not in schema:
            raise PipelineDefinitionError(file, name, f"unknown step [{name}]{_suggest(name, schema)}; "
                                          f"known steps: {', '.join(schema)}")
        table = schema[name]
        if table.repeat and isinstance(raw, dict):
            raw = [raw]
        if table.repeat:
            if not isinstance(raw, list):
                raise PipelineDefinitionError(file, name, "expected a table ([name]) or an array of tables ([[name]])")
            out[name] = [_table(table, item, file, f"{name}[{i}]" if len(raw) > 1 else name)
                         for i, item in enumerate(raw)]
        else:
            if not isinstance(raw, dict):
                raise PipelineDefinitionError(file, name, f"expected a table [{name}], got {raw!r}")
            out[name] = _table(table, raw, file, name)
    for name in out:
        for other in schema[name].conflicts:
            if other in out:
                raise PipelineDefinitionError(file, other, f"[{name}] and [{other}] cannot be used together")
    return out


def _table(table: Table, raw: Any, file: str | None, prefix: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise PipelineDefinitionError(file, prefix, f"expected a table, got {raw!r}")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in table.keys:
            raise PipelineDefinitionError(file, f"{prefix}.{key}", f"unknown key{_suggest(key, table.keys)}; "
                                          f"known keys: {', '.join(table.keys)}")
        values[key] = _check_value(table.keys[key], value, file, f"{prefix}.{key}")
    for key, spec in table.keys.items():
        if key not in values:
            default = spec.default
            values[key] = list(default) if isinstance(default, list) else (
                dict(default) if isinstance(default, dict) else default)
    return values
