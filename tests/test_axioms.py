"""Formal constraints as executable checks (prefeval.axioms): Amigó et al. (2018) §3-4, Ferrante et al. (2015) §4-5,
Diaz & Mitra (2023) App. A, Table 6."""

from __future__ import annotations

import importlib.util
import itertools
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.axioms import (
    CONSTRAINTS,
    GROUPS,
    Judgments,
    RankingPair,
    balancing_index,
    chain,
    check,
    compare_with_paper,
    matrix,
    precedes,
    select,
)
from prefeval.axioms import evaluate as ev
from prefeval.axioms.cases import CONTRIBUTION_SCALE, Settings, search_grid
from prefeval.axioms.model import relevance_value
from prefeval.axioms.table import (
    EXPLANATIONS,
    PAPER_TABLE1,
    README_MEASURES,
    measure_name,
    paper_row,
)
from prefeval.errors import PrefevalError
from prefeval.report.reference import axioms_table as markdown

SEED002 = list(GROUPS["seed002"])
HAS_CWL = importlib.util.find_spec("cwl") is not None


def _verdicts(frame: pd.DataFrame) -> dict[str, str]:
    return dict(zip(frame["constraint"], frame["verdict"]))


# ----------------------------------------------------------------------------- partial order (Ferrante et al. (2015))

def _precedes_brute(r, s) -> bool:
    """Ferrante et al. (2015) §4 rank-based order, straight from the definition (every grade in REL = 0..3, every k)."""
    return all(sum(1 for j in range(k) if r[j] >= lam) <= sum(1 for j in range(k) if s[j] >= lam)
               for lam in range(0, 4) for k in range(1, len(r) + 1))


def test_precedes_on_the_papers_examples_with_erratum():
    assert precedes((0, 1, 1, 2, 2), (0, 1, 1, 2, 3))
    assert not precedes((0, 1, 1, 2, 2), (0, 1, 1, 1, 3)) and not precedes((0, 1, 1, 1, 3), (0, 1, 1, 2, 2))
    # printed as incomparable; the definition says r ≼ v (erratum to Ferrante et al. (2015) §4)
    assert precedes((0, 1, 1, 2, 2), (2, 0, 1, 2, 1))
    assert not precedes((0, 1, 0, 1, 0), (1, 0, 0, 0, 1)) and not precedes((1, 0, 0, 0, 1), (0, 1, 0, 1, 0))
    with pytest.raises(ValueError):
        precedes((1, 0), (1, 0, 0))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.lists(st.integers(0, 3), min_size=n, max_size=n),
                                                    st.lists(st.integers(0, 3), min_size=n, max_size=n))))
def test_precedes_matches_the_definition(pair):
    r, s = pair
    assert precedes(r, s) == _precedes_brute(r, s)


def test_chain_reproduces_the_papers_first_step():
    steps = chain((1, 0, 1, 0, 1, 1), (1, 1, 0, 1, 1, 0))
    assert steps[0] == (1, 0, 1, 0, 1, 1) and steps[1] == (1, 0, 1, 1, 1, 0) and steps[-1] == (1, 1, 0, 1, 1, 0)


def test_chain_exists_for_every_comparable_pair_of_short_runs():
    """Theorem 5.2: each step is one Replacement (a grade rises) or one Swap (a higher grade moves up) and
    stays ≼ s; also for (0,1,2) -> (0,2,1), where the printed construction leaves the order."""
    for n in range(1, 5):
        for r in itertools.product(range(3), repeat=n):
            for s in itertools.product(range(3), repeat=n):
                if not precedes(r, s):
                    continue
                steps = chain(r, s)
                assert steps[0] == r and steps[-1] == s
                for a, b in zip(steps, steps[1:]):
                    assert precedes(b, s)
                    diff = [i for i in range(n) if a[i] != b[i]]
                    if len(diff) == 1:
                        assert b[diff[0]] > a[diff[0]]
                    else:
                        i, j = diff
                        assert a[i] < a[j] and (b[i], b[j]) == (a[j], a[i])
    with pytest.raises(ValueError):
        chain((1, 0), (0, 1))


