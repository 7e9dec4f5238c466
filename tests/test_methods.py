"""The method registry: declarations, name resolution, the README table, no name dispatch outside it, and
adding a method at runtime (one kernel + one declaration file) that compare, evaluate and ir-measures use."""

from __future__ import annotations

import ast
import importlib.util
import sys
import textwrap
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval import methods
from prefeval.errors import PrefevalError
from prefeval.methods.registry import Declaration, canonical_text, parse
from prefeval.report.reference import measure_table as markdown_table

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src" / "prefeval"
BUILTIN = ("RBU", "TSE", "LexiRecall", "LexiPrecision", "RPP")


def test_builtin_declarations_are_complete():
    assert [d.name for d in methods.declarations()][:5] == list(BUILTIN)
    for d in methods.declarations():
        # a DOI, or pages where none could be verified from the citing paper's reference list
        assert (d.citation.doi or "pp." in d.citation.venue) and d.citation.year and d.where
        assert "rel" in d.params
        for name, p in d.params.items():
            assert p.desc, (d.name, name)
            assert p.validate(name, p.default) == p.default
    assert methods.get("RBU").kind == "metric" and methods.get("RBU").aspects
    assert {d.name for d in methods.declarations("preference")} >= {"LexiRecall", "LexiPrecision", "RPP"}
    assert methods.get("TSE").position_based and not methods.get("RBU").position_based
    assert methods.get("LexiRecall").reference == "Diaz & Mitra (2023) §5.2, Eq. 11"


def test_duplicates_are_refused_and_unknown_names_get_suggestions():
    lexirecall = methods.get("LexiRecall")
    with pytest.raises(PrefevalError, match="already name a registered method"):
        methods.register(lexirecall)
    twin = Declaration(name="Other", kind="preference", summary="", citation=lexirecall.citation, where="",
                       params=lexirecall.params, aliases=("LR",), kernel=lexirecall.kernel)
    with pytest.raises(PrefevalError, match="'lr'"):
        methods.register(twin)
    assert "Other" not in methods.REGISTRY
    with pytest.raises(PrefevalError, match="did you mean LexiRecall"):
        methods.resolve("LexiRecal")
    with pytest.raises(PrefevalError, match="declare its kernel"):
        Declaration(name="X", kind="metric", summary="", citation=lexirecall.citation, where="",
                    params=lexirecall.params)


def test_aliases_and_parameters():
    assert canonical_text("rrLP@10") == "LexiPrecision(magnitude='rr')@10"
    assert canonical_text("lexirecall") == "LexiRecall"
    assert canonical_text("nDCG@10") == "nDCG@10"
    decl, params = parse("RBU(p=0.5, variant='evall')@5")
    assert decl.name == "RBU" and params == {"p": 0.5, "e": 0.03, "rel": 1, "variant": "evall",
                                    "judged_only": False, "cutoff": 5}
    with pytest.raises(PrefevalError, match="weighting='cubic' is not one of"):
        parse("RPP(weighting='cubic')")
    assert parse("nDCG@10") is None


def test_measure_reference_table_is_the_registry():
    page = (REPO / "docs" / "guide" / "measures.md").read_text(encoding="utf-8")
    assert markdown_table() in page


_NAMES = set(BUILTIN)


