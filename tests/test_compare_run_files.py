"""compare() reads run files in turn, one in memory at a time: the same results as the runs given as frames, and an
error naming the file and line."""

from __future__ import annotations

import os
import threading

import pytest

import prefeval
from conftest import write_trec_files
from prefeval.data.collection import Collection
from prefeval.data.trec import read_run
from prefeval.errors import InputFormatError

blocks = __import__("prefeval.engine.blocks", fromlist=["run_frame"])


@pytest.fixture
def files(tmp_path):
    return write_trec_files(tmp_path, "1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n2 0 d4 1\n2 0 d5 0\n",
                            {"a": "d1 d2 d3 d4 d5", "b": "d3 d2 d1 d5 d4", "c": "d2 d1 d3 d4 d5", "d": "d5 d4 d3"},
                            ("1", "2"))


@pytest.mark.parametrize("budget", [None, 0, "first"])
def test_every_file_is_read_before_any_run_is_ranked(files, monkeypatch, budget):
    """Each run file is read (in this thread) before the first run is ranked, so that a bad line in the last file
    is reported before any work; within the read-ahead budget it is kept (read once), beyond it read again in its
    turn (one such file in memory at a time)."""
    qrels, runs = files
    events = []
    read, rank = blocks.run_frame, Collection.rank

    def run_frame(source, name, columns=False):
        events.append(("read", name, threading.current_thread() is threading.main_thread()))
        return read(source, name, columns=columns)

    def rank_run(collection, run, *args, **kwargs):
        events.append(("rank", args[0] if args else kwargs.get("name"), True))
        return rank(collection, run, *args, **kwargs)

    monkeypatch.setattr(blocks, "run_frame", run_frame)
    monkeypatch.setattr(Collection, "rank", rank_run)
    monkeypatch.setattr(blocks, "query_block_runs", lambda *a: [])  # every run ranked on its own, in turn
    if budget is not None:  # "first": the budget holds the first file only
        monkeypatch.setattr(blocks, "READ_AHEAD_BYTES", os.path.getsize(runs[0]) if budget == "first" else budget)
    frame = read_run(runs[1])
    prefeval.compare(qrels, {"a": runs[0], "frame": frame, "c": runs[2], "d": runs[3]}, "LexiRecall")
    checked = [("read", "a", True), ("read", "c", True), ("read", "d", True)]
    if budget is None:
        assert events == [*checked, ("rank", "a", True), ("rank", "frame", True), ("rank", "c", True),
                          ("rank", "d", True)]
    elif budget == "first":  # the files not kept are checked first, none parsed while the first is held
        assert events == [("read", "c", True), ("read", "d", True), ("read", "a", True), ("rank", "a", True),
                          ("rank", "frame", True), ("read", "c", True), ("rank", "c", True), ("read", "d", True),
                          ("rank", "d", True)]
    else:
        assert events == [*checked, ("read", "a", True), ("rank", "a", True), ("rank", "frame", True),
                          ("read", "c", True), ("rank", "c", True), ("read", "d", True), ("rank", "d", True)]


def test_a_bad_file_fails_with_its_line(files, tmp_path):
    qrels, runs = files
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 2.0 x\n1 Q0 d2 2 oops x\n")
    with pytest.raises(InputFormatError, match=r"bad.run, line 2"):
        prefeval.compare(qrels, [runs[0], str(bad), runs[2]], "LexiRecall")


def test_compare_of_files_equals_compare_of_frames(files):
    qrels, runs = files
    from_files = prefeval.compare(qrels, runs, ["LexiRecall", "LexiPrecision", "RPP"], per_query=True)
    from_frames = prefeval.compare(qrels, {p[-5]: read_run(p) for p in runs}, ["LexiRecall", "LexiPrecision", "RPP"],
                                   per_query=True)
    assert from_files.per_query.equals(from_frames.per_query)
