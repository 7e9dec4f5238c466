"""From canonical run and qrels frames to per-query position arrays for many runs at once.

Ordering follows trec_eval (DESIGN.md): score descending, ties broken by ``doc_id`` descending in
string order; the rank column of a TREC file is ignored. A document repeated within one query of a
run keeps its first (best) position, with one warning per run. A query is *evaluated* when the qrels
give it at least one document with grade ``>= rel``; a run lacking an evaluated query retrieved
nothing for it (the worst case).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

NO_SUBTOPIC = frozenset({"0", "Q0", ""})


@dataclass(frozen=True)
class QueryPositions:
    """Where each run put each relevant document of one query.

    ``doc_pos[s, j]`` is the 1-based rank of relevant document ``doc_ids[j]`` in run ``s``
    (``+inf`` when not retrieved); ``grades[j]`` its grade (max over subtopics);
    ``subtopics[t, j]`` whether it has grade ``>= rel`` for subtopic ``subtopic_ids[t]``
    (``None`` for qrels without subtopics).
    """

    query_id: str
    doc_ids: np.ndarray
    grades: np.ndarray
    doc_pos: np.ndarray
    subtopic_ids: tuple[str, ...] | None = None
    subtopics: np.ndarray | None = None


def _ordered_codes(values: np.ndarray) -> np.ndarray:
    """Integer codes whose order is the string order of ``values`` (hash factorize, then sort uniques)."""
    codes, uniques = pd.factorize(values, sort=False)
    rank_of_unique = np.empty(len(uniques), dtype=np.int64)
    rank_of_unique[np.argsort(np.asarray(uniques, dtype=object).astype(str), kind="stable")] = np.arange(len(uniques))
    return rank_of_unique[codes]


def rank_runs(runs: Mapping[str, pd.DataFrame], depth: int | None = None) -> pd.DataFrame:
    """Rank every query of every run: columns ``run`` (index into ``runs``), ``query_id``, ``doc_id``, ``rank``.

    Vectorised over all runs (one lexsort); ``depth`` keeps ranks ``<= depth``.
    """
    names = list(runs)
    frames = [runs[name] for name in names]
    sizes = np.array([len(f) for f in frames], dtype=np.int64)
    if sizes.sum() == 0:
        return pd.DataFrame({"run": pd.Series(dtype="int64"), "query_id": pd.Series(dtype=object),
                             "doc_id": pd.Series(dtype=object), "rank": pd.Series(dtype="int64")})
    run_idx = np.repeat(np.arange(len(frames)), sizes)
    qids = np.concatenate([f["query_id"].to_numpy(dtype=object) for f in frames])
    docs = np.concatenate([f["doc_id"].to_numpy(dtype=object) for f in frames])
    scores = np.concatenate([f["score"].to_numpy(dtype=np.float64) for f in frames])
    q_codes, _ = pd.factorize(qids)
    doc_codes = _ordered_codes(docs)
    group = run_idx * (int(q_codes.max()) + 1) + q_codes
    order = np.lexsort((-doc_codes, -scores, group))
    group, doc_codes = group[order], doc_codes[order]
    # a (run, query, document) seen before in sort order: keep only the first (best) occurrence
    repeated = pd.Series(group * (int(doc_codes.max()) + 1) + doc_codes).duplicated(keep="first").to_numpy()
    if repeated.any():
        counts = np.bincount(run_idx[order][repeated], minlength=len(names))
        for r in np.flatnonzero(counts):
            warnings.warn(f"run {names[r]!r}: {counts[r]} repeated document(s) within a query; "
                          "each keeps its first (best) position", stacklevel=3)
        order, group = order[~repeated], group[~repeated]
    starts = np.r_[True, group[1:] != group[:-1]]
    start_index = np.maximum.accumulate(np.where(starts, np.arange(len(group)), 0))
    rank = np.arange(len(group)) - start_index + 1
    ranked = pd.DataFrame({"run": run_idx[order], "query_id": qids[order], "doc_id": docs[order], "rank": rank})
    if depth is not None:
        ranked = ranked[ranked["rank"] <= depth].reset_index(drop=True)
    return ranked


def relevant_documents(qrels: pd.DataFrame, rel: int = 1) -> pd.DataFrame:
    """Documents with grade ``>= rel`` per query (grade = max over subtopics), sorted by query and doc."""
    general = qrels.groupby(["query_id", "doc_id"], sort=True, as_index=False)["relevance"].max()
    return general[general["relevance"] >= rel].reset_index(drop=True)


def query_positions(runs: Mapping[str, pd.DataFrame], qrels: pd.DataFrame, rel: int = 1,
                    depth: int | None = None, ranked: pd.DataFrame | None = None) -> list[QueryPositions]:
    """Position arrays for every evaluated query (sorted by ``query_id``), one row per run in ``runs`` order.

    ``ranked`` may pass the result of :func:`rank_runs` to avoid ranking twice.
    """
    if ranked is None:
        ranked = rank_runs(runs, depth)
    relevant = relevant_documents(qrels, rel)
    relevant["col"] = relevant.groupby("query_id", sort=False).cumcount()
    hits = ranked.merge(relevant[["query_id", "doc_id", "col"]], on=["query_id", "doc_id"], how="inner")
    n_runs = len(runs)
    subtopic_rows = qrels[~qrels["iteration"].isin(NO_SUBTOPIC) & (qrels["relevance"] >= rel)]
    subtopic_groups = dict(tuple(subtopic_rows.groupby("query_id", sort=False)))
    hit_groups = dict(tuple(hits.groupby("query_id", sort=False)))
    result = []
    for query_id, docs in relevant.groupby("query_id", sort=True):
        doc_ids = docs["doc_id"].to_numpy(dtype=object)
        doc_pos = np.full((n_runs, len(doc_ids)), np.inf)
        found = hit_groups.get(query_id)
        if found is not None:
            doc_pos[found["run"].to_numpy(), found["col"].to_numpy()] = found["rank"].to_numpy(dtype=np.float64)
        subtopic_ids, membership = _subtopic_membership(subtopic_groups.get(query_id), doc_ids)
        result.append(QueryPositions(str(query_id), doc_ids, docs["relevance"].to_numpy(dtype=np.int64), doc_pos,
                                     subtopic_ids, membership))
    return result


def _subtopic_membership(rows: pd.DataFrame | None, doc_ids: np.ndarray):
    if rows is None or rows.empty:
        return None, None
    subtopic_ids = tuple(sorted(rows["iteration"].unique(), key=lambda s: (len(s), s)))
    column = {d: j for j, d in enumerate(doc_ids)}
    membership = np.zeros((len(subtopic_ids), len(doc_ids)), dtype=bool)
    row_of = {t: i for i, t in enumerate(subtopic_ids)}
    membership[rows["iteration"].map(row_of).to_numpy(), rows["doc_id"].map(column).to_numpy()] = True
    return subtopic_ids, membership