def _dispatch_literals(path: Path, root: Path = REPO) -> list[str]:
    """String literals naming a method where code branches on them: comparisons, dict keys, subscripts and
    module-level name tables."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def named(node: ast.AST) -> list[ast.Constant]:
        if isinstance(node, ast.Constant) and node.value in _NAMES:
            return [node]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [e for e in node.elts if isinstance(e, ast.Constant) and e.value in _NAMES]
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("frozenset", "set", "tuple"):
            return [c for a in node.args for c in named(a)]
        return []

    for node in ast.walk(tree):
        hits: list[ast.Constant] = []
        if isinstance(node, ast.Compare):
            hits = [c for part in (node.left, *node.comparators) for c in named(part)]
        elif isinstance(node, ast.Dict):
            hits = [c for k in node.keys if k is not None for c in named(k)]
        elif isinstance(node, ast.Subscript):
            hits = named(node.slice)
        elif isinstance(node, ast.Assign) and node in tree.body:
            if not any(getattr(t, "id", "") == "__all__" for t in node.targets):
                hits = named(node.value)
        found += [f"{path.relative_to(root)}:{c.lineno}: {c.value!r}" for c in hits]
    return found


def test_no_method_name_dispatch_outside_the_registry():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path.parent.name == "methods":
            continue
        offenders += _dispatch_literals(path)
    assert not offenders, "dispatch on method names outside prefeval.methods:\n" + "\n".join(offenders)


def test_the_dispatch_check_finds_dispatch(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""Docstring: LexiRecall."""\nNAMES = ("LexiRecall", "RPP")\n\n\ndef f(m):\n'
                   '    return m.NAME == "RBU" or {"TSE": 1}[m] or m["RPP"]\n')
    found = sorted(_dispatch_literals(bad, tmp_path), key=lambda s: (int(s.split(":")[1]), s))
    assert [line.split(": ", 1)[1] for line in found] == ["'LexiRecall'", "'RPP'", "'RBU'", "'RPP'", "'TSE'"]


# ----------------------------------------------------------------------------------------------
# adding a method: one kernel + one declaration file (written to a temporary module here)

EXAMPLE = '''
"""Two example methods, as a new paper would add them."""
import numpy as np

from prefeval.core.positions import position_vectors
from prefeval.methods.registry import REL, Declaration, Param, register
from prefeval.methods.references import PAPERS


def first_relevant(A, B):
    """+1 when ranking A puts its first relevant document higher than B, -1 lower, 0 for a tie."""
    a, b = A[..., 0], B[..., 0]
    with np.errstate(invalid="ignore"):  # inf - inf: both retrieved nothing, a tie
        return np.where(a == b, 0.0, np.sign(b - a))


PREFERENCE = register(Declaration(
    name="ExampleFirst", kind="preference", summary="sign of the first relevant position difference",
    citation=PAPERS["diaz-2023"], where="§3", params={"rel": REL},
    kernel=lambda queries, params: [first_relevant(position_vectors(q.doc_pos)[:, None, :],
                                                   position_vectors(q.doc_pos)[None, :, :]) for q in queries],
    position_based=True,
))


def relevant_retrieved(rankings, params):
    """Number of relevant documents in each ranking, times ``scale``."""
    found = (rankings.grades.max(axis=2) > 0) & (np.arange(rankings.grades.shape[1]) < rankings.length[:, None])
    return params["scale"] * found.sum(axis=1)


METRIC = register(Declaration(
    name="ExampleRelRet", kind="metric", summary="relevant documents retrieved",
    citation=PAPERS["amigo-2018"], where="§3", params={"rel": REL, "scale": Param(float, 1.0, "a factor")},
    kernel=relevant_retrieved,
))
'''

QRELS = pd.DataFrame({"query_id": ["1"] * 3 + ["2"] * 2, "doc_id": ["a", "b", "c", "a", "d"],
                      "relevance": [1, 2, 0, 1, 1]})
RUNS = {
    "x": pd.DataFrame({"query_id": ["1", "1", "1", "2", "2"], "doc_id": ["c", "a", "b", "d", "a"],
                       "score": [3.0, 2.0, 1.0, 2.0, 1.0]}),
    "y": pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "c", "z"], "score": [2.0, 1.0, 1.0]}),
    "z": pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "a"], "score": [1.0, 1.0]}),
}