# ------------------------------------------------------------------------- generators: preconditions

def _r(judgments: Judgments, doc: int, t: int) -> Fraction:
    return relevance_value(judgments.grades[doc][t], judgments.gmax)


def _generate(key: str, **kw):
    return CONSTRAINTS[key].generate(np.random.default_rng([7, len(key)]), Settings(cases=60, **kw))


def _comparisons(key: str, **kw) -> list[RankingPair]:
    return [c for case in _generate(key, **kw) for c in case.comparisons]


def _contribution(comp: RankingPair) -> bool:
    j = comp.judgments
    return j.gmax == CONTRIBUTION_SCALE and all(
        _r(j, d, t) <= Fraction(7, 128) for d in set(comp.left) | set(comp.right) for t in range(j.n_aspects))


def test_priority_and_deepness_cases_meet_spec_a4():
    for comp in _comparisons("Pri"):
        j = comp.judgments
        assert j.n_aspects == 1 and _contribution(comp) and comp.strict
        diff = [k for k in range(len(comp.left)) if comp.left[k] != comp.right[k]]
        i, k = diff  # left = right with positions i < k swapped, r(d_k) > r(d_i)
        assert comp.left[i] == comp.right[k] and comp.left[k] == comp.right[i]
        assert _r(j, comp.right[k], 0) > _r(j, comp.right[i], 0)
    for comp in _comparisons("Deep"):
        j, base = comp.judgments, tuple(range(len(comp.left)))
        assert j.n_aspects == 1 and _contribution(comp)
        i = next(k for k in range(len(base)) if comp.left[k] != base[k])
        jj = next(k for k in range(len(base)) if comp.right[k] != base[k])
        assert comp.left == _swapped(base, i, i + 1) and comp.right == _swapped(base, jj, jj + 1) and i < jj
        r = [_r(j, d, 0) for d in base]
        assert r[i] == r[jj] < r[i + 1] == r[jj + 1]


def _swapped(t, i, j):
    out = list(t)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


@pytest.mark.parametrize("key", ["DeepTh", "CloseTh"])
def test_threshold_cases_are_same_length_binary_rankings(key):
    for case in _generate(key, bound=40):
        assert [c.note for c in case.comparisons] == [f"{'n' if key == 'DeepTh' else 'm'}={n}" for n in search_grid(40)]
        for n, comp in zip(search_grid(40), case.comparisons):
            one, many = (comp.left, comp.right) if key == "DeepTh" else (comp.right, comp.left)
            j = comp.judgments
            r_one = [_r(j, d, 0) for d in one]
            r_many = [_r(j, d, 0) for d in many]
            rc = r_one[0]
            assert len(one) == len(many) == 2 * n and 0 < rc <= Fraction(7, 128)
            assert r_one == [rc] + [0] * (2 * n - 1) and r_many == [0] * n + [rc] * n


def test_confidence_redundancy_and_saturation_cases():
    for comp in _comparisons("Conf"):
        assert comp.right[:-1] == comp.left and comp.judgments.grades[comp.right[-1]] == (0,) and _contribution(comp)
    for comp in _comparisons("Red"):
        j = comp.judgments
        d, d2 = comp.right[-1], comp.left[-1]
        assert comp.left[:-1] == comp.right[:-1] and set(j.copies) == {1}  # balanced
        assert all(sum(g > 0 for g in j.grades[x]) <= 1 and set(j.grades[x]) <= {0, 1} for x in range(j.n_docs))
        t, u = j.grades[d].index(1), j.grades[d2].index(1)
        ranked = comp.right[:-1]
        assert t != u and sum(j.grades[x][t] for x in ranked) > sum(j.grades[x][u] for x in ranked)
    families = set()
    for case in _generate("Sat"):
        comp = case.comparisons[0]
        j, last, extra = comp.judgments, comp.left[-1], comp.right[-1]
        families.add(case.family)
        assert comp.right[:-1] == comp.left and not comp.strict
        t = j.grades[last].index(j.gmax)  # d_n has r_max = the top of the scale on aspect t
        assert j.grades[extra][t] > 0 and all(sum(g > 0 for g in row) <= 1 for row in j.grades)
    assert len(families) == 8 and len({c.family for c in _generate("Sat", grade_cap=4)}) == 4


