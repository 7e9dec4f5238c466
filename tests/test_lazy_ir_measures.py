"""ir-measures is imported only where it is used: the post-import hook that registers prefeval's measures when
ir-measures is imported (:func:`prefeval.core.lazy.when_imported`), and the method calls that stand for prefeval's
measures in ``compare`` (:func:`prefeval.methods.registry.parse_call`), written and checked exactly as ir-measures
parses the same text."""

from __future__ import annotations

import sys

import ir_measures
import pytest

import prefeval
from prefeval.core.lazy import when_imported
from prefeval.engine.methods import parse_method
from prefeval.errors import PrefevalError
from prefeval.methods.registry import MethodCall, declaration_of, parameters, parse_call


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A folder on sys.path holding modules ``target`` (sets ``DONE``) and ``user`` (imports ``target`` at its top,
    and defines ``READY`` after that); both forgotten afterwards."""
    (tmp_path / "hooktarget.py").write_text("DONE = True\n")
    (tmp_path / "hookuser.py").write_text("import hooktarget\nREADY = hooktarget.DONE\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in ("hooktarget", "hookuser"):
        sys.modules.pop(name, None)


def test_the_callback_runs_right_after_the_import_and_the_hook_goes(package):
    calls = []
    before = list(sys.meta_path)
    when_imported("hooktarget", lambda: calls.append(sys.modules["hooktarget"].DONE))
    assert not calls and len(sys.meta_path) == len(before) + 1
    import hooktarget  # noqa: F401

    assert calls == [True]
    assert sys.meta_path == before
    assert type(sys.modules["hooktarget"].__loader__).__name__ == "SourceFileLoader"  # nothing of the hook stays
    assert sys.modules["hooktarget"].__spec__.loader is sys.modules["hooktarget"].__loader__


def test_the_callback_runs_at_once_when_the_module_is_imported_already(package):
    import hooktarget  # noqa: F401

    calls = []
    when_imported("hooktarget", lambda: calls.append(1))
    assert calls == [1]


def test_an_import_inside_a_watched_module_waits_for_it(package):
    """The callback may import the module that imported the target: it runs once that module is complete."""
    seen = []
    when_imported("hooktarget", lambda: seen.append(__import__("hookuser").READY), within=("hookuser",))
    import hookuser  # noqa: F401

    assert seen == [True]


def test_a_failed_import_leaves_the_hook_waiting(package, tmp_path):
    (tmp_path / "hooktarget.py").write_text("raise ImportError('broken')\n")
    calls = []
    when_imported("hooktarget", lambda: calls.append(1))
    with pytest.raises(ImportError, match="broken"):
        import hooktarget  # noqa: F401
    assert not calls
    (tmp_path / "hooktarget.py").write_text("DONE = True\n")
    import importlib

    importlib.invalidate_caches()
    import hooktarget  # noqa: F401, F811

    assert calls == [1]


@pytest.mark.parametrize("text", [
    "LexiRecall", "LexiRecall@10", "LexiRecall(rel=2)", "LexiRecall(rel=1)@5", "LexiPrecision(magnitude='rr')",
    "LexiPrecision(magnitude='sgn')", "RPP(graded=False)@100", "RPP(weighting='dcg', graded=True)",
    "RPP(weighting='dcg',graded=False,rel=2)@3", "RBU(p=0.9, e=0)@10", "TSE@100",
    "RPP(subtopics=True)", "LexiRecall(baseline='bm25')",
])
def test_a_method_call_is_written_and_compared_as_the_ir_measures_measure(text):
    call, measure = parse_call(text), ir_measures.parse_measure(text)
    assert isinstance(call, MethodCall) and declaration_of(call) is declaration_of(measure)
    assert repr(call) == repr(measure) and str(call) == str(measure)
    assert call.params == measure.params and list(call.params) == list(measure.params)
    assert call == measure and hash(call) == hash(measure)
    assert parameters(call) == parameters(measure)
    assert repr(call(rel=3)) == repr(measure(rel=3)) and parameters(call(rel=3)) == parameters(measure(rel=3))


@pytest.mark.parametrize("text", [
    "nDCG@10", "lr", "LexiRecall(", "LexiRecall(2)", "LexiRecall(rel=None)", "LexiRecall(rel=0)", "LexiRecall@0",
    "RPP(weighting='nope')", "RPP(nope=1)", "LexiRecall@ten", "LexiRecall + 1", "f(x)(rel=1)", "LexiRecall(**k)",
    "LexiRecall(rel=[1])",
])
def test_anything_else_is_left_to_ir_measures(text):
    """Other measures, aliases (resolved before), bad syntax and bad parameters: no call, so that ir-measures'
    parser and prefeval's measure classes report the problem with the messages they always gave."""
    assert parse_call(text) is None


@pytest.mark.parametrize("text", ["RPP(weighting='nope')", "LexiRecall(rel=0)", "LexiRecall@0", "LexiRecall(",
                                  "RPP(nope=1)", "LexiRecall(baseline='x')"])
def test_compare_reports_bad_preferences_as_before(text):
    with pytest.raises(PrefevalError) as error:
        parse_method(text)
    assert text in str(error.value)


def test_compare_parses_preferences_without_ir_measures_measures_and_metrics_with():
    method = parse_method("RPP(graded=False)@100", rel=2)
    assert isinstance(method.measure, MethodCall) and str(method.measure) == "RPP(graded=False,rel=2)@100"
    assert (method.kind, method.rel, method.depth) == ("preference", 2, 100)
    assert method.measure == parse_method(prefeval.RPP(graded=False) @ 100, rel=2).measure
    metric = parse_method("RBU@20")
    assert metric.kind == "metric" and isinstance(metric.measure, ir_measures.Measure)


def test_a_method_call_pickles_by_name():
    import pickle

    call = parse_call("RPP(weighting='dcg', graded=False)@10")
    again = pickle.loads(pickle.dumps(call))
    assert again == call and again.declaration is call.declaration and again.params == call.params


def test_a_spec_found_but_not_imported_keeps_its_loader_interface(package):
    import importlib.util

    when_imported("hooktarget", lambda: None)
    try:
        spec = importlib.util.find_spec("hooktarget")
        assert spec.loader.is_package("hooktarget") is False and spec.loader.get_source("hooktarget") == "DONE = True\n"
    finally:
        sys.meta_path[:] = [f for f in sys.meta_path if type(f).__module__ != "prefeval.core.lazy"]
