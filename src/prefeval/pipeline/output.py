"""The report folder, written atomically: a run never leaves a half-written or mixed folder behind.

* Every file is written into a temporary sibling folder (``.NAME.prefeval-tmp-*``); only when all files
  are written is the folder moved into place (the earlier output is swapped out as a whole), with Ctrl-C
  and termination deferred during the move. An interrupted run (Ctrl-C, SIGTERM, SIGHUP) leaves the folder as
  it was (or absent) and removes its staging folder and lock file; a mount point is refused (it cannot be
  swapped).
* ``manifest.json``, written last, lists every file with its size and SHA-256; a later run replaces exactly
  the files that manifest names. A folder holding anything else (files prefeval did not write) is refused
  unless ``force`` is given; then those files are left untouched and prefeval's own files are replaced one by
  one, the old manifest removed first and the new one written last.
* A lock file beside the folder (``.NAME.prefeval-lock``, :class:`FolderLock`) stops two runs from writing one
  folder, and ``prefeval report`` from rewriting a folder a run is writing.
* :meth:`OutputFolder.check` validates the path before any computation: not empty, not a file, writable.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prefeval.errors import PrefevalError

__all__ = ["MANIFEST", "MANIFEST_FORMAT", "FolderLock", "OutputFolder", "read_manifest", "checkpoint"]

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "prefeval-output-manifest/1"


def checkpoint(name: str, seconds: float = 60.0) -> None:
    """A named point of a pipeline run for tests that interrupt it (a no-op unless the variables are set).

    With ``PREFEVAL_TEST_POINTS`` set, ``prefeval-test-point NAME`` is printed to stderr at each point; when
    ``NAME`` is in the comma-separated ``PREFEVAL_TEST_PAUSE``, the run then sleeps ``seconds`` there, so a
    test can send a real SIGINT at that point."""
    if not os.environ.get("PREFEVAL_TEST_POINTS"):
        return
    print(f"prefeval-test-point {name}", file=sys.stderr, flush=True)
    if name in os.environ.get("PREFEVAL_TEST_PAUSE", "").split(","):
        time.sleep(seconds)


def sha256(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    return hasher.hexdigest()


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest of an earlier prefeval output in ``folder`` (None when there is none or it is not ours).

    An output of prefeval 0.1 has no manifest; the file list of its summary.json stands in for one."""
    data = _read_json(folder / MANIFEST)
    if isinstance(data, dict) and data.get("format") == MANIFEST_FORMAT and isinstance(data.get("files"), list):
        return data
    legacy = _read_json(folder / "summary.json")
    if (isinstance(legacy, dict) and legacy.get("format") == "prefeval-pipeline-summary/1"
            and isinstance(legacy.get("files"), list)):
        return {"format": MANIFEST_FORMAT, "files": [{"name": n} for n in legacy["files"] if isinstance(n, str)]}
    return None


def _manifest_names(manifest: dict[str, Any] | None) -> set[str]:
    """File names a manifest lists (plain names only: a manifest never makes prefeval touch another folder)."""
    if manifest is None:
        return set()
    names = {str(f.get("name")) for f in manifest["files"] if isinstance(f, dict)}
    return {n for n in names if n and n == Path(n).name and n not in (".", "..")}


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT/SIGTERM/SIGHUP until the block is done, then act on them (Ctrl-C: KeyboardInterrupt; SIGTERM,
    SIGHUP: re-sent to the process with its own handler). Only in the main thread; elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    held = [s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
            if s is not None]
    previous = {s: signal.signal(s, lambda signum, frame: received.append(signum)) for s in held}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if signal.SIGINT in received and previous[signal.SIGINT] is signal.default_int_handler:
            raise KeyboardInterrupt
        for signum in dict.fromkeys(received):
            os.kill(os.getpid(), signum)


#: The random part of a :func:`tempfile.mkdtemp` name (8 characters of its alphabet).
_TEMP_SUFFIX = re.compile(r"[a-z0-9_]{8}")


