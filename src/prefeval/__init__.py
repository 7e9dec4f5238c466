"""prefeval: preference-based and diversity-aware offline evaluation of rankings.

Importing the package registers its measures (``RBU``, ``TSE``, ``LexiRecall``,
``LexiPrecision``, ``RPP``) with ir-measures and installs the ``prefeval`` provider
into ``ir_measures.DefaultPipeline``, so they can be mixed with standard measures::

    import ir_measures, prefeval
    ir_measures.calc_aggregate([ir_measures.nDCG@10, prefeval.RBU(p=0.8, e=0.03)@20], qrels, run)
"""

from __future__ import annotations

import importlib
from typing import Any

# compare and evaluate are bound eagerly: their submodules share the names, and importing a submodule
# binds the module object to the package attribute, which would shadow a lazily bound function.
from prefeval._version import __version__ as __version__
from prefeval.compare import Comparison, compare
from prefeval.errors import DatasetUnavailable, PrefevalError
from prefeval.evaluate import evaluate
from prefeval.extras import name_extras_in_ir_measures as _name_extras_in_ir_measures
from prefeval.inputs import register_dataset_qrels as _register_dataset_qrels
from prefeval.measures import RBU, RPP, TSE, LexiPrecision, LexiRecall
from prefeval.provider import install as _install_provider
from prefeval.runs import register_run

_install_provider()
_name_extras_in_ir_measures()


def _dataset_qrels(dataset_id: str) -> Any:
    """Qrels of an ir_datasets id; prefeval.datasets (and ir_datasets) load on the first such id."""
    return importlib.import_module("prefeval.datasets").load(dataset_id).qrels


_register_dataset_qrels(_dataset_qrels)  # prefeval.datasets registers its own loader when imported

# Heavier parts of the API are imported on first use.
_LAZY = {
    "read_run": ("prefeval.io", "read_run"),
    "read_qrels": ("prefeval.io", "read_qrels"),
    "write_run": ("prefeval.io", "write_run"),
    "write_qrels": ("prefeval.io", "write_qrels"),
    "Pipeline": ("prefeval.pipeline", "Pipeline"),
    "io": ("prefeval.io", None),
    "datasets": ("prefeval.datasets", None),
    "analysis": ("prefeval.analysis", None),
    "axioms": ("prefeval.axioms", None),
    "simulate": ("prefeval.simulate", None),
}


def __getattr__(name: str) -> Any:
    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'prefeval' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


__all__ = [
    "RBU", "TSE", "LexiRecall", "LexiPrecision", "RPP", "register_run",
    "DatasetUnavailable", "PrefevalError", "compare", "Comparison", "evaluate", *_LAZY,
]
