"""prefeval's evaluation methods, each declared once (one module per method) in a registry.

``prefeval.methods.get("RPP")`` returns the :class:`~prefeval.methods.registry.Declaration` of RPP; see
:mod:`prefeval.methods.registry` for what a declaration holds and ``docs/extending.md`` for adding one. Beside the
declarations: the papers they cite (:mod:`~prefeval.methods.references`), measure names in ir-measures and trec_eval
syntax (:mod:`~prefeval.methods.names`, :mod:`~prefeval.methods.syntax`).
"""

from __future__ import annotations

# registration order = the order of the measure table (docs/guide/measures.md)
# isort: off
from prefeval.methods import rbu, tse, lexirecall, lexiprecision, rpp  # noqa: F401  (registers the methods)
from prefeval.methods import intent_aware, coverage, novelty  # noqa: F401  (the diversity metrics)
# isort: on
from prefeval.core.lazy import lazy_attributes
from prefeval.methods.registry import (
    REGISTRY,
    REL,
    Declaration,
    Param,
    declaration_of,
    declarations,
    get,
    listen,
    parameters,
    parse,
    register,
    resolve,
    unregister,
)

__all__ = ["REGISTRY", "REL", "Declaration", "Param", "declaration_of", "declarations", "get", "listen",
           "parameters", "parse", "register", "resolve", "unregister"]


# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__, __dir__ = lazy_attributes(__name__, __path__)
