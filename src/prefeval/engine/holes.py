"""Three readings of the holes in the judgments, for verdicts that survive them (``prefeval.table(robust=True)``).

Every measure reads a document the qrels do not judge as non-relevant: reading (a). :func:`readings` gives the inputs
of two others, each on the same runs and queries:

* (b) **condensed lists** (Sakai (2007)): each run without the documents the qrels do not judge for the query (the
  run ranked once, as :func:`prefeval.data.ranking.rank_run` does, and stripped: ``condensed``);
* (c) **filled**: every unjudged document some run retrieves within its top ``depth`` judged relevant at grade ``rel``
  (the qrels with those judgments added: ``filled``), the most a run's unjudged documents could be worth at that
  grade.

They are three points among the many fillings of the holes, not bounds over all of them: a difference significant
under all three may still change under another filling (some unjudged documents relevant, others not), and one
that is not robust is only shown to depend on how the holes are read.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import pandas as pd

from prefeval.data.collection import Collection
from prefeval.data.inputs import qrels_frame, run_frame, runs_dict
from prefeval.data.positions import condensed_run

__all__ = ["readings"]


def readings(qrels: Any, runs: Any, rel: int, depth: int) -> tuple[pd.DataFrame, dict[str, Any], dict[str, Any],
                                                                    pd.DataFrame]:
    """``(qrels, runs, condensed runs, filled qrels)``: the canonical qrels frame and the runs read once (reading (a)),
    each run's condensed list as a canonical run (reading (b)), and the qrels with every unjudged document of the runs'
    top ``depth`` added at grade ``rel`` (reading (c); see the module docstring)."""
    qrels_df = qrels_frame(qrels)
    collection = Collection(qrels_df)
    judged = collection.judged_documents
    frames, condensed, holes = {}, {}, []
    for name, source in runs_dict(runs, columns=True).items():
        frame = run_frame(source, name, columns=True) if isinstance(source, (str, os.PathLike)) else source
        frames[name] = frame
        with warnings.catch_warnings():  # repeated documents: warned by the table's own ranking
            warnings.simplefilter("ignore")
            ranked = collection.rank(frame, name)
        condensed[name] = condensed_run(ranked, judged).frame()
        top = ranked.rank <= depth
        top[judged.matched_rows(ranked)] = False
        holes.append(pd.DataFrame({"query_id": ranked.queries.to_numpy(dtype=object)[ranked.query_codes[top]],
                                   "doc_id": ranked.doc_ids[top]}))
    added = pd.concat(holes, ignore_index=True).drop_duplicates() if holes else pd.DataFrame(columns=["query_id",
                                                                                                       "doc_id"])
    added = added.assign(relevance=rel)
    if "iteration" in qrels_df.columns:
        added = added.assign(iteration="0")
    filled = pd.concat([qrels_df, added[list(qrels_df.columns)]], ignore_index=True)
    return qrels_df, frames, condensed, filled
