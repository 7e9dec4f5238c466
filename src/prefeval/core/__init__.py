"""Pure numpy kernels: no pandas, no ir-measures, no I/O.

Position vectors (``positions``), lexicographic preferences (``lexicographic``),
recall-paired preference (``rpp``), total search efficiency and RBU (``metrics``/``rbu``),
rank aggregation (``aggregate``) and significance tests (``stats``).
"""
