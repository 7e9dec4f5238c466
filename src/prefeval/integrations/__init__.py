"""prefeval inside other tools: ir-measures, PyTerrier and ranx.

Importing this package registers prefeval's measures (:mod:`prefeval.methods.measures`) and puts its provider
(:mod:`prefeval.engine.provider`) into ``ir_measures.DefaultPipeline``, so that ir-measures -- and PyTerrier, which
calls it -- parse and evaluate them next to the standard measures; using one of the measures (``prefeval.RBU``,
...) imports it. :mod:`~prefeval.integrations.interop` converts to and from PyTerrier and ranx;
:mod:`~prefeval.integrations.extras` names the optional extras in error messages.
"""

import prefeval.engine.provider  # noqa: F401  (installs the provider; the measures are registered with it)
from prefeval.core.lazy import lazy_attributes
from prefeval.methods.measures import MEASURES, RBU, RPP, TSE, LexiPrecision, LexiRecall

__all__ = ["MEASURES", "RBU", "TSE", "LexiRecall", "LexiPrecision", "RPP"]

# `prefeval.integrations.interop` works after `import prefeval` alone (the module is imported on first access)
__getattr__, __dir__ = lazy_attributes(__name__, __path__)
