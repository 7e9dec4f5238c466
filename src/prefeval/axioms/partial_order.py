"""The partial order of judged runs and the Replacement/Swap chain (Ferrante, Ferro & Maistro, Ferrante et al. (2015)).

A judged run is the tuple of relevance grades of its documents, ``r̂ = (r̂[1], ..., r̂[n])``. For two
runs of the same length n (Ferrante et al. (2015) §4, rank-based order, with the printed ŝ_t[k] read as ŝ_t[j],
an erratum: with k the definition does not depend on j)::

    r ≼ s  ⟺  for every grade λ and every depth k <= n:  |{j <= k : r̂[j] >= λ}| <= |{j <= k : ŝ[j] >= λ}|

A utility-oriented measurement is one with ``r ≼ s ⟹ M(r) <= M(s)`` (Definition 5.1), equivalently one
satisfying Replacement and Swap (Theorem 5.2). :func:`chain` builds the sequence of single Replacement
and Swap steps from ``r`` to ``s`` used in the proof of Theorem 5.2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["chain", "comparable", "precedes"]


def _prefix_counts(run: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """(L, n) counts |{j <= k : run[j] >= λ}| for every level λ and depth k."""
    return np.cumsum(run[None, :] >= levels[:, None], axis=1)


def precedes(r: Sequence[int], s: Sequence[int]) -> bool:
    """Whether ``r ≼ s`` (Ferrante et al. (2015) §4): s has at least as many documents of grade >= λ in every prefix.

    Only same-length runs are comparable; a length mismatch raises ``ValueError``. Grades are only
    compared by order, so the thresholds are the distinct positive grades present (Ferrante et al. (2015) §4).
    """
    a = np.asarray(r)
    b = np.asarray(s)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"runs must be one-dimensional and of equal length, got {a.shape} and {b.shape}")
    levels = np.unique(np.concatenate([a, b]))
    levels = levels[levels > 0]
    if levels.size == 0:
        return True
    return bool(np.all(_prefix_counts(a, levels) <= _prefix_counts(b, levels)))


def comparable(r: Sequence[int], s: Sequence[int]) -> bool:
    """Whether ``r ≼ s`` or ``s ≼ r``."""
    return precedes(r, s) or precedes(s, r)


def chain(r: Sequence[int], s: Sequence[int]) -> list[tuple[int, ...]]:
    """Runs ``r = r⁰ ≼ r¹ ≼ ... ≼ rʰ = ŝ``, each step one Replacement or one Swap, all ``≼ s``.

    This is the chain of the proof of Theorem 5.2 (Ferrante et al. (2015) §5). The printed construction (fix
    positions from the last one; swap a too-relevant document with "the closest document of minimum
    relevance grade") can leave the order: for r̂ = (0, 1, 2), ŝ = (0, 2, 1) it swaps 2 with 0 and
    reaches (2, 1, 0), which is not ≼ ŝ. So each step here is a move that keeps ``rᵏ ≼ s``, preferring,
    from the last differing position up, a replacement ``r̂[pos] -> ŝ[pos]``, then a swap that puts
    ``ŝ[pos]`` at ``pos``, then any other valid move. Every move strictly increases some prefix count
    and never decreases one, so the chain is finite; that a valid move always exists is Theorem 5.2's
    claim, checked exhaustively for short runs in the tests. Requires ``r ≼ s`` (else ``ValueError``).
    """
    if not precedes(r, s):
        raise ValueError(f"chain needs r ≼ s; {tuple(r)} does not precede {tuple(s)}")
    target = tuple(int(g) for g in s)
    current = tuple(int(g) for g in r)
    steps = [current]
    while current != target:
        for candidate in _moves(current, target):
            if precedes(candidate, target):
                current = candidate
                break
        else:  # pragma: no cover - would contradict Theorem 5.2
            raise RuntimeError(f"no Replacement/Swap step from {current} towards {target}")
        steps.append(current)
    return steps


def _moves(current: tuple[int, ...], target: tuple[int, ...]):
    """Candidate single steps (Replacement raising a grade, or Swap moving a higher grade up), best first."""
    n = len(current)
    differing = [p for p in range(n - 1, -1, -1) if current[p] != target[p]]
    for pos in differing:
        if current[pos] < target[pos]:
            yield _replace(current, pos, target[pos])
        for i in range(pos - 1, -1, -1):
            if current[i] < current[pos] and current[i] == target[pos]:
                yield _swap(current, i, pos)
        for j in range(pos + 1, n):
            if current[pos] < current[j] and current[j] == target[pos]:
                yield _swap(current, pos, j)
    for i in range(n):
        for j in range(i + 1, n):
            if current[i] < current[j]:
                yield _swap(current, i, j)
    for pos in differing:
        if current[pos] < target[pos]:
            yield _replace(current, pos, target[pos])


def _replace(run: tuple[int, ...], pos: int, grade: int) -> tuple[int, ...]:
    return run[:pos] + (grade,) + run[pos + 1:]


def _swap(run: tuple[int, ...], i: int, j: int) -> tuple[int, ...]:
    out = list(run)
    out[i], out[j] = out[j], out[i]
    return tuple(out)
