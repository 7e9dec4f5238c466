"""Partitioning an evaluation by query: what one task of a distributed engine reads (pandas and numpy only).

A *partition* holds, for a set of queries, every run's rows for those queries and their qrels, so that the
in-process per-query kernels run on it unchanged. Queries are assigned to partitions by a stable hash of the
query id (:func:`query_bucket`, the same in every process and on every machine), so the rows of one query meet
in one partition whatever file or frame they come from.

Run sources a task can read (:func:`read_run_source`):

* a TREC run file (named as in :func:`prefeval.data.inputs.run_name`);
* a Parquet file with columns ``query_id, doc_id, score`` (one run, named by the file name without
  ``.parquet``) or ``run, query_id, doc_id, score`` (several runs, named by the ``run`` column);
* a folder of such Parquet files (``*.parquet``, in name order).

Runs arrive as one *long* frame ``run, query_id, doc_id, score``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import lazy_module
from prefeval.data.collection import Collection, coverage_note
from prefeval.data.inputs import (
    RUN_COLUMNS,
    canonical_qrels,
    qrels_frame,
    resolve_conflicts,
    run_frame,
    run_name,
)
from prefeval.errors import PrefevalError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

LONG_COLUMNS = ["run", *RUN_COLUMNS]


def query_bucket(query_ids: Any, n_partitions: int) -> np.ndarray:
    """The partition (``0..n_partitions-1``) of each query id: a stable 64-bit hash of the id as ``str``
    (pandas' ``hash_array``, fixed key) modulo ``n_partitions``."""
    values = np.asarray(query_ids, dtype=object).astype(str).astype(object)
    return (pd.util.hash_array(values) % np.uint64(n_partitions)).astype(np.int64)


def split_by_query(frame: pd.DataFrame, n_partitions: int) -> list[pd.DataFrame]:
    """``frame`` (with a ``query_id`` column) cut into ``n_partitions`` frames by :func:`query_bucket`, rows in
    their original order within each."""
    buckets = query_bucket(frame["query_id"].to_numpy(), n_partitions)
    order = np.argsort(buckets, kind="stable")
    bounds = np.searchsorted(buckets[order], np.arange(n_partitions + 1))
    return [frame.iloc[order[a:b]].reset_index(drop=True) for a, b in zip(bounds[:-1], bounds[1:])]


def long_frame(name: str, run: pd.DataFrame) -> pd.DataFrame:
    """A canonical run as rows of the long frame (``run`` column first)."""
    return pd.DataFrame({"run": np.full(len(run), name, dtype=object), **{c: run[c].to_numpy() for c in RUN_COLUMNS}})


def parquet_files(path: str | os.PathLike) -> list[Path]:
    """The Parquet files of a folder (``*.parquet``, name order) or the file itself."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.parquet"))
        if not files:
            raise PrefevalError(f"{path}: no *.parquet files in this folder")
        return files
    return [path]


def run_names_of(source: str | os.PathLike) -> list[str]:
    """The names of the runs in a run file (one for a TREC file or a Parquet file without ``run`` column; the
    ``run`` values in order of first appearance otherwise), read from the file's ``run`` column only."""
    path = Path(source)
    if path.suffix != ".parquet":
        return [run_name(path)]
    try:
        # deferred: pyarrow is needed only for Parquet inputs
        import pyarrow.parquet as pq

        if "run" not in pq.read_schema(path).names:
            return [path.stem]
        column = pq.read_table(path, columns=["run"]).column("run").to_pandas()
    except (OSError, ValueError) as exc:
        raise PrefevalError(f"{path}: cannot read as Parquet: {exc}") from None
    return [str(x) for x in pd.unique(column.to_numpy(dtype=object))]


def read_run_source(source: str | os.PathLike, name: str | None = None) -> pd.DataFrame:
    """The long frame (``run, query_id, doc_id, score``) of a TREC run file or a Parquet file (module docstring);
    ``name`` names the run of a single-run file instead of its file name."""
    path = Path(source)
    if path.suffix != ".parquet":
        return long_frame(name or run_name(path), run_frame(str(path)))
    try:
        table = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise PrefevalError(f"{path}: cannot read as Parquet: {exc}") from None
    missing = [c for c in RUN_COLUMNS if c not in table.columns]
    if missing:
        raise PrefevalError(f"{path}: Parquet runs need columns query_id, doc_id, score (and run for several runs); "
                            f"missing {', '.join(missing)}")
    if "run" not in table.columns:
        return long_frame(name or path.stem, run_frame(table[RUN_COLUMNS], name or path.stem))
    if name is not None:
        raise PrefevalError(f"{path}: a Parquet file of several runs (a 'run' column) names its runs; pass it in a "
                            "list or a folder, not under a name")
    return pd.concat([long_frame(str(k), run_frame(group[RUN_COLUMNS].reset_index(drop=True), f"{path}: {k}"))
                      for k, group in table.groupby("run", sort=False)], ignore_index=True)


def long_runs(runs: Mapping[str, Any]) -> pd.DataFrame:
    """In-memory runs (name -> DataFrame, dict of dicts or path) as one long frame."""
    frames = [long_frame(str(name), run_frame(run, str(name))) for name, run in runs.items()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=LONG_COLUMNS)


def block(qrels_parts: Sequence[pd.DataFrame], run_parts: Sequence[pd.DataFrame],
          names: Sequence[str]) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Qrels and ``{name: run}`` (every name, in order; a run without rows here gets an empty frame) of one
    partition from its pieces."""
    qrels = pd.concat(list(qrels_parts), ignore_index=True) if qrels_parts else qrels_frame({})
    # conflicting lines of one query meet here (pieces in input order, so the last line still wins)
    qrels = resolve_conflicts(canonical_qrels(qrels, "qrels partition")) if len(qrels) else qrels_frame({})
    long = pd.concat([p for p in run_parts if len(p)], ignore_index=True) if any(len(p) for p in run_parts) else None
    runs = {}
    groups = {} if long is None else {str(k): g for k, g in long.groupby("run", sort=False)}
    for name in names:
        group = groups.get(name)
        runs[name] = (pd.DataFrame({c: pd.Series(dtype=object if c != "score" else float) for c in RUN_COLUMNS})
                      if group is None else group[RUN_COLUMNS].reset_index(drop=True))
    return qrels, runs


def coverage(collection: Collection, runs: Mapping[str, pd.DataFrame]) -> tuple[int, dict[str, tuple[int, int]]]:
    """Counts for the input warnings of one partition: the number of judged queries, and per run the number of
    judged queries it has and the number of query ids it has (summed over partitions, they give the counts
    of the whole input, since every query lives in one partition)."""
    judged = set(collection.judged.tolist())
    counts = {}
    for name, run in runs.items():
        present = set(map(str, pd.unique(run["query_id"])))
        counts[name] = (len(judged & present), len(present))
    return len(judged), counts


def coverage_warnings(n_judged: int, counts: Mapping[str, tuple[int, int]]) -> list[str]:
    """The input warnings of the whole input from the summed :func:`coverage` counts: a run that shares no query
    with the qrels, or covers only some judged queries (:func:`prefeval.data.collection.coverage_note`)."""
    notes = (coverage_note(name, covered, n_judged, present) for name, (covered, present) in counts.items())
    return [note for note in notes if note]
