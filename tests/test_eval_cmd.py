"""`prefeval eval` mirrors the `ir_measures` command and adds prefeval's measures."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from prefeval.commands.cli import main

QRELS = "q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 d 1\n"
RUN = "q1 Q0 c 1 3.0 r\nq1 Q0 a 2 2.5 r\nq1 Q0 b 3 1e0 r\nq2 Q0 x 1 2 r\nq2 Q0 d 2 1 r\n"
BASE = "q1 Q0 a 1 3.0 b\nq1 Q0 b 2 2.0 b\nq2 Q0 d 1 1.0 b\n"


@pytest.fixture()
def files(tmp_path):
    paths = {}
    for name, text in (("qrels", QRELS), ("run", RUN), ("base", BASE)):
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths


def _ir_measures_cli(*args) -> str:
    code = "import sys; from ir_measures.__main__ import main_cli; sys.argv = ['ir_measures', *sys.argv[1:]]; main_cli()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True).stdout


@pytest.mark.integration  # ir_measures' command in a fresh Python process (without prefeval imported)
@pytest.mark.parametrize("extra", [[], ["-q"], ["-q", "-n"], ["-o", "jsonl"], ["-q", "-o", "jsonl"], ["-p", "6"]])
def test_same_output_as_ir_measures_for_standard_measures(files, capsys, extra):
    """The same lines; with ``-q`` each query's lines together (prefeval: queries sorted by id, each query's measures
    in the order given; ir_measures: in the order its provider yields them), the summary lines last."""
    args = [str(files["qrels"]), str(files["run"]), "nDCG@10 AP", "P@2", *extra]
    assert main(["eval", *args]) == 0
    got, expected = capsys.readouterr().out, _ir_measures_cli(*args)
    if "-q" not in extra:
        assert got == expected
        return

    def groups(text: str) -> list[tuple[str, list[str]]]:
        out: list[tuple[str, list[str]]] = []
        for line in text.splitlines():
            query = json.loads(line)["query_id"] if line.startswith("{") else line.split("\t")[0]
            if not out or out[-1][0] != query:
                out.append((query, []))
            out[-1][1].append(line)
        return out

    got_groups, expected_groups = groups(got), groups(expected)
    assert sorted((q, sorted(lines)) for q, lines in got_groups) == sorted((q, sorted(lines)) for q, lines in
                                                                          expected_groups)
    assert len(got_groups) == len({q for q, _ in got_groups})  # each query's lines together
    assert [q for q, _ in got_groups] == sorted(q for q, _ in got_groups if q != "all") + (
        ["all"] if "-n" not in extra else [])


def test_prefeval_measures_per_query(files, capsys):
    baseline = f"RPP(baseline='{files['base']}')"
    assert main(["eval", str(files["qrels"]), str(files["run"]), "TSE", baseline, "-q", "-o", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    values = {(r["query_id"], r["measure"]): r["value"] for r in rows}
    assert values[("q1", "TSE")] == pytest.approx(1 / 3)
    assert values[("q2", "TSE")] == pytest.approx(1 / 2)
    # q1: graded thresholds 1 (a,b) and 2 (a): run positions a=2,b=3 vs baseline a=1,b=2 -> all worse
    assert values[("q1", baseline)] == pytest.approx(-1.0)
    assert values[("all", "TSE")] == pytest.approx((1 / 3 + 1 / 2) / 2)


def test_unknown_measure_is_a_clear_error(files, capsys):
    assert main(["eval", str(files["qrels"]), str(files["run"]), "nDCG@10", "Bogus@3"]) == 1
    assert "unknown measure 'Bogus@3'" in capsys.readouterr().err


def test_malformed_run_names_file_and_line(files, tmp_path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 a 1 1.0 r\nq1 Q0 b 2 r\n")
    assert main(["eval", str(files["qrels"]), str(bad), "TSE"]) == 1
    err = capsys.readouterr().err
    assert "bad.run" in err and "line 2" in err


def test_a_measure_with_spaces_in_its_parameters_is_one_argument(files, capsys):
    measure = f"LexiRecall(baseline='{files['base']}', rel=2)"
    assert main(["eval", str(files["qrels"]), str(files["run"]), measure, "TSE AP"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # printed as given (as ir_measures prints a measure it reads)
    assert [line.split("\t")[0] for line in lines] == [measure, "TSE", "AP"]
