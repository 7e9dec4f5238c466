"""Dependencies point one way and form no cycle; imports inside functions only defer heavy dependencies.

Layers, lowest first (a module may import its own layer and the layers below); each layer is a package:

0. ``prefeval.core`` -- kernels and formulas (numpy / scipy only), lazy imports; ``errors``, ``_version``
1. ``prefeval.methods`` -- the method declarations, their registry, measure names and the papers cited
2. ``prefeval.data`` -- the TREC reader, inputs in every form, rankings, aspects, simulated collections, ir_datasets
3. ``prefeval.engine`` -- compare and evaluate (in-process, and on a Dask cluster)
4. ``prefeval.integrations`` (ir-measures, PyTerrier, ranx, optional extras), ``prefeval.analysis``,
   ``prefeval.axioms``
5. ``prefeval.report`` -- rendering of results (text tables, Markdown, LaTeX, CSV, JSON, HTML) and the run x
   measure table
6. ``prefeval.pipeline``
7. ``prefeval.commands`` (the ``prefeval`` program) and ``__main__``
8. the package ``prefeval`` itself (its ``__init__`` gathers the public API)
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
LAYERS = [
    ("prefeval.errors", "prefeval._version", "prefeval.core"),
    ("prefeval.methods",),
    ("prefeval.data",),
    ("prefeval.engine",),
    ("prefeval.integrations", "prefeval.analysis", "prefeval.axioms"),
    ("prefeval.report",),
    ("prefeval.pipeline",),
    ("prefeval.commands", "prefeval.__main__"),
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in (SRC / "prefeval").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def layer(module: str) -> int:
    if module == "prefeval":
        return len(LAYERS)
    for rank, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{module} is in no layer; add it to LAYERS")


def _targets(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """prefeval modules an import statement loads (``from pkg import sub`` loads ``pkg.sub``)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in MODULES]
    base = module.split(".")
    if node.level:
        base = base[:len(base) - node.level + (1 if is_package else 0)]
        name = ".".join(base + ([node.module] if node.module else []))
    else:
        name = node.module or ""
    subs = [f"{name}.{a.name}" for a in node.names if f"{name}.{a.name}" in MODULES]
    return subs or ([name] if name in MODULES else [])


def imports() -> list[tuple[str, int, str, bool, str]]:
    """``(module, line, target, inside a function, comment text around the line)`` for every prefeval import,
    and ``(module, line, "", True, ...)`` for third-party imports inside functions."""
    found = []
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text)

        def visit(node: ast.AST, inside: bool, module: str = module, lines: list[str] = lines,
                  package: bool = path.name == "__init__.py") -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    start = child.lineno - 1  # the comment may head the block of imports this one is part of
                    while start > 0 and (not lines[start - 1].strip()
                                         or lines[start - 1].strip().startswith(("import ", "from ", "#"))):
                        start -= 1
                    note = " ".join(lines[start:child.end_lineno])
                    targets = _targets(child, module, package)
                    if inside and not targets:
                        found.append((module, child.lineno, "", True, note))
                    found.extend((module, child.lineno, t, inside, note) for t in targets if t != module)
                visit(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)), module, lines,
                      package)

        visit(tree, False)
    return found


IMPORTS = imports()


def test_dependencies_point_down():
    upward = [f"{m}:{line} imports {t}" for m, line, t, _, _ in IMPORTS if t and layer(t) > layer(m)]
    assert not upward, "\n".join(upward)


def test_no_import_cycles():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for m, _, t, _, _ in IMPORTS:
        if t:
            graph[m].add(t)
    # a package's __init__ runs before its submodules, so a submodule importing its own package is no cycle
    # only when the package does not import it back; check strongly connected components (Tarjan)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    assert not cycles, cycles


def test_imports_inside_functions_only_defer_heavy_dependencies():
    """An import inside a function says why with a comment containing "deferred"; a prefeval module is
    imported inside a function only by the command modules (to keep ``prefeval --help`` fast)."""
    bad = []
    for m, line, t, inside, note in IMPORTS:
        if not inside:
            continue
        if "deferred" not in note:
            bad.append(f"{m}:{line}: no '# deferred: why' comment")
        elif t and layer(m) < layer("prefeval.commands"):
            bad.append(f"{m}:{line}: imports {t} inside a function")
    assert not bad, "\n".join(bad)


#: the only references to a higher layer, each loaded on use (``lazy_module``): a result object's rendering, which
#: lives in the report layer (results apart from their rendering) and loads only when the result is rendered
RENDERING_HOOKS = {("prefeval.engine.comparison", "prefeval.report.comparison"),
                   ("prefeval.engine.table", "prefeval.report.run_table")}


def test_references_to_higher_layers_are_only_the_listed_rendering_hooks():
    import re

    found = set()
    for module, path in MODULES.items():
        for match in re.finditer(r"lazy_module\(\"(prefeval(?:\.\w+)*)\"\)", path.read_text(encoding="utf-8")):
            if layer(match.group(1)) > layer(module):
                found.add((module, match.group(1)))
    assert found <= RENDERING_HOOKS, sorted(found - RENDERING_HOOKS)
    assert all(target in MODULES for _, target in RENDERING_HOOKS)
