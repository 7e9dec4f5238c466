"""ir_datasets layer: qrels, topics and facts of public benchmarks, offline seeding.

``load("msmarco-passage/trec-dl-2019/judged")`` (also written ``"irds:msmarco-passage/..."``)
returns a :class:`BenchmarkDataset` whose ``qrels`` are prefeval's canonical frame
(``query_id, doc_id, relevance, iteration``). For diversity qrels ir_datasets yields
``TrecSubQrel(query_id, doc_id, relevance, subtopic_id)`` while ir-measures (pyndeval) reads the
subtopic from ``iteration``; the subtopic id is therefore copied into ``iteration`` here -- passing
the ir_datasets records straight to ir-measures silently collapses all subtopics into one.

Offline use. ir_datasets keeps every file under ``$IR_DATASETS_HOME/<top-level id>/<cache path>``
(the home is read when ``ir_datasets`` is imported) and uses a file found there without a network
access or md5 check. When a file is missing, prefeval checks the download hosts before ir_datasets
starts its retry loop (a TCP connection with a 3 s timeout, remembered per host for a minute; set
``PREFEVAL_OFFLINE=1`` to skip downloads altogether). If no host is reachable it raises
:class:`~prefeval.errors.DatasetUnavailable` at once, naming the dataset, the file it needs, the
exact path under ``IR_DATASETS_HOME`` and the command ``prefeval datasets seed ID FILE`` that puts
a local copy there (:func:`seed` also writes the version marker some datasets need -- DL-Hard's
``irds_version.txt`` -- and checks the md5 ir_datasets records).
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import functools
import gzip
import hashlib
import importlib
import inspect
import os
import shutil
import socket
import tempfile
import threading
import time
import types
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pandas as pd

from prefeval.errors import DatasetUnavailable, PrefevalError
from prefeval.inputs import canonical_qrels, register_dataset_qrels

ENTITIES = ("qrels", "queries", "docs", "scoreddocs", "docpairs", "qlogs")
_PREFIX = "irds:"
_CONNECT_TIMEOUT = 3.0


# ----------------------------------------------------------------------------------------------
# public objects


@dataclass(frozen=True)
class DatasetFacts:
    """What a benchmark's qrels look like.

    ``grades`` is ir_datasets' ``qrels_defs()`` (grade -> description; empty when the dataset
    documents none); ``has_subtopics`` is true for diversity qrels (records with a ``subtopic_id``);
    ``num_queries`` counts the queries with at least one judgment, ``num_queries_with_relevant``
    those with a positive grade (the queries an evaluation with ``rel=1`` uses).
    """

    dataset_id: str
    grades: dict[int, str]
    has_subtopics: bool
    num_queries: int
    num_queries_with_relevant: int
    num_judgments: int
    grade_counts: dict[int, int] = field(default_factory=dict)


class BenchmarkDataset:
    """An ir_datasets benchmark seen through prefeval (qrels and topics load on first access)."""

    def __init__(self, dataset_id: str) -> None:
        self.dataset_id = dataset_id
        self._qrels: pd.DataFrame | None = None
        self._topics: pd.DataFrame | None = None
        self._facts: DatasetFacts | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"BenchmarkDataset({self.dataset_id!r})"

    @property
    def irds(self) -> Any:
        """The underlying ``ir_datasets`` dataset object."""
        return _irds_dataset(self.dataset_id)

    @property
    def qrels(self) -> pd.DataFrame:
        """Canonical qrels: ``query_id`` (str), ``doc_id`` (str), ``relevance`` (int64), ``iteration``
        (str: the subtopic id for diversity qrels, otherwise the TREC iteration column or ``"0"``)."""
        with self._lock:
            if self._qrels is None:
                self._qrels = _load_qrels(self.dataset_id)
            return self._qrels.copy()

    @property
    def topics(self) -> pd.DataFrame:
        """The queries: ``query_id`` plus the dataset's text fields (``text``, or ``title``,
        ``description``, ... as ir_datasets names them)."""
        with self._lock:
            if self._topics is None:
                self._topics = _load_topics(self.dataset_id)
            return self._topics.copy()

    @property
    def facts(self) -> DatasetFacts:
        """Grade scale, subtopics and query counts (computed from the qrels)."""
        if self._facts is None:
            qrels = self.qrels
            grades, has_subtopics = _qrels_scale(self.irds)
            counts = qrels["relevance"].value_counts().sort_index()
            self._facts = DatasetFacts(
                dataset_id=self.dataset_id,
                grades=grades,
                has_subtopics=has_subtopics,
                num_queries=int(qrels["query_id"].nunique()),
                num_queries_with_relevant=int(qrels.loc[qrels["relevance"] > 0, "query_id"].nunique()),
                num_judgments=len(qrels),
                grade_counts={int(k): int(v) for k, v in counts.items()},
            )
        return self._facts


def normalise_id(dataset_id: str) -> str:
    """Strip the optional ``irds:`` prefix and surrounding blanks."""
    text = str(dataset_id).strip()
    return text[len(_PREFIX):] if text.startswith(_PREFIX) else text


_CACHE: dict[str, BenchmarkDataset] = {}
_CACHE_LOCK = threading.Lock()


def load(dataset_id: str) -> BenchmarkDataset:
    """The benchmark ``dataset_id`` (an ir_datasets id, optionally prefixed ``irds:``), cached per process.

    Raises :class:`~prefeval.errors.PrefevalError` when the id is unknown (suggesting close ids)
    and :class:`~prefeval.errors.DatasetUnavailable` when a file cannot be obtained (offline);
    the latter only when ``qrels`` or ``topics`` are first accessed.
    """
    key = normalise_id(dataset_id)
    _irds_dataset(key)  # validates the id
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = BenchmarkDataset(key)
        return _CACHE[key]


# ----------------------------------------------------------------------------------------------
# ir_datasets access


#: ir_datasets versions (major.minor) whose private classes prefeval reads -- to list the files a dataset needs
#: (:func:`needed_files`) and to fail fast offline (:func:`_install_download_guard`); a test pins them.
TESTED_IR_DATASETS = ("0.6",)
#: the private attributes read, by ``module:class``
PRIVATE_API = {
    "ir_datasets.datasets.base:Dataset": ("_constituents",),
    "ir_datasets.util:Migrator": ("_wrapped", "_version_file", "_version"),
    "ir_datasets.util:Cache": ("_path",),
    "ir_datasets.util:Download": ("_cache_path", "_path", "_stream", "expected_md5", "mirrors"),
    "ir_datasets.util:LocalDownload": ("_path",),
}


@functools.lru_cache(maxsize=1)
def private_api_problem() -> str | None:
    """Why the installed ir_datasets lacks the private attributes prefeval relies on, or ``None``."""
    missing = []
    for where, attributes in PRIVATE_API.items():
        module, name = where.split(":")
        try:
            source = inspect.getsource(getattr(importlib.import_module(module), name).__init__)
        except (ImportError, AttributeError, OSError, TypeError):
            missing.append(where)
            continue
        missing += [f"{name}.{a}" for a in attributes if f"self.{a} " not in source and f"self.{a}=" not in source]
    if not missing:
        return None
    version = getattr(_ir_datasets_module(), "__version__", "?")
    return (f"ir_datasets {version} lacks {', '.join(missing)}, which prefeval reads to list and guard dataset files "
            f"(tested with ir_datasets {', '.join(v + '.x' for v in TESTED_IR_DATASETS)}); install one of those "
            "versions")


def _ir_datasets_module() -> Any:
    # deferred: ir_datasets is slow to import and only needed for dataset ids
    import ir_datasets

    return ir_datasets


def _require_private_api() -> None:
    problem = private_api_problem()
    if problem is not None:
        raise PrefevalError(problem)


def _ir_datasets() -> Any:
    ir_datasets = _ir_datasets_module()
    _install_download_guard()
    return ir_datasets


def _suggestions(dataset_id: str) -> list[str]:
    ids = list(_ir_datasets().registry)
    close = difflib.get_close_matches(dataset_id, ids, n=5, cutoff=0.6)
    if not close:
        stem = dataset_id.rsplit("/", 1)[-1]
        close = [i for i in ids if stem and stem in i][:5]
    return close


def _irds_dataset(dataset_id: str) -> Any:
    irds = _ir_datasets()
    try:
        return irds.load(dataset_id)
    except KeyError:
        pass
    close = _suggestions(dataset_id)
    hint = f"; did you mean {', '.join(close)}?" if close else " (see `ir_datasets list`)"
    raise PrefevalError(f"{dataset_id!r} is neither an existing file nor an ir_datasets id{hint}")


def _records(dataset_id: str, entity: str) -> pd.DataFrame:
    """The ``qrels`` or ``queries`` records of a dataset as a frame, one column per record field."""
    ds = _irds_dataset(dataset_id)
    if not ds.has(entity):
        raise PrefevalError(f"ir_datasets dataset {dataset_id} has no {entity} (it provides: {_provides(ds)})")
    with _guard(dataset_id, entity):
        cls = getattr(ds, f"{entity}_cls")()
        records = list(getattr(ds, f"{entity}_iter")())
    # the records' own fields: some subsets declare fewer than they yield (the DL-Hard and robust04 folds declare
    # TrecQrel's but yield records with an extra field)
    fields = list(getattr(records[0], "_fields", ())) if records else []
    fields = fields or list(getattr(cls, "_fields", ())) or ["query_id"]
    return pd.DataFrame.from_records(records, columns=fields) if records else pd.DataFrame(columns=fields)


def _load_qrels(dataset_id: str) -> pd.DataFrame:
    frame = _records(dataset_id, "qrels")
    if "subtopic_id" in frame.columns:  # diversity qrels: the subtopic goes to ``iteration`` (module doc)
        frame = frame.drop(columns="iteration", errors="ignore")
    return canonical_qrels(frame, f"{dataset_id} qrels")


def _load_topics(dataset_id: str) -> pd.DataFrame:
    frame = _records(dataset_id, "queries")
    frame["query_id"] = frame["query_id"].astype(str)
    return frame


def _provides(ds: Any) -> str:
    return ", ".join(e for e in ENTITIES if ds.has(e)) or "nothing"


# ----------------------------------------------------------------------------------------------
# the files a dataset needs


@dataclass
class NeededFile:
    """One file ir_datasets reads for an entity of a dataset.

    ``path`` is where ir_datasets looks (``None`` for files it only downloads to a temporary
    place); ``derived`` marks a cache ir_datasets builds from other files (e.g. an extracted TSV),
    which can be seeded too but has no recorded md5; ``marker`` is ``(version file, version)`` when
    a ``Migrator`` guards the file (the file is deleted unless the marker holds exactly ``version``).
    """

    entity: str
    path: Path | None
    md5: str | None = None
    urls: list[str] = field(default_factory=list)
    local_mirrors: list[Path] = field(default_factory=list)
    derived: bool = False
    marker: tuple[Path, str] | None = None

    @property
    def name(self) -> str:
        if self.urls:
            return Path(urlparse(self.urls[0]).path).name or self.urls[0]
        return self.path.name if self.path else "?"

    def cached(self) -> bool:
        if self.path is not None and self.path.exists():
            return self.marker is None or _marker_ok(*self.marker)
        return any(p.exists() for p in self.local_mirrors)


def _marker_ok(version_file: Path, version: str) -> bool:
    try:
        return version_file.read_text() == version
    except OSError:
        return False


def needed_files(dataset_id: str, entities: tuple[str, ...] = ENTITIES) -> list[NeededFile]:
    """The files behind ``entities`` of ``dataset_id`` (inspected without reading or downloading).

    Follows ir_datasets' own dispatch: in a ``Dataset`` the first constituent that provides
    ``<entity>_iter`` serves the entity. Below a cache ir_datasets builds (``Cache``) the sources
    are listed too, but are only needed while the cache is absent.
    """
    ds = _irds_dataset(normalise_id(dataset_id))
    _require_private_api()
    out: list[NeededFile] = []
    for entity in entities:
        if ds.has(entity):
            _collect(ds, entity, None, out, set(), 0)
    return out


def _collect(obj: Any, entity: str, marker: tuple[Path, str] | None, out: list[NeededFile],
             seen: set[int], depth: int) -> None:
    # deferred: ir_datasets is slow to import and only needed for dataset ids
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.util import Cache, Download, Lazy, Migrator

    if id(obj) in seen or depth > 40:
        return
    seen.add(id(obj))
    if isinstance(obj, Dataset):
        for cons in vars(obj)["_constituents"]:
            if hasattr(cons, f"{entity}_iter") or hasattr(cons, f"{entity}_handler"):
                _collect(cons, entity, marker, out, seen, depth + 1)
                return
        return
    if isinstance(obj, Migrator):
        state = vars(obj)
        _collect(state["_wrapped"], entity, (Path(state["_version_file"]), state["_version"]), out, seen, depth + 1)
        return
    if isinstance(obj, Download):
        out.append(_download_info(obj, entity, marker))
        return
    if isinstance(obj, (Lazy, types.FunctionType, types.MethodType, functools.partial)):
        return
    if isinstance(obj, Cache):
        out.append(NeededFile(entity=entity, path=Path(vars(obj)["_path"]), derived=True, marker=marker))
    if isinstance(obj, (list, tuple)):
        for item in obj:
            _collect(item, entity, marker, out, seen, depth + 1)
        return
    if isinstance(obj, dict) or not type(obj).__module__.startswith("ir_datasets"):
        return
    for value in vars(obj).values() if hasattr(obj, "__dict__") else ():
        _collect(value, entity, marker, out, seen, depth + 1)


def _home() -> Path:
    return Path(_ir_datasets().util.home_path())


def _under_home(path: Path) -> str:
    """``$IR_DATASETS_HOME/<relative path>`` (or the absolute path when it lies elsewhere)."""
    with contextlib.suppress(ValueError):
        return f"$IR_DATASETS_HOME/{path.resolve().relative_to(_home().resolve()).as_posix()}"
    return str(path)


# ----------------------------------------------------------------------------------------------
# failing fast when offline


_GUARD: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar("prefeval_irds_guard", default=None)
_REACHABLE: dict[tuple[str, int], tuple[float, str | None]] = {}
_REACHABLE_TTL = 60.0  # seconds a host's state is remembered (a network may come back)
_INSTALLED = False
_INSTALL_LOCK = threading.Lock()


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


def _offline_reason(urls: list[str]) -> str | None:
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
        marker = f" (with the version marker {_under_home(needed.marker[0])} containing exactly {needed.marker[1]!r})"
    return (f"ir_datasets cannot get the {needed.entity} of {dataset_id}: it needs {needed.name}{source}{md5}, "
            f"which is not at {_under_home(needed.path)} (= {needed.path}), and {reason}. "
            f"Place a copy there{marker} with: prefeval datasets seed {dataset_id} {needed.name}")


def _download_info(download: Any, entity: str, marker: tuple[Path, str] | None = None) -> NeededFile:
    """The file an ir_datasets ``Download`` reads (cache path, md5, mirrors)."""
    # deferred: ir_datasets is slow to import and only needed for dataset ids
    from ir_datasets.util import LocalDownload

    state = vars(download)
    return NeededFile(
        entity=entity,
        path=Path(state["_cache_path"]) if state["_cache_path"] else None,
        md5=state["expected_md5"],
        urls=[m.url for m in state["mirrors"] if hasattr(m, "url")],
        local_mirrors=[Path(vars(m)["_path"]) for m in state["mirrors"] if isinstance(m, LocalDownload)],
        marker=marker,
    )


def _check_download(download: Any) -> None:
    """Raise DatasetUnavailable (inside a guarded call) when ``download`` would need an unreachable host."""
    context = _GUARD.get()
    if context is None:
        return
    info = _download_info(download, context[1])
    if info.path is not None and info.path.exists():
        return
    if any(p.exists() for p in info.local_mirrors):
        return
    reason = _offline_reason(info.urls)
    if reason is not None:
        raise DatasetUnavailable(unavailable_message(context[0], info, reason))


def _install_download_guard() -> None:
    """Wrap ``ir_datasets.util.download.Download.path/stream`` so that, while prefeval is loading a
    dataset, a missing file whose hosts are unreachable raises at once instead of entering
    ir_datasets' retry loop (IR_DATASETS_DL_TRIES tries, 15 s time-out each, several mirrors).
    Outside prefeval's calls the wrappers do nothing."""
    global _INSTALLED
    with _INSTALL_LOCK:
        if _INSTALLED:
            return
        problem = private_api_problem()
        if problem is not None:  # load without the fail-fast guard rather than not at all
            warnings.warn(f"{problem}; downloads are not checked before ir_datasets tries them", stacklevel=3)
            _INSTALLED = True
            return
        # deferred: ir_datasets is slow to import and only needed for dataset ids
        from ir_datasets.util.download import Download

        original_path, original_stream = Download.path, Download.stream

        @functools.wraps(original_path)
        def path(self: Any, force: bool = True) -> Any:
            if force and vars(self).get("_path") is None:
                _check_download(self)
            return original_path(self, force)

        @functools.wraps(original_stream)
        def stream(self: Any) -> Any:
            if vars(self).get("_stream"):
                _check_download(self)
            return original_stream(self)

        Download.path = path
        Download.stream = stream
        _INSTALLED = True


