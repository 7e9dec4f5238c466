"""``prefeval compare --ties/--iterations`` and the pipeline keys reach Comparison.ranking."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from prefeval.commands.cli import main as cli_main
from prefeval.engine.compare import compare


def _files(tmp_path):
    # run "a" and run "b" tie on q1 (identical rankings); "b" wins q2
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n")
    docs = {"a": ["d1", "x", "y"], "b": ["d1", "x", "y"]}
    lines = {name: [] for name in docs}
    for q in ("q1", "q3"):
        for name, ranking in docs.items():
            lines[name] += [f"{q} Q0 {d} {r + 1} {9 - r} {name}" for r, d in enumerate(ranking)]
    lines["a"] += ["q2 Q0 x 1 9 a", "q2 Q0 d1 2 8 a"]
    lines["b"] += ["q2 Q0 d1 1 9 b"]
    for name, text in lines.items():
        (tmp_path / f"{name}.run").write_text("\n".join(text) + "\n")
    return str(tmp_path / "qrels.txt"), [str(tmp_path / "a.run"), str(tmp_path / "b.run")]


def test_cli_ties_and_iterations(tmp_path):
    qrels, runs = _files(tmp_path)

    def call(*args):
        out = io.StringIO()
        with redirect_stdout(out):
            assert cli_main(["compare", qrels, *runs, "-m", "LexiRecall", "-q", "--format", "json", *args]) == 0
        return [r for r in json.loads(out.getvalue()) if r["table"] == "ranking"]

    shared = call("--aggregate", "borda")
    tool = call("--aggregate", "borda", "--ties", "pref_aggregate")
    # shared: b wins 1 query, 2 ties -> (0.5 + 0.5 + 1) / 3; pref_aggregate: "b" > "a" wins the ties too
    assert [r["score"] for r in shared] == pytest.approx([2 / 3, 1 / 3])
    assert [r["score"] for r in tool] == pytest.approx([1.0, 0.0])
    mc4 = call("--aggregate", "mc4", "--iterations", "10", "--ties", "pref_aggregate")
    assert [r["run"] for r in mc4] == ["b", "a"] and [r["level"] for r in mc4] == [1, 1]
    assert sum(r["score"] for r in mc4) == pytest.approx(1.0)


def test_ranking_rejects_unknown_tie_rule(tmp_path):
    qrels, runs = _files(tmp_path)
    from prefeval.errors import PrefevalError

    with pytest.raises(PrefevalError, match="tie rule"):
        compare(qrels, runs, "LexiRecall").ranking(ties="random")
