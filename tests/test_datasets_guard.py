"""Failing fast offline: the files behind an entity are checked before ir_datasets is called, and nothing of
ir_datasets is replaced (its classes are the same before, during and after a prefeval call)."""

from __future__ import annotations

import socket

import ir_datasets.util
import pytest

from prefeval.data import datasets
from prefeval.data.datasets import NeededFile, guard
from prefeval.errors import DatasetUnavailable

#: a port nothing listens on: the TCP check is refused at once
CLOSED = "http://127.0.0.1:9/qrels.txt"


@pytest.fixture(autouse=True)
def _fresh_host_memory(monkeypatch):
    monkeypatch.delenv("PREFEVAL_OFFLINE", raising=False)
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(guard, "_REACHABLE", {})


def _missing(tmp_path, **kwargs) -> NeededFile:
    return NeededFile(entity="qrels", path=tmp_path / "home" / "some" / "qrels", md5="abc", urls=[CLOSED], **kwargs)


def test_a_missing_file_with_no_reachable_host_fails_at_once(tmp_path):
    with pytest.raises(DatasetUnavailable) as caught:
        guard.check_files("some/dataset", [_missing(tmp_path)])
    message = str(caught.value)
    for part in ("ir_datasets cannot get the qrels of some/dataset: it needs qrels.txt", str(tmp_path / "home"),
                 "no download host is reachable (127.0.0.1:", "prefeval datasets seed some/dataset qrels.txt"):
        assert part in message, part


def test_a_host_is_tried_once_a_minute(tmp_path, monkeypatch):
    calls = []
    real = socket.create_connection

    def counted(address, *args, **kwargs):
        calls.append(address)
        return real(address, *args, **kwargs)

    monkeypatch.setattr(guard.socket, "create_connection", counted)
    for _ in range(3):
        with pytest.raises(DatasetUnavailable):
            guard.check_files("some/dataset", [_missing(tmp_path)])
    assert calls == [("127.0.0.1", 9)]


def test_prefeval_offline_skips_the_network(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFEVAL_OFFLINE", "1")
    monkeypatch.setattr(guard, "_host_problem", lambda url: pytest.fail("no host is tried offline"))
    with pytest.raises(DatasetUnavailable, match="PREFEVAL_OFFLINE is set"):
        guard.check_files("some/dataset", [_missing(tmp_path)])


def test_present_files_and_built_caches_need_no_network(tmp_path, monkeypatch):
    monkeypatch.setattr(guard, "_host_problem", lambda url: pytest.fail("nothing to download"))
    present = _missing(tmp_path)
    present.path.parent.mkdir(parents=True)
    present.path.write_text("1 0 d 1\n")
    cache = NeededFile(entity="queries", path=tmp_path / "queries.tsv", derived=True)
    cache.path.write_text("1\tq\n")
    source = NeededFile(entity="queries", path=None, urls=[CLOSED], caches=(cache,))
    guard.check_files("some/dataset", [present, cache, source])
    assert not source.to_fetch()
    cache.path.unlink()  # the cache gone, its source must be downloaded
    assert source.to_fetch()
    monkeypatch.setattr(guard, "_host_problem", lambda url: "127.0.0.1: refused")
    with pytest.raises(DatasetUnavailable, match="queries of some/dataset: it needs qrels.txt from .* and no download host is reachable"):
        guard.check_files("some/dataset", [present, cache, source])


def test_a_seeded_file_with_a_wrong_marker_is_refused_offline_and_kept(tmp_path):
    needed = _missing(tmp_path, marker=(tmp_path / "home" / "some" / "irds_version.txt", "v3"))
    needed.path.parent.mkdir(parents=True)
    needed.path.write_text("1 0 d 1\n")
    with pytest.raises(DatasetUnavailable, match="present but its version marker"):
        guard.check_files("some/dataset", [needed])
    assert needed.path.exists()
    needed.marker[0].write_text("v3")
    guard.check_files("some/dataset", [needed])


def _class_state() -> dict[str, dict]:
    return {name: dict(vars(cls)) for name, cls in vars(ir_datasets.util).items() if isinstance(cls, type)}


def test_ir_datasets_is_unchanged_during_and_after_a_guarded_call(tmp_path, monkeypatch):
    before = _class_state()
    monkeypatch.setattr(guard, "needed_files", lambda dataset_id, entities: [])
    with guard.guarded("some/dataset", "qrels"):
        assert _class_state() == before
    datasets.needed_files("msmarco-passage/trec-dl-hard", ("qrels",))
    assert datasets.load("irds:msmarco-passage/trec-dl-hard").dataset_id == "msmarco-passage/trec-dl-hard"
    assert _class_state() == before


def test_a_failed_download_becomes_dataset_unavailable(tmp_path, monkeypatch):
    import requests

    needed = _missing(tmp_path)
    monkeypatch.setattr(guard, "needed_files", lambda dataset_id, entities: [needed])
    monkeypatch.setattr(guard, "check_files", lambda dataset_id, files: None)  # as if a host had answered
    with pytest.raises(DatasetUnavailable, match=r"it needs qrels.txt.*the download failed \(refused\)"):
        with guard.guarded("some/dataset", "qrels"):
            raise requests.ConnectionError("refused")
    with pytest.raises(KeyError):  # not a download error: passed on as it is
        with guard.guarded("some/dataset", "qrels"):
            raise KeyError("x")


def test_a_failed_download_of_a_file_the_listing_missed_is_named(tmp_path, monkeypatch):
    """A "judged" subset's queries are filtered by its qrels through a function: the listing of the queries does not
    reach the qrels file, but the failed address names it."""
    import requests

    qrels = NeededFile(entity="qrels", path=tmp_path / "qrels", urls=["https://example.org/2019qrels-pass.txt"])
    queries = NeededFile(entity="queries", path=tmp_path / "queries.tsv", derived=True)
    queries.path.write_text("1\tq\n")
    monkeypatch.setattr(guard, "needed_files", lambda dataset_id, entities=None: [queries] if entities else [queries, qrels])
    monkeypatch.setattr(guard, "check_files", lambda dataset_id, files: None)
    with pytest.raises(DatasetUnavailable, match="it needs 2019qrels-pass.txt .*prefeval datasets seed some/judged"):
        with guard.guarded("some/judged", "queries"):
            raise RuntimeError("All download sources failed", [
                ("RequestsDownload('https://example.org/2019qrels-pass.txt')", requests.ConnectionError("cut"))])
