"""prefeval.compare: worked examples, edge cases, significance plumbing, the CLI, and real DL-Hard runs checked
against a straightforward pure-Python implementation of the definitions (tests/reference.py)."""

from __future__ import annotations

import functools
import io
import json
import warnings
from contextlib import redirect_stdout
from fractions import Fraction

import ir_measures
import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from statsmodels.stats.multitest import multipletests

import prefeval
import reference as ref
from prefeval.commands.cli import main as cli_main
from prefeval.errors import PrefevalError

INF = None


def run_from_positions(vectors: dict[str, list[int | None]], relevant: dict[str, list[str]], tag: str) -> pd.DataFrame:
    """A run whose relevant documents sit at the given positions (None = not retrieved); fillers elsewhere."""
    rows = []
    for q, positions in vectors.items():
        placed = {p: d for p, d in zip(positions, relevant[q]) if p is not None}
        for pos in range(1, max([p for p in positions if p is not None], default=0) + 1):
            rows.append((q, placed.get(pos, f"{tag}-{q}-filler{pos}"), -float(pos)))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


@pytest.fixture(scope="module")
def c46():
    """Digest lexiprecision-and-rpp.md C4.6: 3 runs, 2 queries, binary relevance."""
    relevant = {"q1": ["r1", "r2", "r3"], "q2": ["s1", "s2"]}
    qrels = pd.DataFrame([(q, d, 1) for q, docs in relevant.items() for d in docs] + [("q1", "nonrel", 0)],
                         columns=["query_id", "doc_id", "relevance"])
    runs = {
        "A": run_from_positions({"q1": [1, 5, 9], "q2": [2, INF]}, relevant, "A"),
        "B": run_from_positions({"q1": [1, 3, INF], "q2": [1, 10]}, relevant, "B"),
        "C": run_from_positions({"q1": [2, 3, 4], "q2": [3, 4]}, relevant, "C"),
    }
    return qrels, runs


def test_c46_table(c46):
    qrels, runs = c46
    res = prefeval.compare(qrels, runs, ["LexiPrecision", "LexiPrecision(magnitude='rr')", "RPP", "LexiRecall"])
    pq = res.per_query.set_index(["method", "query_id", "run_a", "run_b"])["value"]
    expected = {  # (query, pair): (sgnLP, rrLP, RPP)
        ("q1", "A", "B"): (-1, Fraction(-2, 15), 0), ("q1", "A", "C"): (1, Fraction(1, 2), Fraction(-1, 3)),
        ("q1", "B", "C"): (1, Fraction(1, 2), 0), ("q2", "A", "B"): (-1, Fraction(-1, 2), -1),
        ("q2", "A", "C"): (1, Fraction(1, 6), 0), ("q2", "B", "C"): (1, Fraction(2, 3), 0),
    }
    for (q, a, b), (sgn, rr, rpp) in expected.items():
        assert pq["LexiPrecision", q, a, b] == sgn
        assert pq["LexiPrecision(magnitude='rr')", q, a, b] == pytest.approx(float(rr), abs=1e-15)
        assert pq["RPP", q, a, b] == pytest.approx(float(rpp), abs=1e-15)
    # LexiRecall from the reference implementation
    vectors = {"q1": {"A": [1, 5, 9], "B": [1, 3, ref.INF], "C": [2, 3, 4]},
               "q2": {"A": [2, ref.INF], "B": [1, 10], "C": [3, 4]}}
    for (q, a, b) in expected:
        assert pq["LexiRecall", q, a, b] == ref.lexirecall(vectors[q][a], vectors[q][b])
    # system-level means
    rr = res.matrix("LexiPrecision(magnitude='rr')")
    assert rr.loc["A", "B"] == pytest.approx(-19 / 60)
    assert rr.loc["A", "C"] == pytest.approx(1 / 3)
    assert rr.loc["B", "C"] == pytest.approx(7 / 12)
    rpp = res.matrix("RPP")
    assert rpp.loc["A", "B"] == pytest.approx(-1 / 2)
    assert rpp.loc["A", "C"] == pytest.approx(-1 / 6)
    assert rpp.loc["B", "C"] == 0
    assert res.ranking("LexiPrecision")["run"].tolist() == ["B", "A", "C"]
    # MC4 on RPP: B and C tie exactly; documented tie-break (Copeland, then mean win rate) gives B, C, A
    ranking = res.ranking("RPP", aggregate="mc4")
    assert ranking["run"].tolist() == ["B", "C", "A"]
    np.testing.assert_allclose(ranking["score"], [0.5, 0.5, 1.0], atol=1e-12)
    assert ranking["level"].tolist() == [1, 1, 2]
    fixed = res.ranking("RPP", aggregate="mc4", iterations=10)
    assert fixed["score"].iloc[0] == pytest.approx(1.49999 / 3, abs=1e-5)
    assert fixed["score"].sum() == pytest.approx(1.0)