def test_diversity_cases_meet_spec_a4():
    for comp in _comparisons("AspDiv"):
        j = comp.judgments
        i = next(k for k in range(len(comp.left)) if comp.left[k] != comp.right[k])
        assert _contribution(comp) and j.n_aspects >= 2
        assert all(_r(j, comp.left[i], t) > _r(j, comp.right[i], t) for t in range(j.n_aspects))
    for comp in _comparisons("MRed"):
        j = comp.judgments
        d, d2 = comp.right[-1], comp.left[-1]
        t = 0 if j.grades[d][0] else 1
        assert j.copies == (1, 1) and _contribution(comp)
        assert 0 < _r(j, d, t) == _r(j, d2, 1 - t) and _r(j, d, 1 - t) == _r(j, d2, t) == 0
        assert all(_r(j, x, t) > _r(j, x, 1 - t) for x in comp.right[:-1])
    for comp in _comparisons("AspRel"):
        j = comp.judgments
        d, d2 = comp.right[-1], comp.left[-1]  # the replaced document is the last one
        t = next(a for a in range(j.n_aspects) if j.grades[d][a])
        u = next(a for a in range(j.n_aspects) if j.grades[d2][a])
        w = j.weights()
        assert comp.left[:-1] == comp.right[:-1] and w[t] < w[u] and j.grades[d][t] == j.grades[d2][u] > 0
        assert all(j.grades[x][t] == j.grades[x][u] == 0 for x in comp.right[:-1])
        assert all(sum(g > 0 for g in row) <= 1 for row in j.grades)


def test_seed004_and_table6_cases():
    for key in ("Replacement", "Swap", "Monotonicity"):
        for comp in _comparisons(key):
            grades = comp.judgments.grades
            r = [grades[d][0] for d in comp.right]
            s = [grades[d][0] for d in comp.left]
            assert not comp.strict and len(r) == len(s) and precedes(r, s)
    for comp in _comparisons("StrictRel"):
        added = comp.left[-1]
        assert comp.left[:-1] == comp.right and comp.judgments.grades[added] == (1,) and comp.strict
    for comp in _comparisons("SwapUp"):
        g = comp.judgments.grades
        diff = [k for k in range(len(comp.left)) if comp.left[k] != comp.right[k]]
        assert all(g[comp.right[k]] == (0,) for k in diff[:1]) and g[comp.left[diff[0]]] == (1,)


def test_search_grid_and_selection():
    grid = search_grid(512)
    assert grid[:8] == list(range(1, 9)) and grid[-1] == 512 and grid == sorted(set(grid))
    assert search_grid(3) == [1, 2, 3]
    assert [c.key for c in select("seed004, Pri")] == ["Replacement", "Swap", "Monotonicity", "Pri"]
    assert len(select(None)) == len(CONSTRAINTS) == 19
    with pytest.raises(PrefevalError, match="unknown constraint"):
        select("Priority2")


# ------------------------------------------------------------------------------------- qrels encoding

def test_records_encode_aspects_weights_anchors_and_order():
    judgments = Judgments(((0, 2), (1, 0), (0, 0)), copies=(1, 2), gmax=7)
    comp = RankingPair((1, 0, 2), (0, 1), judgments)
    qrels, run = ev.build_frames([comp, comp], aspects=True)
    _, _, sides = ev._batch([comp, comp], aspects=True)
    qrels, run = list(qrels.itertuples(index=False)), list(run.itertuples(index=False))
    assert sides.tolist() == [[1, 2], [1, 2]]  # distinct rankings evaluated once
    rows = {(q.query_id, q.doc_id, q.iteration): q.relevance for q in qrels}
    assert rows[("1", "d0", "2")] == rows[("1", "d0", "3")] == 2 and ("1", "d0", "1") not in rows
    assert rows[("1", "d2", "1")] == 0 and rows[("1", "a0", "1")] == 7 and rows[("1", "a1", "2")] == 7
    left = [(d.doc_id, d.score) for d in run if d.query_id == "1"]
    assert left == [("d1", 3.0), ("d0", 2.0), ("d2", 1.0)]
    flat = ev.build_frames([comp], aspects=False, grade_cap=4)[0].itertuples(index=False)
    assert {(q.doc_id, q.relevance, q.iteration) for q in flat if q.query_id == "1"} == {
        ("d0", 2, "0"), ("d1", 1, "0"), ("d2", 0, "0"), ("a0", 4, "0"), ("a1", 4, "0")}


