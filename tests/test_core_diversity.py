"""Diversity kernels (prefeval.core.diversity) against brute force from the printed formulas, in exact arithmetic.

Each reference below is written straight from the formula its kernel's docstring cites (Amigó et al. (2018) §4.2-4.3
and the original papers), one ranking at a time, with ``fractions.Fraction`` (logarithmic discounts are the only
floats). The kernels are called once on a padded batch of random rankings of different lengths, so padding,
cutoffs and vectorisation are exercised too.
"""

from __future__ import annotations

import math
import random
import zlib
from fractions import Fraction as F

import numpy as np
import pytest

from prefeval.core import diversity
from prefeval.errors import PrefevalError

R_VALUES = [F(0)] * 4 + [F(1, 8), F(1, 4), F(1, 2), F(3, 4), F(7, 8), F(1)]


def random_case(rng: random.Random, n_max: int = 9) -> dict:
    t = rng.randint(1, 4)
    active = [True] * t
    if t > 1 and rng.random() < 0.3:
        active[rng.randrange(t)] = False  # an aspect of weight 0 (not an aspect of the query)
    counts = [rng.randint(1, 3) if a else 0 for a in active]
    weights = [F(c, sum(counts)) for c in counts]
    ranking = [[rng.choice(R_VALUES) if active[a] else F(0) for a in range(t)] for _ in range(rng.randint(0, n_max))]
    extra = [[rng.choice(R_VALUES) if active[a] else F(0) for a in range(t)] for _ in range(rng.randint(0, 4))]
    pool = [d for d in ranking + extra if any(d)]
    rng.shuffle(pool)
    return {"ranking": ranking, "weights": weights, "pool": pool, "t": t}


def batch(cases: list[dict], t: int) -> tuple[np.ndarray, ...]:
    n = max([len(c["ranking"]) for c in cases] + [1])
    m = max([len(c["pool"]) for c in cases] + [1])
    r = np.zeros((len(cases), n, t))
    pool = np.zeros((len(cases), m, t))
    w = np.zeros((len(cases), t))
    for q, c in enumerate(cases):
        for i, d in enumerate(c["ranking"]):
            r[q, i] = [float(x) for x in d]
        for i, d in enumerate(c["pool"]):
            pool[q, i] = [float(x) for x in d]
        w[q] = [float(x) for x in c["weights"]]
    length = np.array([len(c["ranking"]) for c in cases])
    return r, w, length, pool


def cases_by_width(seed: int, count: int = 60) -> dict[int, list[dict]]:
    rng = random.Random(seed)
    out: dict[int, list[dict]] = {}
    for _ in range(count):
        case = random_case(rng)
        out.setdefault(case["t"], []).append(case)
    return out


# ------------------------------------------------------------------------------------------ references (exact)

def aspects(c):
    return [a for a in range(c["t"]) if c["weights"][a] > 0]


def top(c, k):
    return c["ranking"] if k is None else c["ranking"][:k]


def count_before(ranking, i, a):
    """c(i, t): documents relevant to aspect a at positions j < i (1-based i)."""
    return sum(1 for d in ranking[: i - 1] if d[a] > 0)


def ref_p_ia(c, k):
    docs = top(c, k)
    denom = k if k is not None else len(c["ranking"])
    if denom == 0:
        return F(0)
    return sum(c["weights"][a] * F(sum(1 for d in docs if d[a] > 0), denom) for a in range(c["t"]))


def ref_ap_ia(c, k):
    total = F(0)
    for a in range(c["t"]):
        base = sum(1 for d in c["pool"] if d[a] > 0)
        if base == 0:
            continue
        ap = F(0)
        for i, d in enumerate(top(c, k), start=1):
            if d[a] > 0:
                ap += F(count_before(c["ranking"], i, a) + 1, i)
        total += c["weights"][a] * ap / base
    return total


def ref_rr_ia(c, k):
    total = F(0)
    for a in range(c["t"]):
        for i, d in enumerate(top(c, k), start=1):
            if d[a] > 0:
                total += c["weights"][a] * F(1, i)
                break
    return total


def ref_ndcg_ia(c, k, normalise=True):
    total = 0.0
    for a in range(c["t"]):
        dcg = sum(float(d[a]) / math.log2(i + 1) for i, d in enumerate(top(c, k), start=1))
        if normalise:
            best = sorted((d[a] for d in c["pool"]), reverse=True)[: (k if k is not None else len(c["pool"]))]
            ideal = sum(float(g) / math.log2(i + 1) for i, g in enumerate(best, start=1))
            dcg = dcg / ideal if ideal > 0 else 0.0
        total += float(c["weights"][a]) * dcg
    return total


