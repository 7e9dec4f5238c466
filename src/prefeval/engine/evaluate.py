"""One-call evaluation of several runs with ir-measures and prefeval measures.

``evaluate(qrels, runs, measures)`` evaluates every run with every measure and returns a tidy frame::
    prefeval.evaluate("msmarco-passage/trec-dl-2019/judged", {"bm25": "bm25.run", "mine": df},
                      ["nDCG@10", "AP", "RBU@20", "TSE", "RPP(baseline='bm25')", "LexiPrecision"], rel=2)

* ``qrels``: an ir_datasets id (``irds:`` prefix optional; diversity subtopics arrive in ``iteration``),
  a TREC qrels path (plain or ``.gz``), a DataFrame, a dict of dicts or ir-measures ``Qrel`` records.
* ``runs``: a dict name -> run (DataFrame, dict of dicts, or TREC run path) or a list of run paths
  (named by file name without ``.run``/``.txt``/``.trec``/``.gz`` suffixes).
* ``measures``: names in ir-measures syntax (``"nDCG@10"``, ``"alpha_nDCG@20"``, ``"RBU(p=0.8)@20"``;
  trec_eval names such as ``"ndcg_cut_10"`` are accepted too) or measure objects, mixed freely.
  Standard measures are computed by their ir-measures providers (pytrec_eval, pyndeval, ...),
  prefeval's by the ``prefeval`` provider. Every measure reads the same canonical input and is averaged over
  the same queries, the queries of the qrels (README, "Input semantics"): each run is ranked once
  (:func:`prefeval.data.ranking.canonical_run`: ties by doc id descending, a repeated document keeps its first
  position), conflicting qrels lines are resolved once (the last line wins), and a judged query without a
  relevant document at a measure's ``rel`` scores 0 for that measure. Parameters are checked before any
  provider runs (cutoff >= 1, rel from 1 to 1000). Every measure is computed by the one evaluation of measures,
  :func:`prefeval.engine.values.measure_values` (the table, ``prefeval eval`` and the pipelines take theirs from it
  too).
* ``rel``: when given, every measure that has a ``rel`` parameter (AP, RR, P, R, ERR_IA, alpha_nDCG,
  RBU, TSE, the preferences, ...) and does not set it receives ``rel=rel``; the ``measure`` column shows
  the measure actually computed (``AP(rel=2)``). Measures without the parameter (nDCG) are unaffected.
* Counts as in ``trec_eval -c``: ``NumQ`` and ``NumRel`` depend on the qrels only and count every judged query,
  also one the run does not retrieve for (``num_q``, ``num_rel``); ``NumRel(rel=r)`` counts the documents of grade
  >= r. The counts (``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``) are summed over the queries, every other
  measure averaged (:func:`prefeval.engine.values.summed`). Under ``rel=r``, ``NumRelRet`` counts the retrieved documents of grade >= r (as ``NumRet(rel=r)``) and
  ``NumRel`` those judged so, while ``NumRet`` keeps counting every retrieved document (its ``rel`` is a filter,
  not a threshold): ``NumRelRet <= NumRel`` and ``NumRelRet <= NumRet`` hold at every ``rel``.
* Preference measures (LexiRecall, LexiPrecision, RPP) compare two runs. With ``baseline=`` they give the
  preference of each run over that baseline, which may also name one of ``runs``. Without a baseline they
  give each run's **mean preference over the other runs**: per query the mean of ``pref(run, other)`` over
  the other runs (computed by :func:`prefeval.compare`), and the system value is the mean over queries.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import lazy_module
from prefeval.data.collection import Collection
from prefeval.data.inputs import run_frame, runs_dict
from prefeval.data.ranking import RankedRun, rank_run, run_queries
from prefeval.engine import registry as engines
from prefeval.engine.blocks import check_relevant, evaluate_block, read_ahead
from prefeval.engine.methods import apply_rel, parse_method
from prefeval.engine.values import MeasureValues, aggregate, measure_values, top_k_depth
from prefeval.errors import PrefevalError
from prefeval.methods.checks import validate
from prefeval.methods.names import parse_names
from prefeval.methods.registry import declaration_of, rel_problem

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


def parse_measures(measures: Any, rel: int | None = None) -> list[Any]:
    """ir-measures measure objects for ``measures`` (a name, a measure object, or a list of them),
    with ``rel`` applied where the measure takes it and does not set it."""
    if isinstance(measures, str) or hasattr(measures, "NAME"):
        measures = [measures]
    if rel is not None and rel_problem(rel):  # one rule: prefeval.methods.registry.rel_problem
        raise PrefevalError(f"{rel_problem(rel)}; got {rel!r}")
    parsed: list[Any] = []
    for item in measures:
        for measure in _parse_one(item):
            if rel is not None:
                measure = apply_rel(measure, rel, item if isinstance(item, str) else None)
            validate(measure)
            if measure not in parsed:
                parsed.append(measure)
    if not parsed:
        raise PrefevalError("no measures given; e.g. measures=['nDCG@10', 'RBU@20', 'LexiPrecision']")
    return parsed


def _parse_one(item: Any) -> list[Any]:
    if hasattr(item, "NAME") and hasattr(item, "params"):
        return [item]
    if not isinstance(item, str):
        raise PrefevalError(f"cannot use {item!r} as a measure: give a name such as 'nDCG@10' or a measure object")
    return parse_names(item)


def _is_free_preference(measure: Any) -> bool:
    """A prefeval preference without ``baseline``: each run's mean preference over the other runs."""
    declaration = declaration_of(measure)
    return declaration is not None and declaration.kind == "preference" and "baseline" not in measure.params


