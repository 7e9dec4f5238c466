"""Pool reusability by leave-one-run-out (Zobel (1998); Buckley et al. (2007)): how much a run loses when the
judgments only it contributed are gone.

For each run X and each measure: the value with all judgments, and the value when the judgments are kept only for
the documents some *other* run retrieved in its top ``depth`` (the pool of the other runs at that depth; a document
only X found is then unjudged, which every measure reads as non-relevant). Every run is truncated to its top
``depth`` documents first (``prefeval analyse --depth``). Preferences without a baseline are each run's mean
preference over the other runs (:func:`prefeval.evaluate`'s value), computed with every run on the reduced qrels.
Each measure is also computed on condensed lists (``judged_only=True``, Sakai (2007)), where the unjudged documents
are removed instead of read as non-relevant. A judged query that keeps no judgment leaves the mean of the reduced
qrels.

:func:`leave_one_run_out` gives one row per run and measure: ``run, measure, condensed, value, value_left_out,
delta`` (left out minus all) and the run's ``rank`` among the runs in both cases (``rank_left_out``: every run
evaluated on X's reduced qrels; 1 = best, ties share the best rank).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import pandas as pd

from prefeval.data.collection import Collection
from prefeval.data.inputs import run_frame, runs_dict
from prefeval.data.ranking import rank_run
from prefeval.engine.evaluate import evaluate, parse_measures
from prefeval.errors import PrefevalError
from prefeval.methods.registry import declaration_of

__all__ = ["leave_one_run_out", "condensed_variant"]

COLUMNS = ["run", "measure", "condensed", "value", "value_left_out", "delta", "rank", "rank_left_out"]


def condensed_variant(measure: Any) -> Any | None:
    """``measure`` on condensed lists (``judged_only=True``: prefeval's methods, and trec_eval's measures through
    ir-measures, trec_eval ``-J``), or ``None`` when it has no such variant."""
    declaration = declaration_of(measure)
    takes = "judged_only" in (declaration.params if declaration is not None else getattr(measure, "SUPPORTED_PARAMS", {}))
    if not takes or measure.params.get("judged_only"):
        return None
    return measure(judged_only=True)


def leave_one_run_out(qrels: Any, runs: Any, measures: Sequence[Any], depth: int, rel: int = 1) -> pd.DataFrame:
    """The rows of the module docstring for every run of ``runs`` (at least two) and every measure of ``measures``
    (names or measure objects, and their condensed variants), the pool of the other runs taken at ``depth``."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise PrefevalError(f"reusability needs the pool depth K (--depth K), a positive integer; got {depth!r}")
    collection = Collection.of(qrels)
    qrels_df = collection.frame
    sources = runs_dict(runs)
    if len(sources) < 2:
        raise PrefevalError(f"reusability leaves one run out of the pool of the others: give at least two runs; got "
                            f"{len(sources)}")
    queries = collection.queries
    tops: dict[str, pd.DataFrame] = {}
    for name, source in sources.items():  # each run ranked once, cut at the pool depth
        rows = rank_run(run_frame(source, name), queries, name=name, depth=depth).rows(depth)
        tops[name] = pd.DataFrame({"query_id": rows["query_id"].astype(str), "doc_id": rows["doc_id"].astype(str),
                                   "score": -rows["rank"].astype(float)})
    parsed = parse_measures(list(measures), rel)
    variants = [(m, False) for m in parsed] + [(c, True) for m in parsed if (c := condensed_variant(m)) is not None]
    every = [m for m, _ in variants]
    full = _values(evaluate(qrels_df, tops, every))
    key = qrels_df["query_id"].astype(str) + "\x00" + qrels_df["doc_id"].astype(str)
    pooled = {name: set(top["query_id"] + "\x00" + top["doc_id"]) for name, top in tops.items()}
    out = []
    for name in tops:
        others = set().union(*(pooled[o] for o in tops if o != name))
        kept = qrels_df[key.isin(others).to_numpy()].reset_index(drop=True)
        with warnings.catch_warnings():  # the coverage warnings were given for the full qrels
            warnings.simplefilter("ignore")
            left = _values(evaluate(kept, tops, every)) if len(kept) else None
        for measure, condensed in variants:
            label = str(measure)
            value = full[label]
            value_left = left[label] if left is not None else pd.Series(0.0, index=value.index)
            out.append((name, label, condensed, float(value[name]), float(value_left[name]),
                        float(value_left[name] - value[name]), _rank(value, name), _rank(value_left, name)))
    return pd.DataFrame(out, columns=COLUMNS)


def _values(frame: pd.DataFrame) -> dict[str, pd.Series]:
    """measure -> each run's value (indexed by run)."""
    return {m: group.set_index("run")["value"] for m, group in frame.groupby("measure", sort=False)}


def _rank(values: pd.Series, run: str) -> int:
    """``run``'s rank among ``values`` (1 = highest; ties share the best rank)."""
    return int(values.rank(ascending=False, method="min")[run])
