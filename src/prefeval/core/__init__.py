"""Layer 0: pure numpy kernels (no pandas, no ir-measures, no I/O) and the lazy imports every layer uses.

Position vectors (``positions``), lexicographic preferences (``lexicographic``),
recall-paired preference (``rpp``), total search efficiency and RBU (``metrics``/``rbu``), the diversity
metrics of the RBU paper's Table 1 (``diversity``),
rank aggregation (``aggregate``) and significance tests (``stats``); ``lazy`` imports heavy dependencies on first
use.
"""

from prefeval.core.lazy import lazy_attributes

# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__, __dir__ = lazy_attributes(__name__, __path__)