class _Terminated(BaseException):
    """SIGTERM or SIGHUP received while an output folder is held (not an ``Exception``: nothing swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by signal {signum}")
        self.signum = signum


def _raise_terminated(signum: int, frame: Any) -> None:
    raise _Terminated(signum)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _holds_cwd(path: Path) -> bool:
    """True when the current folder is ``path`` or inside it (then the folder is updated, not replaced)."""
    try:
        cwd, folder = Path.cwd().resolve(), path.resolve()
    except OSError:
        return False
    return cwd == folder or folder in cwd.parents


class FolderLock:
    """The lock of an output folder: the file ``.NAME.prefeval-lock`` beside it, held (``flock``; on systems
    without it, created exclusively) by one process at a time, with its process id inside. Entering fails at once
    with a one-line :class:`~prefeval.errors.PrefevalError` naming the folder when another process holds it.
    While held, SIGTERM and SIGHUP end the process through an exception, so the lock file (and a run's staging
    folder) are removed as on Ctrl-C; the process then ends by the same signal."""

    def __init__(self, folder: Path, where: str = "") -> None:
        self.folder = folder
        self.where = f"{where}: " if where else ""  # the key or option naming the folder, for messages
        self.path = folder.parent / f".{folder.name}.prefeval-lock"
        self._lock: Any = None
        self._handlers: dict[int, Any] = {}

    def __enter__(self) -> FolderLock:
        self._catch_signals()
        try:
            self._acquire()
        except BaseException:
            self._restore_signals()
            raise
        return self

    def __exit__(self, exc_type: Any, exc: Any, traceback: Any) -> None:
        try:
            self._release()
        finally:
            self._restore_signals()
        if isinstance(exc, _Terminated):  # cleaned up: now end as the signal would have ended the process
            signal.signal(exc.signum, signal.SIG_DFL)
            os.kill(os.getpid(), exc.signum)

    def _catch_signals(self) -> None:
        """Turn SIGTERM and SIGHUP (when their action is the default one, in the main thread) into an exception
        while the folder is held, so the staging folder and the lock file are removed as for Ctrl-C; the
        process then ends by the same signal (:meth:`__exit__`)."""
        self._handlers = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for name in ("SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
                self._handlers[signum] = signal.signal(signum, _raise_terminated)

    def _restore_signals(self) -> None:
        for signum, handler in getattr(self, "_handlers", {}).items():
            signal.signal(signum, handler)
        self._handlers = {}

    def _acquire(self) -> None:
        try:
            # deferred: fcntl exists on POSIX only
            import fcntl
        except ImportError:  # not POSIX: an exclusive create
            try:
                self._lock = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                raise self._busy("") from None
            return
        while True:
            try:
                handle = open(self.path, "a+")  # noqa: SIM115 - held until _release
            except OSError as exc:
                raise PrefevalError(f"{self.where}cannot create the lock file {self.path} of "
                                    f"{str(self.folder)!r}: {exc.strerror or exc}") from None
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                handle.seek(0)
                owner = handle.read().strip()
                handle.close()
                if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise self._busy(owner) from None
                raise
            try:  # the file may have been removed by the run that held it: then lock the new one
                same = os.stat(self.path).st_ino == os.fstat(handle.fileno()).st_ino
            except FileNotFoundError:
                same = False
            if same:
                handle.truncate(0)
                handle.write(f"{os.getpid()}\n")
                handle.flush()
                self._lock = handle
                return
            handle.close()

    def _busy(self, owner: str) -> PrefevalError:
        by = f" (process {owner})" if owner else ""
        return PrefevalError(f"{self.where}another prefeval run{by} is writing {str(self.folder)!r} "
                             f"(lock file {self.path}); wait for it to finish or choose another folder")

    def _release(self) -> None:
        if self._lock is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        if isinstance(self._lock, int):
            os.close(self._lock)
        else:
            self._lock.close()
        self._lock = None


class OutputFolder:
    """The folder a pipeline writes its report to (see the module docstring)."""

    def __init__(self, path: str | os.PathLike, force: bool = False, where: str = "report.out") -> None:
        text = os.fspath(path)
        if not str(text).strip():
            raise PrefevalError(f"{where}: the output folder is an empty string; give a folder name")
        path = Path(text)
        if path.name in ("", "..") or path.is_symlink():  # ".", "..", a link: the folder it stands for
            path = Path(os.path.realpath(text))
        self.path = path
        self.force, self.where = force, where
        self.staging: Path | None = None
        self._lock = FolderLock(self.path, where)

    # -- checks before any work -------------------------------------------------------------------------

    def foreign(self) -> list[str]:
        """Entries of the folder that prefeval's last output (per its manifest) did not write."""
        if not self.path.is_dir():
            return []
        ours = _manifest_names(read_manifest(self.path)) | {MANIFEST}
        return sorted(p.name for p in self.path.iterdir() if p.name not in ours)

    def check(self) -> None:
        """Fail now, before any computation, if the folder cannot be written (see the module docstring)."""
        path = self.path
        if path.exists() and not path.is_dir():
            raise PrefevalError(f"{self.where}: {str(path)!r} exists and is not a folder")
        ancestor = path if path.exists() else path.parent
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise PrefevalError(f"{self.where}: cannot create {str(path)!r}: {str(ancestor)!r} is a file, not a folder")
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise PrefevalError(f"{self.where}: cannot write {str(path)!r}: {str(ancestor)!r} is not writable")
        if path.is_dir() and os.path.ismount(path):
            raise PrefevalError(f"{self.where}: {str(path)!r} is a mount point, which cannot be replaced as a whole "
                                "(prefeval moves the finished output into place); give a folder inside it")
        if path.exists() and not os.access(path.parent, os.W_OK | os.X_OK):
            raise PrefevalError(f"{self.where}: cannot replace {str(path)!r}: its parent folder is not writable")
        foreign = self.foreign()
        if foreign and not self.force:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise PrefevalError(f"{self.where}: {str(path)!r} holds {len(foreign)} file(s) prefeval did not write "
                                f"({shown}); choose another folder, or --force to write beside them (prefeval's "
                                "files of the same name are then replaced, the others are left alone)")

    # -- lock, staging, commit ------------------------------------------------------------------------------

    def __enter__(self) -> OutputFolder:
        self.check()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PrefevalError(f"{self.where}: cannot create {str(self.path.parent)!r}: {exc.strerror}") from None
        self._lock.__enter__()
        try:
            self.check()  # again, now that no other run can change the folder
            for stale in self._stale():
                shutil.rmtree(stale, ignore_errors=True)  # left by a killed run
            self.staging = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.prefeval-tmp-", dir=self.path.parent))
            self.staging.chmod(0o777 & ~_umask())  # as mkdir would make it (mkdtemp: owner only)
        except BaseException as exc:
            self._lock.__exit__(type(exc), exc, None)
            raise
        return self

    def _stale(self) -> list[Path]:
        """The staging and swap folders of earlier runs of THIS folder (``.NAME.prefeval-tmp-XXXXXXXX``, the
        suffix of :func:`tempfile.mkdtemp`): matched exactly, never as a pattern, so a folder name holding
        ``?``, ``*`` or ``[`` (or one that extends another's) never selects another run's folders."""
        stems = (f".{self.path.name}.prefeval-tmp-", f".{self.path.name}.prefeval-old-")
        try:
            names = os.listdir(self.path.parent)
        except OSError:
            return []
        return [self.path.parent / n for n in names
                if any(n.startswith(stem) and _TEMP_SUFFIX.fullmatch(n[len(stem):]) for stem in stems)]

    def __exit__(self, exc_type: Any, exc: Any, traceback: Any) -> None:
        try:
            if self.staging is not None:
                shutil.rmtree(self.staging, ignore_errors=True)
                self.staging = None
        finally:
            self._lock.__exit__(exc_type, exc, traceback)

    def commit(self, pipeline: str = "", order: list[Path] | None = None) -> list[Path]:
        """Write the manifest into the staging folder and move its files into place; returns the final paths
        (in the order of ``order``, file names, then any other file; the manifest last)."""
        assert self.staging is not None, "use OutputFolder as a context manager"
        rank = {p.name: i for i, p in enumerate(order or [])}
        files = sorted((p for p in self.staging.iterdir() if p.name != MANIFEST),
                       key=lambda p: (rank.get(p.name, len(rank)), p.name))
        manifest = {"format": MANIFEST_FORMAT, "pipeline": pipeline,
                    "files": [{"name": p.name, "bytes": p.stat().st_size, "sha256": sha256(p)} for p in files]}
        (self.staging / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
                                             encoding="utf-8")
        checkpoint("commit", seconds=1.0)
        with _signals_deferred():
            checkpoint("commit:deferred", seconds=1.0)
            if self.foreign() or _holds_cwd(self.path):
                self._merge(files)
            else:
                self._swap()
        return [self.path / p.name for p in files] + [self.path / MANIFEST]

    def _swap(self) -> None:
        """Replace the whole folder (it holds nothing but an earlier output, or does not exist)."""
        assert self.staging is not None
        old = None
        if self.path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.prefeval-old-", dir=self.path.parent))
            os.replace(self.path, old / "x")
        os.replace(self.staging, self.path)
        self.staging = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def _merge(self, files: list[Path]) -> None:
        """Replace prefeval's files one by one: with ``force`` beside files prefeval did not write, or in the
        current folder."""
        assert self.staging is not None
        previous = _manifest_names(read_manifest(self.path))
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path / MANIFEST)  # from here on the folder is marked incomplete
        new = {p.name for p in files}
        for p in files:
            os.replace(p, self.path / p.name)
        for name in sorted(previous - new):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                os.unlink(self.path / name)
        os.replace(self.staging / MANIFEST, self.path / MANIFEST)
