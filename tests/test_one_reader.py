"""One reading of every input: random bytes in a run or qrels file (BOM, CRLF, quotes, NUL, control and non-ASCII
characters, huge and odd numbers, extra fields, fullwidth digits) give the same values, or the same one-line error
naming the file and line, through every entry point: ``prefeval.evaluate``, ``prefeval eval``,
``prefeval.compare``, ``prefeval compare``, a pipeline, and the ir-measures provider (a preference measure's
baseline given as a file).

The commands run in this process through ``prefeval.commands.cli.main`` (the code of ``python -m prefeval``; one test runs
the real program on the case of issue 24)."""

from __future__ import annotations

import contextlib
import io
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import ir_measures
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prefeval
from prefeval.commands.cli import main
from prefeval.errors import PrefevalError
from prefeval.pipeline import Compare, Evaluate, Pipeline, Qrels, Runs

SRC = Path(__file__).resolve().parents[1] / "src"
LINE_ERROR = re.compile(r"(\S+, line \d+: .*)")
FIXED_RUN = b"1 Q0 d1 1 3.0 f\n1 Q0 d2 2 2.0 f\n1 Q0 d3 3 1.0 f\n2 Q0 d3 1 5.0 f\n2 Q0 d4 2 4.0 f\n"
FIXED_QRELS = b"1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 2\n"


def _error(exc: BaseException | str) -> tuple[str, str]:
    text = str(exc)
    found = LINE_ERROR.search(text)
    assert found is not None, f"an error that names no file and line: {text!r}"
    assert "\n" not in found.group(1).strip()
    return "error", found.group(1).strip()


def _quiet():
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    return stack


def by_evaluate(qrels: Path, fixed: Path, other: Path) -> tuple[str, object]:
    """{query: (RR(F) - RR(R), LexiRecall(F over R))} by prefeval.evaluate."""
    try:
        with _quiet():
            table = prefeval.evaluate(str(qrels), {"F": str(fixed), "R": str(other)},
                                      ["RR", "LexiRecall(baseline='R')"], per_query=True)
    except PrefevalError as exc:
        return _error(exc)
    values = {(r.run, r.query_id, r.measure): r.value for r in table.itertuples()}
    queries = sorted({q for _, q, _ in values})
    return "ok", {q: (values["F", q, "RR"] - values["R", q, "RR"], values["F", q, "LexiRecall(baseline='R')"])
                  for q in queries}


def by_evaluate_f(qrels: Path, fixed: Path, other: Path) -> tuple[str, object]:
    """{query: (RR(F), LexiRecall(F over R))} by prefeval.evaluate, with R given as the baseline file."""
    try:
        with _quiet():
            table = prefeval.evaluate(str(qrels), {"F": str(fixed)}, ["RR", f"LexiRecall(baseline={str(other)!r})"],
                                      per_query=True)
    except PrefevalError as exc:
        return _error(exc)
    values = {(r.query_id, r.measure.split("(")[0]): r.value for r in table.itertuples()}
    return "ok", {q: (values[q, "RR"], values[q, "LexiRecall"]) for q in sorted({q for q, _ in values})}


def by_compare(qrels: Path, fixed: Path, other: Path) -> tuple[str, object]:
    try:
        with _quiet():
            result = prefeval.compare(str(qrels), {"F": str(fixed), "R": str(other)}, ["RR", "LexiRecall"],
                                      per_query=True)
    except PrefevalError as exc:
        return _error(exc)
    rows = {(r.method, r.query_id): r.value for r in result.per_query.itertuples()}
    return "ok", {q: (rows["RR", q], rows["LexiRecall", q]) for q in sorted({q for _, q in rows})}


