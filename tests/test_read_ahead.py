"""Run files are read one ahead, in a thread, while compare() ranks the run before: the same results, errors and
order as reading them in turn, with at most two runs in memory."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import prefeval
from conftest import write_trec_files
from prefeval.data.trec import Columns, read_run
from prefeval.errors import InputFormatError

compare_module = __import__("prefeval.engine.compare", fromlist=["_read_ahead"])


@pytest.fixture
def files(tmp_path):
    return write_trec_files(tmp_path, "1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n2 0 d4 1\n2 0 d5 0\n",
                            {"a": "d1 d2 d3 d4 d5", "b": "d3 d2 d1 d5 d4", "c": "d2 d1 d3 d4 d5", "d": "d5 d4 d3"},
                            ("1", "2"))


def test_files_are_read_one_ahead_in_a_thread_and_given_in_order(files, monkeypatch):
    """While the caller holds run k, run k + 1 is being read (in another thread) and run k + 2 is not."""
    _, runs = files
    events = []
    read = compare_module.run_frame

    def run_frame(source, name, columns=False):
        events.append(("read", name, threading.current_thread() is threading.main_thread()))
        return read(source, name, columns=columns)

    monkeypatch.setattr(compare_module, "run_frame", run_frame)
    frame = read_run(runs[1])
    items = [("a", runs[0]), ("frame", frame), ("c", runs[2]), ("d", runs[3])]
    got = []
    for name, _ in compare_module._read_ahead(iter(items)):
        got.append(name)
        if name == "a":  # the next run is a frame: nothing is read ahead of it
            assert [e[1] for e in events] == ["a"]
        if name == "c":  # d is read while the caller holds c
            deadline = time.monotonic() + 10
            while ("read", "d", False) not in events and time.monotonic() < deadline:
                time.sleep(0.001)
            assert [e[1] for e in events] == ["a", "c", "d"]
    assert got == ["a", "frame", "c", "d"]
    assert events == [("read", n, False) for n in ("a", "c", "d")]  # each file once, in the reading thread
    assert not [t for t in threading.enumerate() if t.name.startswith("prefeval-read")]


def test_the_runs_given_are_the_columns_of_the_files(files):
    _, runs = files
    for (name, run), path in zip(compare_module._read_ahead([(p[-5], p) for p in runs]), runs):
        assert isinstance(run, Columns) and name == path[-5]
        expected = read_run(path)
        assert run.frame()["doc_id"].tolist() == expected["doc_id"].tolist()
        assert np.array_equal(np.asarray(run["score"]), expected["score"].to_numpy())


def test_a_bad_file_fails_in_its_turn_with_its_line(files, tmp_path):
    qrels, runs = files
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 2.0 x\n1 Q0 d2 2 oops x\n")
    seen = []
    with pytest.raises(InputFormatError, match=r"bad.run, line 2: score 'oops' is not a number"):
        for name, _ in compare_module._read_ahead([("a", runs[0]), ("bad", str(bad)), ("c", runs[2])]):
            seen.append(name)
    assert seen == ["a"]
    with pytest.raises(InputFormatError, match=r"bad.run, line 2"):
        prefeval.compare(qrels, [runs[0], str(bad), runs[2]], "LexiRecall")
    assert not [t for t in threading.enumerate() if t.name.startswith("prefeval-read")]


def test_compare_of_files_equals_compare_of_frames(files):
    qrels, runs = files
    from_files = prefeval.compare(qrels, runs, ["LexiRecall", "LexiPrecision", "RPP"], per_query=True)
    from_frames = prefeval.compare(qrels, {p[-5]: read_run(p) for p in runs}, ["LexiRecall", "LexiPrecision", "RPP"],
                                   per_query=True)
    assert from_files.per_query.equals(from_frames.per_query)
