"""prefeval: preference-based and diversity-aware offline evaluation of rankings.

With the package imported, its measures (``RBU``, ``TSE``, ``LexiRecall``, ``LexiPrecision``, ``RPP``) are
registered with ir-measures and the ``prefeval`` provider is installed into ``ir_measures.DefaultPipeline``, so they
can be mixed with standard measures::

    import ir_measures, prefeval
    ir_measures.calc_aggregate([ir_measures.nDCG@10, prefeval.RBU(p=0.8, e=0.03)@20], qrels, run)

This happens when ir-measures is imported, before or after prefeval (``import prefeval`` alone does not import
ir-measures: the ``prefeval compare`` of TREC files with prefeval's preferences does not need it), or when one of the
measures (``prefeval.RBU``, ...) is first used.
"""

from __future__ import annotations

import importlib

from prefeval._version import __version__ as __version__

# compare and evaluate are bound eagerly: their submodules share the names, and importing a submodule
# binds the module object to the package attribute, which would shadow a lazily bound function.
from prefeval.core.lazy import lazy_attributes, when_imported
from prefeval.data.runs import register_run
from prefeval.engine.compare import compare
from prefeval.engine.comparison import Comparison
from prefeval.engine.evaluate import evaluate
from prefeval.errors import DatasetUnavailable, PrefevalError


def _install_in_ir_measures() -> None:
    """Register prefeval's measures and provider with ir-measures, and name prefeval's extras in its messages."""
    importlib.import_module("prefeval.integrations.provider").install()
    importlib.import_module("prefeval.integrations.extras").name_extras_in_ir_measures()


# once ir-measures is imported (now, if it is already); the modules that subclass its classes import it themselves
when_imported("ir_measures", _install_in_ir_measures, within=("prefeval.integrations.measures", "prefeval.integrations.provider"))


# Heavier parts of the API are imported on first use.
_LAZY = {
    **{name: ("prefeval.integrations.measures", name) for name in ("RBU", "TSE", "LexiRecall", "LexiPrecision", "RPP")},
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
