"""The report's per-run means and their 95% intervals: one definition (``core.stats.mean_interval``, Student's t as
``scipy.stats.t.interval``), undefined (NaN) below two queries or without variation, and every drawing and sentence
showing an undefined interval as undefined: no bar, never a zero-width one."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from conftest import write_trec_files
from prefeval.core.stats import TIE_TOL
from prefeval.pipeline import Evaluate, Pipeline, Qrels, Report, Runs
from prefeval.pipeline.aggregate_step import means_ci
from prefeval.pipeline.document import undefined_intervals
from prefeval.report import svg
from prefeval.report.text import interval_text, undefined_interval


def _per_query(values: dict[str, list[float]], measure: str = "AP") -> pd.DataFrame:
    return pd.DataFrame([{"run": run, "query_id": f"q{i}", "measure": measure, "value": v}
                         for run, vs in values.items() for i, v in enumerate(vs)])


@settings(max_examples=60, deadline=None)
@given(hs.integers(1, 7).flatmap(
    lambda q: hs.lists(hs.lists(hs.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), min_size=q, max_size=q),
                       min_size=1, max_size=4)))
def test_means_ci_is_scipys_t_interval_and_nan_where_undefined(rows):
    runs = [f"r{k}" for k in range(len(rows))]
    found = means_ci(_per_query(dict(zip(runs, rows))), ["AP"], runs).set_index("run")
    for run, x in zip(runs, rows):
        x = np.asarray(x, dtype=float)
        mean, half, n = found.loc[run, ["mean", "half", "queries"]]
        assert n == len(x) and mean == pytest.approx(x.mean(), abs=1e-15)
        if len(x) < 2 or np.std(x, ddof=1) <= TIE_TOL:  # one value, or values that do not vary (scipy: zero scale)
            assert np.isnan(half), (run, x)
        else:
            low, high = st.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=st.sem(x))
            assert half == pytest.approx((high - low) / 2, rel=1e-12)
            assert half > 0


def test_one_query_gives_no_interval_anywhere():
    stats = means_ci(_per_query({"a": [0.5], "b": [0.2]}), ["AP"], ["a", "b"])
    assert stats["half"].isna().all() and (stats["queries"] == 1).all()
    assert interval_text(float("nan"), float("nan"), 1) == "95% CI undefined (fewer than 2 queries)"
    assert undefined_interval(3) == "undefined (the 3 per-query values do not vary)"
    drawn = svg.means_with_ci(stats, ["AP"], ["a", "b"], baseline="a")
    assert 'class="ci"' not in drawn and "nan" not in drawn.lower().replace("undefined", "")
    assert drawn.count("<circle") == 2 and drawn.count("95% CI undefined (fewer than 2 queries)") == 2
    # both means inside the panel's axis: the range is taken from the means when no interval is defined
    xs = [float(x) for x in re.findall(r'<circle cx="([\d.]+)"', drawn)]
    assert all(5 < x < 300 for x in xs) and xs[0] != xs[1]


def test_svg_draws_a_bar_only_for_a_defined_interval():
    stats = means_ci(_per_query({"a": [0.5, 0.5, 0.5], "b": [0.1, 0.4, 0.2]}), ["AP"], ["a", "b"])
    drawn = svg.means_with_ci(stats, ["AP"], ["a", "b"])
    groups = dict(re.findall(r'<g data-run="(\w)".*?>(.*?)</g>', drawn, flags=re.S))
    assert 'class="ci"' not in groups["a"] and "undefined (the 3 per-query values do not vary)" in groups["a"]
    low, high = st.t.interval(0.95, 2, loc=np.mean([0.1, 0.4, 0.2]), scale=st.sem([0.1, 0.4, 0.2]))
    assert 'class="ci"' in groups["b"] and f"95% CI {low:.4f} to {high:.4f}" in groups["b"]


def test_png_plot_draws_no_bar_for_an_undefined_interval(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from prefeval.report import plots

    stats = means_ci(_per_query({"a": [0.5, 0.5], "b": [0.1, 0.4], "c": [0.3, 0.9]}), ["AP"], ["a", "b", "c"])
    bars = []
    plt = plots._pyplot()
    original = plt.Axes.errorbar

    def errorbar(self, x, y, *args, **kwargs):
        bars.append((list(x), list(kwargs["xerr"])))
        return original(self, x, y, *args, **kwargs)

    monkeypatch.setattr(plt.Axes, "errorbar", errorbar)
    plots.means_with_ci(stats, ["AP"], ["a", "b", "c"], tmp_path / "means.png")
    assert len(bars) == 1 and len(bars[0][1]) == 2 and all(np.isfinite(bars[0][1]))  # b and c, not a
    assert (tmp_path / "means.png").stat().st_size > 0


def test_the_caption_names_the_undefined_intervals():
    stats = means_ci(_per_query({"a": [0.5], "b": [0.2]}), ["AP"], ["a", "b"])
    text = undefined_intervals(stats)
    assert text == ("; no bar where the 95% interval is undefined: a (AP: undefined (fewer than 2 queries)), "
                    "b (AP: undefined (fewer than 2 queries))")
    defined = means_ci(_per_query({"a": [0.5, 0.1], "b": [0.2, 0.3]}), ["AP"], ["a", "b"])
    assert undefined_intervals(defined) == ""


def test_a_one_query_pipeline_reports_the_intervals_as_undefined(tmp_path):
    qrels, runs = write_trec_files(tmp_path, "q1 0 d1 1\nq1 0 d2 0\n", {"a": "d1 d2", "b": "d2 d1"}, ("q1",))
    out = tmp_path / "out"
    Pipeline([Qrels(qrels), Runs(runs), Evaluate(["AP"]), Report(out, formats=["md", "html", "png"])],
                       name="one").run(progress=False)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "no bar where the 95% interval is undefined" in md and "undefined (fewer than 2 queries)" in md
    page = (out / "report.html").read_text(encoding="utf-8")
    figure = re.search(r'<svg class="means".*?</svg>', page, flags=re.S).group(0)
    assert 'class="ci"' not in figure and figure.count("95% CI undefined (fewer than 2 queries)") == 2


def test_run_table_names_the_cells_without_an_interval():
    import prefeval

    qrels = {"q1": {"d1": 1, "d2": 0}}
    runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}}
    table = prefeval.table(qrels, runs, ["AP"], ci="t")
    text = " ".join(table.to_string().split())
    assert "±" not in text.split("±: half-width")[0]  # no cell shows an interval
    assert "No ±: the interval is undefined (fewer than 2 queries) for a (AP), b (AP)." in text
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}}
    runs = {"a": {q: {"d1": 2.0, "d2": 1.0} for q in qrels}, "b": {q: {"d2": 2.0, "d1": 1.0} for q in qrels}}
    text = " ".join(prefeval.table(qrels, runs, ["AP"], ci="t").to_string().split())
    assert "No ±: the interval is undefined (the 2 per-query values do not vary) for a (AP), b (AP)." in text
    assert "No ±" not in " ".join(prefeval.table(qrels, runs, ["AP"]).to_string().split())


def test_the_report_computes_the_intervals_and_the_preference_summary_once(tmp_path, monkeypatch):
    """Every format written (plots, text, CSV files, report.html) takes the one computation of each."""
    from prefeval.pipeline import Compare
    from prefeval.pipeline import document as document_module
    from prefeval.pipeline import report as report_module

    calls = {"means_ci": 0, "preference_summary": 0}

    def counted(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)
        return wrapper

    for module in (report_module, document_module):
        monkeypatch.setattr(module, "means_ci", counted("means_ci", means_ci))
    monkeypatch.setattr(report_module, "preference_summary",
                        counted("preference_summary", report_module.preference_summary))
    qrels, runs = write_trec_files(tmp_path, "q1 0 d1 1\nq1 0 d2 0\nq2 0 d2 1\n",
                                   {"a": "d1 d2", "b": "d2 d1", "c": "d2 d3 d1"}, ("q1", "q2"))
    Pipeline([Qrels(qrels), Runs(runs), Evaluate(["AP"]), Compare(["LexiRecall"]), Report(tmp_path / "out")],
             name="once").run(progress=False)
    assert calls == {"means_ci": 1, "preference_summary": 1}
    assert {"report.html", "preference_summary.csv", "means.png"} <= {p.name for p in (tmp_path / "out").iterdir()}


def test_values_equal_up_to_rounding_do_not_vary():
    """[0.1, 0.1, 0.1]: scipy's interval has a width of rounding noise (the mean is 0.1 + 2e-17); the project's is
    undefined (sd <= TIE_TOL), as its tests are."""
    x = [0.1, 0.1, 0.1]
    assert st.sem(x) > 0
    stats = means_ci(_per_query({"a": x}), ["AP"], ["a"])
    assert np.isnan(stats["half"].iloc[0])
