"""The command paths import only what they use: a plain preference comparison or evaluation of TREC files
loads no scipy, statsmodels, matplotlib or ir_datasets (checked in a fresh interpreter), while ``import prefeval``
still registers its measures and every documented name resolves. Integration tests: each starts interpreters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_trec_files

pytestmark = pytest.mark.integration  # fresh interpreters (about 10 s of CPU): run by `pytest -m integration`

SRC = Path(__file__).resolve().parents[1] / "src"
HEAVY = ("scipy", "statsmodels", "matplotlib", "ir_datasets")

PROBE = """
import json, runpy, sys
sys.argv = ["prefeval"] + sys.argv[1:]
try:
    runpy.run_module("prefeval", run_name="__main__")
except SystemExit as exc:
    code = exc.code
sys.stderr.write("\\n" + json.dumps({"code": code, "modules": sorted(m for m, v in sys.modules.items() if ("." not in m or m == "numpy.ma") and v is not None)}))
"""


def python(code: str) -> subprocess.CompletedProcess:
    """``python -c CODE`` in a fresh interpreter importing this checkout's prefeval; it must succeed."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(SRC)))
    assert proc.returncode == 0, proc.stderr
    return proc


def imported_by(*argv: str) -> tuple[int, set[str], str]:
    """(exit code, top-level modules imported (and numpy.ma), stdout) of ``prefeval ARGV...`` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env,
                          timeout=120)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"]), proc.stdout


@pytest.fixture
def trec_files(tmp_path):
    return write_trec_files(tmp_path, "1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n2 0 d4 1\n2 0 d5 0\n",
                            {"a": "d1 d2 d3 d4 d5", "b": "d3 d2 d1 d5 d4", "c": "d2 d1 d3 d4 d5"}, ("1", "2"))


def test_compare_per_query_imports_no_heavy_module(trec_files):
    qrels, runs = trec_files
    code, modules, out = imported_by("compare", qrels, *runs, "-m", "LexiRecall", "LexiPrecision", "RPP",
                                     "--per-query", "--format", "csv", "-q")
    assert code in (0, None)
    assert out.startswith("method,query_id,run_a,run_b,value") and len(out.splitlines()) == 1 + 3 * 3 * 2
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    assert "numpy.ma" not in modules  # np.unique imports it: the kernels use core.arrays.sorted_unique
    assert "ir_measures" not in modules  # prefeval's preferences are parsed and computed without it


def test_eval_imports_no_heavy_module(trec_files):
    qrels, runs = trec_files
    code, modules, out = imported_by("eval", qrels, runs[0], "nDCG@10", "RBU@20", "-q")
    assert code in (0, None)
    assert "nDCG@10" in out
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_holm_significance_does_not_need_statsmodels(trec_files):
    qrels, runs = trec_files
    code, modules, out = imported_by("compare", qrels, *runs, "-m", "LexiRecall", "--format", "csv", "-q")
    assert code in (0, None) and "p_adjusted" in out
    assert "statsmodels" not in modules


def test_import_prefeval_integrations_registers_measures_and_resolves_names():
    code = ("import sys, prefeval, prefeval.integrations, ir_measures\n"
            "ir_measures.parse_measure('RBU(p=0.8)@20'); ir_measures.parse_measure('LexiRecall')\n"
            f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
            "names = [getattr(prefeval, n) for n in prefeval.__all__]\n"
            "print(heavy, len(names))")
    proc = python(code)
    heavy, count = proc.stdout.rsplit(" ", 1)
    assert heavy == "[]" and int(count) > 10


def test_import_prefeval_loads_no_pandas_nor_other_heavy_module():
    """``import prefeval`` (measures registered with ir-measures) leaves pandas, scipy, statsmodels, matplotlib,
    ir_datasets, dask and tqdm unimported: they load when a feature that needs them is used."""
    code = ("import sys, prefeval, prefeval.integrations, ir_measures\n"
            "ir_measures.parse_measure('RPP'); ir_measures.parse_measure('LexiPrecision')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pandas', 'scipy', 'statsmodels', 'matplotlib', 'ir_datasets', 'dask', 'tqdm')))")
    proc = python(code)
    assert proc.stdout.strip() == "[]"


IR_MEASURES_READY = ("import ir_measures\n"
                     "assert 'prefeval' in [p.NAME for p in ir_measures.DefaultPipeline.providers]\n"
                     "assert str(ir_measures.parse_measure('RBU(p=0.9)@20')) == 'RBU(p=0.9)@20'\n"
                     "assert isinstance(prefeval.RBU, ir_measures.Measure)\n"
                     "prefeval.register_run('b', {'1': {'d2': 1.0, 'd1': 0.5}})\n"
                     "values = ir_measures.calc_aggregate([prefeval.RBU @ 2, ir_measures.parse_measure('LexiRecall("
                     "baseline=\"b\")')], {'1': {'d1': 1}}, {'1': {'d1': 1.0}})\n"
                     "assert sorted(map(str, values)) == ['LexiRecall(baseline=\\'b\\')', 'RBU@2'], values\n"
                     "print('ok')")


@pytest.mark.parametrize("first", [
    "import prefeval.integrations",  # the ir-measures face
    "import ir_measures, prefeval.integrations",
    "import prefeval.engine.provider",  # the provider (it registers the measures it evaluates)
    "from prefeval import RBU",  # a measure first
    "import prefeval; prefeval.LexiRecall",
])
def test_measures_are_registered_by_the_first_use(first):
    """``import prefeval`` does not import ir-measures; prefeval's measures and provider join ir-measures when
    ``prefeval.integrations`` is imported or one of the measures is first used (no import hook)."""
    code = (f"import sys\n{first}\nimport prefeval\n"
            "assert not [f for f in sys.meta_path if type(f).__module__.startswith('prefeval')]\n" + IR_MEASURES_READY)
    assert python(code).stdout.strip().endswith("ok")


def test_import_prefeval_then_ir_measures_registers_nothing():
    """The rule has no exception: ir-measures imported after (or before) prefeval does not know prefeval's measures
    until one of the above happens."""
    code = ("import ir_measures, prefeval\n"
            "print('RBU' in ir_measures.measures.registry, 'prefeval' in ir_measures.providers.registry)")
    assert python(code).stdout.split() == ["False", "False"]


def test_prefeval_parses_and_evaluates_its_measures_in_a_fresh_process(trec_files):
    """Every entry point of prefeval reaches its measures through its own modules (prefeval.methods.measures,
    prefeval.engine.provider), whoever imported what before."""
    qrels, runs = trec_files
    code = ("import prefeval\n"
            f"frame = prefeval.evaluate({qrels!r}, {{'a': {runs[0]!r}, 'b': {runs[1]!r}}}, "
            "['RBU@20', 'TSE', \"RPP(baseline='b')\", 'LexiRecall', 'nDCG@10'])\n"
            "print(sorted(frame['measure'].unique()))")
    out = python(code).stdout
    assert "RBU@20" in out and "RPP(baseline='b')" in out and "LexiRecall" in out


def test_import_prefeval_does_not_import_ir_measures():
    """Nor the standard modules that only error hints (difflib) and exact fractions (fractions) need."""
    code = ("import sys, prefeval\n"
            "assert not {'difflib', 'fractions'} & set(sys.modules), {'difflib', 'fractions'} & set(sys.modules)\n"
            "before = 'ir_measures' in sys.modules\n"
            "prefeval.compare  # bound eagerly, no ir-measures\n"
            "after_compare = 'ir_measures' in sys.modules\n"
            "base = type(prefeval.LexiRecall).__mro__[-2].__module__\n"
            "print(before, after_compare, 'ir_measures' in sys.modules, base)")
    assert python(code).stdout.split() == ["False", "False", "True", "ir_measures.measures.base"]


def test_pandas_loads_on_first_use():
    code = ("import sys, prefeval\n"
            "before = 'pandas' in sys.modules\n"
            "frame = prefeval.read_qrels(__import__('io').StringIO('1 0 d1 1\\n'))\n"
            "print(before, 'pandas' in sys.modules, type(frame).__name__)")
    proc = python(code)
    assert proc.stdout.split() == ["False", "True", "DataFrame"]


COMPARE = ("-m", "LexiRecall", "LexiPrecision", "RPP", "-q")


@pytest.mark.parametrize("output", [("--per-query", "--format", "csv"), ("--per-query", "--format", "json"),
                                    ("--per-query",), (), ("--format", "latex"), ("--format", "csv"),
                                    ("--format", "json"), ("--aggregate", "mc4", "--format", "csv"),
                                    ("--aggregate", "borda", "--format", "json")])
def test_compare_of_trec_files_imports_no_pandas(trec_files, output):
    """The issue's guard: a plain LexiRecall/LexiPrecision/RPP comparison of TREC files -- per query, or the default
    report with sign tests and Holm's correction, or rankings, in every format -- reads, ranks, compares and writes
    without pandas (nor scipy, statsmodels, matplotlib, ir_datasets): files are read by pyarrow.csv into Arrow
    arrays."""
    qrels, runs = trec_files
    code, modules, out = imported_by("compare", qrels, *runs, *COMPARE, *output)
    assert code in (0, None)
    assert "LexiPrecision" in out and "RPP" in out and ("run_a" in out.replace("\\_", "_") or "--aggregate" in output)
    unwanted = {"pandas", "tqdm", "ir_measures", *HEAVY}
    assert not modules & unwanted, sorted(modules & unwanted)


def test_a_lazy_module_pickles_as_the_module():
    """Functions sent to Dask workers may reference a lazily bound module: it pickles as an import of the module
    (deterministically, as Dask's tokenizer requires)."""
    import pickle

    from prefeval.core.lazy import lazy_module

    lazy = lazy_module("json")
    assert pickle.dumps(lazy) == pickle.dumps(lazy_module("json"))
    assert pickle.loads(pickle.dumps(lazy)) is sys.modules["json"]
    assert lazy.dumps([1]) == "[1]"