def _mean_preference_rows(collection: Collection, run_frames: Mapping[str, pd.DataFrame], measure: Any,
                          rel: int | None, progress: bool = False, block: bool = False) -> pd.DataFrame:
    """Per query: each run's mean preference over the other runs (its win rate / (S - 1)). ``block``: the queries
    are one partition of a larger input (no error when none has a relevant document). The runs' coverage is not
    warned about here (the caller warns once)."""

    if len(run_frames) < 2:
        raise PrefevalError(f"{measure} without a baseline is each run's mean preference over the other runs, "
                            f"which needs at least two runs; give baseline='...' to compare with one run")
    method = parse_method(measure, 1 if rel is None else rel)
    if not block:
        check_relevant([method], collection)
    method = evaluate_block([method], dict(run_frames), collection, keep=False, progress=progress, warn=False)[0]
    S = method.win_rates.shape[1]
    mean = method.win_rates / (S - 1)  # (Q, S): sum over b of prefs[q, s, b] (zero diagonal), averaged over b != s
    names = list(run_frames)
    return pd.DataFrame({
        "run": np.repeat(np.asarray(names, dtype=object)[None, :], len(method.query_ids), axis=0).T.reshape(-1),
        "query_id": np.tile(np.asarray(method.query_ids, dtype=object).astype(str), S),
        "measure": [str(measure)] * (S * len(method.query_ids)),
        "value": mean.T.reshape(-1),
    })


def system_values(per_query: pd.DataFrame, measures: list[Any], runs: list[str]) -> pd.DataFrame:
    """``run, measure, value``: each run's aggregate of each measure over its per-query values (``measure`` matched
    by name; the sum for trec_eval's counts, else the mean: :func:`prefeval.engine.values.aggregate`); NaN for a run
    without values."""
    keys = [per_query["run"], per_query["measure"].astype(str)]
    groups = {key: frame["value"].to_numpy() for key, frame in per_query.groupby(keys, sort=False)}
    rows = []
    for run in runs:
        for measure in measures:
            values = groups.get((run, str(measure)))
            rows.append((run, str(measure), float(aggregate(measure, values)) if values is not None else float("nan")))
    return pd.DataFrame(rows, columns=["run", "measure", "value"])