def command(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _quiet():
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def by_compare_command(qrels: Path, fixed: Path, other: Path) -> tuple[str, object]:
    code, out, err = command("compare", str(qrels), str(fixed), str(other), "-m", "RR", "LexiRecall",
                             "--per-query", "--format", "csv", "-q")
    if code:
        assert err.startswith("prefeval compare: error: ") and err.count("\n") == 1, err
        return _error(err)
    rows = {}
    for line in out.splitlines()[1:]:
        method, query, _, _, value = line.split(",")
        rows[method, query] = float(value)
    return "ok", {q: (rows["RR", q], rows["LexiRecall", q]) for q in sorted({q for _, q in rows})}


def by_eval_command(qrels: Path, fixed: Path, other: Path) -> tuple[str, object]:
    """{query: (RR(F), LexiRecall(F over R))} by `prefeval eval`, R given as the baseline file."""
    code, out, err = command("eval", str(qrels), str(fixed), "RR", f"LexiRecall(baseline={str(other)!r})", "-q",
                             "-n", "-p", "-1")
    if code:
        assert err.startswith("prefeval eval: error: ") and err.count("\n") == 1, err
        return _error(err)
    values = {}
    for line in out.splitlines():
        query, measure, value = line.split("\t")
        values[query, measure.split("(")[0]] = float(value)
    return "ok", {q: (values[q, "RR"], values[q, "LexiRecall"]) for q in sorted({q for q, _ in values})}


def by_pipeline(qrels: Path, fixed: Path, other: Path) -> tuple[str, object]:
    try:
        with _quiet():
            context = Pipeline([Qrels(str(qrels)), Runs({"F": str(fixed), "R": str(other)}), Evaluate(["RR"]),
                                Compare(["LexiRecall"])]).run(progress=False)
    except PrefevalError as exc:
        return _error(exc)
    rr = {(r.run, r.query_id): r.value for r in context.per_query.itertuples()}
    lexi = {r.query_id: r.value for r in context.comparison.per_query.itertuples()}
    return "ok", {q: (rr["F", q] - rr["R", q], lexi[q]) for q in sorted(lexi)}


def by_provider(qrels: Path, fixed: Path, other: Path) -> tuple[str, object] | None:
    """{query: LexiRecall(F over R)} by ir-measures' calc with prefeval's provider, R given as the baseline file
    (qrels and F given as ir-measures reads them: dicts); None when the qrels file is not readable."""
    try:
        judged = prefeval.read_qrels(str(qrels))
    except PrefevalError:
        return None
    qrels_dict: dict = {}
    for r in judged.itertuples():
        qrels_dict.setdefault(r.query_id, {})[r.doc_id] = int(r.relevance)  # last line wins, as in the reader
    run = prefeval.read_run(str(fixed))
    run_dict: dict = {}
    for r in run.itertuples():
        run_dict.setdefault(r.query_id, {})[r.doc_id] = float(r.score)
    try:
        with _quiet():
            values = {m.query_id: m.value for m in ir_measures.iter_calc(
                [prefeval.methods.measures.LexiRecall(baseline=str(other))], qrels_dict, run_dict)}
    except PrefevalError as exc:
        return _error(exc)
    return "ok", {q: values[q] for q in sorted(values)}


def same(a: tuple[str, object], b: tuple[str, object]) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return a[1] == b[1]
    if a[1].keys() != b[1].keys():
        return False
    return all(math.isclose(x, y, rel_tol=0, abs_tol=1e-12)
               for key in a[1] for x, y in zip(a[1][key], b[1][key]))


def check_all(folder: Path, qrels: bytes, run: bytes, subprocess_too: bool = False) -> tuple[str, object]:
    q, f, r = folder / "q.qrels", folder / "f.run", folder / "r.run"
    q.write_bytes(qrels)
    f.write_bytes(FIXED_RUN)
    r.write_bytes(run)
    reference = by_evaluate(q, f, r)
    for entry in (by_compare, by_compare_command, by_pipeline):
        got = entry(q, f, r)
        assert same(got, reference), (entry.__name__, got, reference)
    reference_f = by_evaluate_f(q, f, r)
    if reference[0] == "error":
        assert reference_f[0] == "error"
    else:
        assert reference_f[0] == "ok" and all(math.isclose(reference_f[1][k][1], reference[1][k][1], abs_tol=1e-12)
                                              for k in reference[1])
    got = by_eval_command(q, f, r)
    assert same(got, reference_f), ("eval", got, reference_f)
    provider = by_provider(q, f, r)
    if provider is not None:
        expected = reference_f if reference_f[0] == "error" else ("ok", {k: (v[1],) for k, v in reference_f[1].items()})
        got = provider if provider[0] == "error" else ("ok", {k: (v,) for k, v in provider[1].items()})
        assert same(got, expected), ("provider", got, expected)
    return reference


# ------------------------------------------------------------------------------------------------
# random files

ID_BYTES = st.sampled_from([b"d1", b"d2", b"d3", b"d4", b"d5", b"1", b"2", b"\xc3\xa9", b'"d4', b'z"', b"\x00",
                            b"\x0b", b"\xc2\xa0", b"\xff", b"\xef\xbc\x91", b"#", b"\xef\xbb\xbf", b"\x85"])
SCORE = st.sampled_from([b"1", b"2.5", b"-0", b"1e400", b"-inf", b"nan", b"\xef\xbc\x91", b"0x10", b"1e-400",
                         b"7", b"3.0", b"+.5", b"x", b'"1"'])
GRADE = st.sampled_from([b"0", b"1", b"2", b"-1", b"+1", b"1000", b"1001", b"2147483647", b"4294967296",
                         b"\xef\xbc\x91", b"1.0", b"a"])
BLANK = st.sampled_from([b" ", b"\t", b"  ", b" \t", b"\x0b", b"\xc2\xa0"])
END = st.sampled_from([b"\n", b"\r\n", b"\n", b"\n"])


@st.composite
def doc(draw) -> bytes:
    return draw(st.sampled_from([b"d1", b"d2", b"d3", b"d4", b"d5"])) if draw(st.integers(0, 5)) else \
        b"d" + draw(ID_BYTES)


@st.composite
def run_file(draw) -> bytes:
    parts = [draw(st.sampled_from([b"", b"", b"\xef\xbb\xbf"]))]
    if draw(st.booleans()):
        parts.append(b"# ir_metadata \xe2\x80\x94 a comment" + draw(END))
    clean = draw(st.integers(0, 2)) > 0  # most files are valid, so that values are compared too
    for rank in range(draw(st.integers(1, 6))):
        query = draw(st.sampled_from([b"1", b"2"])) if clean or draw(st.integers(0, 4)) else draw(ID_BYTES)
        score = str(10 - rank).encode() if clean or draw(st.integers(0, 3)) else draw(SCORE)
        fields = [query, b"Q0", draw(doc()) if not clean else draw(st.sampled_from([b"d1", b"d2", b"d3", b"d4"])),
                  str(rank + 1).encode(), score, b"t"]
        if draw(st.integers(0, 5)) == 0:
            fields += [b"extra", b"9"]
        if not clean and draw(st.integers(0, 8)) == 0:
            fields = fields[:5]
        sep = b" " if clean and draw(st.booleans()) else draw(BLANK) if not clean else draw(st.sampled_from(
            [b" ", b"\t", b"  "]))
        parts.append(draw(st.sampled_from([b"", b" "])) + sep.join(fields) + draw(END))
        if draw(st.integers(0, 6)) == 0:
            parts.append(draw(st.sampled_from([b"", b"  ", b"# note"])) + draw(END))
    return b"".join(parts)


@st.composite
def qrels_file(draw) -> bytes:
    if draw(st.integers(0, 2)):
        return (draw(st.sampled_from([b"", b"\xef\xbb\xbf"])) + FIXED_QRELS).replace(
            b"\n", draw(st.sampled_from([b"\n", b"\r\n"])))
    parts = [draw(st.sampled_from([b"", b"\xef\xbb\xbf"]))]
    for query, docid in ((b"1", b"d1"), (b"1", b"d2"), (b"2", b"d3"), (b"2", b"d4")):
        if docid in (b"d1", b"d3"):  # every query keeps a relevant document (else compare has nothing to compare)
            parts.append(query + b" 0 " + docid + b" 1" + draw(END))
            continue
        docid = docid if draw(st.integers(0, 4)) else draw(doc())
        parts.append(b" ".join([query, b"0", docid, draw(GRADE) if draw(st.integers(0, 2)) == 0 else b"1"])
                     + draw(END))
    return b"".join(parts)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(qrels=qrels_file(), run=run_file())
def test_every_entry_point_reads_the_same(tmp_path, qrels: bytes, run: bytes) -> None:
    check_all(tmp_path, qrels, run)


# ------------------------------------------------------------------------------------------------
# the case of issue 24, and fixed cases


BOM_RUN_A = b"\xef\xbb\xbf1 Q0 d2 1 2.0 t\n1 Q0 d1 2 1.0 t\n2 Q0 d3 1 5.0 t\n"
RUN_B = b"1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n2 Q0 d3 1 5.0 t\n"
QRELS_AB = b"1 0 d1 1\n2 0 d3 1\n"


def test_a_bom_is_dropped_by_every_entry_point(tmp_path) -> None:
    """Issue 24: run A (with a BOM) against B, which ranks d1 first: RR(A) - RR(B) = -0.5 and LexiRecall -1 on
    query 1, through evaluate and compare alike (compare used to keep the BOM in the first query id)."""
    q, a, b = tmp_path / "q.qrels", tmp_path / "a.run", tmp_path / "b.run"
    q.write_bytes(QRELS_AB)
    a.write_bytes(BOM_RUN_A)
    b.write_bytes(RUN_B)
    expected = ("ok", {"1": (-0.5, -1.0), "2": (0.0, 0.0)})
    assert same(by_evaluate(q, a, b), expected)
    for entry in (by_compare, by_compare_command, by_pipeline):
        assert same(entry(q, a, b), expected), entry.__name__
    q.write_bytes(b"\xef\xbb\xbf# judged\n" + QRELS_AB)  # a BOM then a comment: no phantom query
    assert same(by_evaluate(q, a, b), expected)
    assert same(by_compare(q, a, b), expected)
    check_all(tmp_path, QRELS_AB, BOM_RUN_A)


@pytest.mark.parametrize("run", [b"\xef\xbb\xbf\xef\xbb\xbf Q0 dd1 1 10 t extra 9\n", b" \xef\xbb\xbf1 Q0 d1 1 1 t\n",
                                 b"1 Q0 d\xef\xbb\xbf1 1 1 t\n"])
def test_a_second_bom_is_an_error_everywhere(tmp_path, run: bytes) -> None:
    """Only the byte-order mark at a file's start is dropped; another one (which pyarrow.csv would drop silently at
    the start of the parsed text, turning the query id into '' or '1') is one error naming the file and line, the
    same through every entry point."""
    q, a, b = tmp_path / "q.qrels", tmp_path / "a.run", tmp_path / "b.run"
    q.write_bytes(QRELS_AB)
    a.write_bytes(run)
    b.write_bytes(RUN_B)
    result = by_evaluate(q, a, b)
    assert result[0] == "error" and "line 1" in result[1] and "U+FEFF" in result[1], result
    check_all(tmp_path, QRELS_AB, run)


def test_the_program_reads_as_the_function(tmp_path) -> None:
    """`python -m prefeval compare --per-query` on the issue's files: the values of prefeval.compare."""
    q, a, b = tmp_path / "q.qrels", tmp_path / "a.run", tmp_path / "b.run"
    q.write_bytes(b"\xef\xbb\xbf" + QRELS_AB)
    a.write_bytes(BOM_RUN_A)
    b.write_bytes(RUN_B)
    proc = subprocess.run([sys.executable, "-m", "prefeval", "compare", str(q), str(a), str(b), "-m", "RR",
                           "LexiRecall", "--per-query", "--format", "csv", "-q"], capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1:] == ["RR,1,a,b,-0.5", "RR,2,a,b,0.0", "LexiRecall,1,a,b,-1.0",
                                            "LexiRecall,2,a,b,0.0"]
    b.write_bytes(RUN_B + b"2 Q0 d\x004 2 1.0 t\n")
    proc = subprocess.run([sys.executable, "-m", "prefeval", "compare", str(q), str(a), str(b), "-m", "RR", "-q"],
                          capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(SRC),
                                                                            "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 1
    assert proc.stderr == f"prefeval compare: error: {b}, line 4: U+0000 (a control character) in a field; " \
                          "fields are separated by spaces or tabs, and ids hold no control character or other " \
                          "whitespace: '2 Q0 d\\x004 2 1.0 t'\n"


@pytest.mark.parametrize(("run", "qrels", "line"), [
    (b"1 Q0 d1 1 1 t\n1\x0bQ0 d2 2 0.5 t\n", FIXED_QRELS, 2),  # a vertical tab between fields
    (b"1 Q0 d1 1 1 t\n\n1 Q0\xc2\xa0d2 2 0.5 t\n", FIXED_QRELS, 3),  # a no-break space
    (b"1 Q0 d1 1 1 t\n1 Q0 d2 2 nan t\n", FIXED_QRELS, 2),
    (b"1 Q0 d1 1 1 t\n1 Q0 d2 2 \xef\xbc\x91 t\n", FIXED_QRELS, 2),  # a fullwidth digit is no number
    (b"1 Q0 d1 1 1 t\n1 Q0 d2 2\n", FIXED_QRELS, 2),
    (FIXED_RUN, b"1 0 d1 1\n1 0 d2 \xef\xbc\x91\n", 2),  # nor a grade
    (FIXED_RUN, b"1 0 d1 1\n1 0 d2 4294967296\n", 2),
    (FIXED_RUN, b"1 0 d1 1\n1 0 d2 2147483647\n", 2),
    (FIXED_RUN, b"\x00" * 5000, 1),
])
def test_bad_files_give_one_error_everywhere(tmp_path, run, qrels, line) -> None:
    result = check_all(tmp_path, qrels, run)
    assert result[0] == "error" and f", line {line}: " in result[1], result


def test_extra_fields_and_quotes_are_read_alike(tmp_path) -> None:
    run = b'1 Q0 "d1 1 3 t x y z\n1 Q0 d2 2 2 t\n2 Q0 d3 1 1 t 9\n'
    result = check_all(tmp_path, b'1 0 "d1 1\n2 0 d3 1\n', run)
    assert result == ("ok", {"1": (0.0, 0.0), "2": (0.0, 0.0)}) or result[0] == "ok"
