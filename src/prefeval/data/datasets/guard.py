"""Failing fast offline: before prefeval hands a dataset's entity over to ir_datasets, its files are checked.

When a file is missing, ir_datasets downloads it with a retry loop (``IR_DATASETS_DL_TRIES`` tries, a 15 s
time-out each, several mirrors). So before prefeval reads an entity (:func:`guarded`), it lists the files behind it
(:func:`~prefeval.data.datasets.files.needed_files`, read without opening anything). When one would have to be
downloaded, it checks the download hosts (a TCP connection with a 3 s time-out, remembered per host for a minute;
``PREFEVAL_OFFLINE=1`` skips downloads altogether) and, if none is reachable, raises
:class:`~prefeval.errors.DatasetUnavailable` at once, naming the dataset, the file, its path under
``IR_DATASETS_HOME`` and the ``prefeval datasets seed`` command. Otherwise ir_datasets is called as it is: nothing
of it is replaced, so ir_datasets used directly, or in another thread, behaves as without prefeval.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlparse

from prefeval.data.datasets.files import NeededFile, marker_ok, needed_files, under_home
from prefeval.errors import DatasetUnavailable

_CONNECT_TIMEOUT = 3.0
_REACHABLE_TTL = 60.0  # seconds a host's state is remembered (a network may come back)
_REACHABLE: dict[tuple[str, int], tuple[float, str | None]] = {}


def _host_problem(url: str) -> str | None:
    """``None`` when ``url``'s host accepts a TCP connection, else why not (remembered for a minute)."""
    parsed = urlparse(url)
    host = parsed.hostname or ""
    port = parsed.port or (80 if parsed.scheme == "http" else 443)
    key = (host, port)
    now = time.monotonic()
    if key not in _REACHABLE or now - _REACHABLE[key][0] > _REACHABLE_TTL:
        try:
            with socket.create_connection(key, timeout=_CONNECT_TIMEOUT):
                _REACHABLE[key] = (now, None)
        except OSError as exc:
            _REACHABLE[key] = (now, f"{host}: {exc.strerror or exc}")
    return _REACHABLE[key][1]


def _proxy_configured() -> bool:
    return any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"))


def offline_reason(urls: list[str]) -> str | None:
    """Why none of ``urls`` can be downloaded now (``None``: some host is reachable)."""
    if os.environ.get("PREFEVAL_OFFLINE", "").lower() in ("1", "true", "yes"):
        return "PREFEVAL_OFFLINE is set"
    if not urls:
        return "ir_datasets has no download address for it (it must be obtained manually)"
    if _proxy_configured():
        return None
    problems = []
    for url in urls:
        problem = _host_problem(url)
        if problem is None:
            return None
        problems.append(problem)
    return "no download host is reachable (" + "; ".join(dict.fromkeys(problems)) + ")"


def unavailable_message(dataset_id: str, needed: NeededFile, reason: str) -> str:
    """The text of :class:`DatasetUnavailable`: dataset, file, path under IR_DATASETS_HOME, command."""
    source = f" from {needed.urls[0]}" if needed.urls else ""
    md5 = f", md5 {needed.md5}" if needed.md5 else ""
    if needed.path is None:
        where = (f"place a copy at {needed.local_mirrors[0]}" if needed.local_mirrors
                 else "ir_datasets does not cache it under IR_DATASETS_HOME")
        return (f"ir_datasets cannot get the {needed.entity} of {dataset_id}: it needs {needed.name}{source}{md5} "
                f"and {reason}; {where}.")
    marker = ""
    if needed.marker is not None:
        marker = f" (with the version marker {under_home(needed.marker[0])} containing exactly {needed.marker[1]!r})"
    return (f"ir_datasets cannot get the {needed.entity} of {dataset_id}: it needs {needed.name}{source}{md5}, "
            f"which is not at {under_home(needed.path)} (= {needed.path}), and {reason}. "
            f"Place a copy there{marker} with: prefeval datasets seed {dataset_id} {needed.name}")


def check_files(dataset_id: str, files: list[NeededFile]) -> None:
    """Raise :class:`DatasetUnavailable` when ir_datasets would have to download one of ``files`` (the files behind
    one entity of ``dataset_id``) and cannot, or would delete a seeded file whose version marker is wrong."""
    for needed in files:
        if needed.marker is None or needed.path is None or not needed.path.exists() or marker_ok(*needed.marker):
            continue
        reason = offline_reason(needed.urls)
        if reason is None:
            continue  # online: let ir_datasets migrate (delete and download again)
        version_file, version = needed.marker
        raise DatasetUnavailable(
            f"{under_home(needed.path)} (= {needed.path}) is present but its version marker "
            f"{under_home(version_file)} does not contain exactly {version!r}, so ir_datasets would delete the "
            f"file and download it again, and {reason}. If the file is the current {needed.name} (md5 {needed.md5}), "
            f"install it with: prefeval datasets seed {dataset_id} {needed.name}")
    for needed in files:
        if needed.to_fetch():
            reason = offline_reason(needed.urls)
            if reason is not None:
                raise DatasetUnavailable(unavailable_message(dataset_id, needed, reason))


@contextlib.contextmanager
def guarded(dataset_id: str, entity: str) -> Iterator[None]:
    """Check the files behind ``entity`` of ``dataset_id`` (:func:`check_files`), then run the ir_datasets calls
    in the ``with`` block as they are, turning a failed download into :class:`DatasetUnavailable` (naming the file
    whose address failed, also one the listing did not reach)."""
    files = needed_files(dataset_id, (entity,))
    check_files(dataset_id, files)
    try:
        yield
    except DatasetUnavailable:
        raise
    except Exception as exc:  # requests' ConnectionError, RuntimeError('All download sources failed'), ...
        if not _looks_like_download_error(exc):
            raise
        # a file of another entity (a "judged" subset's queries are filtered by its qrels, which ir_datasets reads
        # through a function the listing cannot follow), found by the address that failed
        text = " ".join(str(e) for e in _chain(exc))
        missing = [n for n in files if n.to_fetch()] or [
            n for n in needed_files(dataset_id) if n.to_fetch() and any(url in text for url in n.urls)]
        if missing:
            raise DatasetUnavailable(unavailable_message(dataset_id, missing[0], f"the download failed ({exc})")) from exc
        raise DatasetUnavailable(f"ir_datasets could not get the {entity} of {dataset_id}: {exc}") from exc


def _looks_like_download_error(exc: BaseException) -> bool:
    names = {type(e).__name__ for e in _chain(exc)}
    if names & {"ConnectionError", "Timeout", "ConnectTimeout", "ReadTimeout", "HTTPError", "SSLError",
                "RequestException", "FileNotFoundError", "URLError", "gaierror"}:
        return True
    return any("download" in str(e).lower() for e in _chain(exc))


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        for arg in getattr(exc, "args", ()):
            if isinstance(arg, list):
                for item in arg:
                    if isinstance(item, tuple) and item and isinstance(item[-1], BaseException):
                        yield item[-1]
        exc = exc.__cause__ or exc.__context__
