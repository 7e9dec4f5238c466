"""Meta-evaluation on the 14 DL-Hard document runs (../shared/data; skipped without it)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from prefeval.analysis import (
    discriminative_power,
    evaluate_positions,
    load_positions,
    sign_agreement,
    tie_rates,
)
from prefeval.commands.cli import main
from prefeval.engine.compare import compare

METHODS = ["LexiRecall", "LexiPrecision", "RPP", "AP", "nDCG", "RR", "R@1000", "Rprec"]


@pytest.fixture(scope="module")
def doc_data(shared_data):
    from prefeval.data.inputs import qrels_frame, runs_dict

    folder = shared_data / "dl-hard"
    qrels = qrels_frame(folder / "dl_hard-doc.qrels")
    runs = runs_dict(sorted((folder / "runs" / "doc").glob("*.run.gz")))
    return qrels, runs


@pytest.fixture(scope="module")
def doc_comparison(doc_data):
    qrels, runs = doc_data
    return evaluate_positions(load_positions(qrels, runs), METHODS)


def test_engine_equals_compare_on_real_runs(doc_data, doc_comparison):
    qrels, runs = doc_data
    reference = compare(qrels, runs, METHODS).per_query
    merged = reference.merge(doc_comparison.per_query, on=["method", "query_id", "run_a", "run_b"], how="outer",
                             indicator=True)
    assert len(doc_comparison.runs) == 14 and (merged["_merge"] == "both").all()
    np.testing.assert_allclose(merged["value_x"], merged["value_y"], rtol=0, atol=1e-12)


def test_papers_structural_findings(doc_comparison):
    ties = tie_rates(doc_comparison).set_index("method")["fraction_tied"]
    # Diaz & Mitra (2023) §6.2.2: LexiRecall has far fewer ties than R@1000 and R-precision, like AP and nDCG
    assert ties["LexiRecall"] < ties["Rprec"] < ties["R@1000"]
    assert ties["LexiRecall"] <= ties["AP"] and ties["LexiRecall"] <= ties["nDCG"]
    # Diaz (2023) Table 3: LexiPrecision ties far less often than RR; it ties exactly when LexiRecall does
    assert ties["LexiPrecision"] == ties["LexiRecall"] and ties["LexiPrecision"] < ties["RR"] / 5
    agree = sign_agreement(doc_comparison).set_index(["method", "reference"])["agreement"]
    # runs are at most 1000 deep, so a strict R@1000 preference implies the same LexiRecall preference
    # (Diaz & Mitra (2023) §6.2.1); LexiPrecision refines RR (Diaz (2023) §3.2)
    assert agree["LexiRecall", "R@1000"] == 1.0
    assert agree["LexiPrecision", "RR"] == 1.0
    power = discriminative_power(doc_comparison, tests="paired", correction="none")
    assert (power["pairs"] == 91).all() and power["fraction"].between(0, 1).all()


def test_analyse_command(shared_data, capsys):
    folder = shared_data / "dl-hard"
    runs = sorted(str(p) for p in (folder / "runs" / "passage").glob("*.run.gz"))
    code = main(["analyse", str(folder / "dl_hard-passage.qrels"), *runs, "-m", "LexiRecall", "RPP",
                 "--metrics", "AP", "RR", "--analyses", "ties,agreement,power,robustness", "--resamples", "200",
                 "--samples", "2", "--fractions", "0.5", "--format", "json"])
    assert code == 0
    tables = json.loads(capsys.readouterr().out)
    assert set(tables) == {"ties", "sign_agreement", "system_agreement", "kendall_tau", "discriminative_power",
                           "label_degradation", "query_subsampling"}
    assert {row["method"] for row in tables["ties"]} == {"LexiRecall", "RPP", "AP", "RR"}
    assert {row["policy"] for row in tables["label_degradation"]} == {"uniform", "popularity-weighted",
                                                                       "keep-most-popular"}