@pytest.fixture
def example(tmp_path):
    path = tmp_path / "example_method.py"
    path.write_text(textwrap.dedent(EXAMPLE), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("example_method", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    for name in ("ExampleFirst", "ExampleRelRet"):
        if name in methods.REGISTRY:
            methods.unregister(name)
    sys.modules.pop("example_method", None)


def test_a_method_added_at_runtime_works_everywhere_and_goes_away(example):
    # first relevant position: q1 x=2 (a), y=1 (b), z=1 (a); q2 x=1 (d), y=inf, z=1 (a)
    expected = {("x", "y"): [-1.0, 1.0], ("x", "z"): [-1.0, 0.0], ("y", "z"): [0.0, -1.0]}
    result = prefeval.compare(QRELS, RUNS, ["ExampleFirst", "LexiRecall"])
    frame = result.per_query[result.per_query["method"] == "ExampleFirst"]
    for (a, b), values in expected.items():
        pair = frame[(frame["run_a"] == a) & (frame["run_b"] == b)].sort_values("query_id")
        assert pair["value"].tolist() == values

    prefeval.register_run("example-baseline", RUNS["y"])
    measure = ir_measures.parse_measure("ExampleFirst(baseline='example-baseline')")
    per_query = {m.query_id: m.value for m in ir_measures.iter_calc([measure], QRELS, RUNS["x"])}
    assert per_query == {"1": -1.0, "2": 1.0}

    table = prefeval.evaluate(QRELS, RUNS, ["ExampleRelRet(scale=2)", "NumRet(rel=1)", "ExampleFirst"], per_query=True)
    ours = table[table["measure"] == "ExampleRelRet(scale=2.0)"].set_index(["run", "query_id"])["value"]
    theirs = table[table["measure"] == "NumRet(rel=1)"].set_index(["run", "query_id"])["value"]
    assert ours.to_dict() == (2 * theirs).to_dict()
    free = table[table["measure"] == "ExampleFirst"].set_index(["run", "query_id"])["value"]
    assert free[("x", "1")] == pytest.approx(-1.0) and free[("y", "2")] == pytest.approx(-1.0)
    assert free[("z", "2")] == pytest.approx(0.5)

    from prefeval.analysis.position_methods import resolve

    assert resolve("examplefirst").compare(np.array([1.0, 4.0]), np.array([2.0, 3.0]), None) == 1.0

    methods.unregister("ExampleFirst")
    methods.unregister("ExampleRelRet")
    with pytest.raises(NameError):
        ir_measures.parse_measure("ExampleFirst(baseline='example-baseline')")
    with pytest.raises(PrefevalError, match="unknown method"):
        prefeval.compare(QRELS, RUNS, ["ExampleFirst"])
    assert markdown_table().count("\n") == 2 + len(methods.declarations())


def test_metric_kernels_see_the_same_rankings_in_the_provider_and_the_axioms_checker(example):
    from prefeval.axioms import evaluate as axioms_evaluate

    assert isinstance(axioms_evaluate.resolve("ExampleRelRet"), axioms_evaluate.KernelScorer)
    assert isinstance(axioms_evaluate.resolve("ExampleFirst"), axioms_evaluate.PreferenceScorer)


def test_position_based_metrics_agree_on_graded_rankings_and_positions():
    from prefeval.core.graded import GradedRankings

    rng = np.random.default_rng(5)
    for declaration in methods.declarations("metric"):
        if not declaration.position_based:
            continue
        params = declaration.defaults()
        for _ in range(50):
            n, judged = int(rng.integers(1, 8)), int(rng.integers(1, 6))
            relevant = rng.random(n) < 0.5
            n_relevant = int(relevant.sum()) + int(rng.integers(0, 3))  # some relevant documents unretrieved
            if n_relevant == 0:
                continue
            rankings = GradedRankings.stack([relevant[:, None].astype(float) * judged], [np.array([judged])],
                                            [n_relevant])
            (P,) = rankings.position_vectors()
            assert declaration.values(rankings, params)[0] == pytest.approx(float(declaration.on_positions(params)(P)))