def test_resolve_recognises_providers_and_kinds():
    assert ev.resolve("ERR@10").grade_cap == 4  # gdeval
    assert ev.resolve("alpha_nDCG@10").aspects and not ev.resolve("nDCG@10").aspects
    assert isinstance(ev.resolve("RBU(p=0.8)@10"), ev.KernelScorer)
    assert isinstance(ev.resolve("RBU(p=0.8)@10", direct=False), ev.MetricScorer)
    assert ev.resolve("LexiPrecision(magnitude='rr')").kind == "preference"
    with pytest.raises(PrefevalError, match="unknown measure .NoSuchMeasure@3."):
        ev.resolve("NoSuchMeasure@3")


def test_kernel_path_equals_the_ir_measures_provider():
    comps = []
    for k, key in enumerate(CONSTRAINTS):
        found = CONSTRAINTS[key].generate(np.random.default_rng([3, k]), Settings(cases=4, bound=16))
        comps += [c for case in found for c in case.comparisons]
    for measure in ("RBU(p=0.8,e=0.03)@10", "RBU(p=0.99,e=0.001,variant='evall')", "RBU(rel=2)@5", "TSE",
                    "TSE@3"):
        fast = ev.resolve(measure).values(comps)
        slow = ev.resolve(measure, direct=False).values(comps)
        for a, b in zip(fast, slow):
            # no relevant document: not applicable (NaN) here, 0 from the provider (every judged query counts)
            np.testing.assert_array_equal(b[np.isnan(a)], 0)
            np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(a)], rtol=0, atol=1e-12)


def test_metrics_are_the_numbers_prefeval_evaluate_gives():
    """The axiom checks score a metric with prefeval's one evaluation function: the values of every ranking are
    those :func:`prefeval.evaluate` gives on the batch's qrels and run (pytrec_eval, gdeval and pyndeval measures,
    and prefeval's RBU through its provider)."""
    import prefeval

    comps = []
    for k, key in enumerate(CONSTRAINTS):
        found = CONSTRAINTS[key].generate(np.random.default_rng([5, k]), Settings(cases=3, bound=16, max_length=6, grade_cap=4))
        comps += [c for case in found for c in case.comparisons]
    for measure in ("nDCG@10", "AP", "RR", "ERR@10", "alpha_nDCG@10", "bpref", "RBU(p=0.8)@10"):
        scorer = ev.resolve(measure, direct=False)
        qrels, run, sides = ev._batch(comps, aspects=scorer.aspects, grade_cap=scorer.grade_cap)
        expected = prefeval.evaluate(qrels, {"batch": run}, [measure], per_query=True)
        expected = dict(zip(expected["query_id"].astype(int), expected["value"]))
        left, right = scorer.values(comps)
        np.testing.assert_array_equal(left, [expected[q] for q in sides[:, 0]], err_msg=measure)
        np.testing.assert_array_equal(right, [expected[q] for q in sides[:, 1]], err_msg=measure)


# --------------------------------------------------------------------------- preference methods

def _run(relevant_positions, depth=10, m=4, missing=()):
    """A ranking of depth 10 placing relevant docs 0..m-1 (minus ``missing``) at the given positions."""
    ranking, filler = [None] * depth, iter(range(m, m + depth))
    relevant = iter(d for d in range(m) if d not in missing)
    for p in relevant_positions:
        ranking[p - 1] = next(relevant)
    return tuple(d if d is not None else next(filler) for d in ranking)


