"""The download guard is active only inside prefeval's calls: ir_datasets is unchanged before and after."""

from __future__ import annotations

import threading

import pytest
from ir_datasets.util import Download, LocalDownload

from prefeval.data import datasets
from prefeval.data.datasets import guard
from prefeval.errors import DatasetUnavailable


@pytest.fixture(autouse=True)
def _no_marker_check(monkeypatch):
    """The guard's marker check reads a real dataset; these tests use a made-up one."""
    monkeypatch.setattr(guard, "_check_markers", lambda dataset_id, entity: None)


def _download(tmp_path) -> Download:
    """A Download whose only mirror is a missing local file and whose cache path does not exist."""
    return Download([LocalDownload(tmp_path / "mirror" / "missing.txt")], cache_path=tmp_path / "cache" / "qrels")


def test_guard_fails_fast_inside_and_restores_ir_datasets_after(tmp_path):
    original_path, original_stream = Download.path, Download.stream
    with pytest.raises(DatasetUnavailable, match="ir_datasets cannot get the qrels of some/dataset: it needs"):
        with guard.guarded("some/dataset", "qrels"):
            assert Download.path is not original_path and Download.stream is not original_stream
            _download(tmp_path).path()
    assert Download.path is original_path and Download.stream is original_stream
    # outside a prefeval call ir_datasets does what it always does (its own error for the missing mirror file)
    with pytest.raises(FileNotFoundError):
        _download(tmp_path).path()


def test_guard_does_not_reach_other_threads(tmp_path):
    """While a guarded call runs, an ir_datasets call in another thread sees ir_datasets' own behaviour."""
    seen: list[BaseException] = []

    def other() -> None:
        try:
            _download(tmp_path).path()
        except BaseException as exc:  # noqa: BLE001 - the test records what the other thread raised
            seen.append(exc)

    with guard.guarded("some/dataset", "qrels"):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert len(seen) == 1 and type(seen[0]) is FileNotFoundError


def test_nested_guards_restore_once_the_last_ends(tmp_path):
    original_path = Download.path
    with guard.guarded("a/b", "qrels"):
        with guard.guarded("a/b", "queries"):
            pass
        assert Download.path is not original_path
    assert Download.path is original_path


def test_ir_datasets_unchanged_after_a_prefeval_call(tmp_path):
    original_path, original_stream = Download.path, Download.stream
    datasets.needed_files("msmarco-passage/trec-dl-hard", ("qrels",))
    assert datasets.load("irds:msmarco-passage/trec-dl-hard").dataset_id == "msmarco-passage/trec-dl-hard"
    assert Download.path is original_path and Download.stream is original_stream