def ref_err_ia(c, k):
    total = F(0)
    for a in range(c["t"]):
        for i, d in enumerate(top(c, k), start=1):
            unsatisfied = F(1)
            for earlier in c["ranking"][: i - 1]:
                unsatisfied *= 1 - earlier[a]
            total += c["weights"][a] * F(1, i) * d[a] * unsatisfied
    return total


def ref_rbp_ia(c, k, p):
    return sum(c["weights"][a] * (1 - p) * sum(p ** (i - 1) * d[a] for i, d in enumerate(top(c, k), start=1))
               for a in range(c["t"]))


def ref_s_recall(c, k):
    asp = aspects(c)
    if not asp:
        return F(0)
    return F(sum(1 for a in asp if any(d[a] > 0 for d in top(c, k))), len(asp))


def ref_s_rr(c, k):
    asp = aspects(c)
    for i in range(1, len(top(c, k)) + 1):
        if asp and all(any(d[a] > 0 for d in c["ranking"][:i]) for a in asp):
            return F(1, i)
    return F(0)


def novelty_gain(ranking, i, asp, alpha, weights=None):
    d = ranking[i - 1]
    return sum((weights[a] if weights else 1) * d[a] * (1 - alpha) ** count_before(ranking, i, a) for a in asp)


def greedy_ideal(c, alpha, depth):
    asp, left, placed, gains = aspects(c), list(c["pool"]), [], []
    while left and len(gains) < depth:
        scores = [sum(d[a] * (1 - alpha) ** sum(1 for e in placed if e[a] > 0) for a in asp) for d in left]
        best = max(range(len(left)), key=lambda j: (scores[j], -j))
        gains.append(scores[best])
        placed.append(left.pop(best))
    return gains


def ref_alpha_ndcg(c, k, alpha, normalise):
    asp = aspects(c)
    value = sum(float(novelty_gain(c["ranking"], i, asp, alpha)) / math.log2(i + 1)
                for i in range(1, len(top(c, k)) + 1))
    if normalise:
        depth = len(c["pool"]) if k is None else k
        ideal = sum(float(g) / math.log2(i + 1) for i, g in enumerate(greedy_ideal(c, alpha, depth), start=1))
        value = value / ideal if ideal > 0 else 0.0
    return value


def ref_nrbp(c, k, p, alpha, normalise):
    asp = aspects(c)
    value = sum(p ** (i - 1) * novelty_gain(c["ranking"], i, asp, alpha) for i in range(1, len(top(c, k)) + 1))
    if normalise == "clarke":
        value = value * (1 - (1 - alpha) * p) / len(asp) if asp else F(0)
    elif normalise == "ideal":
        depth = len(c["pool"]) if k is None else k
        ideal = sum(p ** (i - 1) * g for i, g in enumerate(greedy_ideal(c, alpha, depth), start=1))
        value = value / ideal if ideal > 0 else F(0)
    return value


def ref_d_sharp(c, k, lam):
    gg = [sum(c["weights"][a] * d[a] for a in range(c["t"])) for d in top(c, k)]
    dcg = sum(float(g) / math.log2(i + 1) for i, g in enumerate(gg, start=1))
    pool_gg = sorted((sum(c["weights"][a] * d[a] for a in range(c["t"])) for d in c["pool"]), reverse=True)
    best = pool_gg[: (k if k is not None else len(pool_gg))]
    ideal = sum(float(g) / math.log2(i + 1) for i, g in enumerate(best, start=1))
    return float(lam) * float(ref_s_recall(c, k)) + (1 - float(lam)) * (dcg / ideal if ideal > 0 else 0.0)


def ref_eu(c, k, alpha, e):
    asp = aspects(c)
    return sum(float(novelty_gain(c["ranking"], i, asp, alpha, c["weights"]) - e) / (1 + math.log2(i))
               for i in range(1, len(top(c, k)) + 1))


def cube_gains(c, k, alpha, saturation):
    asp, gains = aspects(c), []
    docs = top(c, k)
    for i, d in enumerate(docs, start=1):
        gain = F(0)
        for a in asp:
            filled = sum(e[a] for e in docs[: i - 1])
            if filled < saturation:
                gain += c["weights"][a] * d[a] * (1 - alpha) ** count_before(docs, i, a)
        gains.append(gain)
    return gains