class RunFrames(Mapping):
    """Name -> canonical run frame (:meth:`prefeval.data.ranking.RankedRun.frame`) of ranked runs, each built on first
    access (only the preferences without a baseline read frames)."""

    def __init__(self, ranked: Mapping[str, RankedRun]) -> None:
        self.ranked, self._frames = ranked, {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            self._frames[name] = self.ranked[name].frame()
        return self._frames[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.ranked)

    def __len__(self) -> int:
        return len(self.ranked)


def ranked_runs(collection: Collection, runs: dict[str, Any], depth: int | None = None
                ) -> Iterator[tuple[str, RankedRun]]:
    """Each of ``runs`` (as :func:`prefeval.data.inputs.runs_dict` gives them with ``columns=True``: a run file read
    in its turn) ranked once by :func:`prefeval.data.ranking.rank_run` (named as given; every judged (query, document)
    located while its ids are encoded: :attr:`~prefeval.data.collection.Collection.judged_pairs`), one at a time. ``runs`` is
    emptied as they are ranked: the columns of a run go once it is ranked, and its ranking once the consumer asks for
    the next, so a consumer that keeps only each run's values holds one run in memory beyond those read ahead
    (:func:`prefeval.engine.blocks.read_ahead`). Warns about
    a run that lacks some judged queries of ``collection`` (:meth:`~prefeval.data.collection.Collection.coverage_note`).
    ``depth``: only the top ``depth`` ranks need be exact (every measure reads only those,
    :func:`~prefeval.engine.values.top_k_depth`): tied scores are ordered only where they reach them, and only those
    ranks are kept."""
    while runs:
        name = next(iter(runs))
        run = runs.pop(name)
        columns = run_frame(run, name, columns=True) if isinstance(run, (str, os.PathLike)) else run
        del run
        ranked = rank_run(columns, name=name, depth=depth, candidates=collection.judged_pairs)
        del columns  # the ranking keeps integer codes; the columns of a file go
        if note := collection.coverage_note(name, run_queries(ranked)):
            warnings.warn(note, stacklevel=3)
        yield name, ranked
        del ranked


def _inputs(qrels: Any, runs: Any) -> tuple[Collection, dict[str, Any]]:
    """The collection of ``qrels`` and ``runs`` as :func:`prefeval.data.inputs.runs_dict` gives them, every run file
    read (and checked) before any work (:func:`prefeval.engine.blocks.read_ahead`)."""
    collection, runs = Collection.of(qrels), runs_dict(runs, columns=True, encoded=True)  # runs only ranked
    if not runs:
        raise PrefevalError("no runs given; pass a dict name -> run or a list of run files")
    return collection, read_ahead(runs)


def _needs_all_runs(measures: Sequence[Any], runs: Mapping[str, Any]) -> bool:
    """Whether evaluating ``measures`` reads several of ``runs`` at once: a preference without a baseline (each run
    against the others) or with a baseline that names one of ``runs``."""
    return any(_is_free_preference(m) or (declaration_of(m) is not None and m.params.get("baseline") in runs)
               for m in measures)


def _ranked(collection: Collection, runs: dict[str, Any], measures: Sequence[Any]
            ) -> Mapping[str, RankedRun] | Iterator[tuple[str, RankedRun]]:
    """:func:`ranked_runs` of the measures' depth, all at once (a mapping) when :func:`_needs_all_runs`, else one at
    a time (``runs`` is emptied as they are ranked)."""
    together = _needs_all_runs(measures, runs)
    # a preference without a baseline reads each whole ranking (RankedRun.frame): no depth then
    depth = None if any(map(_is_free_preference, measures)) else top_k_depth(measures)
    ranked = ranked_runs(collection, runs, depth)
    return dict(ranked) if together else ranked


def evaluate_values(qrels: Any, runs: Any, measures: Sequence[Any], *, provider: Any = None,
                    progress: bool = False) -> MeasureValues:
    """The per-query values (:class:`~prefeval.engine.values.MeasureValues`) of parsed ``measures``
    (:func:`parse_measures`; no preference without a baseline) for ``runs`` on ``qrels``, given in any form
    :func:`evaluate` takes: the qrels coded once (:class:`~prefeval.data.collection.Collection`), each run ranked once
    (:func:`ranked_runs`), then :func:`prefeval.engine.values.measure_values`. ``provider``: as
    :class:`~prefeval.engine.values.MeasureEvaluator`."""
    free = [str(m) for m in measures if _is_free_preference(m)]
    if free:
        raise PrefevalError(f"{', '.join(free)} without a baseline compare(s) runs; use prefeval.evaluate")
    collection, runs = _inputs(qrels, runs)
    return measure_values(collection, _ranked(collection, runs, measures), measures, provider=provider,
                          progress=progress)


def evaluate(qrels: Any, runs: Any, measures: Any, per_query: bool = False, rel: int | None = None, *,
             progress: bool = False, engine: str = "inprocess", client: Any = None, scheduler: str | None = None,
             workers: int | None = None, partitions: int | None = None) -> pd.DataFrame:
    """Evaluate ``runs`` against ``qrels`` with ``measures`` (see the module docstring).

    Returns a DataFrame ``run, measure, value, given`` (one row per run and measure, runs and measures in
    the given order) or, with ``per_query=True``, ``run, query_id, measure, value, given``. ``measure``
    holds the canonical ir-measures name of the measure computed (``str(measure)``, e.g.
    ``RBU(variant='evall')``), ``given`` the measure as it was written (``"RBU(p=0.8,e=0.03,variant='evall')"``,
    ``"ndcg_cut_10"``; ``str()`` of a measure object), so results can be looked up by either.
    ``progress`` shows a progress bar over the runs. ``engine="dask"`` evaluates partitions of the queries on a
    Dask cluster (``client``, ``scheduler`` address, or a local cluster of ``workers`` processes; ``partitions``
    query partitions; :mod:`prefeval.engine.dask_engine`), with the same result.
    """

    parsed = parse_measures(measures, rel)
    given = _given_names(measures, rel)
    other = engines.options(engine, client, scheduler, workers, partitions)
    if other is not None:
        table, names = other.evaluate(qrels, runs, parsed, rel, client=client, scheduler=scheduler, workers=workers,
                                      partitions=partitions, progress=progress)
    else:
        collection, runs = _inputs(qrels, runs)
        names = list(runs)
        ranked = _ranked(collection, runs, parsed)  # empties runs
        if not any(map(_is_free_preference, parsed)) and not per_query:  # the aggregates straight from the values
            out = measure_values(collection, ranked, parsed, progress=progress).frame()
            return out.assign(given=out["measure"].map(given))
        table = _per_query_values(collection, ranked, parsed, rel, progress)
    if not per_query:
        out = system_values(table, parsed, names)
        return out.assign(given=out["measure"].map(given))
    order = {str(m): i for i, m in enumerate(parsed)}
    table = table.assign(_r=table["run"].map({n: i for i, n in enumerate(names)}), _m=table["measure"].map(order))
    table = table.sort_values(["_r", "query_id", "_m"], kind="stable").drop(columns=["_r", "_m"])
    table["given"] = table["measure"].map(given)
    return table.reset_index(drop=True)[["run", "query_id", "measure", "value", "given"]]


def per_query_table(collection: Collection, runs: Mapping[str, pd.DataFrame], measures: list[Any],
                    rel: int | None) -> pd.DataFrame:
    """Per-query values ``run, query_id, measure, value`` of parsed ``measures`` on canonical inputs, in-process
    (what one partition of the Dask engine computes, on the collection of its queries; rows in no particular
    order)."""
    ranked = {name: rank_run(frame, name=name, candidates=collection.judged_pairs) for name, frame in runs.items()}
    return _per_query_values(collection, ranked, measures, rel, False, block=True)


def _per_query_values(collection: Collection, ranked: Mapping[str, RankedRun] | Iterator[tuple[str, RankedRun]],
                      parsed: list[Any], rel: int | None, progress: bool, block: bool = False) -> pd.DataFrame:
    """Per-query values ``run, query_id, measure, value``: :func:`~prefeval.engine.values.measure_values` of every
    measure but the preferences without a baseline, and each run's mean preference over the other runs for those."""
    if not ranked:
        raise PrefevalError("no runs given; pass a dict name -> run or a list of run files")
    free = [m for m in parsed if _is_free_preference(m)]
    bound = [m for m in parsed if not _is_free_preference(m)]
    parts = [measure_values(collection, ranked, bound, progress=progress).frame(per_query=True)] if bound else []
    run_frames = RunFrames(ranked) if free else {}
    for measure in free:
        parts.append(_mean_preference_rows(collection, run_frames, measure, rel, progress, block))
    return pd.concat(parts, ignore_index=True)


def _given_names(measures: Any, rel: int | None) -> dict[str, str]:
    """Canonical name -> the measure as the user wrote it (the first writing, if several give one measure)."""
    if isinstance(measures, str) or hasattr(measures, "NAME"):
        measures = [measures]
    given: dict[str, str] = {}
    for item in measures:
        text = item.strip() if isinstance(item, str) else str(item)
        for measure in parse_measures([item], rel):
            given.setdefault(str(measure), text)
    return given