@contextlib.contextmanager
def _guard(dataset_id: str, entity: str) -> Iterator[None]:
    """Run ir_datasets calls for ``entity`` of ``dataset_id``: fail fast offline, and turn download
    errors into :class:`DatasetUnavailable`."""
    _check_markers(dataset_id, entity)
    token = _GUARD.set((dataset_id, entity))
    try:
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
        _GUARD.reset(token)


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
        if needed.marker is None or needed.path is None or not needed.path.exists() or _marker_ok(*needed.marker):
            continue
        reason = _offline_reason(needed.urls)
        if reason is None:
            continue  # online: let ir_datasets migrate (delete and download again)
        version_file, version = needed.marker
        raise DatasetUnavailable(
            f"{_under_home(needed.path)} (= {needed.path}) is present but its version marker "
            f"{_under_home(version_file)} does not contain exactly {version!r}, so ir_datasets would delete the "
            f"file and download it again, and {reason}. If the file is the current {needed.name} (md5 {needed.md5}), "
            f"install it with: prefeval datasets seed {dataset_id} {needed.name}")


# ----------------------------------------------------------------------------------------------
# seeding and information


def _digests(path: Path) -> dict[str, bool]:
    """md5 of the file (-> False) and, for a gzip file, of its content (-> True), streamed."""
    raw = hashlib.md5()  # noqa: S324 - ir_datasets records md5
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            raw.update(block)
    out = {raw.hexdigest(): False}
    with path.open("rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    if gzipped:
        content = hashlib.md5()  # noqa: S324
        try:
            with gzip.open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    content.update(block)
            out.setdefault(content.hexdigest(), True)
        except (OSError, EOFError):
            pass
    return out


def seed(dataset_id: str, file: str | os.PathLike, entity: str | None = None, force: bool = False) -> Path:
    """Copy ``file`` to the place where ir_datasets looks for it, so ``dataset_id`` works offline.

    The target is the file of ``dataset_id`` whose recorded md5 equals the file's md5 (or, for a
    gzip file, the md5 of its content, which is then stored uncompressed); failing that, the only
    file of ``entity`` (default ``"qrels"``) -- then, when ir_datasets records an md5 for it, the file is
    refused (a good cached copy is never replaced by a wrong one) unless ``force``, which seeds it with a
    warning. The copy is written to a temporary file and renamed, so the target is never half-written. When a ``Migrator`` guards the target, its version marker is written
    (exactly the version string, no newline: DL-Hard needs ``irds_version.txt`` = ``v3``/``v2``).
    Returns the path written.
    """
    key = normalise_id(dataset_id)
    source = Path(os.fspath(file))
    if not source.is_file():
        raise FileNotFoundError(f"file to seed not found: {source}")
    digests = _digests(source)
    candidates = [n for n in needed_files(key) if n.path is not None]
    matches = [n for n in candidates if n.md5 and n.md5 in digests]
    if matches:
        target, unpack = matches[0], digests[matches[0].md5]  # type: ignore[index]
    else:
        wanted = entity or "qrels"
        pool = [n for n in candidates if n.entity == wanted and not n.derived]
        pool = pool or [n for n in candidates if n.entity == wanted]
        if not pool:
            raise PrefevalError(f"{key} has no {wanted} file that can be seeded "
                                f"(it provides: {_provides(_irds_dataset(key))})")
        if len(pool) > 1:
            listing = "; ".join(f"{n.name} -> {_under_home(n.path)}" for n in pool)  # type: ignore[arg-type]
            raise PrefevalError(f"{source} matches none of the md5s ir_datasets records for {key}, and its "
                                f"{wanted} come from several files ({listing}); give a file with the right md5")
        target, unpack = pool[0], False
        assert target.path is not None
        if target.md5 and not force:
            actual = next(iter(digests))
            raise PrefevalError(f"{source}: md5 {actual} differs from {target.md5}, which ir_datasets records for "
                                f"{target.name} ({_under_home(target.path)}); not seeded. Give the right file, or "
                                "--force to seed it anyway")
        if target.md5:
            actual = next(iter(digests))
            warnings.warn(f"{source}: md5 {actual} differs from {target.md5}, which ir_datasets records for "
                          f"{target.name}; seeding it as {_under_home(target.path)} anyway", stacklevel=2)
        else:
            warnings.warn(f"ir_datasets records no md5 for {_under_home(target.path)}; {source} was not checked",
                          stacklevel=2)
    assert target.path is not None
    target.path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(prefix=f".{target.path.name}.", suffix=".prefeval-tmp",
                                        dir=target.path.parent)
    try:
        with (gzip.open(source, "rb") if unpack else source.open("rb")) as src, os.fdopen(handle, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(tmp_name, target.path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    if target.marker is not None:
        version_file, version = target.marker
        version_file.parent.mkdir(parents=True, exist_ok=True)
        version_file.write_text(version)  # exactly the version, no newline
    with _CACHE_LOCK:
        _CACHE.pop(key, None)
    return target.path


def info(dataset_id: str) -> dict[str, Any]:
    """What ``dataset_id`` provides and which of its files are cached (nothing is downloaded).

    Returns ``{"dataset_id", "provides": {entity: count or None}, "grades": {grade: text},
    "has_subtopics", "home", "files": [{"entity", "name", "path", "under_home", "md5", "url",
    "cached", "derived", "marker"}]}``. Counts come from ir_datasets' metadata.
    """
    key = normalise_id(dataset_id)
    ds = _irds_dataset(key)
    provides: dict[str, int | None] = {}
    for entity in ENTITIES:
        if ds.has(entity):
            count = None
            with contextlib.suppress(Exception):
                count = ds.metadata().get(entity, {}).get("count")
            provides[entity] = count
    grades: dict[int, str] = {}
    has_subtopics = False
    if ds.has("qrels"):
        with contextlib.suppress(Exception):
            grades, has_subtopics = _qrels_scale(ds)
    files = [{
        "entity": n.entity, "name": n.name, "path": str(n.path) if n.path else None,
        "under_home": _under_home(n.path) if n.path else None, "md5": n.md5,
        "url": n.urls[0] if n.urls else None, "cached": n.cached(), "derived": n.derived,
        "marker": f"{_under_home(n.marker[0])} = {n.marker[1]!r}" if n.marker else None,
    } for n in needed_files(key)]
    return {"dataset_id": key, "provides": provides, "grades": grades, "has_subtopics": has_subtopics,
            "home": str(_home()), "files": files}


def _qrels_scale(ds: Any) -> tuple[dict[int, str], bool]:
    """The grade descriptions of ``ds``'s qrels (``qrels_defs()``) and whether they carry subtopics."""
    handler = _unwrapped_handler(ds, "qrels")
    grades = {int(k): str(v) for k, v in sorted((handler.qrels_defs() or {}).items())}
    return grades, "subtopic_id" in getattr(handler.qrels_cls(), "_fields", ())


def _unwrapped_handler(ds: Any, entity: str) -> Any:
    """The object serving ``entity`` with Migrators peeled off (so inspecting it migrates nothing)."""
    _require_private_api()
    # deferred: ir_datasets is slow to import and only needed for dataset ids
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.util import Migrator

    obj = ds
    for _ in range(40):
        if isinstance(obj, Migrator):
            obj = vars(obj)["_wrapped"]
        elif isinstance(obj, Dataset):
            obj = next(c for c in vars(obj)["_constituents"] if hasattr(c, f"{entity}_iter"))
        else:
            return obj
    return obj


register_dataset_qrels(lambda dataset_id: load(dataset_id).qrels)
