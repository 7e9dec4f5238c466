"""Three readings of the holes in the judgments, for verdicts that survive them (``prefeval.table(robust=True)``).

Every measure reads a document the qrels do not judge as non-relevant: reading (a). :func:`readings` gives the inputs
of two others, each on the same runs and queries:

* (b) **condensed lists** (Sakai (2007)): each run without the documents the qrels do not judge for the query
  (``condensed``);
* (c) **filled**: every unjudged document some run retrieves within its top ``depth`` judged relevant at grade ``rel``
  (the qrels with those judgments added: ``filled``), the most a run's unjudged documents could be worth at that
  grade.

Each run is read and ranked once (:func:`prefeval.data.ranking.rank_run`: score descending, ties by doc id
descending, a repeated document at its first position); the three readings are taken from that one ranking as integer
codes: its rows as they are (a, c), its judged rows renumbered 1, 2, ... (b,
:func:`prefeval.data.positions.condensed_run`), and its unjudged rows within ``depth`` (c). The runs come as
:class:`prefeval.data.ranking.EncodedRun` (``score = -rank``), which :func:`prefeval.compare` ranks again in one
linear pass, without a sort or a lookup of the ids as strings.

They are three points among the many fillings of the holes, not bounds over all of them: a difference significant
under all three may still change under another filling (some unjudged documents relevant, others not), and one
that is not robust is only shown to depend on how the holes are read.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np
import pandas as pd

from prefeval.data.arrow import call, from_numpy
from prefeval.data.collection import Collection
from prefeval.data.encoding import concat_ids, id_array, ids_to_pandas
from prefeval.data.inputs import run_frame, runs_dict
from prefeval.data.positions import condensed_run
from prefeval.data.ranking import EncodedRun, RankedRun, encoded_runs
from prefeval.data.trec import MIN_GRADE

__all__ = ["readings", "coded"]


def coded(run: RankedRun) -> EncodedRun:
    """A ranked run as the codes :func:`prefeval.data.ranking.rank_run` takes (``score = -rank``): ranked again, it
    gives the same ranking (rows grouped by query, scores strictly decreasing: no sort, no tie, no repeat)."""
    return EncodedRun(run.queries, run.query_codes, run.doc_names, run.doc_raw, -run.rank.astype(np.float64))


def readings(qrels: Any, runs: Any, rel: int, depth: int, *, codes: bool = True) -> tuple[
        Collection, dict[str, Any], dict[str, Any], pd.DataFrame]:
    """``(collection, runs, condensed runs, filled qrels)``: the qrels coded once (any form
    :meth:`~prefeval.data.collection.Collection.of` reads) and the runs (reading (a)), each
    run's condensed list (reading (b)), and the qrels with every unjudged document of the runs' top ``depth`` added at
    grade ``rel`` (reading (c); see the module docstring). Each run is ranked once; the runs and condensed lists are
    :class:`~prefeval.data.ranking.EncodedRun` (``codes``, for :func:`prefeval.compare` in process) or canonical run
    frames (``codes=False``, for other engines)."""
    collection = Collection.of(qrels)
    qrels_df = collection.frame
    queries, judged = collection.queries, collection.judged_documents
    sources = runs_dict(runs, columns=True)
    read = {name: run_frame(source, name, columns=True) if isinstance(source, (str, os.PathLike)) else source
            for name, source in sources.items()}
    ranked: dict[str, Any] = {}
    condensed: dict[str, Any] = {}
    hole_queries, hole_docs = [], []
    for name, frame in encoded_runs(read, queries):
        # every judged document located by its integer code; warns once of repeated documents
        run = collection.rank(frame, name, rel=MIN_GRADE, query_candidates=True)
        read[name] = None  # the ranking keeps integer codes; the columns of a file go
        short = condensed_run(run, judged)
        ranked[name], condensed[name] = (coded(run), coded(short)) if codes else (run.frame(), short.frame())
        unjudged = run.rank <= depth
        unjudged[judged.matched_rows(run)] = False
        rows = np.flatnonzero(unjudged)
        hole_queries.append(from_numpy(run.query_codes[rows].astype(np.int64)))
        hole_docs.append(call("take", id_array(run.doc_names), from_numpy(run.doc_raw[rows])))
    return collection, ranked, condensed, _filled(qrels_df, queries, hole_queries, hole_docs, rel)


def _filled(qrels_df: pd.DataFrame, queries: Any, hole_queries: list, hole_docs: list, rel: int) -> pd.DataFrame:
    """The qrels followed by each distinct (query, document) of the holes (query codes in ``queries``, doc ids) at
    grade ``rel``: the queries keep their order of appearance."""
    import pyarrow as pa  # deferred: a dependency, loaded with the runs

    if hole_queries:
        holes = pa.table({"q": pa.concat_arrays(hole_queries), "d": concat_ids(hole_docs)})
        holes = holes.group_by(["q", "d"], use_threads=False).aggregate([])  # distinct pairs
        codes = holes["q"].to_numpy()
        names = queries.to_numpy(dtype=object)
        added = pd.DataFrame({"query_id": pd.Series(names[codes], dtype=qrels_df["query_id"].dtype),
                              "doc_id": ids_to_pandas(holes["d"].combine_chunks()).astype(qrels_df["doc_id"].dtype),
                              "relevance": rel})
    else:
        added = pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []})
    if "iteration" in qrels_df.columns:
        added = added.assign(iteration="0")
    with warnings.catch_warnings():  # an empty frame's columns have no dtype yet
        warnings.simplefilter("ignore", FutureWarning)
        return pd.concat([qrels_df, added[list(qrels_df.columns)]], ignore_index=True)
