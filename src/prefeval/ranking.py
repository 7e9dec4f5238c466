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

    ``ranked`` may pass the result of :func:`rank_runs` to avoid ranking twice. The per-query loop only
    slices numpy arrays; every join happens once for all queries.
    """
    if ranked is None:
        ranked = rank_runs(runs, depth)
    relevant = relevant_documents(qrels, rel)
    query_ids, starts, sizes = _blocks(relevant["query_id"].to_numpy(dtype=object))
    relevant["q"] = np.repeat(np.arange(len(query_ids)), sizes)
    relevant["col"] = np.arange(len(relevant)) - np.repeat(starts, sizes)
    keys = relevant[["query_id", "doc_id", "q", "col"]]
    hits = ranked.merge(keys, on=["query_id", "doc_id"], how="inner").sort_values("q", kind="stable")
    hit_q, hit_run, hit_col = (hits[c].to_numpy() for c in ("q", "run", "col"))
    hit_rank = hits["rank"].to_numpy(dtype=np.float64)
    hit_bounds = np.searchsorted(hit_q, np.arange(len(query_ids) + 1))
    subtopic_ids, sub_q, sub_col, sub_code = _subtopic_rows(qrels, keys, rel)
    sub_bounds = np.searchsorted(sub_q, np.arange(len(query_ids) + 1))
    doc_ids = relevant["doc_id"].to_numpy(dtype=object)
    grades = relevant["relevance"].to_numpy(dtype=np.int64)
    result = []
    for q, query_id in enumerate(query_ids):
        lo, hi = starts[q], starts[q] + sizes[q]
        doc_pos = np.full((len(runs), sizes[q]), np.inf)
        h = slice(hit_bounds[q], hit_bounds[q + 1])
        doc_pos[hit_run[h], hit_col[h]] = hit_rank[h]
        ids, membership = None, None
        s = slice(sub_bounds[q], sub_bounds[q + 1])
        if s.stop > s.start:
            codes, rows = np.unique(sub_code[s], return_inverse=True)
            ids = tuple(subtopic_ids[c] for c in codes)
            membership = np.zeros((len(codes), sizes[q]), dtype=bool)
            membership[rows, sub_col[s]] = True
        result.append(QueryPositions(str(query_id), doc_ids[lo:hi], grades[lo:hi], doc_pos, ids, membership))
    return result


def _blocks(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct keys of a sorted array with the start and size of each block."""
    if len(sorted_keys) == 0:
        return sorted_keys, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    return sorted_keys[starts], starts, np.diff(np.r_[starts, len(sorted_keys)])


def _subtopic_rows(qrels: pd.DataFrame, keys: pd.DataFrame, rel: int):
    """(subtopic ids in natural order, query index, column, subtopic code) of every relevant subtopic judgment."""
    rows = qrels[~qrels["iteration"].isin(NO_SUBTOPIC) & (qrels["relevance"] >= rel)]
    rows = rows.merge(keys, on=["query_id", "doc_id"], how="inner").sort_values("q", kind="stable")
    subtopic_ids = sorted(rows["iteration"].unique(), key=lambda t: (len(t), t))  # "2" before "10"
    code = rows["iteration"].map({t: i for i, t in enumerate(subtopic_ids)}).to_numpy(dtype=np.int64)
    return subtopic_ids, rows["q"].to_numpy(), rows["col"].to_numpy(), code
