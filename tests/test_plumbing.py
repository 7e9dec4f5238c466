"""Simple plumbing: no private API of a dependency and no import hook in ``src/``; prefeval's measures reach
ir-measures through prefeval's own modules, never through state another import left behind.

The private names are those prefeval once used: pyarrow's compiled compute module, ir-measures' sentinel for a
parameter not given, argparse's list of actions and its sub-parsers action. ir_datasets has no public way to list
the files behind a dataset without opening them, so its internals are read in one shim,
``prefeval.data.datasets.files.internal`` (whose docstring says why), and nowhere else: every private attribute
ir_datasets' installed source defines is looked for in ``src/``. No module assigns to an attribute of a class or
module it imports from another package (a patch of a dependency). One route to the standard providers: only the one
evaluation function (``prefeval.engine.values``) calls ir-measures' evaluation functions.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "prefeval"
FILES = {path.relative_to(SRC).as_posix(): path.read_text(encoding="utf-8") for path in sorted(SRC.rglob("*.py"))}

PRIVATE = {
    "pyarrow._compute": r"pyarrow\._compute",
    "ir_measures' _NOT_PROVIDED": r"\b_NOT_PROVIDED\b",
    "argparse's _SubParsersAction": r"\b_SubParsersAction\b",
    "argparse's _actions": r"\._actions\b",
    "argparse's HelpFormatter._fill_text": r"\b_fill_text\b",
    # calling an ir-measures evaluator's _iter_calc (a provider implements it; prefeval's provider does)
    "ir-measures' Evaluator._iter_calc": r"\._iter_calc\(|[\"']_iter_calc[\"']",
}
#: the module of the one shim that reads ir_datasets' private attributes, and the shim's names in it
IR_DATASETS_SHIM = "data/datasets/files.py"
SHIM_NAMES = {"internal", "PRIVATE_API"}


@pytest.mark.parametrize("what", sorted(PRIVATE))
def test_no_private_api_of_a_dependency(what):
    found = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for name, text in FILES.items()
             for m in re.finditer(PRIVATE[what], text)]
    assert not found, f"{what} used in {found}"


def ir_datasets_private_names() -> set[str]:
    """The private attributes, methods and class attributes (``_name``, not ``__dunder__``) ir_datasets' installed
    source defines."""
    ir_datasets = pytest.importorskip("ir_datasets")
    names = set()
    for path in Path(ir_datasets.__file__).parent.rglob("*.py"):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name) and node.value.id == "self"):
                names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.add(item.name)
                    elif isinstance(item, ast.Assign):
                        names.update(t.id for t in item.targets if isinstance(t, ast.Name))
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def own_names(sources: dict[str, str]) -> set[str]:
    """The attributes prefeval defines itself (``self.x = ...`` and class bodies): an access to one of them is not
    one to ir_datasets, even when ir_datasets happens to use the same name."""
    names = set()
    for text in sources.values():
        for node in ast.walk(ast.parse(text)):
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.add(item.name)
                    elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def private_reads(sources: dict[str, str], private: set[str]) -> list[str]:
    """Where ``sources`` name one of ``private`` -- as ``obj._name`` (``obj`` not ``self``/``cls``) or as the string
    ``"_name"`` (``getattr``, ``vars(obj)[...]``) -- outside the shim's names in the shim module."""
    private = private - own_names(sources)
    found = []
    for name, text in sources.items():
        tree = ast.parse(text)
        allowed: set[int] = set()
        if name == IR_DATASETS_SHIM:
            for node in tree.body:
                targets = [node.name] if isinstance(node, (ast.ClassDef, ast.FunctionDef)) else [
                    t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
                if SHIM_NAMES & set(targets):
                    allowed.update(range(node.lineno, node.end_lineno + 1))
        in_fstrings = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                hit = node.attr
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in private
                  and id(node) not in in_fstrings):
                hit = node.value
            else:
                continue
            if node.lineno not in allowed:
                found.append(f"{name}:{node.lineno}: {hit}")
    return found


