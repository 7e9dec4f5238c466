"""Pure numpy kernels: no pandas, no ir-measures, no I/O.

Position vectors (``positions``), lexicographic preferences (``lexicographic``),
recall-paired preference (``rpp``), total search efficiency and RBU (``metrics``/``rbu``), the diversity
metrics of the RBU paper's Table 1 (``diversity``),
rank aggregation (``aggregate``) and significance tests (``stats``).
"""
