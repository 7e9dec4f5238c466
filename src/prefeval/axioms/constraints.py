"""The formal constraints: names, sources, statements, case generators and quantifiers.

* Amigó et al. (2018) (Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018, §3.2–3.3): the ten constraints Pri, Deep,
  DeepTh, CloseTh, Conf (relevance-oriented) and AspDiv, Red, MRed, Sat, AspRel (diversity-oriented);
* Ferrante et al. (2015) (Ferrante, Ferro & Maistro, ICTIR 2015, §5): Replacement, Swap and the monotonicity axiom
  on the partial order of judged runs (non-strict);
* Diaz & Mitra (2023) (Diaz & Mitra, App. A, Table 6): monotonicity in retrieval size, in nonrelevance, in
  relevance and in swapping up, non-strict and strict (the strict nonrelevance row is Conf).

A constraint's *quantifier* says how the outcomes of its cases become a verdict:

* ``all``: every comparison must hold;
* ``exists``: in every case some comparison holds (CloseTh: some m);
* ``eventually``: in every case the comparisons hold from some point of the search on, in particular
  at the bound (DeepTh: every n large enough);
* ``exists_family``: all comparisons of at least one family hold (Sat: some saturation grade r_max).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from prefeval.axioms import cases as gen
from prefeval.axioms.model import Case
from prefeval.errors import PrefevalError

__all__ = ["CONSTRAINTS", "GROUPS", "Constraint", "select"]

Generator = Callable[[np.random.Generator, gen.Settings], list[Case]]


@dataclass(frozen=True)
class Constraint:
    """One formal constraint.

    Attributes:
        key: short name used in tables and on the command line (e.g. ``"Pri"``).
        name: full name.
        source: paper and section.
        statement: preconditions and the required inequality, as tested.
        generate: case generator (:mod:`prefeval.axioms.cases`).
        quantifier: ``"all"``, ``"exists"``, ``"eventually"`` or ``"exists_family"``.
    """

    key: str
    name: str
    source: str
    statement: str
    generate: Generator
    quantifier: str = "all"


_LIST = [
    Constraint("Pri", "Priority", "Amigó et al. (2018) §3.2, Constraint 1",
               "single aspect, r << 1; r(d_{i+k}) > r(d_i) ⟹ Q(d_{i↔i+k}) > Q(d)", gen.priority),
    Constraint("Deep", "Deepness", "Amigó et al. (2018) §3.2, Constraint 2",
               "single aspect, r << 1; r(d_i) = r(d_j) < r(d_{i+1}) = r(d_{j+1}), i < j ⟹ "
               "Q(d_{i↔i+1}) > Q(d_{j↔j+1})", gen.deepness),
    Constraint("DeepTh", "Deepness Threshold", "Amigó et al. (2018) §3.2, Constraint 3",
               "binary, single aspect; for n large enough: Q(d^rel, d^¬rel…) > Q(d^¬rel × n, d^rel × n) "
               "(same length 2n; must hold at the search bound)", gen.deepness_threshold, "eventually"),
    Constraint("CloseTh", "Closeness Threshold", "Amigó et al. (2018) §3.2, Constraint 4",
               "binary, single aspect; ∃m: Q(d^rel, d^¬rel…) < Q(d^¬rel × m, d^rel × m) (same length 2m)",
               gen.closeness_threshold, "exists"),
    Constraint("Conf", "Confidence", "Amigó et al. (2018) §3.2, Constraint 5",
               "single aspect, r << 1; Q(d) > Q(d, d^¬rel)", gen.confidence),
    Constraint("AspDiv", "Query Aspect Diversity", "Amigó et al. (2018) §3.3, Constraint 6",
               "r << 1; ∀t: r(d'_i,t) > r(d_i,t) ⟹ Q(d_{d_i↔d'_i}) > Q(d)", gen.aspect_diversity),
    Constraint("Red", "Redundancy", "Amigó et al. (2018) §3.3, Constraint 7",
               "binary, balanced, no overlap; #t > #t' in d ⟹ Q(d, d'_{t'}) > Q(d, d_t)", gen.redundancy),
    Constraint("MRed", "Monotonic Redundancy", "Amigó et al. (2018) §3.3, Constraint 8",
               "two balanced aspects, r << 1; ∀d_i: r(d_i,t) > r(d_i,t') ⟹ Q(d, d'_{t'}) > Q(d, d_t)",
               gen.monotonic_redundancy),
    Constraint("Sat", "Aspect Relevance Saturation", "Amigó et al. (2018) §3.3, Constraint 9",
               "no overlap; ∃r_max: r(d_n,t) = r_max, r(d_{n+1},t) > 0 ⟹ Q(d) >= Q(d, d_{n+1})",
               gen.saturation, "exists_family"),
    Constraint("AspRel", "Aspect Relevance", "Amigó et al. (2018) §3.3, Constraint 10",
               "no overlap; d_i on t, d'_i on t' (unseen before i), equal r, w(t) < w(t') ⟹ "
               "Q(d_{d_i↔d'_i}) > Q(d)", gen.aspect_relevance),
    Constraint("Replacement", "Replacement", "Ferrante et al. (2015) §5",
               "same length; r̂[i] < ŝ[i], otherwise equal ⟹ M(r) <= M(s)", gen.replacement),
    Constraint("Swap", "Swap", "Ferrante et al. (2015) §5",
               "same length; i < j, r̂[i] <= r̂[j], s = r_{i↔j} ⟹ M(r) <= M(s)", gen.swap),
    Constraint("Monotonicity", "Utility-oriented monotonicity", "Ferrante et al. (2015) Definition 5.1",
               "same length; r ≼ s ⟹ M(r) <= M(s)", gen.monotonicity),
    Constraint("RetSize", "Monotonicity in retrieval size", "Diaz & Mitra (2023) App. A, Table 6 [Moffat]",
               "binary; appending any item: Q(d, d') >= Q(d)", gen.retrieval_size),
    Constraint("NonRel", "Decreasing in nonrelevance", "Diaz & Mitra (2023) App. A, Table 6",
               "binary; Q(d) >= Q(d, d^¬rel) (the strict form is Conf)", gen.nonrelevance),
    Constraint("Rel", "Increasing in relevance", "Diaz & Mitra (2023) App. A, Table 6",
               "binary; appending an unretrieved relevant item: Q(d, d^rel) >= Q(d)", gen.relevance),
    Constraint("StrictRel", "Strictly increasing in relevance", "Diaz & Mitra (2023) App. A, Table 6",
               "binary; Q(d, d^rel) > Q(d)", gen.strict_relevance),
    Constraint("SwapUp", "Increasing in swapping up", "Diaz & Mitra (2023) App. A, Table 6 [Ferrante]",
               "binary; i < j, y_i < y_j (j may lie beyond the ranking) ⟹ Q(d_{i↔j}) >= Q(d)", gen.swapping_up),
    Constraint("StrictSwapUp", "Strictly increasing in swapping up", "Diaz & Mitra (2023) App. A, Table 6 [Amigó, Moffat]",
               "binary; i < j, y_i < y_j ⟹ Q(d_{i↔j}) > Q(d)", gen.strict_swapping_up),
]

CONSTRAINTS: dict[str, Constraint] = {c.key: c for c in _LIST}
"""All constraints by key, in table order."""

_RELEVANCE = ("Pri", "Deep", "DeepTh", "CloseTh", "Conf")
_DIVERSITY = ("AspDiv", "Red", "MRed", "Sat", "AspRel")

class _Groups(dict):
    """Group name -> constraint keys; the names of version 0.1 still resolve."""

    FORMER = {"seed002": "amigo2018", "seed004": "ferrante2015"}

    def __missing__(self, key: str) -> tuple[str, ...]:
        if key in self.FORMER:
            return self[self.FORMER[key]]
        raise KeyError(key)


GROUPS: dict[str, tuple[str, ...]] = _Groups({
    "amigo2018": _RELEVANCE + _DIVERSITY,
    "relevance": _RELEVANCE,
    "diversity": _DIVERSITY,
    "ferrante2015": ("Replacement", "Swap", "Monotonicity"),
    "table6": ("RetSize", "NonRel", "Rel", "StrictRel", "SwapUp", "StrictSwapUp"),
    "all": tuple(CONSTRAINTS),
})
"""Named groups accepted wherever constraint keys are."""


def select(names: str | Iterable[str] | None) -> list[Constraint]:
    """Constraints by key or group name (case-insensitive; a string may list several, comma-separated).

    ``None`` selects all. Raises :class:`PrefevalError` naming an unknown key.
    """
    if names is None:
        return list(CONSTRAINTS.values())
    if isinstance(names, str):
        names = [n for n in names.replace(" ", ",").split(",") if n]
    lower = {k.lower(): k for k in CONSTRAINTS}
    groups = {g.lower(): keys for g, keys in GROUPS.items()}
    groups.update({former: GROUPS[former] for former in _Groups.FORMER})
    keys: list[str] = []
    for name in names:
        found = groups.get(name.lower()) or ((lower[name.lower()],) if name.lower() in lower else None)
        if found is None:
            raise PrefevalError(
                f"unknown constraint {name!r}; known: {', '.join(CONSTRAINTS)} or groups {', '.join(GROUPS)}"
            )
        keys.extend(k for k in found if k not in keys)
    return [CONSTRAINTS[k] for k in keys]