def test_per_query_layout_antisymmetry_and_summary(c46):
    qrels, runs = c46
    res = prefeval.compare(qrels, runs, ["LexiRecall", "RPP(weighting='dcg')", "RR"])
    pq = res.per_query
    assert list(pq.columns) == ["method", "query_id", "run_a", "run_b", "value"]
    pairs = pq[pq["method"] == "LexiRecall"][["run_a", "run_b"]].drop_duplicates()
    assert [tuple(p) for p in pairs.to_numpy()] == [("A", "B"), ("A", "C"), ("B", "C")]
    assert len(pq) == 3 * 2 * 3
    for method in res.methods:
        M = res.matrix(method).to_numpy()
        np.testing.assert_allclose(M, -M.T, atol=1e-15)
        assert np.all(np.diag(M) == 0)
        P = res.result(method).prefs
        np.testing.assert_allclose(P, -P.transpose(0, 2, 1), atol=1e-15)
    summary = res.summary()
    row = summary[(summary["method"] == "LexiRecall") & (summary["run_a"] == "A") & (summary["run_b"] == "B")].iloc[0]
    values = pq[(pq["method"] == "LexiRecall") & (pq["run_a"] == "A") & (pq["run_b"] == "B")]["value"]
    assert row["mean"] == values.mean()
    assert (row["wins"], row["losses"], row["ties"], row["queries"]) == (
        (values > 0).sum(), (values < 0).sum(), (values == 0).sum(), 2)


