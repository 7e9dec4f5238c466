"""The data layer: the TREC reader (:mod:`~prefeval.data.trec`), user inputs in every form
(:mod:`~prefeval.data.inputs`), rankings (:mod:`~prefeval.data.ranking`), per-aspect relevance
(:mod:`~prefeval.data.aspects`), named runs, simulated collections and ir_datasets."""

from prefeval.core.lazy import lazy_attributes

# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__, __dir__ = lazy_attributes(__name__, __path__)