def ref_ct(c, k, alpha, saturation, form):
    gains = cube_gains(c, k, alpha, saturation)
    if form == "paper":
        return sum(g / i for i, g in enumerate(gains, start=1))
    return sum(gains) / len(gains) if gains else F(0)


def ref_act(c, k, alpha, saturation):
    gains = cube_gains(c, k, alpha, saturation)
    if not gains:
        return F(0)
    return sum(sum(gains[:j]) / j for j in range(1, len(gains) + 1)) / len(gains)


def ref_rbu(c, k, p, e):
    total = F(0)
    for i, d in enumerate(top(c, k), start=1):
        gain = F(0)
        for a in range(c["t"]):
            unsatisfied = F(1)
            for earlier in c["ranking"][: i - 1]:
                unsatisfied *= 1 - earlier[a]
            gain += c["weights"][a] * d[a] * unsatisfied
        total += p ** i * (gain - e)
    return total


HALF, QUARTER = F(1, 2), F(1, 4)
SPECS = [
    ("P_IA", {}, ref_p_ia, {}),
    ("AP_IA", {}, ref_ap_ia, {}),
    ("RR_IA", {}, ref_rr_ia, {}),
    ("nDCG_IA", {}, ref_ndcg_ia, {}),
    ("nDCG_IA", {"normalise": False}, ref_ndcg_ia, {"normalise": False}),
    ("ERR_IA", {}, ref_err_ia, {}),
    ("RBP_IA", {"p": 0.75}, ref_rbp_ia, {"p": F(3, 4)}),
    ("S_Recall", {}, ref_s_recall, {}),
    ("S_RR", {}, ref_s_rr, {}),
    ("alpha_nDCG", {"alpha": 0.25}, ref_alpha_ndcg, {"alpha": QUARTER, "normalise": False}),
    ("alpha_nDCG", {"alpha": 0.5, "normalise": True}, ref_alpha_ndcg, {"alpha": HALF, "normalise": True}),
    ("NRBP", {"p": 0.75, "alpha": 0.25}, ref_nrbp, {"p": F(3, 4), "alpha": QUARTER, "normalise": "none"}),
    ("NRBP", {"normalise": "clarke"}, ref_nrbp, {"p": HALF, "alpha": HALF, "normalise": "clarke"}),
    ("NRBP", {"normalise": "ideal", "alpha": 0.75}, ref_nrbp, {"p": HALF, "alpha": F(3, 4), "normalise": "ideal"}),
    ("NRBP", {"alpha": 1.0, "p": 0.75}, ref_nrbp, {"p": F(3, 4), "alpha": F(1), "normalise": "none"}),
    ("D_sharp_nDCG", {"lam": 0.25}, ref_d_sharp, {"lam": QUARTER}),
    ("EU", {"alpha": 0.25, "e": 0.125}, ref_eu, {"alpha": QUARTER, "e": F(1, 8)}),
    ("CT", {}, ref_ct, {"alpha": HALF, "saturation": F(1), "form": "paper"}),
    ("CT", {"saturation": 0.75, "form": "luo", "alpha": 0.25}, ref_ct,
     {"alpha": QUARTER, "saturation": F(3, 4), "form": "luo"}),
    ("ACT", {"saturation": 1.5}, ref_act, {"alpha": HALF, "saturation": F(3, 2)}),
    ("RBU", {"p": 0.75, "e": 0.125}, ref_rbu, {"p": F(3, 4), "e": F(1, 8)}),
]


@pytest.mark.parametrize("k", [None, 1, 3, 20])
@pytest.mark.parametrize(("name", "params", "reference", "ref_params"), SPECS,
                         ids=[f"{s[0]}-{i}" for i, s in enumerate(SPECS)])
def test_kernel_matches_brute_force(name, params, reference, ref_params, k) -> None:
    for t, cases in cases_by_width(seed=zlib.crc32(f"{name}{params}{k}".encode())).items():
        r, w, length, pool = batch(cases, t)
        got = diversity.evaluate(name, r, w, length=length, k=k, pool=pool, **params)
        assert got.shape == (len(cases),)
        for q, case in enumerate(cases):
            expected = float(reference(case, k, **ref_params))
            assert math.isclose(got[q], expected, rel_tol=1e-12, abs_tol=1e-12), (name, k, case, got[q], expected)