def test_ir_datasets_internals_are_read_in_one_shim():
    private = ir_datasets_private_names()
    assert {"_wrapped", "_cache_path", "_path", "_stream"} <= private  # the source was read
    assert not private_reads(FILES, private)
    shim = FILES[IR_DATASETS_SHIM]
    assert "class internal:" in shim and "no public way" in shim


def test_a_private_read_outside_the_shim_is_found():
    private = ir_datasets_private_names()
    sources = {"data/other.py": "def f(download):\n    return download._cache_path, getattr(download, '_stream')\n",
               IR_DATASETS_SHIM: "class internal:\n    x = vars(d)['_wrapped']\n\ny = vars(d)['_version']\n"}
    assert private_reads(sources, private) == ["data/other.py:2: _cache_path", "data/other.py:2: _stream",
                                              f"{IR_DATASETS_SHIM}:4: _version"]


def imported_roots(tree: ast.AST) -> set[str]:
    """Names bound to another package's modules or objects: imports (not prefeval's, not relative), names assigned
    a plain attribute chain of one (``Download = ir_datasets.util.Download``) and names assigned the result of a
    function returning a module (``*_module()``, ``import_module(...)``)."""
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update((a.asname or a.name).split(".")[0] for a in node.names if not a.name.startswith("prefeval"))
        elif isinstance(node, ast.ImportFrom) and not node.level and not (node.module or "").startswith("prefeval"):
            roots.update(a.asname or a.name for a in node.names)
    changed = True
    while changed:
        changed = False
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if node.targets[0].id not in roots and _rooted(node.value, roots):
                    roots.add(node.targets[0].id)
                    changed = True
    return roots


def _rooted(node: ast.expr, roots: set[str]) -> bool:
    """``node`` is an attribute chain from one of ``roots`` or from a call of a function returning a module."""
    while isinstance(node, ast.Attribute):
        node = node.value
    if isinstance(node, ast.Call):
        func = node.func
        callee = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return callee.endswith("_module")
    return isinstance(node, ast.Name) and node.id in roots


#: module attributes the standard library documents as the ones to replace (the streams; ``warnings.showwarning``
#: inside ``warnings.catch_warnings``)
REPLACEABLE = {"sys.stdout", "sys.stderr", "warnings.showwarning"}


def dependency_patches(sources: dict[str, str]) -> list[str]:
    """Assignments (``x.attr = ...``, ``setattr(x, ...)``, ``del x.attr``) to an attribute of something imported
    from another package (a module or a class; the standard library included, but for :data:`REPLACEABLE`)."""
    found = []
    for name, text in sources.items():
        tree = ast.parse(text)
        roots = imported_roots(tree)
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = [e for t in node.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            elif (isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("setattr", "delattr")
                  and node.args):
                targets = [ast.Attribute(value=node.args[0], attr="?")]
            for target in targets:
                if (isinstance(target, ast.Attribute) and _rooted(target.value, roots)
                        and ast.unparse(target) not in REPLACEABLE):
                    found.append(f"{name}:{node.lineno}: {ast.unparse(target)}")
    return found


def test_no_module_patches_a_dependency():
    assert not dependency_patches(FILES)


def test_a_patch_of_a_dependency_is_found():
    sources = {"a.py": "import socket\nsocket.getaddrinfo = None\n",
               "b.py": ("def f():\n    Download = ir_datasets_module().util.Download\n"
                        "    Download.path, Download.stream = 1, 2\n"),
               "c.py": "from argparse import HelpFormatter\nsetattr(HelpFormatter, '_fill_text', None)\n",
               "d.py": "import argparse\nparser = argparse.ArgumentParser()\nparser.prog = 'x'\n"}
    assert dependency_patches(sources) == ["a.py:2: socket.getaddrinfo", "b.py:3: Download.path",
                                           "b.py:3: Download.stream", "c.py:2: HelpFormatter.?"]


#: ir-measures' evaluation functions (the module's and an evaluator's), and the modules that may call them: the one
#: evaluation function, and prefeval's provider (which implements an evaluator for prefeval's own measures)
EVALUATION_CALLS = {"iter_calc", "calc_aggregate", "evaluator", "iter_calc_ranked", "calc"}
EVALUATION_MODULES = {"engine/values.py", "engine/provider.py"}


def evaluation_calls(sources: dict[str, str]) -> list[str]:
    """Calls of ir-measures' evaluation functions: ``x.iter_calc(...)``, ``x.calc_aggregate(...)``,
    ``x.evaluator(...)``, ``x.iter_calc_ranked(...)``, ``ir_measures.calc(...)`` and the same names imported bare."""
    found = []
    for name, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute):
                called = func.attr
                if called == "calc" and not (isinstance(func.value, ast.Name) and func.value.id == "ir_measures"):
                    continue
            elif isinstance(func, ast.Name):
                called = func.id
            else:
                continue
            if called in EVALUATION_CALLS:
                found.append(f"{name}:{node.lineno}: {called}")
    return found