def test_metric_differences_match_ir_measures(c46):
    qrels, runs = c46
    res = prefeval.compare(qrels, runs, ["nDCG@10", "RR"])
    for measure in (ir_measures.nDCG @ 10, ir_measures.RR):
        values = {name: {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
                  for name, run in runs.items()}
        pq = res.per_query[res.per_query["method"] == str(measure)]
        for row in pq.itertuples():
            assert row.value == pytest.approx(values[row.run_a][row.query_id] - values[row.run_b][row.query_id])
    assert res.ranking("RR")["run"].tolist() == ["B", "A", "C"]  # MRR A 0.75, B 1.0, C 5/12
    assert res.ranking("RR")["score"].tolist() == pytest.approx([1.0, 0.75, 5 / 12])


def test_query_missing_from_a_run_is_worst_case(c46):
    qrels, runs = c46
    runs = dict(runs)
    runs["B"] = runs["B"][runs["B"]["query_id"] != "q2"]
    res = prefeval.compare(qrels, runs, ["LexiRecall", "LexiPrecision", "RPP"])
    pq = res.per_query.set_index(["method", "query_id", "run_a", "run_b"])["value"]
    for method in ("LexiRecall", "LexiPrecision"):
        assert pq[method, "q2", "A", "B"] == 1
        assert pq[method, "q2", "B", "C"] == -1
    assert pq["RPP", "q2", "A", "B"] == pytest.approx(0.5)  # A wins level 1, both miss level 2
    assert pq["RPP", "q2", "B", "C"] == -1


def test_disjoint_query_sets(c46):
    qrels, runs = c46
    only = {"X": runs["A"][runs["A"]["query_id"] == "q1"], "Y": runs["A"][runs["A"]["query_id"] == "q2"]}
    res = prefeval.compare(qrels, only, ["LexiRecall", "RPP"])
    pq = res.per_query.set_index(["method", "query_id"])["value"]
    assert pq["LexiRecall", "q1"] == 1 and pq["LexiRecall", "q2"] == -1
    assert pq["RPP", "q1"] == 1 and pq["RPP", "q2"] == pytest.approx(-0.5)
    assert res.summary().set_index("method").loc["RPP", "queries"] == 2


def test_run_without_any_evaluated_query_warns(c46):
    qrels, runs = c46
    other = pd.DataFrame({"query_id": ["zz"], "doc_id": ["r1"], "score": [1.0]})
    with pytest.warns(UserWarning, match="none of the 2 evaluated queries"):
        res = prefeval.compare(qrels, {"A": runs["A"], "other": other}, ["LexiRecall"])
    assert (res.per_query["value"] == 1).all()


def test_identical_runs_tie_everywhere(c46):
    qrels, runs = c46
    res = prefeval.compare(qrels, {"A": runs["A"], "A2": runs["A"].copy()},
                           ["LexiRecall", "LexiPrecision(magnitude='rr')", "RPP(weighting='inverse')", "AP"])
    assert (res.per_query["value"] == 0).all()
    summary = res.summary()
    assert (summary["ties"] == summary["queries"]).all() and (summary["mean"] == 0).all()
    for test in ("sign", "t", "wilcoxon", "permutation"):
        sig = res.significance("RPP(weighting='inverse')", test=test)
        assert np.isnan(sig["p_value"].iloc[0]) and not sig["significant"].iloc[0]  # undefined: every query tied
        assert sig.attrs["family_size"] == 0


def test_errors(c46):
    qrels, runs = c46
    with pytest.raises(PrefevalError, match="at least two runs"):
        prefeval.compare(qrels, {"A": runs["A"]}, ["LexiRecall"])
    with pytest.raises(PrefevalError, match="NoSuchMeasure"):
        prefeval.compare(qrels, runs, ["LexiRecall", "NoSuchMeasure@5"])
    with pytest.raises(PrefevalError, match="baseline"):
        prefeval.compare(qrels, runs, ["RPP(baseline='x')"])
    with pytest.raises(PrefevalError, match="same"):
        prefeval.compare(qrels, runs, ["RPP", "RPP(weighting='uniform')"])
    with pytest.raises(PrefevalError, match="grade >= 5"):
        prefeval.compare(qrels, runs, ["LexiRecall"], rel=5)
    with pytest.raises(PrefevalError, match="weighting"):
        prefeval.compare(qrels, runs, ["RPP(weighting='cubic')"])
    res = prefeval.compare(qrels, runs, ["LexiRecall", "AP"])
    with pytest.raises(PrefevalError, match="not compared"):
        res.matrix("RPP")
    with pytest.raises(PrefevalError, match="several methods"):
        res.matrix()
    with pytest.raises(PrefevalError, match="unknown aggregate"):
        res.ranking("AP", aggregate="kemeny")
    with pytest.raises(PrefevalError, match="unknown test"):
        res.significance("AP", test="anova")
    with pytest.raises(PrefevalError, match="family-wise"):
        res.significance("AP", test="randomized_tukey_hsd", correction="holm")


def test_cutoff_truncates_runs_and_names_are_case_insensitive(c46):
    qrels, runs = c46
    a = prefeval.compare(qrels, runs, ["LexiRecall@4", "lexiprecision(magnitude='rr')@4", "RPP@4"])
    b = prefeval.compare(qrels, runs, ["LexiRecall", "LexiPrecision(magnitude='rr')", "RPP"], depth=4)
    np.testing.assert_array_equal(a.per_query["value"].to_numpy(), b.per_query["value"].to_numpy())
    c = prefeval.compare(qrels, runs, ["LexiRecall"])
    assert not np.array_equal(c.per_query["value"].to_numpy(), b.per_query["value"].to_numpy()[:6])
    # measure objects work too
    d = prefeval.compare(qrels, runs, [prefeval.RPP(weighting="dcg"), ir_measures.AP])
    assert d.methods == ["RPP(weighting='dcg')", "AP"]


def test_subtopic_rpp():
    """Diaz & Ferraro (2022) Eq. 6: populations = each subtopic (grade >= rel for it) plus all relevant docs, weighted by size."""
    qrels = pd.DataFrame([("q", "a", 1, "1"), ("q", "b", 1, "1"), ("q", "b", 2, "2"), ("q", "c", 1, "2"),
                          ("q", "d", 0, "2")], columns=["query_id", "doc_id", "relevance", "iteration"])
    runs = {"x": pd.DataFrame({"query_id": "q", "doc_id": ["c", "n1", "a", "b"], "score": [4.0, 3, 2, 1]}),
            "y": pd.DataFrame({"query_id": "q", "doc_id": ["b", "a", "n2", "c"], "score": [4.0, 3, 2, 1]})}
    res = prefeval.compare(qrels, runs, ["RPP(subtopics=True)", "RPP(graded=False)"])
    pops = {"1": {"a", "b"}, "2": {"b", "c"}, "all": {"a", "b", "c"}}
    rank = {name: list(run["doc_id"]) for name, run in runs.items()}
    total = sum(len(p) * ref.rpp_binary(ref.position_vector(rank["x"], p), ref.position_vector(rank["y"], p))
                for p in pops.values())
    value = res.per_query.set_index("method")["value"]
    assert value["RPP(subtopics=True)"] == pytest.approx(float(total / 7))
    assert value["RPP(graded=False)"] == pytest.approx(float(ref.rpp_binary([1, 3, 4], [1, 2, 4])))


def test_ties_and_duplicates_follow_trec_eval_order():
    qrels = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["b", "z"], "relevance": [1, 1]})
    # scores tie: order is doc id descending -> z, b, a; the repeated 'z' keeps its best position
    tie = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "z", "z"], "score": [1.0, 1.0, 1.0, 0.5]})
    clean = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["z", "b", "a"], "score": [3.0, 2.0, 1.0]})
    with pytest.warns(UserWarning, match="repeated"):
        res = prefeval.compare(qrels, {"tie": tie, "clean": clean}, ["LexiPrecision", "LexiRecall", "RPP"])
    assert (res.per_query["value"] == 0).all()


