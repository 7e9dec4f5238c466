"""ir_datasets layer: qrels, topics and facts of public benchmarks, offline seeding.

The facade of three modules: :mod:`~prefeval.data.datasets.files` (ir_datasets access and the files a dataset
needs), :mod:`~prefeval.data.datasets.guard` (failing fast offline, checked before ir_datasets is called) and
:mod:`~prefeval.data.datasets.seeding` (placing a local copy).

``load("msmarco-passage/trec-dl-2019/judged")`` (also written ``"irds:msmarco-passage/..."``)
returns a :class:`BenchmarkDataset` whose ``qrels`` are prefeval's canonical frame
(``query_id, doc_id, relevance, iteration``). For diversity qrels ir_datasets yields
``TrecSubQrel(query_id, doc_id, relevance, subtopic_id)`` while ir-measures (pyndeval) reads the
subtopic from ``iteration``; the subtopic id is therefore copied into ``iteration`` here -- passing
the ir_datasets records straight to ir-measures silently collapses all subtopics into one.

Offline use. ir_datasets keeps every file under ``$IR_DATASETS_HOME/<top-level id>/<cache path>``
(the home is read when ``ir_datasets`` is imported) and uses a file found there without a network
access or md5 check. When a file is missing, prefeval checks the download hosts before it calls
ir_datasets, whose retry loop would take minutes (a TCP connection with a 3 s timeout, remembered per
host for a minute; set ``PREFEVAL_OFFLINE=1`` to skip downloads altogether). If no host is reachable it raises
:class:`~prefeval.errors.DatasetUnavailable` at once, naming the dataset, the file it needs, the
exact path under ``IR_DATASETS_HOME`` and the command ``prefeval datasets seed ID FILE`` that puts
a local copy there (:func:`seed` also writes the version marker some datasets need -- DL-Hard's
``irds_version.txt`` -- and checks the md5 ir_datasets records).
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from prefeval.core.lazy import lazy_attributes
from prefeval.data.datasets.files import (
    ENTITIES,
    PRIVATE_API,
    TESTED_IR_DATASETS,
    NeededFile,
    home,
    irds_dataset,
    needed_files,
    normalise_id,
    private_api_problem,
    provides,
    qrels_scale,
    under_home,
)
from prefeval.data.datasets.guard import guarded, unavailable_message
from prefeval.data.datasets.seeding import seed_file
from prefeval.data.inputs import canonical_qrels
from prefeval.errors import DatasetUnavailable, PrefevalError

__all__ = ["ENTITIES", "PRIVATE_API", "TESTED_IR_DATASETS", "BenchmarkDataset", "DatasetFacts", "DatasetUnavailable",
           "NeededFile", "info", "load", "needed_files", "normalise_id", "private_api_problem", "seed",
           "unavailable_message"]


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
        return irds_dataset(self.dataset_id)

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
            grades, has_subtopics = qrels_scale(self.irds)
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


_CACHE: dict[str, BenchmarkDataset] = {}
_CACHE_LOCK = threading.Lock()


def load(dataset_id: str) -> BenchmarkDataset:
    """The benchmark ``dataset_id`` (an ir_datasets id, optionally prefixed ``irds:``), cached per process.

    Raises :class:`~prefeval.errors.PrefevalError` when the id is unknown (suggesting close ids)
    and :class:`~prefeval.errors.DatasetUnavailable` when a file cannot be obtained (offline);
    the latter only when ``qrels`` or ``topics`` are first accessed.
    """
    key = normalise_id(dataset_id)
    irds_dataset(key)  # validates the id
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = BenchmarkDataset(key)
        return _CACHE[key]



def _records(dataset_id: str, entity: str) -> pd.DataFrame:
    """The ``qrels`` or ``queries`` records of a dataset as a frame, one column per record field."""
    ds = irds_dataset(dataset_id)
    if not ds.has(entity):
        raise PrefevalError(f"ir_datasets dataset {dataset_id} has no {entity} (it provides: {provides(ds)})")
    with guarded(dataset_id, entity):
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


# ----------------------------------------------------------------------------------------------
# seeding and information


def seed(dataset_id: str, file: str | os.PathLike, entity: str | None = None, force: bool = False) -> Path:
    """Copy ``file`` to the place where ir_datasets looks for it, so ``dataset_id`` works offline.

    The target is the file of ``dataset_id`` whose recorded md5 equals the file's md5 (or, for a
    gzip file, the md5 of its content, which is then stored uncompressed); failing that, the only
    file of ``entity`` (default ``"qrels"``) -- then, when ir_datasets records an md5 for it, the file is
    refused (a good cached copy is never replaced by a wrong one) unless ``force``, which seeds it with a
    warning. The copy is written to a temporary file and renamed, so the target is never half-written. When a
    ``Migrator`` guards the target, its version marker is written (exactly the version string, no newline:
    DL-Hard needs ``irds_version.txt`` = ``v3``/``v2``). Returns the path written.
    """
    key = normalise_id(dataset_id)
    path = seed_file(key, Path(os.fspath(file)), entity, force)
    with _CACHE_LOCK:
        _CACHE.pop(key, None)
    return path


def info(dataset_id: str) -> dict[str, Any]:
    """What ``dataset_id`` provides and which of its files are cached (nothing is downloaded).

    Returns ``{"dataset_id", "provides": {entity: count or None}, "grades": {grade: text},
    "has_subtopics", "home", "files": [{"entity", "name", "path", "under_home", "md5", "url",
    "cached", "derived", "marker"}]}``. Counts come from ir_datasets' metadata.
    """
    key = normalise_id(dataset_id)
    ds = irds_dataset(key)
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
            grades, has_subtopics = qrels_scale(ds)
    files = [{
        "entity": n.entity, "name": n.name, "path": str(n.path) if n.path else None,
        "under_home": under_home(n.path) if n.path else None, "md5": n.md5,
        "url": n.urls[0] if n.urls else None, "cached": n.cached(), "derived": n.derived,
        "marker": f"{under_home(n.marker[0])} = {n.marker[1]!r}" if n.marker else None,
    } for n in needed_files(key)]
    return {"dataset_id": key, "provides": provides, "grades": grades, "has_subtopics": has_subtopics,
            "home": str(home()), "files": files}


# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__, __dir__ = lazy_attributes(__name__, __path__)