# ------------------------------------------------------------------------------------------ worked examples

def test_err_ia_worked_example() -> None:
    """Amigó et al. (2018) §5 example ranking R = [{a:½}, {a:½}, {b:¼}, {}], w = ½ each: ERR-IA@4 = 17/48."""
    r = np.array([[0.5, 0], [0.5, 0], [0, 0.25], [0, 0]])
    assert diversity.err_ia(r, [0.5, 0.5]) == pytest.approx(17 / 48, abs=1e-15)
    assert diversity.evaluate("RBU", r, [0.5, 0.5], p=0.8, e=0.0) == pytest.approx(43 / 125, abs=1e-15)


def test_ap_ia_redundancy_example() -> None:
    """Amigó et al. (2018) fn. 4: AP-IA@2(d_t, d'_t) > AP-IA@2(d_t, d_t'), so AP-IA rewards redundancy."""
    pool = np.array([[1, 0]] * 3 + [[0, 1]] * 3, dtype=float)  # N_r = 3 relevant documents per aspect
    same = diversity.ap_ia(np.array([[1, 0], [1, 0]], float), [0.5, 0.5], pool=pool)
    other = diversity.ap_ia(np.array([[1, 0], [0, 1]], float), [0.5, 0.5], pool=pool)
    assert same == pytest.approx(0.5 * 2 / 3) and other == pytest.approx(0.5 / 3 + 0.5 * 0.5 / 3)
    assert same > other


def test_p_ia_is_proportional_to_relevant_count() -> None:
    """Amigó et al. (2018) fn. 3: with balanced aspects P-IA@k ∝ the number of (document, aspect) hits."""
    a = diversity.precision_ia(np.array([[1, 0], [1, 0], [0, 0]], float), [0.5, 0.5], k=3)
    b = diversity.precision_ia(np.array([[0, 1], [0, 0], [1, 0]], float), [0.5, 0.5], k=3)
    assert a == b == pytest.approx(1 / 3)


def test_eu_charges_effort_only_for_held_positions() -> None:
    r = np.zeros((2, 4, 1))
    r[:, 0, 0] = 0.5
    values = diversity.eu(r, [1.0], length=[1, 3], e=0.1)
    assert values[0] == pytest.approx(0.4)
    assert values[1] == pytest.approx(0.4 - 0.1 / 2 - 0.1 / (1 + math.log2(3)))


def test_ct_saturation_stops_gain() -> None:
    r = np.array([[0.75], [0.5], [0.5]])
    assert diversity.ct(r, [1.0], alpha=0.0, saturation=1.0) == pytest.approx(0.75 + 0.5 / 2)
    assert diversity.ct(r, [1.0], alpha=0.0, saturation=10.0) == pytest.approx(0.75 + 0.5 / 2 + 0.5 / 3)


def test_empty_rankings_score_zero() -> None:
    r = np.zeros((3, 0, 2))
    pool = np.ones((3, 2, 2)) * 0.5
    for name in diversity.KERNELS:
        values = diversity.evaluate(name, r, [0.5, 0.5], pool=pool, **({"e": 0.0} if name in ("EU", "RBU") else {}))
        assert np.array_equal(values, np.zeros(3)), name


@pytest.mark.parametrize(("name", "params", "message"), [
    ("NRBP", {"p": 1.0}, "p must lie in"),
    ("alpha_nDCG", {"alpha": 1.5}, "alpha must lie in"),
    ("EU", {"e": -1}, "e must be a finite number"),
    ("CT", {"form": "x"}, "form must be"),
    ("nDCG_IA", {"log_base": 1}, "log_base"),
    ("nDCG_IA", {}, "needs pool="),
    ("EU", {"beta": 1}, "unknown parameter"),
    ("S_RR", {"p": 1}, "takes no parameters"),
    ("nope", {}, "unknown diversity metric"),
])
def test_bad_parameters_are_one_line_errors(name, params, message) -> None:
    r = np.array([[0.5, 0.0]])
    with pytest.raises(PrefevalError, match=message):
        diversity.evaluate(name, r, [0.5, 0.5], **params)


def test_relevance_outside_unit_interval_is_rejected() -> None:
    with pytest.raises(PrefevalError, match=r"ERR-IA: relevance probabilities"):
        diversity.err_ia(np.array([[1.5]]), [1.0])
