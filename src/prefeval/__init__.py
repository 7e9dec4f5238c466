"""prefeval: preference-based and diversity-aware offline evaluation of rankings.

prefeval's measures (``RBU``, ``TSE``, ``LexiRecall``, ``LexiPrecision``, ``RPP``, the diversity metrics) mix with
standard measures in ir-measures::

    import ir_measures, prefeval
    ir_measures.calc_aggregate([ir_measures.nDCG@10, prefeval.RBU(p=0.8, e=0.03)@20], qrels, run)

The first use of one of them (``prefeval.RBU``, ...), or ``import prefeval.integrations``, registers them with
ir-measures and puts the ``prefeval`` provider into ``ir_measures.DefaultPipeline`` (then
``ir_measures.parse_measure("RBU@20")`` works too). ``import prefeval`` alone does not import ir-measures: the
``prefeval compare`` of TREC files with prefeval's preferences does not need it.
"""

from __future__ import annotations

from prefeval._version import __version__ as __version__

# compare and evaluate are bound eagerly: their submodules share the names, and importing a submodule
# binds the module object to the package attribute, which would shadow a lazily bound function.
from prefeval.core.lazy import lazy_attributes
from prefeval.data.runs import register_run
from prefeval.engine.compare import compare
from prefeval.engine.comparison import Comparison
from prefeval.engine.evaluate import evaluate
from prefeval.errors import DatasetUnavailable, PrefevalError

# Heavier parts of the API are imported on first use.
_LAZY = {
    **{name: ("prefeval.integrations", name) for name in ("RBU", "TSE", "LexiRecall", "LexiPrecision", "RPP")},
    "read_run": ("prefeval.data.trec", "read_run"),
    "read_qrels": ("prefeval.data.trec", "read_qrels"),
    "write_run": ("prefeval.data.trec_writer", "write_run"),
    "write_qrels": ("prefeval.data.trec_writer", "write_qrels"),
    "table": ("prefeval.engine.table", "table"),
    "RunTable": ("prefeval.engine.table", "RunTable"),
    "Pipeline": ("prefeval.pipeline", "Pipeline"),
    "io": ("prefeval.data.trec", None),
    "datasets": ("prefeval.data.datasets", None),
    "analysis": ("prefeval.analysis", None),
    "axioms": ("prefeval.axioms", None),
    "simulate": ("prefeval.data.simulate", None),
}


#: The layer packages: ``prefeval.report.html`` and the like work after ``import prefeval`` alone (each layer imports
#: its own submodules on first access), without being part of ``from prefeval import *``.
_LAYERS = ("core", "methods", "data", "engine", "integrations", "analysis", "axioms", "report", "pipeline", "commands")

__getattr__, __dir__ = lazy_attributes(__name__, (), {
    **{layer: (f"prefeval.{layer}", None) for layer in _LAYERS}, **_LAZY})


__all__ = [
    "register_run",
    "DatasetUnavailable", "PrefevalError", "compare", "Comparison", "evaluate", *_LAZY,
]
