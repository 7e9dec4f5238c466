"""The diversity metrics of Table 1 of Amigó et al. (2018) as prefeval measures (prefeval.methods.intent_aware,
coverage, novelty): the provider gives the phase-1 kernels' values (prefeval.data.aspects.evaluate_kernel) on the
same qrels and runs, every judged query without a relevant document gets 0, parameters are validated, and the
measures run through ir-measures, prefeval.evaluate, compare, the CLI and pipelines; on TREC Web 2012 they give
ndeval's (pyndeval's) per-topic values where the definitions coincide.
"""

from __future__ import annotations

import math
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import prefeval
from prefeval import methods
from prefeval.core import diversity
from prefeval.data.aspects import aspect_arrays, evaluate_kernel, single_aspect
from prefeval.errors import PrefevalError

# measure text -> (kernel, kernel parameters, mapping, single aspect, rel, cutoff)
CASES = {
    "Prec_IA@5": ("P_IA", {}, "binary", False, 1, 5),
    "AveP_IA": ("AP_IA", {}, "binary", False, 1, None),
    "RR_IA@10": ("RR_IA", {}, "binary", False, 1, 10),
    "nDCG_IA@10": ("nDCG_IA", {}, "err", False, 1, 10),
    "nDCG_IA(rel=2, gains='binary', normalise=False)": ("nDCG_IA", {"normalise": False}, "binary", False, 2, None),
    "ERR_IA_graded@10": ("ERR_IA", {}, "err", False, 1, 10),
    "RBP_IA(p=0.9)": ("RBP_IA", {"p": 0.9}, "err", False, 1, None),
    "RBP_graded(p=0.7)@10": ("RBP_IA", {"p": 0.7}, "err", True, 1, 10),
    "S_Recall@5": ("S_Recall", {}, "binary", False, 1, 5),
    "S_RR": ("S_RR", {}, "binary", False, 1, None),
    "S_RR(rel=2)@3": ("S_RR", {}, "binary", False, 2, 3),
    "D_sharp_nDCG(lam=0.3)@10": ("D_sharp_nDCG", {"lam": 0.3}, "err", False, 1, 10),
    "alpha_nDCG_graded(alpha=0.3)@10": ("alpha_nDCG", {"alpha": 0.3}, "err", False, 1, 10),
    "alpha_nDCG_graded(normalise=True, gains='binary')@5": ("alpha_nDCG", {"normalise": True}, "binary", False, 1, 5),
    "NRBP_graded(normalise='ideal')": ("NRBP", {"normalise": "ideal"}, "err", False, 1, None),
    "NRBP_graded(normalise='clarke', gains='binary', p=0.8)": ("NRBP", {"normalise": "clarke", "p": 0.8}, "binary",
                                                               False, 1, None),
    "EU(e=0.1)@20": ("EU", {"e": 0.1}, "err", False, 1, 20),
    "EU(rel=2, log_base=10)": ("EU", {"log_base": 10.0}, "err", False, 2, None),
    "CT@10": ("CT", {}, "err", False, 1, 10),
    "CT(form='luo', alpha=0.2)@10": ("CT", {"form": "luo", "alpha": 0.2}, "err", False, 1, 10),
    "ACT(saturation=2)@10": ("ACT", {"saturation": 2.0}, "err", False, 1, 10),
}