def test_significance_sign_and_corrections_match_scipy_statsmodels(c46):
    rng = np.random.default_rng(7)
    qrels = pd.DataFrame([(f"q{i}", f"d{j}", 1) for i in range(25) for j in range(4)],
                         columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for r in range(5):
        rows = [(f"q{i}", f"d{j}", float(rng.normal() + 0.3 * r * (j == 0))) for i in range(25) for j in range(12)]
        runs[f"run{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    res = prefeval.compare(qrels, runs, ["LexiPrecision", "nDCG@5"])
    for method, correction in (("LexiPrecision", "holm"), ("nDCG@5", "bonferroni"), ("LexiPrecision", "fdr_bh")):
        sig = res.significance(method, test="sign", correction=correction, alpha=0.1)
        pq = res.per_query[res.per_query["method"] == method]
        expected = []
        for row in sig.itertuples():
            v = pq[(pq["run_a"] == row.run_a) & (pq["run_b"] == row.run_b)]["value"].to_numpy()
            wins, losses = int((v > 0).sum()), int((v < 0).sum())
            expected.append(st.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0)
        np.testing.assert_allclose(sig["p_value"], expected)
        reject, adjusted, _, _ = multipletests(expected, alpha=0.1, method=correction)
        np.testing.assert_allclose(sig["p_adjusted"], adjusted)
        np.testing.assert_array_equal(sig["significant"], reject)
    t = res.significance("nDCG@5", test="t", correction="none")
    values = res.result("nDCG@5").values
    names = res.runs
    for row in t.itertuples():
        a, b = names.index(row.run_a), names.index(row.run_b)
        assert row.p_value == pytest.approx(st.ttest_rel(values[:, a], values[:, b]).pvalue)
    hsd = res.significance("LexiPrecision", test="randomized_tukey_hsd", n_resamples=300)
    assert hsd.attrs["correction"] == "none" and (hsd["p_adjusted"] == hsd["p_value"]).all()
    frame = res.to_frame()
    assert {"p_value", "p_adjusted", "significant", "test"} <= set(frame.columns)
    assert set(frame["test"]) == {"sign", "t"}
    md = res.to_markdown()
    assert md.startswith("| run\\_a | run\\_b | LexiPrecision | nDCG@5 |") and "run0" in md
    assert "\\begin{tabular}" in res.to_latex() and "nDCG@5" in res.to_latex()
    for aggregate in ("mc4", "borda", "copeland", "win_rate", "mean"):
        ranking = res.ranking("LexiPrecision", aggregate=aggregate)
        assert sorted(ranking["run"]) == sorted(names)
        # competition ranks: 1 + the number of runs strictly ahead (equal scores, and for MC4 levels, share one)
        keys = list(zip(-ranking["level"], ranking["score"].round(9))) if "level" in ranking else \
            list(ranking["score"].round(9))
        assert ranking["rank"].tolist() == [1 + sum(k > key for k in keys) for key in keys]


def test_cli(tmp_path, c46):
    qrels, runs = c46
    qrels_path = tmp_path / "qrels.txt"
    qrels.assign(it="0")[["query_id", "it", "doc_id", "relevance"]].to_csv(qrels_path, sep=" ", header=False,
                                                                             index=False)
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        run.assign(Q0="Q0", rank=range(1, len(run) + 1), tag=name)[
            ["query_id", "Q0", "doc_id", "rank", "score", "tag"]].to_csv(path, sep=" ", header=False, index=False)
        paths.append(str(path))

    def call(*args):
        out = io.StringIO()
        with redirect_stdout(out):
            code = cli_main(["compare", str(qrels_path), *paths, *args])
        return code, out.getvalue()

    code, text = call("-m", "LexiRecall", "RPP", "-m", "RR", "--format", "csv", "-q")
    assert code == 0
    frame = pd.read_csv(io.StringIO(text))
    assert set(frame["method"]) == {"LexiRecall", "RPP", "RR"} and len(frame) == 9
    code, text = call("-m", "RPP", "--aggregate", "mc4", "--format", "json", "-q")
    assert [r["run"] for r in json.loads(text) if r["table"] == "ranking"] == ["B", "C", "A"]
    code, text = call("-m", "LexiRecall", "--per-query", "--format", "csv", "-q")
    assert len(pd.read_csv(io.StringIO(text))) == 6
    code, text = call("-m", "LexiRecall", "--aggregate", "borda", "-q")
    assert text.startswith("run_a") and "LexiRecall" in text and "Rankings (borda)" in text and "\\_" not in text
    code, text = call("-m", "LexiRecall", "--aggregate", "borda", "--format", "markdown", "-q")
    assert "| run\\_a | run\\_b | LexiRecall |" in text and "Rankings (borda)" in text
    code, text = call("-m", "LexiRecall", "--format", "latex", "--test", "t", "--correction", "none", "-q")
    assert "\\toprule" in text
    code, _ = call("-m", "Nope", "-q")
    assert code == 1


# ---------------------------------------------------------------------------------------------
# real data: 6 passage and 14 document DL-Hard runs against the pure-Python reference

VARIANTS = ["LexiRecall", "LexiPrecision", "LexiPrecision(magnitude='rr')",
            "RPP", "RPP(weighting='inverse')", "RPP(weighting='dcg')",
            "RPP(graded=False)", "RPP(weighting='inverse', graded=False)", "RPP(weighting='dcg', graded=False)"]


@functools.lru_cache(maxsize=2)
def parsed(qrels_path, run_paths):
    """Qrels grades and run rankings parsed in pure Python (tests/reference.py), once per task."""
    grades = ref.grades(ref.read_trec(qrels_path, 4))
    rankings = {p.name.removesuffix(".gz").removesuffix(".run"): ref.rankings(ref.read_trec(p, 6)) for p in run_paths}
    return grades, rankings


level_weights = functools.lru_cache(maxsize=None)(ref.level_weights)


def rpp_binary(a, b, weighting):
    """Binary RPP as in tests/reference.py, with the level weights computed once per (m, weighting)."""
    if weighting == "uniform":
        return ref.rpp_binary(a, b)
    signs = [(1 if x < y else -1 if x > y else 0) for x, y in zip(a, b)]
    return sum(w * s for w, s in zip(level_weights(len(a), weighting), signs))


def reference_values(qrels_path, run_paths, rel):
    """Per (method, query, run_a, run_b) values from tests/reference.py."""
    grades, rankings = parsed(qrels_path, tuple(run_paths))
    names = list(rankings)
    queries = sorted(q for q, g in grades.items() if any(v >= rel for v in g.values()))
    out = {}
    for q in queries:
        thresholds = sorted({g for g in grades[q].values() if g >= rel})
        pops = {t: {d for d, g in grades[q].items() if g >= t} for t in thresholds}
        vec = {(n, t): ref.position_vector(rankings[n].get(q, []), pops[t]) for n in names for t in thresholds}
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                pa, pb = vec[a, thresholds[0]], vec[b, thresholds[0]]  # thresholds[0] >= rel: the binary population
                out["LexiRecall", q, a, b] = ref.lexirecall(pa, pb)
                out["LexiPrecision", q, a, b] = ref.lexiprecision(pa, pb)
                out["LexiPrecision(magnitude='rr')", q, a, b] = float(ref.lexiprecision(pa, pb, "rr"))
                for w, suffix in (("uniform", ""), ("inverse", "weighting='inverse'"), ("dcg", "weighting='dcg'")):
                    total = sum(len(pops[t]) * rpp_binary(vec[a, t], vec[b, t], w) for t in thresholds)
                    graded = f"RPP({suffix})" if suffix else "RPP"
                    out[graded, q, a, b] = float(total / sum(len(pops[t]) for t in thresholds))
                    flat = f"RPP({suffix + ', ' if suffix else ''}graded=False)"
                    out[flat, q, a, b] = float(rpp_binary(pa, pb, w))
    return out


@pytest.mark.parametrize("task,qrels_name", [("passage", "dl_hard-passage.qrels"), ("doc", "dl_hard-doc.qrels")])
@pytest.mark.parametrize("rel", [1, 2])
def test_dl_hard_against_reference(shared_data, task, qrels_name, rel):
    folder = shared_data / "dl-hard"
    run_paths = sorted((folder / "runs" / task).glob("*.run.gz"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no duplicates or unmatched runs expected
        res = prefeval.compare(folder / qrels_name, [str(p) for p in run_paths], VARIANTS, rel=rel)
    expected = reference_values(folder / qrels_name, run_paths, rel)
    got = res.per_query.set_index(["method", "query_id", "run_a", "run_b"])["value"]
    keys = list(expected)
    # every judged query is compared; one without a document at grade >= rel is a tie (README, "Input semantics")
    extra = got.drop(keys)
    judged = set(prefeval.data.inputs.qrels_frame(folder / qrels_name)["query_id"])
    assert set(extra.index.get_level_values("query_id")) == judged - {k[1] for k in keys}
    assert len(got) == len(expected) + len(extra) and (extra == 0).all()
    np.testing.assert_allclose(got.loc[keys].to_numpy(), np.array([expected[k] for k in keys], dtype=float),
                               rtol=0, atol=1e-12)
    # antisymmetry and transitivity of the lexicographic preferences on every query
    for method in VARIANTS:
        P = res.result(method).prefs
        np.testing.assert_allclose(P, -P.transpose(0, 2, 1), atol=1e-15)
    for method in ("LexiRecall", "LexiPrecision", "LexiPrecision(magnitude='rr')"):
        for P in res.result(method).prefs:
            better, tie = (P > 0).astype(int), (P == 0).astype(int)
            assert np.all(P[(better @ better) > 0] > 0)  # a > b > c  =>  a > c
            assert np.all(P[(tie @ tie) > 0] == 0)  # ties are an equivalence relation
            assert np.all(P[(better @ tie) > 0] > 0)
