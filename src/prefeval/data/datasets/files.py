"""ir_datasets access: the module, the ids, and the files behind a dataset's entities.

ir_datasets 0.6 has no public API that lists the files a dataset reads, so :func:`needed_files` walks its
``Dataset``/``Migrator``/``Cache``/``Download`` objects. Public API is used wherever it exists
(``Dataset.__getstate__``, ``Download.mirrors``, ``Download.expected_md5``, ``RequestsDownload.url``,
``LocalDownload.path(force=False)``, ``Cache.path(force=False)``, ``ir_datasets.util.home_path()``); the few
private attributes left (:data:`PRIVATE_API`) are read in one shim, :class:`internal`, which says why each has no
public equivalent. The versions this was tested with are :data:`TESTED_IR_DATASETS`; on another version
:func:`private_api_problem` says what is missing and prefeval raises a clear :class:`~prefeval.errors.PrefevalError`
instead of failing quietly.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import importlib
import inspect
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from prefeval.errors import PrefevalError

ENTITIES = ("qrels", "queries", "docs", "scoreddocs", "docpairs", "qlogs")

#: ir_datasets versions (major.minor) whose private attributes prefeval reads to list the files a dataset needs
#: (:func:`needed_files`); a test pins them.
TESTED_IR_DATASETS = ("0.6",)
#: the private attributes :class:`internal` reads, by ``module:class``
PRIVATE_API = {
    "ir_datasets.util:Migrator": ("_wrapped", "_version_file", "_version"),
    "ir_datasets.util:Download": ("_cache_path",),
}


class internal:  # noqa: N801 - a namespace (never instantiated), named for what it reads
    """The one place prefeval reads private attributes of ir_datasets objects (:data:`PRIVATE_API`).

    ir_datasets has no public way to list the files behind a dataset without opening them: its entities' methods
    download on use, and a ``Migrator`` runs its migration when one of its methods is looked up. So prefeval walks the
    objects, and three things are held nowhere public:

    - a ``Migrator``'s wrapped object, version file and version (attribute look-ups on a ``Migrator`` are forwarded
      to the wrapped object, so its own state is reachable only through its private attributes);
    - a ``Download``'s cache path (the public ``Download.path(force=False)`` returns it when there is one, but
      without one it creates a temporary file and downloads into it);
    - the objects an ir_datasets object is built from (the ``Cache`` or ``GzipExtract`` between a dataset and its
      ``Download``), kept in attributes each class names privately.

    :func:`private_api_problem` checks the attributes exist on the installed version.
    """

    @staticmethod
    def migrator(obj: Any) -> tuple[Any, Path, str]:
        """``(wrapped object, version file, version)`` of a ``Migrator``."""
        state = vars(obj)
        return state["_wrapped"], Path(state["_version_file"]), state["_version"]

    @staticmethod
    def cache_path(download: Any) -> Path | None:
        """Where a ``Download`` keeps its file (``None``: a temporary file, downloaded on each use)."""
        path = vars(download)["_cache_path"]
        return Path(path) if path else None

    @staticmethod
    def parts(obj: Any) -> list[Any]:
        """The objects an ir_datasets object holds (its attributes)."""
        return list(vars(obj).values()) if hasattr(obj, "__dict__") else []


def ir_datasets_module() -> Any:
    """The ``ir_datasets`` module (imported on first use)."""
    # deferred: ir_datasets is slow to import and only needed for dataset ids
    import ir_datasets

    return ir_datasets


def _base_dataset() -> type:
    """ir_datasets' ``Dataset`` class (whose constituents serve the entities: :func:`constituents`)."""
    return ir_datasets_module().datasets.base.Dataset


