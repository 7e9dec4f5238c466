"""Failing fast offline: the download guard active while prefeval reads a dataset.

When a file is missing, ir_datasets downloads it with a retry loop (``IR_DATASETS_DL_TRIES`` tries, a 15 s
time-out each, several mirrors). While prefeval reads an entity (:func:`guarded`), it first checks the download
hosts (a TCP connection with a 3 s time-out, remembered per host for a minute; ``PREFEVAL_OFFLINE=1`` skips
downloads altogether) and, if none is reachable, raises :class:`~prefeval.errors.DatasetUnavailable` at once,
naming the dataset, the file, its path under ``IR_DATASETS_HOME`` and the ``prefeval datasets seed`` command.

ir_datasets 0.6 has no public hook before a download (its configuration is environment variables read at each
try, and a process-wide environment change would reach every thread). So :func:`guarded` wraps
``ir_datasets.util.download.Download.path`` and ``.stream`` on entry and restores the originals when the last
guarded call ends; in other threads, and outside prefeval's calls, the wrappers hand straight over to ir_datasets.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

from prefeval.data.datasets.files import (
    NeededFile,
    download_info,
    internal,
    ir_datasets_module,
    marker_ok,
    needed_files,
    private_api_problem,
    under_home,
)
from prefeval.errors import DatasetUnavailable

_CONNECT_TIMEOUT = 3.0
_REACHABLE_TTL = 60.0  # seconds a host's state is remembered (a network may come back)
_REACHABLE: dict[tuple[str, int], tuple[float, str | None]] = {}
#: the dataset and entity of the guarded call running in this context
_CONTEXT: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar("prefeval_irds_guard", default=None)
_LOCK = threading.Lock()
_ACTIVE = 0  # guarded calls running (in any thread)
_ORIGINALS: dict[str, Any] = {}
_WARNED = False


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


def _check_download(download: Any) -> None:
    """Raise DatasetUnavailable (inside a guarded call) when ``download`` would need an unreachable host."""
    context = _CONTEXT.get()
    if context is None:
        return
    info = download_info(download, context[1])
    if info.path is not None and info.path.exists():
        return
    if any(p.exists() for p in info.local_mirrors):
        return
    reason = offline_reason(info.urls)
    if reason is not None:
        raise DatasetUnavailable(unavailable_message(context[0], info, reason))


def _wrap(download_class: Any) -> None:
    original_path, original_stream = download_class.path, download_class.stream

    @functools.wraps(original_path)
    def path(self: Any, force: bool = True) -> Any:
        if force and internal(self, "_path", None) is None:
            _check_download(self)
        return original_path(self, force)

    @functools.wraps(original_stream)
    def stream(self: Any) -> Any:
        if internal(self, "_stream", None):
            _check_download(self)
        return original_stream(self)

    _ORIGINALS.update(path=original_path, stream=original_stream)
    download_class.path, download_class.stream = path, stream


@contextlib.contextmanager
def _wrappers_installed() -> Iterator[None]:
    """``Download.path/stream`` wrapped while at least one guarded call runs; the originals restored after."""
    global _ACTIVE, _WARNED
    Download = ir_datasets_module().util.Download
    problem = private_api_problem()
    if problem is not None:  # load without the fail-fast guard rather than not at all
        if not _WARNED:
            _WARNED = True
            warnings.warn(f"{problem}; downloads are not checked before ir_datasets tries them", stacklevel=4)
        yield
        return
    with _LOCK:
        if _ACTIVE == 0:
            _wrap(Download)
        _ACTIVE += 1
    try:
        yield
    finally:
        with _LOCK:
            _ACTIVE -= 1
            if _ACTIVE == 0:
                Download.path, Download.stream = _ORIGINALS.pop("path"), _ORIGINALS.pop("stream")


@contextlib.contextmanager
def guarded(dataset_id: str, entity: str) -> Iterator[None]:
    """Run ir_datasets calls for ``entity`` of ``dataset_id``: fail fast offline, and turn download
    errors into :class:`DatasetUnavailable`. ir_datasets is unchanged before and after."""
    _check_markers(dataset_id, entity)
    token = _CONTEXT.set((dataset_id, entity))
    try:
        with _wrappers_installed():
            yield
    except DatasetUnavailable:
        raise
    except Exception as exc:  # requests' ConnectionError, RuntimeError('All download sources failed'), ...
        if not _looks_like_download_error(exc):
            raise
        missing = [n for n in needed_files(dataset_id, (entity,)) if not n.derived and not n.cached()]
        if missing:
            raise DatasetUnavailable(unavailable_message(dataset_id, missing[0], f"the download failed ({exc})")) from exc
        raise DatasetUnavailable(f"ir_datasets could not get the {entity} of {dataset_id}: {exc}") from exc
    finally:
        _CONTEXT.reset(token)


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


def _check_markers(dataset_id: str, entity: str) -> None:
    """Offline, refuse before ir_datasets' ``Migrator`` deletes a seeded file whose marker is wrong."""
    for needed in needed_files(dataset_id, (entity,)):
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
