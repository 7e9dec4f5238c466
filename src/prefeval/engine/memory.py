"""Whether :func:`prefeval.compare` keeps every per-query preference: their size, and the memory available.

The per-query preferences of a preference method are a ``(queries, runs, runs)`` float64 tensor, which grows with
the square of the number of runs; summaries, matrices, rankings, sign and t tests and randomized Tukey HSD need only
the per-pair sums and per-query win rates (:mod:`prefeval.engine.results`). ``compare(per_query=None)`` keeps the
tensor when it takes at most :data:`KEEP_BYTES` (both engines); asked to keep more than the memory available, it
warns with the estimate. The per-pair sums are always held: :func:`check_pairs` refuses, before any work, a
comparison whose sums alone exceed :data:`MAX_PAIR_SUMS`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

from prefeval.engine.methods import Method
from prefeval.errors import PrefevalError

#: compare(per_query=None) keeps the per-query preferences when they take at most this many bytes
KEEP_BYTES = 256 * 2**20


#: The most (run pair, method) sums a comparison holds (about 24 bytes each: mean, squared deviations, wins,
#: losses), e.g. 14,142 runs for one method.
MAX_PAIR_SUMS = 10**8


def check_pairs(n_runs: int, n_methods: int) -> None:
    """Refuse, before any run is ranked, a comparison of so many runs that its per-pair sums alone (``n_methods``
    x ``n_runs (n_runs - 1) / 2`` of them) exceed :data:`MAX_PAIR_SUMS`."""
    pairs = n_runs * (n_runs - 1) // 2
    if pairs * max(1, n_methods) > MAX_PAIR_SUMS:
        most = int((1 + (1 + 8 * MAX_PAIR_SUMS / max(1, n_methods)) ** 0.5) / 2)
        raise PrefevalError(f"{n_runs:,} runs make {pairs:,} pairs per method ({pairs * max(1, n_methods) * 24 / 1e9:.3g} "
                            f"GB of sums for {n_methods} method(s)); compare at most {most:,} runs at once, or each run "
                            "with one baseline (prefeval.evaluate with baseline=...)")


def per_query_bytes(methods: Sequence[Method], n_queries: int, n_runs: int) -> int:
    """Bytes of the kept per-query preferences: a (queries, runs, runs) float64 tensor per preference method."""
    return sum(m.kind == "preference" for m in methods) * n_queries * n_runs * n_runs * 8


def keep_per_query(per_query: bool | None, methods: Sequence[Method], n_queries: int, n_runs: int) -> bool:
    """Whether :func:`compare` keeps the per-query preferences (see its ``per_query``). Asked to keep more than the
    machine's available memory, a warning gives the estimate and the options that avoid it."""
    need = per_query_bytes(methods, n_queries, n_runs)
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
