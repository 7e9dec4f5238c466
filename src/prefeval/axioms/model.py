"""Test cases for the formal constraints: judged documents, rankings and the comparisons between them.

A constraint (Amigó et al. (2018) §3.2–3.3; Ferrante et al. (2015) §5; Diaz & Mitra (2023) App. A) says that a measure ``Q`` must score one
ranking above (or not below) another ranking of the *same query*. A :class:`RankingPair` holds the two
rankings (``left`` must win) and the :class:`Judgments` they share; a :class:`Case` groups the
comparisons one instance of an existential constraint searches over (one comparison for the others).

Relevance values and grades. The constraints are stated on satisfaction probabilities
``r(d, t)`` in [0, 1]; qrels hold integer grades. A case stores grades ``g`` and reads them as

    r(d, t) = (2^g - 1) / 2^gmax

(the ERR mapping of the RBU authors' released tool, Amigó et al. (2018)) where ``gmax`` is the top of the case's grade
scale. The mapping is strictly increasing with r(0) = 0, so every precondition on r (equal, greater,
zero, binary) is the same precondition on grades. To fix ``gmax`` without putting a highly relevant
document into a ranking, the qrels get one *anchor*: an unretrieved document judged ``gmax`` for each
aspect whose highest judged grade is below ``gmax``. With ``gmax = 7`` the grades 1, 2, 3 used by the
"relevance contribution" constraints stand for r = 1/128, 3/128, 7/128 <= 0.055 (the constraints
need r ≪ 1, Amigó et al. (2018) §3.1). Anchors are never retrieved and are identical on both sides of a comparison.

Aspect weights. ir-measures qrels carry no aspect weights (intent-aware measures weight subtopics
uniformly), so an aspect of weight ``c_t / sum(c)`` is written as ``c_t`` identical subtopics
(``copies``). Every measure that is linear in the aspect weights (IA measures, RBU, alpha-nDCG) then
sees exactly the weighted aspects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Case", "RankingPair", "Judgments", "relevance_value"]


def relevance_value(grade: int, gmax: int) -> Fraction:
    """The satisfaction probability a grade stands for: ``(2^g - 1) / 2^gmax`` (exact)."""
    g = max(int(grade), 0)
    return Fraction(2**g - 1, 2**gmax)


@dataclass(frozen=True)
class Judgments:
    """Judged documents of one query, shared by both rankings of a comparison.

    Attributes:
        grades: ``grades[d][t]`` is document ``d``'s grade for aspect ``t`` (0 = not relevant).
        copies: subtopics per aspect; aspect t has weight ``copies[t] / sum(copies)``.
        gmax: top of the grade scale; aspects whose highest grade is below it get an anchor document
            judged ``gmax`` that no ranking retrieves. ``None``: no anchors.
    """

    grades: tuple[tuple[int, ...], ...]
    copies: tuple[int, ...] = (1,)
    gmax: int | None = None

    def __post_init__(self) -> None:
        width = len(self.copies)
        if any(len(g) != width for g in self.grades):
            raise ValueError(f"every document needs one grade per aspect ({width})")

    @property
    def n_aspects(self) -> int:
        return len(self.copies)

    @property
    def n_docs(self) -> int:
        return len(self.grades)

    def weights(self) -> tuple[Fraction, ...]:
        total = sum(self.copies)
        return tuple(Fraction(c, total) for c in self.copies)

    def anchors(self, cap: int | None = None) -> tuple[tuple[int, int], ...]:
        """``(aspect, grade)`` of the anchor documents (grade capped at ``cap``)."""
        if self.gmax is None:
            return ()
        top = self.gmax if cap is None else min(self.gmax, cap)
        best = [max((g[t] for g in self.grades), default=0) for t in range(self.n_aspects)]
        return tuple((t, top) for t in range(self.n_aspects) if best[t] < top)

    def describe(self) -> str:
        """Short text: aspects and weights, scale, and every judged document's grades."""
        parts = []
        if self.n_aspects > 1:
            weights = ", ".join(str(w) for w in self.weights())
            parts.append(f"{self.n_aspects} aspects, w=({weights})")
        if self.gmax is not None:
            anchored = [t for t, _ in self.anchors()]
            if anchored:
                plural = "s" if len(anchored) > 1 else ""
                where = "" if self.n_aspects == 1 else f" for aspect{plural} " + ",".join(str(t + 1) for t in anchored)
                parts.append(f"gmax={self.gmax} (unretrieved anchor{where})")
            else:
                parts.append(f"gmax={self.gmax}")
        judged = " ".join(f"d{d}:{_grade_text(g)}" for d, g in enumerate(self.grades))
        parts.append(f"judged {judged}")
        return "; ".join(parts)


def _grade_text(grades: Sequence[int]) -> str:
    if len(grades) == 1:
        return str(grades[0])
    return "(" + ",".join(str(g) for g in grades) + ")"


@dataclass(frozen=True)
class RankingPair:
    """Two rankings of one query; the constraint requires ``Q(left) > Q(right)`` (``>=`` if not strict).

    Rankings are tuples of document indices into ``judgments.grades``, best rank first, without repeats.
    """

    left: tuple[int, ...]
    right: tuple[int, ...]
    judgments: Judgments
    strict: bool = True
    note: str = ""

    def __post_init__(self) -> None:
        for side in (self.left, self.right):
            if len(set(side)) != len(side):
                raise ValueError(f"a ranking repeats a document: {side}")
            if any(not 0 <= d < self.judgments.n_docs for d in side):
                raise ValueError(f"a ranking refers to an unknown document: {side}")

    def size(self) -> tuple[int, int, int, int]:
        """Ordering key for 'smallest counterexample': ranking lengths, aspects, documents, grade sum."""
        grade_sum = sum(sum(g) for g in self.judgments.grades)
        return (len(self.left) + len(self.right), self.judgments.n_aspects, self.judgments.n_docs, grade_sum)

    def ranking_text(self, side: str) -> str:
        ranking = self.left if side == "left" else self.right
        grades = self.judgments.grades
        return "[" + " ".join(f"d{d}:{_grade_text(grades[d])}" for d in ranking) + "]"

    @property
    def relation(self) -> str:
        return ">" if self.strict else ">="


@dataclass(frozen=True)
class Case:
    """One generated instance of a constraint.

    ``comparisons`` has one element for universally quantified constraints; for existential ones it
    lists the candidates searched (e.g. one comparison per n for the Deepness Threshold). ``family``
    labels the parameter an outer existential ranges over (e.g. the saturation grade of Sat).
    """

    comparisons: tuple[RankingPair, ...]
    family: str = ""