def test_preferences_reproduce_the_lexirecall_digest_matrix():
    """Derived runs A–F (m = 4, depth 10; exact arithmetic); LR and LP entries of the printed matrices."""
    grades = tuple((1,) for _ in range(4)) + tuple((0,) for _ in range(10))
    j = Judgments(grades)
    runs = {"A": _run([1, 2, 3], missing=(3,)), "B": _run([4, 5, 6, 7]), "C": _run([1, 2, 9, 10]),
            "D": _run([1, 2, 3, 10]), "E": _run([]), "F": _run([1, 2, 3], missing=(0,))}
    names = list(runs)
    comps = [RankingPair(runs[a], runs[b], j) for a in names for b in names]
    lr = ev.resolve("LexiRecall").values(comps)[0].reshape(6, 6)
    lp = ev.resolve("LexiPrecision").values(comps)[0].reshape(6, 6)
    expected_lr = [[0, -1, -1, -1, 1, 0], [1, 0, 1, 1, 1, 1], [1, -1, 0, -1, 1, 1],
                   [1, -1, 1, 0, 1, 1], [-1, -1, -1, -1, 0, -1], [0, -1, -1, -1, 1, 0]]
    expected_lp = [[0, 1, 1, -1, 1, 0], [-1, 0, -1, -1, 1, -1], [-1, 1, 0, -1, 1, -1],
                   [1, 1, 1, 0, 1, 1], [-1, -1, -1, -1, 0, -1], [0, 1, 1, -1, 1, 0]]
    np.testing.assert_array_equal(lr, expected_lr)
    np.testing.assert_array_equal(lp, expected_lp)


def test_table6_properties_of_lexirecall_and_tse():
    """Diaz & Mitra (2023) App. A, Table 6: LR and TSE columns; the strict-nonrelevance row is Conf."""
    lr = _verdicts(check("LexiRecall", "table6,Conf", cases=40))
    tse = _verdicts(check("TSE", "table6,Conf", cases=40))
    for key in ("RetSize", "NonRel", "Rel", "SwapUp"):
        assert lr[key] == tse[key] == "satisfied"
    assert lr["StrictRel"] == "satisfied"  # Thm A.9
    assert tse["StrictRel"] == tse["StrictSwapUp"] == "violated"  # blank cells of Table 6
    assert lr["Conf"] == tse["Conf"] == "violated"  # nobody is strictly decreasing in nonrelevance
    assert lr["StrictSwapUp"] == "satisfied"  # the "?" cell: LR is strict (the moved document decides)


# ---------------------------------------------------------------------------------- RBU (acceptance)

def _rbu_reference(p: float, e: float, k: int | None = None):
    """RBU@k straight from Amigó et al. (2018) Eq. 11 on the qrels/run frames (independent of prefeval.core)."""
    def measure(qrels: pd.DataFrame, run: pd.DataFrame) -> dict[str, float]:
        runs = {q: g.sort_values("score", ascending=False)["doc_id"].tolist() for q, g in run.groupby("query_id")}
        out = {}
        for qid, q in qrels.groupby("query_id"):
            gmax = q.groupby("iteration")["relevance"].max()
            aspects = [t for t, g in gmax.items() if g > 0]
            grade = {(d, t): g for d, t, g in zip(q["doc_id"], q["iteration"], q["relevance"])}
            left = dict.fromkeys(aspects, 1.0)
            value = 0.0
            for i, d in enumerate(runs.get(qid, [])[:k], start=1):
                gain = 0.0
                for t in aspects:
                    r = (2 ** grade.get((d, t), 0) - 1) / 2 ** gmax[t]
                    gain += r * left[t] / len(aspects)
                    left[t] *= 1 - r
                value += p**i * (gain - e)
            out[qid] = value
        return out
    return measure


def test_reference_rbu_satisfies_all_ten_constraints():
    """A brute-force RBU (callable measure path) meets every seed-002 constraint, like prefeval's."""
    result = check(_rbu_reference(0.8, 0.03, 10), "seed002", cases=15, bound=64)
    assert set(result["verdict"]) == {"satisfied"}, result[["constraint", "reason"]]


