"""Generators of test cases for each formal constraint (preconditions exactly as Amigó et al. (2018) §3,
Ferrante et al. (2015) §4 and Diaz & Mitra (2023) Table 6 state them).

Every generator takes a ``numpy.random.Generator`` and :class:`Settings` and returns a list of
:class:`~prefeval.axioms.model.Case`. Conventions shared by all generators:

* Documents are indices into the case's :class:`~prefeval.axioms.model.Judgments`; every document a
  ranking holds is judged (grade 0 = judged non-relevant). Rankings never repeat a document.
* "relevance contribution" (r ≪ 1, Amigó et al. (2018) §3.1) = grades 1..3 on a scale with ``gmax = 7``
  (r = 1/128, 3/128, 7/128 under the ERR mapping; see :mod:`prefeval.axioms.model`).
* "binary relevance" = every ranked document has grade 0 or the same grade ``r_c``.
* Rankings before an append have at most ``Settings.max_length`` documents, so that with the default 8
  even an appended document stays inside a cutoff of 10 (a decision: constraints about a position
  beyond a measure's cutoff would test the cutoff, not the measure).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from prefeval.axioms.model import Case, Judgments, RankingPair
from prefeval.axioms.partial_order import precedes
from prefeval.errors import PrefevalError

__all__ = [
    "CONTRIBUTION_SCALE", "SATURATION_GRADES", "Settings", "search_grid",
    "priority", "deepness", "deepness_threshold", "closeness_threshold", "confidence",
    "aspect_diversity", "redundancy", "monotonic_redundancy", "saturation", "aspect_relevance",
    "replacement", "swap", "monotonicity",
    "retrieval_size", "nonrelevance", "relevance", "swapping_up",
]

CONTRIBUTION_SCALE = 7
"""gmax of the 'relevance contribution' cases: grades 1..3 stand for r <= 7/128."""

LOW_GRADES = 4  # grades 0..3 in graded cases
SATURATION_GRADES = (1, 2, 3, 4, 6, 8, 10, 12)
"""Candidate saturation grades r_max searched by Sat (r = 1 - 2^-G under the ERR mapping)."""
THRESHOLD_GRADES = (1, 3)
"""r_c of the binary Deepness/Closeness Threshold cases (r = 1/128 and 7/128 on the scale gmax = 7)."""


@dataclass(frozen=True)
class Settings:
    """How many and how large cases to generate.

    Attributes:
        cases: random cases per universally quantified constraint (Sat: per candidate r_max, a quarter).
        max_length: longest generated ranking before a document is appended (>= 4).
        grade_cap: highest grade the measure accepts (gdeval: 4); caps anchors and Sat's r_max.
        bound: largest n (m) searched by the Deepness and Closeness Thresholds.
    """

    cases: int = 100
    max_length: int = 8
    grade_cap: int | None = None
    bound: int = 512

    def __post_init__(self) -> None:
        for name, low, high in (("cases", 1, MAX_CASES), ("max_length", 4, MAX_BOUND), ("bound", 1, MAX_BOUND)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
                why = " (Deepness needs four positions)" if name == "max_length" else ""
                raise PrefevalError(f"{name} must be an integer from {low} to {high:,}{why}, got {value!r}")

    @property
    def scale(self) -> int:
        return CONTRIBUTION_SCALE if self.grade_cap is None else min(CONTRIBUTION_SCALE, self.grade_cap)


#: The most random cases per constraint, and the longest ranking / largest n a threshold search may build.
MAX_CASES = 100_000
MAX_BOUND = 100_000


def search_grid(bound: int) -> list[int]:
    """n (or m) values searched by the threshold constraints: 1..8, four per doubling up to 64, then two
    per doubling (1.5x, 2x), and the bound itself."""
    grid = set(range(1, min(bound, 8) + 1))
    n = 8
    while n < bound:
        steps = (n // 4, n // 2, 3 * n // 4, n) if n < 64 else (n // 2, n)
        grid.update(min(n + step, bound) for step in steps)
        n *= 2
    grid.add(bound)
    return sorted(g for g in grid if g <= bound)


# ----------------------------------------------------------------------------------------------- helpers

def _grades(rng: np.random.Generator, n: int, high: int = LOW_GRADES) -> list[int]:
    return [int(g) for g in rng.integers(0, high, size=n)]


def _length(rng: np.random.Generator, low: int, settings: Settings) -> int:
    return int(rng.integers(low, settings.max_length + 1))


def _single(grades: Sequence[int], gmax: int | None) -> Judgments:
    return Judgments(tuple((int(g),) for g in grades), (1,), gmax)


def _two_positions(rng: np.random.Generator, n: int) -> tuple[int, int]:
    """Two distinct positions ``i < j`` of a ranking of length ``n >= 2``, uniformly at random."""
    i, j = sorted(int(x) for x in rng.choice(n, size=2, replace=False))
    return i, j


def _swap(ranking: tuple[int, ...], i: int, j: int) -> tuple[int, ...]:
    out = list(ranking)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def _replace(ranking: tuple[int, ...], i: int, doc: int) -> tuple[int, ...]:
    return ranking[:i] + (doc,) + ranking[i + 1:]


def _one(left, right, judgments, strict=True, note="", family="") -> Case:
    return Case((RankingPair(tuple(left), tuple(right), judgments, strict, note),), family)


def _exclusive_docs(rng: np.random.Generator, n: int, n_aspects: int, allowed: Sequence[int],
                    high: int) -> list[tuple[int, ...]]:
    """n documents, each relevant (grade 1..high-1) to at most one aspect from ``allowed`` (no overlap)."""
    docs = []
    for _ in range(n):
        grades = [0] * n_aspects
        choice = int(rng.integers(-1, len(allowed)))
        if choice >= 0:
            grades[allowed[choice]] = int(rng.integers(1, high))
        docs.append(tuple(grades))
    return docs


# ------------------------------------------------------------------- Amigó et al. (2018), relevance-oriented (§3.2)

def priority(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Pri: single aspect, relevance contribution; r(d_{i+k}) > r(d_i) ⟹ Q(d_{i↔i+k}) > Q(d)."""
    cases = []
    for _ in range(settings.cases):
        n = _length(rng, 2, settings)
        g = _grades(rng, n)
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if g[j] > g[i]]
        if not pairs:
            i, j = _two_positions(rng, n)
            g[i] = int(rng.integers(0, LOW_GRADES - 1))
            g[j] = int(rng.integers(g[i] + 1, LOW_GRADES))
            pairs = [(i, j)]
        i, j = pairs[int(rng.integers(len(pairs)))]
        ranking = tuple(range(n))
        cases.append(_one(_swap(ranking, i, j), ranking, _single(g, settings.scale),
                          note=f"swap positions {i + 1} and {j + 1}"))
    return cases


