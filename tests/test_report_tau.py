"""Kendall's tau-b in pipeline reports is computed on the ranking values, so tied means are ties."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from prefeval.pipeline import Aggregate, Compare, Evaluate, Pipeline, Qrels, Runs


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_report_tau_equals_scipy_on_tied_means(tmp_path):
    # 4 queries, 3 relevant documents each; runs "a" and "b" retrieve the same documents in different orders
    # (re-rankers of one first stage: equal R@1000, different RR), "c" and "d" retrieve fewer
    qrels, runs = [], {name: [] for name in "abcd"}
    orders = {"a": [0, 1, 2, 9, 8], "b": [9, 8, 2, 1, 0], "c": [9, 0, 8, 7, 6], "d": [0, 9, 8, 7, 6]}
    for q in range(4):
        qrels += [f"q{q} 0 d{i} 1" for i in range(3)] + [f"q{q} 0 d{i} 0" for i in range(6, 10)]
        for name, order in orders.items():
            runs[name] += [f"q{q} Q0 d{doc} {r + 1} {10 - r} {name}" for r, doc in enumerate(order)]
    qrels_path = _write(tmp_path / "qrels.txt", qrels)
    paths = [_write(tmp_path / f"{name}.run", lines) for name, lines in runs.items()]
    result = Pipeline([Qrels(qrels_path), Runs(paths), Evaluate(["RR", "R@1000", "nDCG@10"]),
                       Compare(["LexiRecall"]), Aggregate(rankings=["mc4", "borda"])]).run()
    means = result.means_table()
    assert means.loc["a", "R@1000"] == means.loc["b", "R@1000"]  # the tie this test is about
    tau = result.kendall_tau
    for x, y in [("RR", "R@1000"), ("nDCG@10", "R@1000"), ("RR", "nDCG@10")]:
        expected = sps.kendalltau(means[x], means[y]).statistic
        assert tau.loc[f"{x} (mean)", f"{y} (mean)"] == pytest.approx(expected)
    # tied means share a rank, so tau on the ranks is tau on the values (positions with ties broken by name
    # would give another value here)
    positions = {m: result.rankings[f"{m} (mean)"].set_index("run")["rank"].reindex(means.index)
                 for m in ("RR", "R@1000")}
    assert positions["R@1000"]["a"] == positions["R@1000"]["b"]
    assert np.isclose(sps.kendalltau(-positions["RR"], -positions["R@1000"]).statistic,
                      tau.loc["RR (mean)", "R@1000 (mean)"])
    broken = positions["R@1000"].rank(method="first")
    assert not np.isclose(sps.kendalltau(positions["RR"], broken).statistic, tau.loc["RR (mean)", "R@1000 (mean)"])
    # Borda points are values too: tau with a mean equals scipy's on the scores
    borda = result.rankings["LexiRecall (borda)"].set_index("run")["score"].reindex(means.index)
    assert tau.loc["LexiRecall (borda)", "RR (mean)"] == pytest.approx(sps.kendalltau(borda, means["RR"]).statistic)
