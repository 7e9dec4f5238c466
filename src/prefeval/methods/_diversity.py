"""The diversity measures' common adapter: a kernel of :mod:`prefeval.core.diversity` on
:class:`~prefeval.core.graded.GradedRankings`, and their shared parameters.

Every diversity measure computes r(d, t) from the grades (``gains='err'``: ``(2^g - 1) / 2^gmax_t``, the mapping of
RBU, Amigó et al. (2018) §5; ``gains='binary'``: Clarke et al. (2008)'s J(d, t), as ndeval), weights the aspects
uniformly over the subtopics with a relevant document (Agrawal et al. (2009) §3 with a uniform intent
distribution), and passes the cutoff ``@k`` and the pool of judged relevant documents to the kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from prefeval.core import diversity
from prefeval.methods.registry import Param

GAINS = Param(str, "err", "r(d,t) from the grades: 'err' = (2^g - 1) / 2^gmax_t (Amigó et al. (2018) §5, graded); "
              "'binary' = 1 for a relevant grade (Clarke et al. (2008)'s J(d,t), as ndeval)",
              choices=("err", "binary"))


def unit(low_open: bool = False, high_open: bool = False) -> Callable[[float], str | None]:
    """A check that a number lies in [0, 1] with the requested open ends."""
    interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")

    def check(value: float) -> str | None:
        ok = (value > 0.0 if low_open else value >= 0.0) and (value < 1.0 if high_open else value <= 1.0)
        return None if ok else f"must lie in {interval}"
    return check


def nonnegative(value: float) -> str | None:
    return None if np.isfinite(value) and value >= 0.0 else "must be a finite number >= 0"


def log_base(value: float) -> str | None:
    return None if np.isfinite(value) and value > 1.0 else "must be a number > 1"


LOG_BASE = Param(float, 2.0, "base of the logarithmic discount (the printed formulas give none; "
                 "it cancels in normalised forms)", check=log_base)


def kernel_values(kernel: str, single_aspect: bool = False) -> Callable[[Any, Mapping[str, Any]], np.ndarray]:
    """``values(rankings, params)`` evaluating :data:`prefeval.core.diversity.KERNELS` ``[kernel]``; the kernel's own
    parameters are the declared ones other than ``rel`` and ``gains``. ``single_aspect``: r(d) = max_t r(d, t) on
    one aspect (Amigó et al. (2018) §6.2's reduction for single-aspect metrics)."""

    def values(rankings, params: Mapping[str, Any]) -> np.ndarray:
        r, pool = rankings.relevance(params.get("gains", "binary"))
        weights = rankings.aspect_weights()
        if single_aspect:
            r = r.max(axis=-1, keepdims=True)
            pool = None if pool is None else pool.max(axis=-1, keepdims=True)
            weights = (rankings.n_aspects > 0).astype(np.float64)[:, None]
        own = {name: value for name, value in params.items() if name not in ("rel", "gains", "cutoff", "judged_only")}
        return diversity.evaluate(kernel, r, weights, length=rankings.length, k=params.get("cutoff"), pool=pool,
                                  **own)

    return values