@pytest.mark.parametrize("measure", ["RBU(p=0.8,e=0.03)@10", "RBU(p=0.99,e=0.001)@10", "RBU(p=0.9,e=0.05)"])
def test_rbu_satisfies_all_ten_constraints(measure):
    result = check(measure, "seed002", cases=60)
    assert set(result["verdict"]) == {"satisfied"}, result[["constraint", "reason"]]


def test_checker_finds_the_violations_the_digest_derives():
    no_effort = check("RBU(p=0.8,e=0)@10", "Conf", cases=20)
    row = no_effort.iloc[0]
    assert row["verdict"] == "violated" and row["left_value"] == row["right_value"]
    assert row["violations"] == 20  # every case: e = 0 charges nothing for the appended document
    low_patience = check("RBU(p=0.5,e=0.03)@10", "CloseTh,DeepTh")
    assert _verdicts(low_patience) == {"CloseTh": "violated", "DeepTh": "satisfied"}
    assert "no m <= 512" in low_patience.iloc[0]["reason"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # RBU warns about p = 1
        full_patience = check("RBU(p=1,e=0.03)@10", "Pri,Deep", cases=20)
    assert set(full_patience["verdict"]) == {"violated"}
    pri = full_patience.iloc[0]
    assert abs(pri["left_value"] - pri["right_value"]) < 1e-12  # order-insensitive within k (Amigó et al. (2018) §3.2)
    assert pri["left"].count("d") == 2  # smallest counterexample: two documents


def test_closeness_threshold_depends_on_p_as_the_digest_derives():
    """CloseTh needs ∃m: p^m - p^{2m} > 1 - p (p > 0.755); m = 2..5 work at p = 0.8 (Amigó et al. (2018) §3.3)."""
    assert check("RBU(p=0.74,e=0)", "CloseTh").iloc[0]["verdict"] == "violated"
    ok = check("RBU(p=0.8,e=0)", "CloseTh").iloc[0]
    assert ok["verdict"] == "satisfied" and "smallest m=2" in ok["reason"]


# --------------------------------------------------------------------------------- other measures

def test_metric_verdicts_and_quantifiers():
    ap = check("AP", "DeepTh,CloseTh,Pri", cases=20)
    verdicts = _verdicts(ap)
    assert verdicts == {"DeepTh": "violated", "CloseTh": "satisfied", "Pri": "violated"}
    deep = ap.set_index("constraint").loc["DeepTh"]
    assert "from n=3" in deep["reason"]  # AP(L) = 1/(n+1) < AP(R_n) from n = 3 on
    assert deep["left_value"] < deep["right_value"]
    rr = _verdicts(check("RR", "CloseTh,DeepTh,Conf", cases=20))
    assert rr == {"CloseTh": "violated", "DeepTh": "satisfied", "Conf": "violated"}


def test_unavailable_or_failing_measures_are_not_applicable(monkeypatch):
    def broken(qrels, run):
        raise ValueError("boom")

    result = check(broken, "Pri,Conf", cases=3)
    assert set(result["verdict"]) == {"not applicable"} and result["reason"].str.contains("boom").all()
    monkeypatch.setattr(ev, "_provider_of", lambda m: (None, "no available ir-measures provider"))
    result = check("P@10", "Pri", cases=3)
    assert result.iloc[0]["verdict"] == "not applicable" and "provider" in result.iloc[0]["reason"]


def test_result_frame_shape():
    result = check("P@10", None, cases=5, bound=16)
    assert list(result["constraint"]) == list(CONSTRAINTS)
    assert {"constraint", "verdict", "reason", "cases", "left", "right", "qrels", "left_value",
            "right_value"} <= set(result.columns)
    assert set(result["verdict"]) <= {"satisfied", "violated", "not applicable"}
    violated = result[result["verdict"] == "violated"]
    assert (violated["left"] != "").all() and violated["counterexample"].notna().all()


def test_matrix_agrees_with_table1_except_for_explained_cells():
    """Every cell of the README matrix either matches Table 1 of Amigó et al. (2018) §4 or has an explanation
    (cutoff, parameter, binarising implementation, weight encoding, or a paper erratum); every recorded
    explanation still describes an actual difference."""
    measures = [m for m in README_MEASURES if HAS_CWL or not m.startswith("RBP(rel")]
    wide = matrix(measures, cases=10)
    # graded alpha-nDCG, EU and CT violate AspDiv in 1-3 of the README's 100 cases only: check those with 100
    rare = matrix(["α-nDCG@10 graded", "EU(alpha=0.5,e=0.05)", "CT@10"], constraints="AspDiv", cases=100)
    wide.loc[rare.index, "AspDiv"] = rare["AspDiv"]
    assert wide.shape == (len(measures), 10) and list(wide.columns) == SEED002
    comparison = compare_with_paper(wide)
    differ = comparison[~comparison["agrees"]]
    unexplained = differ[differ["explanation"] == ""]
    assert unexplained.empty, unexplained[["measure", "constraint", "ours", "paper"]]
    found = {(measure_name(m), c) for m, c in zip(differ["measure"], differ["constraint"])}
    expected = {key for key in EXPLANATIONS if HAS_CWL or key[0] != "RBP"}
    assert found == expected
    assert (wide.loc[[m for m in measures if m.startswith("RBU")]] == "●").all().all()
    if HAS_CWL:  # docs/axioms.md shows this table: it must be what the checker computes
        page = (Path(__file__).resolve().parent.parent / "docs" / "axioms.md").read_text(encoding="utf-8")
        assert markdown(wide) in page
    text = markdown(wide)
    assert text.count("\n") == len(measures) + 1 and "**●** (○)" in text
    assert paper_row("ERR_IA@20") == "ERR-IA@k" and paper_row("Bpref") is None
    assert set(PAPER_TABLE1["RBU@k"].values()) == {"●"}


def test_balancing_index_matches_the_digest_table():
    """Ferrante et al. (2015) §6, values computed by hand (binary relevance): AP, P@n, RR, nDCG log2(i+1), RBP p = 0.8."""
    expected = {1: (1, 1, 1), 2: (1, 1, 1), 3: (2, 2, 2), 5: (3, 3, 3), 10: (7, 7, 6), 20: (15, 16, 7),
                21: (16, 17, 8)}
    for n, (ap, ndcg, rbp) in expected.items():
        assert balancing_index("AP", n) == ap
        assert balancing_index(f"P@{n}", n) == n and balancing_index("RR", n) == 1
        if n <= 20:
            assert balancing_index(f"nDCG@{n}", n) == ndcg
        if HAS_CWL:
            assert balancing_index("RBP(rel=1,p=0.8)", n) == rbp
    assert balancing_index("AP", 5, q_min=1, q_max=3) == 3  # graded REL {0..3}
    assert balancing_index("ERR@10", 5, q_min=1, q_max=3) is None  # max ∅ (Algorithm 1 would not stop)
    with pytest.raises(PrefevalError):
        balancing_index("LexiRecall", 5)


def test_command_line(capsys):
    from prefeval.commands.cli import main

    assert main(["axioms", "RR", "-c", "Conf,CloseTh", "--cases", "4", "--bound", "8"]) == 0
    out = capsys.readouterr().out
    assert "Conf" in out and "violated" in out and "required Q(left) > Q(right)" in out
    assert main(["axioms", "--table", "--paper", "-f", "markdown", "--cases", "3", "--bound", "8", "AP",
                 "LexiRecall"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| measure |") and "not in Table 1: LexiRecall" in out
    assert main(["axioms", "-f", "csv", "-c", "Swap", "--cases", "3", "nDCG@10"]) == 0
    assert capsys.readouterr().out.startswith("measure,constraint,")
    assert main(["axioms"]) == 1
    assert main(["axioms", "--balance", "5", "AP", "RR"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split() == ["AP", "1", "1", "2", "2", "3"]
