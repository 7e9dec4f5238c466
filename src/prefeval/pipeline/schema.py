"""The schema of pipeline definitions (``pipelines/*.toml``), and validation of raw TOML data against it.

A definition is a TOML document whose top-level tables are *steps* (plus the optional ``[pipeline]``
metadata table). Every key has a type, a default and a one-line description; docs/pipelines.md documents
the same schema (a test checks that every key here is documented there). Errors raise
:class:`PipelineDefinitionError` naming the file and the key, e.g.
``pipelines/x.toml: evaluate.measures[1]: unknown measure 'nDCG@x'``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from prefeval.core.aggregate import AGGREGATES, TIES
from prefeval.core.stats import CORRECTIONS, TESTS
from prefeval.errors import PrefevalError

__all__ = ["Key", "Table", "SCHEMA", "STEP_ORDER", "PipelineDefinitionError", "normalise", "where"]


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


_FORMATS = ("md", "csv", "json", "tex", "png")

SCHEMA: dict[str, Table] = {
    "pipeline": Table(doc="metadata (optional)", keys={
        "name": Key("str", None, "pipeline name (default: the file name without .toml)"),
        "description": Key("str", "", "one line shown at the top of the report"),
    }),
    "qrels": Table(doc="relevance judgments and topics", primary="source", conflicts=("simulate",), keys={
        "source": Key("str", None, "ir_datasets id (`irds:` prefix allowed) or a TREC qrels file", path=True),
        "topics": Key("str", None, "topics: an ir_datasets id or a file (`query_id<TAB>text` per line); "
                      "default: the dataset's topics when `source` is an id. Only read when a retrieve step needs it",
                      path=True),
        "rel": Key("int", 1, "minimum grade that counts as relevant (e.g. 2 for TREC DL binary measures)"),
        "queries": Key("file|list[str]", None, "evaluate only these query ids: a list, or a file with one id per "
                       "line (first whitespace-separated field)", path=True),
    }),
    "simulate": Table(doc="the built-in simulated collection (prefeval.simulate): qrels, topics and runs",
                      conflicts=("qrels",), keys={
        "n_queries": Key("int", 300, "number of queries", minimum=1),
        "n_runs": Key("int", 12, "number of runs of known quality", minimum=1),
        "depth": Key("int", 100, "documents returned per query", minimum=1),
        "n_docs": Key("int", 200, "candidate documents per query", minimum=1),
        "max_grade": Key("int", 3, "highest relevance grade", minimum=1),
        "relevant_beta": Key("list[float]", [1.0, 12.0], "Beta(a, b) of a query's share of relevant candidates"),
        "quality_range": Key("list[float]", [0.2, 1.2], "lowest and highest run quality"),
        "query_variation": Key("float", 0.5, "s.d. of a run's per-query quality around its quality", minimum=0),
        "noise": Key("float", 1.0, "standard deviation of the score noise", minimum=0),
        "label_noise": Key("float", 0.0, "probability that a judged label is redrawn at random", minimum=0),
        "judged_depth": Key("int|null", None, "pool depth (judge only the runs' top k); absent: judge everything",
                            minimum=1),
        "score_decimals": Key("int|null", None, "round scores to this many decimals (creates ties)", minimum=0),
        "seed": Key("int", 0, "random seed"),
        "runs": Key("bool", True, "use the simulated runs (false: only qrels and topics)"),
    }),
    "runs": Table(doc="run files", primary="paths", keys={
        "paths": Key("str|list[str]", [], "run files, folders (every *.run, *.trec, *.res, *.txt file, optionally "
                     ".gz) or glob patterns", path=True),
        "exclude": Key("str|list[str]", [], "glob patterns of file names to leave out (e.g. \"*.eval.gz\")"),
    }),
    "retrieve": Table(doc="a retrieval step: a Python callable that gets the topics DataFrame and returns a run",
                      repeat=True, primary="callable", keys={
        "name": Key("str", None, "run name (default: the function name)"),
        "callable": Key("str", None, "\"module:function\"; called as function(topics, **options)"),
        "options": Key("table", {}, "keyword arguments for the callable"),
        "path": Key("str", None, "folder added to sys.path before importing the module (relative to the file)",
                    path=True),
        "batch_size": Key("int|null", None, "pass the topics in batches of this many queries (default: all at once)",
                          minimum=1),
    }),
    "evaluate": Table(doc="metrics (ir-measures and prefeval measures)", primary="measures", keys={
        "measures": Key("str|list[str]", [], "measure names as ir-measures parses them, e.g. \"nDCG@10\", "
                        "\"AP(rel=2)\", \"RBU(p=0.8)@20\""),
        "rel": Key("int|null", None, "relevance threshold for binary measures (default: qrels.rel)"),
    }),
    "compare": Table(doc="pairwise preferences between all runs", primary="methods", keys={
        "methods": Key("str|list[str]", [], "preference methods (LexiRecall, LexiPrecision, "
                       "LexiPrecision(magnitude='rr'), RPP, RPP(weighting='dcg'), ...) or metrics"),
        "rel": Key("int|null", None, "relevance threshold (default: qrels.rel)"),
    }),
    "aggregate": Table(doc="rankings, significance tests and the baseline", keys={
        "rankings": Key("str|list[str]", ["mc4", "borda"], "rank aggregations for the preference methods "
                        "(metrics are always ranked by their mean)", choices=AGGREGATES),
        "ties": Key("str", "shared", "tie rule inside one query: shared (tied runs do not vote and share Borda "
                    "points) or pref_aggregate (ties broken by run name, descending, as the authors' tool)",
                    choices=TIES),
        "iterations": Key("int|null", None, "MC4 power-iteration steps from the all-ones vector (the authors' "
                          "tool: 10); null = run to convergence", minimum=0),
        "test": Key("str", "sign", "significance test for preferences", choices=TESTS),
        "metric_test": Key("str", "t", "paired significance test for metrics", choices=TESTS),
        "correction": Key("str", "holm", "multiple-testing correction", choices=CORRECTIONS),
        "alpha": Key("float", 0.05, "significance level", minimum=0),
        "baseline": Key("str", None, "the run others are tested against (default: the first run)"),
    }),
    "analyse": Table(doc="meta-evaluation hooks (prefeval.analysis or your own callables)", keys={
        "analyses": Key("str|list[str]", [], "names from prefeval.analysis.PIPELINE_ANALYSES: ties, agreement, power, "
                        "robustness, ..."),
        "callables": Key("str|list[str]", [], "extra \"module:function\" analyses, called as function(context, **options)"),
        "options": Key("table", {}, "keyword arguments passed to every analysis"),
    }),
    "report": Table(doc="output folder and formats", primary="out", keys={
        "out": Key("str", None, "output folder (relative to the current directory; default out/NAME)"),
        "formats": Key("str|list[str]", list(_FORMATS), "any of md, csv, json, tex, png", choices=_FORMATS),
        "title": Key("str", None, "report title (default: the pipeline name)"),
        "digits": Key("int", 4, "decimals in tables", minimum=0),
    }),
}

#: The order in which steps run, whatever their order in the file or list.
STEP_ORDER = ("qrels", "simulate", "runs", "retrieve", "evaluate", "compare", "aggregate", "analyse", "report")


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


def normalise(data: dict[str, Any], file: str | None = None) -> dict[str, Any]:
    """Check raw definition data against :data:`SCHEMA`; return it with defaults filled in.

    Repeating tables (``retrieve``) become lists of tables. Unknown steps, unknown keys, wrong types
    and values outside the allowed choices raise :class:`PipelineDefinitionError`.
    """
    out: dict[str, Any] = {}
    for name, raw in data.items():
        if name not in SCHEMA:
            raise PipelineDefinitionError(file, name, f"unknown step [{name}]{_suggest(name, SCHEMA)}; "
                                          f"known steps: {', '.join(SCHEMA)}")
        table = SCHEMA[name]
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
        for other in SCHEMA[name].conflicts:
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
