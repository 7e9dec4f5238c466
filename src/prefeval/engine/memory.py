"""Whether :func:`prefeval.compare` keeps every per-query preference: their size, and the memory available.

The per-query preferences of a preference method are a ``(queries, runs, runs)`` float64 tensor, which grows with
the square of the number of runs; summaries, matrices, rankings, sign and t tests and randomized Tukey HSD need only
the per-pair sums and per-query win rates (:mod:`prefeval.engine.results`). ``compare(per_query=None)`` keeps the
tensor when it takes at most :data:`KEEP_BYTES` (both engines); asked to keep more than the memory available, it
warns with the estimate.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

from prefeval.data.ranking import judged_queries
from prefeval.data.trec import Columns
from prefeval.engine.methods import Method

if TYPE_CHECKING:
    import pandas as pd

#: compare(per_query=None) keeps the per-query preferences when they take at most this many bytes
KEEP_BYTES = 256 * 2**20


def per_query_bytes(methods: Sequence[Method], n_queries: int, n_runs: int) -> int:
    """Bytes of the kept per-query preferences: a (queries, runs, runs) float64 tensor per preference method."""
    return sum(m.kind == "preference" for m in methods) * n_queries * n_runs * n_runs * 8


def keep_per_query(per_query: bool | None, methods: Sequence[Method], qrels: pd.DataFrame | Columns,
                   n_runs: int) -> bool:
    """Whether :func:`compare` keeps the per-query preferences (see its ``per_query``). Asked to keep more than the
    machine's available memory, a warning gives the estimate and the options that avoid it."""
    need = per_query_bytes(methods, len(judged_queries(qrels)), n_runs)
    if per_query is None:
        return need <= KEEP_BYTES
    if per_query and need > available_memory():
        warnings.warn(f"keeping the per-query preferences needs about {need / 2**30:.1f} GiB (more than the "
                      f"{available_memory() / 2**30:.1f} GiB available); summaries, matrices, rankings, sign and "
                      "t tests do not need them (per_query=False, or leave out --per-query)", stacklevel=4)
    return bool(per_query)


def available_memory() -> int:
    """Bytes of physical memory available now (Linux and macOS; a large number where unknown)."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2**62