def data() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Diversity qrels (grades -2..3, 1-3 subtopics, some without a relevant document), a run with score ties,
    a query the run lacks, a judged query without a relevant document at any rel, one only at rel 1."""
    rng = np.random.default_rng(12)
    qrels, run = [], []
    for q in range(1, 8):
        n_sub = int(rng.integers(1, 4))
        docs = [f"d{q}_{i}" for i in range(int(rng.integers(2, 20)))]
        for d in docs:
            for s in range(1, n_sub + 1):
                grade = int(rng.choice([-2, 0, 0, 1, 2, 3] if q != 5 else [0, 1]))
                qrels.append((str(q), d, grade, str(s) if n_sub > 1 else "0"))
        if q == 7:
            continue  # a query the run lacks: an empty ranking
        pool = docs + [f"x{q}_{i}" for i in range(4)]
        picked = rng.permutation(len(pool))[: int(rng.integers(1, len(pool)))]
        run += [(str(q), pool[i], float(rng.integers(0, 4))) for i in picked]
    qrels.append(("9", "z", 0, "1"))  # judged, no relevant document
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance", "iteration"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


def kernel_values(qrels: pd.DataFrame, run: pd.DataFrame, kernel: str, params: dict, mapping: str, single: bool,
                  rel: int, k: int | None, cache: dict) -> dict[str, float]:
    """:func:`prefeval.data.aspects.evaluate_kernel`'s values, the arrays built once per (rel, k, mapping), unbucketed
    (tests/test_aspects.py checks that buckets do not change values)."""
    key = (rel, k, mapping)
    if key not in cache:
        (cache[key],) = aspect_arrays(qrels, run, rel, k, mapping, bucket=False)
    a = single_aspect(cache[key]) if single else cache[key]
    values = diversity.evaluate(kernel, a.r, a.weights, length=a.length, k=k, pool=a.pool, **params)
    return dict(zip(a.query_ids, values.tolist()))


def test_every_diversity_measure_is_its_kernel_through_the_provider() -> None:
    qrels, run = data()
    cache: dict = {}
    measures = {text: ir_measures.parse_measure(text) for text in CASES}
    provider: dict[str, dict[str, float]] = {}
    for m in ir_measures.iter_calc(list(measures.values()), qrels, run):
        provider.setdefault(str(m.measure), {})[m.query_id] = m.value
    judged = sorted(qrels["query_id"].unique())
    for text, (kernel, params, mapping, single, rel, k) in CASES.items():
        ours = provider[str(measures[text])]
        assert sorted(ours) == judged, text  # every judged query counts
        expected = kernel_values(qrels, run, kernel, params, mapping, single, rel, k, cache)
        zeros = set(judged) - set(expected)
        assert "9" in zeros and all(ours[q] == 0.0 for q in zeros), text
        assert {q: ours[q] for q in expected} == pytest.approx(expected, abs=1e-12), text
        assert np.isfinite(list(ours.values())).all()
    assert sum(v != 0.0 for v in provider[str(measures["CT@10"])].values()) >= 4  # not trivially zero
    assert provider[str(measures["S_RR(rel=2)@3"])]["5"] == 0.0  # no grade 2 in query 5: a judged query, 0
    expected = evaluate_kernel("EU", qrels, run, rel=2, log_base=10.0)  # the public entry point, bucketed
    assert {q: provider[str(measures["EU(rel=2, log_base=10)"])][q] for q in expected.index} == pytest.approx(
        expected.to_dict(), abs=1e-12)


def test_graded_and_binary_gains_differ_and_binary_matches_the_count_based_kernels() -> None:
    qrels, run = data()
    graded, binary = (ir_measures.parse_measure(f"ERR_IA_graded(gains='{g}')@10") for g in ("err", "binary"))
    values = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc([graded, binary], qrels, run)}
    assert any(values[(str(graded), q)] != values[(str(binary), q)] for q in ("1", "2", "3", "4"))


@pytest.mark.parametrize(("text", "message"), [
    ("RBP_IA(p=1.5)", "p=1.5: must lie in \\(0, 1\\)"),
    ("EU(e=-1)", "e=-1.0: must be a finite number >= 0"),
    ("nDCG_IA(log_base=1)", "log_base=1.0: must be a number > 1"),
    ("NRBP_graded(normalise='max')", "is not one of"),
    ("CT(form='x')", "is not one of"),
    ("D_sharp_nDCG(lam=2)", "must lie in \\[0, 1\\]"),
    ("S_Recall(alpha=0.5)", "unknown parameter"),
    ("alpha_nDCG_graded(gains='exp')", "is not one of"),
    ("Prec_IA@0", "cutoff must be a positive integer"),
])
def test_invalid_parameters_fail_when_parsed(text: str, message: str) -> None:
    with pytest.raises(PrefevalError, match=message):
        methods.parse(text)
    with pytest.raises((PrefevalError, ValueError)):  # ir-measures' parser refuses negative literals itself
        ir_measures.parse_measure(text)


def test_names_do_not_clash_with_ir_measures() -> None:
    ours = {"Prec_IA", "AveP_IA", "RR_IA", "nDCG_IA", "ERR_IA_graded", "RBP_IA", "RBP_graded", "S_Recall", "S_RR",
            "D_sharp_nDCG", "alpha_nDCG_graded", "NRBP_graded", "EU", "CT", "ACT"}
    assert ours <= {d.name for d in methods.declarations("metric")}
    assert ir_measures.parse_measure("P_IA@5").__class__.__module__.startswith("ir_measures")
    assert ir_measures.parse_measure("AP_IA").__class__.__module__.startswith("ir_measures")
    for name in ours:
        assert methods.get(name).aspects and methods.get(name).citation.year


@pytest.mark.filterwarnings("ignore:run '.' covers")
def test_measures_run_through_calc_aggregate_evaluate_and_compare() -> None:
    qrels, run = data()
    other = run.assign(score=-run["score"])
    texts = ["EU@10", "CT@10", "S_RR", "nDCG_IA@10", "RBP_graded"]
    aggregate = ir_measures.calc_aggregate([ir_measures.parse_measure(t) for t in texts], qrels, run)
    per_query = prefeval.evaluate(qrels, {"a": run, "b": other}, texts, per_query=True)
    got = per_query[per_query["run"] == "a"].groupby("given")["value"].mean()
    for text in texts:
        assert got[text] == pytest.approx(aggregate[ir_measures.parse_measure(text)], abs=1e-12)
    n_judged = qrels["query_id"].nunique()
    expected_eu = evaluate_kernel("EU", qrels, run, k=10).sum() / n_judged  # zeros for the other judged queries
    assert got["EU@10"] == pytest.approx(expected_eu, abs=1e-12)
    comparison = prefeval.compare(qrels, {"a": run, "b": other}, ["EU@10"])
    wide = per_query[per_query["given"] == "EU@10"].pivot(index="query_id", columns="run", values="value")
    assert comparison.matrix().loc["a", "b"] == pytest.approx((wide["a"] - wide["b"]).mean(), abs=1e-12)


def test_cli_evaluates_the_new_measures(tmp_path: Path, capsys) -> None:
    from prefeval.commands.cli import main

    qrels, run = data()
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "a.run"
    qrels[["query_id", "iteration", "doc_id", "relevance"]].to_csv(qrels_path, sep=" ", header=False, index=False)
    run.assign(q0="Q0", rank=0, tag="t")[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
        run_path, sep=" ", header=False, index=False)
    assert main(["eval", str(qrels_path), str(run_path), "D_sharp_nDCG@10", "ACT@10"]) == 0
    out = capsys.readouterr().out
    expected = evaluate_kernel("ACT", qrels, run, k=10).sum() / qrels["query_id"].nunique()
    assert "D_sharp_nDCG@10" in out and f"{expected:.4f}" in out


ALPHA = BETA = 0.5


@pytest.mark.integration
def test_provider_matches_ndeval_on_trec_web_2012(shared_data: Path) -> None:
    """8 runs x 50 topics of TREC Web 2012: prefeval's measures with ndeval's conventions against pyndeval,
    per-topic max |diff| <= 1e-9 (both see prefeval's ranking; see tests/test_diversity_ndeval.py)."""
    pytest.importorskip("pyndeval")
    from tests.test_diversity_ndeval import distinct_scores, ndeval_values

    from prefeval.data.trec import read_qrels, read_run

    folder = shared_data / "trec-web-2012"
    qrels = read_qrels(folder / "qrels.diversity.txt")
    pairs = {  # ndeval column -> prefeval measure with ndeval's conventions
        "P-IA@20": "Prec_IA@20", "strec@20": "S_Recall@20", "MAP-IA": "AveP_IA",
        "alpha-nDCG@20": "alpha_nDCG_graded(gains='binary', normalise=True)@20",
        "NRBP": "NRBP_graded(gains='binary', normalise='clarke')",
        "nNRBP": "NRBP_graded(gains='binary', normalise='ideal')",
    }
    runs = sorted((folder / "runs").glob("*.run.gz"))
    assert len(runs) == 8
    ideal_err = sum(0.5**i / i for i in range(1, 21))
    for path in runs:
        run = distinct_scores(read_run(path))
        theirs = ndeval_values(qrels, run, ALPHA, BETA)
        measures = {column: ir_measures.parse_measure(text) for column, text in pairs.items()}
        err = ir_measures.parse_measure("ERR_IA_graded@20")
        ours: dict[str, dict[str, float]] = {}
        binary = qrels.assign(relevance=(qrels["relevance"] >= 1).astype(np.int64))  # ndeval binarises
        for m in ir_measures.iter_calc(list(measures.values()), qrels, run):
            ours.setdefault(str(m.measure), {})[m.query_id] = m.value
        for m in ir_measures.iter_calc([err], binary, run):
            ours.setdefault("ERR", {})[m.query_id] = m.value / ideal_err
        topics = theirs.index
        assert len(topics) >= 40
        for column, measure in [*((c, str(m)) for c, m in measures.items()), ("ERR-IA@20", "ERR")]:
            diff = max(abs(ours[measure][q] - theirs.loc[q, column]) for q in topics)
            assert diff <= 1e-9, (path.name, column, diff)
        assert not math.isnan(sum(ours["ERR"].values()))


def test_analyse_mu_prints_the_metric_unanimity_table(tmp_path: Path, capsys, monkeypatch) -> None:
    from prefeval.analysis import unanimity
    from prefeval.commands.cli import main

    families = {"RBU", "EU", "CT@k", "S-RR@100%", "AP", "NRBP"}  # a part of the grid keeps the test fast
    grid = [row for row in unanimity.PAPER_GRID if row[1] in families][::5]
    monkeypatch.setattr(unanimity, "PAPER_GRID", grid)

    qrels, run = data()
    qrels_path = tmp_path / "qrels.txt"
    qrels[["query_id", "iteration", "doc_id", "relevance"]].to_csv(qrels_path, sep=" ", header=False, index=False)
    runs = {}
    for name, frame in (("a", run), ("b", run.assign(score=-run["score"])), ("c", run.iloc[::2])):
        runs[name] = str(tmp_path / f"{name}.run")
        frame.assign(q0="Q0", rank=0, tag=name)[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
            runs[name], sep=" ", header=False, index=False)
    assert main(["analyse", str(qrels_path), *runs.values(), "--mu", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# metric_unanimity")
    printed = pd.read_csv(pd.io.common.StringIO(out.split("\n", 1)[1]))
    expected = unanimity.mu_table(unanimity.diversity_scores(qrels, {f"{n}.run": p for n, p in runs.items()}, grid))
    assert len(printed) == len(grid) and {"RBU", "EU", "CT@k"} <= set(printed["family"]) <= families
    assert printed.set_index("measure")["mu"].to_dict() == pytest.approx(expected.set_index("measure")["mu"].to_dict())
    assert main(["analyse", str(qrels_path), *runs.values()]) != 0  # other analyses need -m
    assert "give the methods to judge with -m" in capsys.readouterr().err

    from types import SimpleNamespace

    from prefeval.analysis.hooks import PIPELINE_ANALYSES

    context = SimpleNamespace(qrels=qrels, runs={f"{n}.run": p for n, p in runs.items()}, rel=1)
    table = PIPELINE_ANALYSES["unanimity_grid"](context)["metric_unanimity_grid"]  # the pipeline's analyse step
    assert table.set_index("measure")["mu"].to_dict() == pytest.approx(expected.set_index("measure")["mu"].to_dict())
