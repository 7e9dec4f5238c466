"""The unit run imports only what its tests use: test modules import PyTerrier, Dask, ranx and matplotlib inside
the tests or fixtures that need them, never at module level, where every xdist worker would pay for them while
collecting (PyTerrier with IPython about 0.6 s of CPU, distributed about 0.5 s) although only integration
tests use them."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
HEAVY = ("pyterrier", "distributed", "dask", "ranx", "matplotlib", "IPython", "numba")


def _module_level_imports(path: Path) -> list[str]:
    """``file:line: module`` for each heavy module imported (or importorskip-ed) when ``path`` is imported."""
    text = path.read_text(encoding="utf-8")
    if not any(name in text for name in HEAVY):
        return []
    statements = list(ast.parse(text).body)
    found = []
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.If, ast.Try)):  # module-level blocks run at import too
            statements += [*node.body, *node.orelse, *getattr(node, "finalbody", []),
                           *(s for h in getattr(node, "handlers", []) for s in h.body)]
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        elif isinstance(node, (ast.Expr, ast.Assign)) and isinstance(node.value, ast.Call):
            call = node.value
            if getattr(call.func, "attr", "") == "importorskip" and call.args and isinstance(call.args[0], ast.Constant):
                names = [str(call.args[0].value)]
        found += [f"{path.name}:{node.lineno}: {n}" for n in names if n.split(".")[0] in HEAVY]
    return sorted(found)


def test_test_modules_import_heavy_packages_only_where_used():
    offenders = [line for path in sorted(TESTS.glob("*.py")) for line in _module_level_imports(path)]
    assert not offenders, "heavy imports at module level (move them into the tests/fixtures):\n" + "\n".join(offenders)


def test_the_import_check_finds_module_level_imports(tmp_path):
    bad = tmp_path / "test_bad.py"
    bad.write_text('import pytest\nimport dask.dataframe as dd\npt = pytest.importorskip("pyterrier")\n'
                   'try:\n    from matplotlib import pyplot\nexcept ImportError:\n    pass\n\n\n'
                   'def test_fine():\n    import ranx\n    pytest.importorskip("distributed")\n')
    assert _module_level_imports(bad) == ["test_bad.py:2: dask.dataframe", "test_bad.py:3: pyterrier",
                                          "test_bad.py:5: matplotlib"]