def constituents(dataset: Any) -> list:
    """The objects an ir_datasets ``Dataset`` is made of, in the order it asks them for an entity. ir_datasets lists
    them nowhere public but in its pickle state (``Dataset.__getstate__``, the pickle protocol), read here;
    :func:`private_api_problem` checks that the state is still that list."""
    return list(dataset.__getstate__())


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
    try:
        marker = object()
        if _base_dataset()(marker).__getstate__() != [marker]:
            missing.append("Dataset.__getstate__ (as the list of constituents)")
    except Exception:  # any failure means the state is not what prefeval reads
        missing.append("Dataset.__getstate__ (as the list of constituents)")
    if not missing:
        return None
    version = getattr(ir_datasets_module(), "__version__", "?")
    return (f"ir_datasets {version} lacks {', '.join(missing)}, which prefeval reads to list a dataset's files "
            f"(tested with ir_datasets {', '.join(v + '.x' for v in TESTED_IR_DATASETS)}); install one of those "
            "versions")


def require_private_api() -> None:
    """Raise :class:`PrefevalError` with :func:`private_api_problem`'s message on an untested ir_datasets."""
    problem = private_api_problem()
    if problem is not None:
        raise PrefevalError(problem)


def normalise_id(dataset_id: str) -> str:
    """Strip the optional ``irds:`` prefix and surrounding blanks."""
    text = str(dataset_id).strip()
    return text[len("irds:"):] if text.startswith("irds:") else text


def _suggestions(dataset_id: str) -> list[str]:
    ids = list(ir_datasets_module().registry)
    close = difflib.get_close_matches(dataset_id, ids, n=5, cutoff=0.6)
    if not close:
        stem = dataset_id.rsplit("/", 1)[-1]
        close = [i for i in ids if stem and stem in i][:5]
    return close


def irds_dataset(dataset_id: str) -> Any:
    """``ir_datasets.load(dataset_id)``; an unknown id raises :class:`PrefevalError` suggesting close ids."""
    try:
        return ir_datasets_module().load(dataset_id)
    except KeyError:
        pass
    close = _suggestions(dataset_id)
    hint = f"; did you mean {', '.join(close)}?" if close else " (see `ir_datasets list`)"
    raise PrefevalError(f"{dataset_id!r} is neither an existing file nor an ir_datasets id{hint}")


def provides(ds: Any) -> str:
    """The entities an ir_datasets dataset provides, comma-separated."""
    return ", ".join(e for e in ENTITIES if ds.has(e)) or "nothing"


def home() -> Path:
    """ir_datasets' home directory (``IR_DATASETS_HOME``)."""
    return Path(ir_datasets_module().util.home_path())


def under_home(path: Path) -> str:
    """``$IR_DATASETS_HOME/<relative path>`` (or the absolute path when it lies elsewhere)."""
    with contextlib.suppress(ValueError):
        return f"$IR_DATASETS_HOME/{path.resolve().relative_to(home().resolve()).as_posix()}"
    return str(path)


@dataclass
class NeededFile:
    """One file ir_datasets reads for an entity of a dataset.

    ``path`` is where ir_datasets looks (``None`` for files it only downloads to a temporary
    place); ``derived`` marks a cache ir_datasets builds from other files (e.g. an extracted TSV),
    which can be seeded too but has no recorded md5; ``marker`` is ``(version file, version)`` when
    a ``Migrator`` guards the file (the file is deleted unless the marker holds exactly ``version``);
    ``caches`` are the derived caches built from this file (it is read only while none of them is cached).
    """

    entity: str
    path: Path | None
    md5: str | None = None
    urls: list[str] = field(default_factory=list)
    local_mirrors: list[Path] = field(default_factory=list)
    derived: bool = False
    marker: tuple[Path, str] | None = None
    caches: tuple[NeededFile, ...] = ()

    @property
    def name(self) -> str:
        if self.urls:
            return Path(urlparse(self.urls[0]).path).name or self.urls[0]
        return self.path.name if self.path else "?"

    def cached(self) -> bool:
        if self.path is not None and self.path.exists():
            return self.marker is None or marker_ok(*self.marker)
        return any(p.exists() for p in self.local_mirrors)

    def to_fetch(self) -> bool:
        """Whether ir_datasets would download this file to serve its entity now: a source file that is not
        cached, and no cache built from it is either."""
        return not self.derived and not self.cached() and not any(c.cached() for c in self.caches)


def marker_ok(version_file: Path, version: str) -> bool:
    """Whether ``version_file`` holds exactly ``version``."""
    try:
        return version_file.read_text() == version
    except OSError:
        return False


