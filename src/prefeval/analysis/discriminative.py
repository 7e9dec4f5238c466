"""Discriminative power (Sakai): the fraction of system pairs a method separates significantly.

Diaz & Mitra (2023) §6.2.3 (Fig. 11), Diaz (2023) §4.2 (Table 4), Diaz & Ferraro (2022) §6.3. For each method, every unordered
pair of the S systems is tested over the evaluated queries; the result is
``#significant pairs / C(S, 2)`` at level ``alpha`` (the published percentages are multiples of
``1 / C(S, 2)``). A pair whose test is undefined (fewer than two queries, every query tied, zero variance for
the t test: p-value NaN) is no evidence either way: it is left out of the correction family and of the
denominator, ``fraction = significant / (pairs - undefined)``, and ``undefined`` says how many there were (with
no defined test the fraction is NaN).

Tests (delegated to :meth:`prefeval.engine.comparison.Comparison.significance`, i.e. ``prefeval.core.stats``):

- ``"paired"``: the "classic paired test" of the papers: the exact binomial sign test for a
  preference (ties dropped) and Student's paired t-test for a metric, corrected over the C(S, 2)
  pairs with ``correction`` (Holm–Bonferroni by default, Diaz & Mitra (2023) §6.2.3; Diaz (2023) used Bonferroni);
- ``"randomized_tukey_hsd"`` (alias ``"tukey"``): Carterette's randomised Tukey HSD on per-query metric
  values, or on per-query win rates for a preference; it controls the family-wise error itself, so
  no further correction;
- any other test name of ``Comparison.significance`` (``"sign"``, ``"t"``, ``"wilcoxon"``,
  ``"permutation"``) with ``correction``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from prefeval.analysis._frames import per_query_frame, select_methods
from prefeval.engine.significance import correction_for
from prefeval.errors import PrefevalError

__all__ = ["discriminative_power"]

_ALIASES = {"tukey": "randomized_tukey_hsd", "hsd": "randomized_tukey_hsd"}


def _resolve(test: str, correction: str) -> tuple[str | None, str]:
    """(test name for Comparison.significance, correction) for a requested test."""
    test = _ALIASES.get(test, test)
    if test == "paired":
        return None, correction  # Comparison's default: sign for preferences, t for metrics
    return test, correction_for(test, correction)


def discriminative_power(comparison: Any, methods: str | Sequence[str] | None = None, *,
                         tests: str | Sequence[str] = ("paired", "randomized_tukey_hsd"),
                         correction: str = "holm", alpha: float = 0.05, n_resamples: int = 10_000,
                         seed: int | None = 0) -> pd.DataFrame:
    """Fraction of system pairs significantly different, per method and test (see module doc).

    ``comparison``: a :class:`prefeval.engine.comparison.Comparison`. Returns
    ``method, kind, test, correction, alpha, pairs, undefined, significant, fraction`` (``test`` is the test
    actually run, e.g. ``sign`` or ``t`` for ``"paired"``; ``fraction`` is over the ``pairs - undefined`` defined
    tests). ``n_resamples`` / ``seed`` drive the randomised tests.
    """
    if not hasattr(comparison, "significance"):
        raise PrefevalError("discriminative_power needs a prefeval Comparison (it runs significance tests)")
    frame = per_query_frame(comparison)
    chosen = select_methods(frame, methods)
    tests = [tests] if isinstance(tests, str) else list(tests)
    rows = []
    for method in chosen:
        kind = comparison.result(method).method.kind
        for requested in tests:
            test, corr = _resolve(requested, correction)
            sig = comparison.significance(method, test=test, correction=corr, alpha=alpha, n_resamples=n_resamples,
                                          seed=seed)  # the randomised tests use n_resamples and seed
            pairs = len(sig)
            undefined = int(sig["p_value"].isna().sum())
            significant = int(sig["significant"].sum())
            defined = pairs - undefined
            rows.append({"method": method, "kind": kind, "test": sig.attrs.get("test", test),
                         "correction": sig.attrs.get("correction", corr), "alpha": alpha, "pairs": pairs,
                         "undefined": undefined, "significant": significant,
                         "fraction": significant / defined if defined else float("nan")})
    return pd.DataFrame(rows)
