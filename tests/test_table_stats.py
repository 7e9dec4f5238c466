"""The run x measure table's statistics: undefined tests never marked, effect sizes and intervals from their
definitions (scipy's t interval, a seeded bootstrap), several baselines, the correction family, letters past 26 runs."""

from __future__ import annotations

import csv
import io
import math
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest
import scipy.stats as st

import prefeval
from prefeval.commands.cli import main as cli_main
from prefeval.engine.table import letter_marks, run_letters


def cli_rows(*args: str) -> list[dict[str, str]]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(list(args)) == 0
    return list(csv.DictReader(io.StringIO(out.getvalue())))


def write_collection(folder: Path, n_queries: int, n_runs: int = 3, seed: int = 1) -> tuple[str, list[str]]:
    rng = np.random.default_rng(seed)
    qrels = folder / "qrels"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(n_queries) for d in range(8)))
    runs = []
    for r in range(n_runs):
        path = folder / f"r{r}"
        path.write_text("".join(f"q{q} Q0 d{d} {k + 1} {float(rng.random()):.6f} r{r}\n"
                                for q in range(n_queries) for k, d in enumerate(rng.permutation(8))))
        runs.append(str(path))
    return str(qrels), runs


@pytest.mark.parametrize("correction", ["holm", "fdr_bh", "bonferroni", "none"])
def test_one_query_is_never_significant(tmp_path, correction):
    qrels, runs = write_collection(tmp_path, 1)
    rows = cli_rows("eval", "-m", "nDCG@10", "AP", "RPP", "--baseline", "r0", "--correction", correction,
                    "--format", "csv", "--", qrels, *runs)
    assert rows and all(r["significant"] in ("", "False") for r in rows)
    assert all(r["p_value"] == "" for r in rows)  # undefined: no p-value
    assert all(r["family_size"] == "0" for r in rows)
    table = prefeval.table(qrels, runs, ["nDCG@10"], correction=correction)  # all pairs, letters
    assert all(not table.record(run, "nDCG@10")["better_than"] for run in table.runs)
    assert all(table.record(run, "nDCG@10")["family_size"] == 0 for run in table.runs)
    assert "undefined" in table.note()


def test_dl_hard_intervals_are_scipys_and_effect_sizes_the_paired_dz(shared_data):
    folder = shared_data / "dl-hard"
    runs = {p.name.removesuffix(".run.gz"): str(p) for p in sorted((folder / "runs" / "passage").glob("*.run.gz"))}
    table = prefeval.table(str(folder / "dl_hard-passage.qrels"), runs, ["nDCG@10"], baseline="bm25", ci="t")
    values = table.per_query.pivot(index="query_id", columns="run", values="value")
    base = values["bm25"].to_numpy()
    for run in table.runs:
        x = values[run].to_numpy()
        record = table.record(run, "nDCG@10")
        low, high = st.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=st.sem(x))
        assert (record["ci_low"], record["ci_high"]) == pytest.approx((low, high), rel=1e-12)
        if run == "bm25":
            continue
        d = x - base
        assert record["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        low, high = st.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=st.sem(d))
        assert (record["diff_ci_low"], record["diff_ci_high"]) == pytest.approx((low, high), rel=1e-12)


def test_bootstrap_is_seeded_and_holds_every_mean(tmp_path):
    qrels, runs = write_collection(tmp_path, 30, 4)
    args = ["eval", "-m", "nDCG@10", "AP", "RPP", "--baseline", "r0", "--ci", "bootstrap", "--resamples", "2000",
            "--format", "csv", "--", qrels, *runs]
    first = cli_rows(*args[:-5], "--seed", "7", *args[-5:])
    again = cli_rows(*args[:-5], "--seed", "7", *args[-5:])
    other = cli_rows(*args[:-5], "--seed", "8", *args[-5:])
    assert first == again and first != other
    for row in first:
        if row["ci_low"]:
            assert float(row["ci_low"]) <= float(row["mean"]) <= float(row["ci_high"])


def test_two_baselines_give_rows_for_both(tmp_path):
    qrels, runs = write_collection(tmp_path, 12, 4)
    rows = cli_rows("eval", "-m", "nDCG@10", "RPP", "--baseline", "r0", "--baseline", "r1", "--format", "csv", "--",
                    qrels, *runs)
    assert [r["baseline"] for r in rows] == ["r0"] * 8 + ["r1"] * 8
    assert {r["family"] for r in rows} == {"r0/nDCG@10", "r0/RPP", "r1/nDCG@10", "r1/RPP"}
    both = prefeval.table(qrels, runs, ["nDCG@10"], baseline=["r0", "r1"])
    assert both.part("r1").record("r0", "nDCG@10")["p_value"] == pytest.approx(
        both.part("r0").record("r1", "nDCG@10")["p_value"])
    assert "against the baseline r0" in both.to_string() and "against the baseline r1" in both.to_string()


def test_family_table_corrects_every_test_at_once(tmp_path):
    qrels, runs = write_collection(tmp_path, 15, 4)
    measures = ["nDCG@10", "AP", "RPP"]
    one = prefeval.table(qrels, runs, measures, baseline="r0", family="table")
    per = prefeval.table(qrels, runs, measures, baseline="r0")
    raw = [per.record(r, m)["p_value"] for m in measures for r in runs[1:] for r in [Path(r).name]]
    defined = [p for p in raw if not math.isnan(p)]
    for m in measures:
        for run in one.runs[1:]:
            p = one.record(run, m)["p_value"]
            rank = sorted(defined).index(p)
            bound = min(1.0, (len(defined) - rank) * p)
            assert one.record(run, m)["p_adjusted"] >= bound - 1e-12  # Holm over the whole table
            assert one.record(run, m)["family_size"] == len(defined)
    assert "whole table" in one.note()


def test_letters_past_26_runs_are_separated():
    letters = run_letters(30)
    assert letters[26:28] == ["aa", "ab"]
    assert letter_marks(["a", "bc"], 30) == "a,bc" and letter_marks(["a", "b", "c"], 30) == "a,b,c"
    assert letter_marks(["a", "b", "c"], 26) == "abc"


def test_note_is_written_once_when_every_measure_shares_its_test(tmp_path):
    qrels, runs = write_collection(tmp_path, 10, 3)
    note = prefeval.table(qrels, runs, ["nDCG@10", "AP", "RR"], baseline="r0").note()
    assert note.count("holm correction") == 1
