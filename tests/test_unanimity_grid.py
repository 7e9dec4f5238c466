"""Metric unanimity over the RBU paper's metric set (prefeval.analysis.unanimity.diversity_scores / mu_table)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from prefeval.analysis.unanimity import PAPER_GRID, diversity_scores, metric_unanimity, mu_table
from prefeval.data.aspects import kernel_measure


def synthetic() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    rng = np.random.default_rng(3)
    qrels = []
    for q in ("1", "2", "3"):
        for d in range(12):
            for s in ("1", "2", "3"):
                qrels.append((q, f"d{d}", int(rng.choice([0, 0, 1, 2, 3])), s))
    qrels_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance", "iteration"])
    runs = {}
    for name in ("a", "b", "c", "d"):
        rows = []
        for q in ("1", "2", "3"):
            docs = rng.permutation(14)[: int(rng.integers(3, 14))]
            rows += [(q, f"d{d}", float(-i)) for i, d in enumerate(docs)]
        runs[name] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels_frame, runs


GRID = [row for row in PAPER_GRID if row[0] in
        ("AP", "RR-IA", "nDCG", "P@10", "ERR-IA@20", "DCG@50", "α-DCG(α=0.25)@10", "RBP(p=0.9)",
         "NRBP(p=0.8,α=0.5)", "RBU(p=0.9,e=0.05)", "EU(α=0.1,e=0.1)", "CT@10", "S-RR@100%", "D#-nDCG@20")]


def test_grid_covers_the_paper_parameters() -> None:
    labels = [row[0] for row in PAPER_GRID]
    assert len(labels) == len(set(labels))
    assert sum(row[1] == "RBU" for row in PAPER_GRID) == 12 and sum(row[1] == "EU" for row in PAPER_GRID) == 16
    assert sum(row[1] == "NRBP" for row in PAPER_GRID) == 12 and sum(row[1] == "α-DCG@k" for row in PAPER_GRID) == 20
    assert len(GRID) == 13


def test_diversity_scores_are_the_kernels_values() -> None:
    qrels, runs = synthetic()
    scores = diversity_scores(qrels, runs, GRID)
    assert set(scores.columns) == {"run", "query_id", "measure", "family", "value"}
    assert len(scores) == len(GRID) * len(runs) * 3
    for label, _, kernel, single, params in GRID:
        params = dict(params)
        measure = kernel_measure(kernel, k=params.pop("k", None), single_aspect=single, **params)
        for name, run in runs.items():
            expected = measure(qrels, run)
            got = scores[(scores["run"] == name) & (scores["measure"] == label)].set_index("query_id")["value"]
            assert got.to_dict() == pytest.approx(expected, abs=1e-12), (label, name)


def test_mu_table_is_metric_unanimity_per_topic() -> None:
    qrels, runs = synthetic()
    scores = diversity_scores(qrels, runs, GRID)
    table = mu_table(scores)
    assert list(table.columns) == ["measure", "family", "mu", "pairs"]
    assert (table["pairs"] == 3 * 4 * 3).all()
    tidy = scores.drop(columns="family")
    for row in table.itertuples():
        assert row.mu == pytest.approx(metric_unanimity(tidy, row.measure, by="query_id"), nan_ok=True)
    assert table["mu"].is_monotonic_decreasing


@pytest.mark.integration
def test_mu_on_trec_web_2012(shared_data: Path) -> None:
    """The figures docs/diversity.md reports (8 runs x 50 topics, the paper's full grid)."""
    folder = shared_data / "trec-web-2012"
    runs = {p.name.removesuffix(".run.gz"): p for p in sorted((folder / "runs").glob("*.run.gz"))}
    table = mu_table(diversity_scores(folder / "qrels.diversity.txt", runs)).set_index("measure")
    mu = table["mu"].round(4)
    assert len(table) == len(PAPER_GRID) and (table["pairs"] == 50 * 8 * 7).all()
    assert mu["RBU(p=0.99,e=0.05)"] == mu["EU(α=0.5,e=0.05)"] == mu.max() == 0.9816
    assert mu["RBU(p=0.8,e=0.05)"] == 0.9723
    assert mu["ERR-IA@1000"] == mu["AP-IA"] == mu["NRBP(p=0.9,α=0.5)"] == mu["RBP(p=0.9)"] == 0.9677
    assert [mu[f"ERR-IA@{k}"] for k in (10, 20, 50, 100, 1000)] == [0.789, 0.9154, 0.9394, 0.963, 0.9677]
    assert mu["RR-IA"] == 0.9492 and mu["RR"] == 0.7639 and mu["S-RR@100%"] == 0.853
    assert mu["S-Recall@10"] == 0.5164 and mu["S-Recall@1000"] == mu.min() == 0.1225