def deepness(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Deep: single aspect, relevance contribution; r(d_i) = r(d_j) < r(d_{i+1}) = r(d_{j+1}), i < j
    (so j >= i + 2) ⟹ Q(d_{i↔i+1}) > Q(d_{j↔j+1})."""
    cases = []
    for _ in range(settings.cases):
        n = _length(rng, 4, settings)
        i = int(rng.integers(0, n - 3))
        j = int(rng.integers(i + 2, n - 1))
        g = _grades(rng, n)
        a = int(rng.integers(0, LOW_GRADES - 1))
        b = int(rng.integers(a + 1, LOW_GRADES))
        g[i] = g[j] = a
        g[i + 1] = g[j + 1] = b
        ranking = tuple(range(n))
        cases.append(_one(_swap(ranking, i, i + 1), _swap(ranking, j, j + 1), _single(g, settings.scale),
                          note=f"swap {i + 1}↔{i + 2} vs {j + 1}↔{j + 2}"))
    return cases


def _threshold_comparison(n: int, rc: int, settings: Settings, deep: bool) -> RankingPair:
    """L = (d^rel, d^¬rel × (2n-1)) against R_n = (d^¬rel × n, d^rel × n): same length 2n (Amigó et al. (2018) §3)."""
    grades = [rc] * n + [0] * (2 * n - 1)
    one = (0,) + tuple(range(n, 3 * n - 1))
    many = tuple(range(n, 2 * n)) + tuple(range(n))
    judgments = _single(grades, settings.scale)
    left, right = (one, many) if deep else (many, one)
    return RankingPair(left, right, judgments, True, f"n={n}" if deep else f"m={n}")


def _threshold_cases(settings: Settings, deep: bool) -> list[Case]:
    grid = search_grid(settings.bound)
    return [Case(tuple(_threshold_comparison(n, rc, settings, deep) for n in grid), family=f"r_c: grade {rc}")
            for rc in THRESHOLD_GRADES]


def deepness_threshold(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """DeepTh: binary relevance, single aspect; for n large enough, Q(d^rel, …) > Q(d^¬rel × n, d^rel × n).

    One case per r_c (grades 1 and 3); each lists n over :func:`search_grid`. Quantifier: the inequality
    must hold for every searched n from some n0 on (so at the bound) — "a value n large enough",
    "an area of the ranking that may never get explored" (Amigó et al. (2018) §3.2). Read as a bare ∃n, n = 1
    would satisfy it for every top-heavy measure (AP, nDCG), contradicting the paper's analysis.
    """
    return _threshold_cases(settings, deep=True)


def closeness_threshold(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """CloseTh: binary relevance, single aspect; ∃m: Q(d^rel, …) < Q(d^¬rel × m, d^rel × m).

    One case per r_c (grades 1 and 3); each searches m over :func:`search_grid` up to the bound.
    """
    return _threshold_cases(settings, deep=False)


def confidence(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Conf: single aspect, relevance contribution; Q(d) > Q(d, d^¬rel) (one judged non-relevant appended)."""
    cases = []
    for _ in range(settings.cases):
        n = _length(rng, 1, settings)
        g = _grades(rng, n) + [0]
        ranking = tuple(range(n))
        cases.append(_one(ranking, ranking + (n,), _single(g, settings.scale), note="append d^¬rel"))
    return cases


# -------------------------------------------------------------------- Amigó et al. (2018), diversity-oriented (§3.3)

def aspect_diversity(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """AspDiv: relevance contribution; replace d_i by d'_i with r(d'_i,t) > r(d_i,t) for every aspect t
    ⟹ Q(d_{d_i↔d'_i}) > Q(d). Two or three aspects with random weights (1 or 2 subtopics each)."""
    cases = []
    for _ in range(settings.cases):
        n_aspects = int(rng.integers(2, 4))
        copies = tuple(int(c) for c in rng.integers(1, 3, size=n_aspects))
        n = _length(rng, 1, settings)
        docs = [tuple(_grades(rng, n_aspects)) for _ in range(n)]
        i = int(rng.integers(0, n))
        docs[i] = tuple(int(rng.integers(0, LOW_GRADES - 1)) for _ in range(n_aspects))
        better = tuple(int(rng.integers(g + 1, LOW_GRADES)) for g in docs[i])
        judgments = Judgments(tuple(docs) + (better,), copies, settings.scale)
        ranking = tuple(range(n))
        cases.append(_one(_replace(ranking, i, n), ranking, judgments, note=f"replace position {i + 1}"))
    return cases


def redundancy(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Red: binary relevance (grade 1), balanced aspects, no aspect overlap; d relevant to t only, d' to t'
    only; |{d_i : r(d_i,t) = r_c}| > |{d_i : r(d_i,t') = r_c}| ⟹ Q(d, d') > Q(d, d)."""
    cases = []
    for _ in range(settings.cases):
        n_aspects = int(rng.integers(2, 4))
        t, u = (int(x) for x in rng.choice(n_aspects, size=2, replace=False))
        n = _length(rng, 1, settings)
        docs = [list(d) for d in _exclusive_docs(rng, n, n_aspects, range(n_aspects), 2)]
        count = [sum(d[a] for d in docs) for a in range(n_aspects)]
        if count[t] < count[u]:
            t, u = u, t
        elif count[t] == count[u]:  # make t strictly more covered: a doc that was relevant to u, or any
            k = next((k for k, d in enumerate(docs) if d[u]), int(rng.integers(0, n)))
            docs[k] = [0] * n_aspects
            docs[k][t] = 1
        d = tuple(1 if a == t else 0 for a in range(n_aspects))
        d_other = tuple(1 if a == u else 0 for a in range(n_aspects))
        judgments = Judgments(tuple(tuple(x) for x in docs) + (d, d_other), (1,) * n_aspects, 1)
        ranking = tuple(range(n))
        cases.append(_one(ranking + (n + 1,), ranking + (n,), judgments,
                          note=f"append d' (aspect {u + 1}) vs d (aspect {t + 1})"))
    return cases


def monotonic_redundancy(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """MRed: T = {t, t'} balanced, relevance contribution; 0 < r(d,t) = r(d',t') ≪ 1, r(d,t') = r(d',t) = 0;
    r(d_i,t) > r(d_i,t') for every d_i in d ⟹ Q(d, d') > Q(d, d)."""
    cases = []
    for _ in range(settings.cases):
        n = _length(rng, 1, settings)
        t = int(rng.integers(0, 2))
        docs = []
        for _ in range(n):
            high = int(rng.integers(1, LOW_GRADES))
            low = int(rng.integers(0, high))
            docs.append((high, low) if t == 0 else (low, high))
        g = int(rng.integers(1, LOW_GRADES))
        d = (g, 0) if t == 0 else (0, g)
        d_other = (d[1], d[0])
        judgments = Judgments(tuple(docs) + (d, d_other), (1, 1), settings.scale)
        ranking = tuple(range(n))
        cases.append(_one(ranking + (n + 1,), ranking + (n,), judgments,
                          note=f"append d' (aspect {2 - t}) vs d (aspect {t + 1})"))
    return cases


def saturation(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Sat: no aspect overlap; ∃ r_max: r(d_n,t) = r_max ∧ r(d_{n+1},t) > 0 ⟹ Q(d) >= Q(d, d_{n+1}).

    r_max is searched over :data:`SATURATION_GRADES` (capped by the measure's highest grade); a candidate
    grade G is also the scale top, so it stands for r = 1 - 2^-G. ``max(cases // 4, 10)`` cases per G.
    """
    per_grade = max(settings.cases // 4, 10)
    cap = settings.grade_cap
    cases = []
    for top in SATURATION_GRADES:
        if cap is not None and top > cap:
            continue
        for _ in range(per_grade):
            n_aspects = int(rng.integers(1, 4))
            t = int(rng.integers(0, n_aspects))
            n = _length(rng, 1, settings)
            docs = _exclusive_docs(rng, n - 1, n_aspects, range(n_aspects), top + 1)
            docs.append(tuple(top if a == t else 0 for a in range(n_aspects)))
            extra = tuple(int(rng.integers(1, top + 1)) if a == t else 0 for a in range(n_aspects))
            judgments = Judgments(tuple(docs) + (extra,), (1,) * n_aspects, top)
            ranking = tuple(range(n))
            cases.append(_one(ranking, ranking + (n,), judgments, strict=False,
                              note=f"append d_(n+1) on aspect {t + 1}", family=f"r_max: grade {top}"))
    return cases


def aspect_relevance(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """AspRel: no aspect overlap; d_i relevant to t only, d'_i to t' only, r(d_i,t) = r(d'_i,t') > 0, no
    earlier document relevant to t or t'; w(t) < w(t') ⟹ Q(d_{d_i↔d'_i}) > Q(d).

    The replaced document is the last one (a decision where the paper is silent: a later document on t or t' can
    legitimately reverse the effect in exact RBU). Weights are encoded by replicating subtopics.
    """
    cases = []
    for _ in range(settings.cases):
        n_aspects = int(rng.integers(2, 4))
        t, u = (int(x) for x in rng.choice(n_aspects, size=2, replace=False))
        copies = [int(c) for c in rng.integers(1, 3, size=n_aspects)]
        copies[t] = int(rng.integers(1, 3))
        copies[u] = int(rng.integers(copies[t] + 1, 4))
        n = _length(rng, 1, settings)
        others = [a for a in range(n_aspects) if a not in (t, u)]
        docs = _exclusive_docs(rng, n - 1, n_aspects, others, LOW_GRADES) if others else [(0,) * n_aspects] * (n - 1)
        g = int(rng.integers(1, LOW_GRADES))
        d = tuple(g if a == t else 0 for a in range(n_aspects))
        d_other = tuple(g if a == u else 0 for a in range(n_aspects))
        judgments = Judgments(tuple(docs) + (d, d_other), tuple(copies), LOW_GRADES - 1)
        ranking = tuple(range(n))
        cases.append(_one(ranking[:-1] + (n,), ranking, judgments,
                          note=f"replace last (aspect {t + 1}, w={copies[t]}/{sum(copies)}) "
                               f"by aspect {u + 1} (w={copies[u]}/{sum(copies)})"))
    return cases


# ------------------------------------------------------------------- Ferrante et al. (2015): Replacement, Swap, axiom

def replacement(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Replacement (Ferrante et al. (2015) §5): same length, d_i replaced by a document of higher grade ⟹ M(s) >= M(r)."""
    cases = []
    for _ in range(settings.cases):
        n = _length(rng, 1, settings)
        g = _grades(rng, n)
        i = int(rng.integers(0, n))
        g[i] = int(rng.integers(0, LOW_GRADES - 1))
        g.append(int(rng.integers(g[i] + 1, LOW_GRADES)))
        ranking = tuple(range(n))
        cases.append(_one(_replace(ranking, i, n), ranking, _single(g, None), strict=False,
                          note=f"replace position {i + 1}"))
    return cases


def swap(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Swap (Ferrante et al. (2015) §5): i < j with r̂[i] <= r̂[j] (and r̂[j] > 0); swapping them ⟹ M(s) >= M(r)."""
    cases = []
    for _ in range(settings.cases):
        n = _length(rng, 2, settings)
        g = _grades(rng, n)
        i, j = _two_positions(rng, n)
        g[j] = int(rng.integers(1, LOW_GRADES))
        g[i] = int(rng.integers(0, g[j] + 1))
        ranking = tuple(range(n))
        cases.append(_one(_swap(ranking, i, j), ranking, _single(g, None), strict=False,
                          note=f"swap positions {i + 1} and {j + 1}"))
    return cases


def monotonicity(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """The axiom (Ferrante et al. (2015) Definition 5.1): same-length runs with r ≼ s ⟹ M(r) <= M(s).

    Half the pairs are random runs over disjoint documents kept when comparable; the other half apply
    1–4 random Replacement/Swap steps to r. Both are checked with :func:`precedes`.
    """
    cases = []
    while len(cases) < settings.cases:
        n = _length(rng, 1, settings)
        if len(cases) % 2:
            g, h = _grades(rng, n), _grades(rng, n)
            if not precedes(g, h):
                if not precedes(h, g):
                    continue
                g, h = h, g
            if max(g + h) == 0:
                continue
            judgments = _single(g + h, None)
            worse, better = tuple(range(n)), tuple(range(n, 2 * n))
            note = "random comparable pair"
        else:
            g = _grades(rng, n)
            better = list(range(n))
            for _ in range(int(rng.integers(1, 5))):
                i, j = _two_positions(rng, n) if n > 1 else (0, 0)
                if i != j and rng.random() < 0.5 and g[better[i]] <= g[better[j]]:
                    better[i], better[j] = better[j], better[i]
                elif g[better[j]] < LOW_GRADES - 1:
                    g.append(int(rng.integers(g[better[j]] + 1, LOW_GRADES)))
                    better[j] = len(g) - 1
            if max(g) == 0:
                continue
            judgments = _single(g, None)
            worse, better = tuple(range(n)), tuple(better)
            note = "replacements and swaps"
        assert precedes([judgments.grades[d][0] for d in worse], [judgments.grades[d][0] for d in better])
        cases.append(_one(better, worse, judgments, strict=False, note=note))
    return cases


# ------------------------------------------------------ Diaz & Mitra (2023) Table 6 (binary relevance, one aspect)

def _binary_setting(rng: np.random.Generator, settings: Settings) -> tuple[list[int], int]:
    """Grades of a binary ranking of length n followed by 0–2 unretrieved relevant documents."""
    n = _length(rng, 1, settings)
    g = [int(x) for x in rng.integers(0, 2, size=n)]
    g += [1] * int(rng.integers(0, 3))
    return g, n


def retrieval_size(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Monotonicity in retrieval size (Moffat): appending any item does not decrease: Q(d, d') >= Q(d)."""
    cases = []
    for _ in range(settings.cases):
        g, n = _binary_setting(rng, settings)
        if len(g) > n and rng.random() < 0.5:
            doc, what = n, "relevant"
        else:
            g.append(0)
            doc, what = len(g) - 1, "non-relevant"
        if max(g) == 0:
            g.append(1)
        ranking = tuple(range(n))
        cases.append(_one(ranking + (doc,), ranking, _single(g, None), strict=False, note=f"append {what}"))
    return cases


def nonrelevance(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Decreasing in nonrelevance: appending a non-relevant item does not increase: Q(d) >= Q(d, d^¬rel)."""
    cases = []
    for _ in range(settings.cases):
        g, n = _binary_setting(rng, settings)
        if max(g) == 0:
            g.append(1)
        g.append(0)
        ranking = tuple(range(n))
        cases.append(_one(ranking, ranking + (len(g) - 1,), _single(g, None), strict=False,
                          note="append d^¬rel"))
    return cases


def relevance(rng: np.random.Generator, settings: Settings, strict: bool = False) -> list[Case]:
    """Increasing in relevance: appending an unretrieved relevant item: Q(d, d^rel) >= Q(d) (or >)."""
    cases = []
    for _ in range(settings.cases):
        g, n = _binary_setting(rng, settings)
        if len(g) == n:
            g.append(1)
        ranking = tuple(range(n))
        cases.append(_one(ranking + (n,), ranking, _single(g, None), strict=strict, note="append d^rel"))
    return cases


def strict_relevance(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Strictly increasing in relevance: Q(d, d^rel) > Q(d)."""
    return relevance(rng, settings, strict=True)


def swapping_up(rng: np.random.Generator, settings: Settings, strict: bool = False) -> list[Case]:
    """Increasing in swapping up: i < j, y_i < y_j ⟹ Q(d_{i↔j}) >= Q(d) (or >).

    A third of the cases take j beyond the ranking (Moffat's convergence / Ferrante's replacement): the
    non-relevant document at i is exchanged with an unretrieved relevant one.
    """
    cases = []
    for _ in range(settings.cases):
        g, n = _binary_setting(rng, settings)
        ranking = tuple(range(n))
        if rng.random() < 1 / 3:
            i = int(rng.integers(0, n))
            g[i] = 0
            if len(g) == n:
                g.append(1)
            left, note = _replace(ranking, i, n), f"position {i + 1} exchanged with an unretrieved relevant"
        else:
            if n < 2:  # (non-relevant new document, relevant document 0)
                g[0] = 1
                g.append(0)
                ranking = (len(g) - 1, 0)
                left, note = (0, len(g) - 1), "swap positions 1 and 2"
            else:
                i, j = _two_positions(rng, n)
                g[i], g[j] = 0, 1
                left, note = _swap(ranking, i, j), f"swap positions {i + 1} and {j + 1}"
        cases.append(_one(left, ranking, _single(g, None), strict=strict, note=note))
    return cases


def strict_swapping_up(rng: np.random.Generator, settings: Settings) -> list[Case]:
    """Strictly increasing in swapping up: Q(d_{i↔j}) > Q(d)."""
    return swapping_up(rng, settings, strict=True)