def needed_files(dataset_id: str, entities: tuple[str, ...] = ENTITIES) -> list[NeededFile]:
    """The files behind ``entities`` of ``dataset_id`` (inspected without reading or downloading).

    Follows ir_datasets' own dispatch: in a ``Dataset`` the first constituent that provides
    ``<entity>_iter`` serves the entity. Below a cache ir_datasets builds (``Cache``) the sources
    are listed too (with the cache in their ``caches``), but are only needed while the cache is absent.
    """
    ds = irds_dataset(normalise_id(dataset_id))
    require_private_api()
    out: list[NeededFile] = []
    for entity in entities:
        if ds.has(entity):
            _collect(ds, entity, None, (), out, set(), 0)
    return out


def _collect(obj: Any, entity: str, marker: tuple[Path, str] | None, caches: tuple[NeededFile, ...],
             out: list[NeededFile], seen: set[int], depth: int) -> None:
    util = ir_datasets_module().util
    Dataset, Cache, Download, Lazy, Migrator = _base_dataset(), util.Cache, util.Download, util.Lazy, util.Migrator
    if id(obj) in seen or depth > 40:
        return
    seen.add(id(obj))
    if isinstance(obj, Dataset):
        for cons in constituents(obj):
            if hasattr(cons, f"{entity}_iter") or hasattr(cons, f"{entity}_handler"):
                _collect(cons, entity, marker, caches, out, seen, depth + 1)
                return
        return
    if isinstance(obj, Migrator):
        wrapped, version_file, version = internal.migrator(obj)
        _collect(wrapped, entity, (version_file, version), caches, out, seen, depth + 1)
        return
    if isinstance(obj, Download):
        out.append(download_info(obj, entity, marker, caches))
        return
    if isinstance(obj, (Lazy, types.FunctionType, types.MethodType, functools.partial)):
        return
    if isinstance(obj, Cache):
        cache = NeededFile(entity=entity, path=Path(obj.path(force=False)), derived=True, marker=marker,
                           caches=caches)
        out.append(cache)
        caches = (*caches, cache)
    if isinstance(obj, (list, tuple)):
        for item in obj:
            _collect(item, entity, marker, caches, out, seen, depth + 1)
        return
    if isinstance(obj, dict) or not type(obj).__module__.startswith("ir_datasets"):
        return
    for value in internal.parts(obj):
        _collect(value, entity, marker, caches, out, seen, depth + 1)


def download_info(download: Any, entity: str, marker: tuple[Path, str] | None = None,
                  caches: tuple[NeededFile, ...] = ()) -> NeededFile:
    """The file an ir_datasets ``Download`` reads (cache path, md5, mirrors)."""
    LocalDownload = ir_datasets_module().util.LocalDownload
    return NeededFile(
        entity=entity,
        path=internal.cache_path(download),
        md5=download.expected_md5,
        urls=[m.url for m in download.mirrors if hasattr(m, "url")],
        local_mirrors=[Path(m.path(force=False)) for m in download.mirrors if isinstance(m, LocalDownload)],
        marker=marker,
        caches=caches,
    )


def qrels_scale(ds: Any) -> tuple[dict[int, str], bool]:
    """The grade descriptions of ``ds``'s qrels (``qrels_defs()``) and whether they carry subtopics."""
    handler = _unwrapped_handler(ds, "qrels")
    grades = {int(k): str(v) for k, v in sorted((handler.qrels_defs() or {}).items())}
    return grades, "subtopic_id" in getattr(handler.qrels_cls(), "_fields", ())


def _unwrapped_handler(ds: Any, entity: str) -> Any:
    """The object serving ``entity`` with Migrators peeled off (so inspecting it migrates nothing)."""
    require_private_api()
    Dataset, Migrator = _base_dataset(), ir_datasets_module().util.Migrator
    obj = ds
    for _ in range(40):
        if isinstance(obj, Migrator):
            obj = internal.migrator(obj)[0]
        elif isinstance(obj, Dataset):
            obj = next(c for c in constituents(obj) if hasattr(c, f"{entity}_iter"))
        else:
            return obj
    return obj
