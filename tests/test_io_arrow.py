"""The pyarrow.csv fast path of ``read_run`` against the pandas path: same frames, same dtypes, same errors.

The pandas path is forced by making ``import pyarrow.csv`` fail (as in an environment without pyarrow) and the numpy
scan decline; the reader without pyarrow (the numpy scan, which leaves what it declines to pandas) must agree too.
"""

from __future__ import annotations

import gzip
import io
import sys

import numpy as np
import pandas as pd
import pytest

from prefeval import io as pio
from prefeval.errors import InputFormatError

pytest.importorskip("pyarrow.csv")


def read_both(data: bytes, monkeypatch: pytest.MonkeyPatch, extra_columns: bool = False):
    """(fast path result or exception, pandas path result or exception, whether the fast path parsed it)."""
    def attempt():
        try:
            return pio.read_run(io.BytesIO(data), extra_columns=extra_columns)
        except InputFormatError as exc:
            return exc

    used = pio._arrow_run(pio._strip_comments(data), extra_columns) is not None
    fast = attempt()
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "pyarrow.csv", None)  # import pyarrow.csv raises ImportError
        assert pio._arrow_run(pio._strip_comments(data), extra_columns) is None
        by_numpy = attempt()  # the reader without pyarrow: numpy's scan, else pandas
        patch.setattr(pio, "_numpy_run", lambda *_: None)
        slow = attempt()
    assert_same(by_numpy, slow)
    return fast, slow, used


def assert_same(fast, slow) -> None:
    if isinstance(slow, Exception):
        assert isinstance(fast, InputFormatError), fast
        assert str(fast) == str(slow)
    else:
        assert not isinstance(fast, Exception), fast
        pd.testing.assert_frame_equal(fast, slow, check_exact=True)
        assert list(fast.dtypes) == list(slow.dtypes)


SIMPLE = [
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1.25 t\n",
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1.25 t",  # no final newline
    b"q1\tQ0\td1\t1\t1.5\tt\n2\tQ0\tNA\t2\t-3\tt\n",  # tabs
    b"0012 Q0 NA 1 inf r\nnull Q0 nan 2 -inf r\nNone Q0 '' 3 +1 r\n",  # ids that look like missing values
    b"q Q0 d 1 1e5 t\nq Q0 e 2 1E+05 t\nq Q0 f 3 .5 t\nq Q0 g 4 5. t\nq Q0 h 5 00012 t\nq Q0 i 6 1e400 t\n",
    b"q Q0 d 1 4.9e-324 t\nq Q0 e 2 1e-400 t\nq Q0 f 3 Infinity t\nq Q0 g 4 -INF t\nq Q0 h 5 0.1 t\n",
    b"# ir_metadata header\nq1 Q0 d1 1 1.5 t\n\n\nq1 Q0 d#2 2 1 t\n  # indented comment\n",
    "q\u00e9 Q0 d\u00a0x 1 2 t\u00fc\n".encode(),  # non-ASCII, a no-break space inside a field
]
FALLBACK = [
    b"q1  Q0 d1 1 1.5 t\n",  # double space
    b" q1 Q0 d1 1 1.5 t\n",  # leading blank
    b"q1 Q0 d1 1 1.5 t \n",  # trailing blank
    b"q1 Q0 d1 1 1.5 t\r\nq1 Q0 d2 2 1 t\r\n",  # CRLF
    b"q1 Q0\td1 1 1.5 t\n",  # mixed separators
    b'"q 1" Q0 d1 1 1.5 t\n',  # quotes
    b"q1 Q0 d1 1 1.5\x0ct\n",
    b"",
    b"# only a comment\n\n",
]
BAD = [
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 t\n",  # 5 fields
    b"q1 Q0 d1 1 1.5\nq1 Q0 d2 2 1\n",  # 5 fields everywhere
    b"q1 Q0 d1 1 1.5 t x\n",  # 7 fields
    b"q1 Q0 d1 1 nan t\n",
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d1 1 -NaN t\n",
    b"q1 Q0 d1 1 abc t\n",
    b"q1 Q0 d1 1 0x10 t\n",
    b"q1 Q0 d1 1 1_0 t\n",
    b"q1 Q0 d1 1 1,5 t\n",
    b"q1 Q0 d\xff 1 1 t\n",  # not UTF-8
    b"q1\tQ0\td1\t1\t1.5\tt\nq1\tQ0\td2\t2\tt\n",
    # 5 fields that a single-byte split turns into 6 with an empty one
    b"q1 Q0 d1 1 1.5 t\nq1  d2 2 1 t\n",
    b"q1 Q0 d1 1 1.5 t\n q1 d2 2 1 t\n",
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1 \n",
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2  1 t\n",
    b"q1\tQ0\td1\t1\t1.5\tt\n\tQ0\td2\t2\t1\n",
]


@pytest.mark.parametrize("data", SIMPLE)
@pytest.mark.parametrize("extra", [False, True])
def test_simple_files_take_the_fast_path_with_identical_frames(data, extra, monkeypatch):
    fast, slow, used = read_both(data, monkeypatch, extra)
    assert used
    assert_same(fast, slow)


@pytest.mark.parametrize("data", FALLBACK)
def test_other_layouts_fall_back_to_pandas(data, monkeypatch):
    fast, slow, used = read_both(data, monkeypatch)
    assert not used
    assert_same(fast, slow)


@pytest.mark.parametrize("data", BAD)
def test_bad_lines_give_the_same_message_naming_the_line(data, monkeypatch):
    fast, slow, used = read_both(data, monkeypatch)
    assert not used
    assert isinstance(slow, InputFormatError) and ", line " in str(slow)
    assert_same(fast, slow)


def test_gzip_takes_the_fast_path(tmp_path):
    path = tmp_path / "r.run.gz"
    path.write_bytes(gzip.compress(SIMPLE[0]))
    out = pio.read_run(path)
    assert list(out["doc_id"]) == ["d1", "d2"] and list(out["score"]) == [1.5, 1.25]
    assert pio._arrow_run(SIMPLE[0], False) is not None


def test_scores_are_bit_identical_on_random_values(monkeypatch):
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.normal(0, 1e3, 3000), rng.random(3000) * 10.0 ** rng.integers(-300, 300, 3000)])
    lines = [f"q{i % 7} Q0 d{i} {i} {float(v)!r} t" for i, v in enumerate(values)]
    lines += [f"q Q0 x{i} 1 {v:.17g} t" for i, v in enumerate(values[:500])]
    lines += [f"q Q0 y{i} 1 {v:.6e} t" for i, v in enumerate(values[:500])]
    fast, slow, used = read_both("\n".join(lines).encode(), monkeypatch)
    assert used
    assert_same(fast, slow)
    assert np.array_equal(fast["score"].to_numpy()[:len(values)], values)


def test_shared_runs_read_identically(shared_data, monkeypatch):
    runs = shared_data / "dl-hard" / "runs"
    paths = sorted(runs.glob("doc/*.run.gz"))[:3] + sorted(runs.glob("passage/*.run.gz"))[:3]
    assert paths
    for path in paths:
        raw, _ = pio._read_bytes(path, "run")
        fast, slow, used = read_both(raw, monkeypatch, extra_columns=True)
        assert used, path
        assert_same(fast, slow)