def test_only_the_evaluation_function_calls_ir_measures():
    """One route to the standard providers: every measure's values come from :mod:`prefeval.engine.values`."""
    calls = evaluation_calls(FILES)
    modules = {c.split(":")[0] for c in calls}
    assert "engine/values.py" in modules and modules <= EVALUATION_MODULES, calls


def test_an_evaluation_call_elsewhere_is_found():
    sources = {"axioms/x.py": "import ir_measures\nv = list(ir_measures.iter_calc([m], qrels, run))\n",
               "report/y.py": "from ir_measures import calc_aggregate\nv = calc_aggregate([m], q, r)\n",
               "engine/z.py": "e = ir_measures.evaluator([m], q)\nw = ir_measures.calc([m], q, r)\nx = y.calc()\n"}
    assert evaluation_calls(sources) == ["axioms/x.py:2: iter_calc", "report/y.py:2: calc_aggregate",
                                         "engine/z.py:1: evaluator", "engine/z.py:2: calc"]


#: strings that build a table or a figure: LaTeX environments and rules, HTML tables, SVG, Markdown table rules
TABLE_STRINGS = ("\\begin{", "\\toprule", "<table", "<svg", ":---", "|---", "---:")


def test_tables_and_figures_are_written_in_report_only():
    """All rendering is in ``prefeval.report``: no other module holds a string that builds a table or an SVG."""
    found = [f"{name}: {string}" for name, text in FILES.items() if not name.startswith("report/")
             for string in TABLE_STRINGS if string in text]
    assert not found, found
    written = ("\\begin{", "\\toprule", "<table", "<svg", "---:")  # what the writers of report/ hold
    assert all(any(string in text for name, text in FILES.items() if name.startswith("report/")) for string in written)


def test_no_import_hook():
    found = [name for name, text in FILES.items() if "meta_path" in text or "path_hooks" in text]
    assert not found, found


def test_measure_text_is_parsed_by_prefeval_s_own_module():
    """``ir_measures.parse_measure`` knows prefeval's measures only once they are registered: prefeval calls it in
    :func:`prefeval.methods.measures.parse_measure` alone, whose module registers them."""
    calls = {name for name, text in FILES.items()
             if re.search(r"^[^#`]*(?<![`\w.])ir_measures\.parse_measure\(", text, flags=re.M)}
    assert calls == {"methods/measures.py"}, calls


def test_the_test_can_fail(tmp_path):
    assert re.search(PRIVATE["pyarrow._compute"], "from pyarrow._compute import call_function")
    assert re.search(PRIVATE["argparse's _actions"], "parser._actions")
    assert any(string in 'lines = ["\\\\begin{table}"]' for string in TABLE_STRINGS)


def test_dir_lists_the_names_loaded_on_first_access():
    import prefeval

    assert {"table", "RunTable", "RBU", "Pipeline", "read_run", "simulate", "datasets", "report", "engine",
            "compare", "evaluate"} <= set(dir(prefeval))
    assert {"tie_rates", "kendall_tau", "unanimity", "ties"} <= set(dir(prefeval.analysis))  # names and modules
    assert {"simulate", "trec", "datasets"} <= set(dir(prefeval.data))
    assert set(prefeval.__all__) <= set(dir(prefeval))
