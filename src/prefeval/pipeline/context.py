"""The state a pipeline run builds up, step by step; returned to the caller as the result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from prefeval.data.collection import Collection
from prefeval.errors import PrefevalError


@dataclass
class PipelineContext:
    """Everything a pipeline run produced. Analysis hooks receive it (read it, do not modify it).

    Attributes (None / empty until the step that fills them has run):

    * ``name``, ``description``, ``source`` (definition file or None), ``settings`` (every step's options)
    * ``qrels`` canonical qrels frame; ``rel`` relevance threshold; ``qrels_label`` where they came from;
      ``topics`` (``query_id, text``; loaded on first use through :meth:`get_topics`)
    * ``simulation``: the :class:`prefeval.data.simulate.SimulatedCollection` when the data are simulated
    * ``generated``: a collection generated partition by partition (:func:`prefeval.data.simulate.recsys`); until a
      step materialises it (in-process engine), ``qrels`` is None and ``runs`` holds its run names with None
    * ``runs``: ``{name: run frame}`` in definition order; ``run_sources``: ``{name: file or callable}``
    * ``measures``: metric names; ``per_query`` (``run, query_id, measure, value``); ``means``
      (``run, measure, value``, the official aggregate of each measure)
    * ``methods``: preference-method names; ``comparison``: the :class:`prefeval.engine.comparison.Comparison`
    * ``baseline``; ``versus_baseline`` (one row per method/measure and run, see aggregate_step.py);
      ``rankings`` ``{label: frame rank, run, score}``; ``kendall_tau`` (square frame over rankings);
      ``significance`` ``{method: all-pairs significance frame}``;
      ``settings["aggregate"]`` the tests used
    * ``analysis``: ``{analysis name: {table name: DataFrame | figure | value}}``
    * ``check``: the findings of the check step (:meth:`prefeval.engine.check.Check.to_dict`), None when it did not run
    * ``files``: files written; ``timings``: seconds per stage
    """

    name: str = "pipeline"
    description: str = ""
    source: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    qrels: pd.DataFrame | None = None
    rel: int = 1
    qrels_label: str = ""
    topics: pd.DataFrame | None = None
    topics_loader: Callable[[], pd.DataFrame] | None = None
    simulation: Any = None
    generated: Any = None
    runs: dict[str, pd.DataFrame] = field(default_factory=dict)
    run_sources: dict[str, str] = field(default_factory=dict)
    measures: list[str] = field(default_factory=list)
    per_query: pd.DataFrame | None = None
    means: pd.DataFrame | None = None
    methods: list[str] = field(default_factory=list)
    comparison: Any = None
    baseline: str | None = None
    versus_baseline: pd.DataFrame | None = None
    rankings: dict[str, pd.DataFrame] = field(default_factory=dict)
    kendall_tau: pd.DataFrame | None = None
    significance: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: per (preference, metric, pair of runs): the queries where the two disagree (:mod:`prefeval.pipeline.findings`)
    disagreements: list[dict[str, Any]] | None = None
    analysis: dict[str, dict[str, Any]] = field(default_factory=dict)
    check: dict[str, Any] | None = None
    out_dir: Path | None = None
    files: list[Path] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    _collection: Collection | None = field(default=None, repr=False, compare=False)

    @property
    def simulated(self) -> bool:
        """True when the qrels and runs come from :mod:`prefeval.data.simulate`."""
        return self.simulation is not None

    def get_topics(self) -> pd.DataFrame:
        """The topics (loaded on first use)."""
        if self.topics is None and self.topics_loader is not None:
            self.topics = self.topics_loader()
        if self.topics is None:
            raise PrefevalError("no topics available: set qrels.topics (a file or an ir_datasets id)")
        return self.topics

    def collection(self) -> Collection | None:
        """The coded collection of :attr:`qrels` (built once; None without materialised qrels)."""
        if self.qrels is None:
            return None
        if self._collection is None or self._collection.qrels is not self.qrels:
            self._collection = Collection(self.qrels)
        return self._collection

    def evaluated_queries(self) -> list[str]:
        """Query ids with at least one relevant document (grade >= rel): the queries that count."""
        collection = self.collection()
        if collection is None:
            return self.judged_queries()  # a generated collection labels relevant items only
        return sorted(collection.queries.to_numpy()[collection.evaluated(self.rel)].tolist())

    def judged_queries(self) -> list[str]:
        """Query ids with at least one judgment (what trec_eval -c averages metrics over); for a collection
        that was not materialised, the queries the comparison (or the evaluation) covered."""
        if (collection := self.collection()) is not None:
            return collection.judged.tolist()
        if self.comparison is not None:
            return [str(q) for q in next(iter(self.comparison.results.values())).query_ids]
        return [] if self.per_query is None else sorted(self.per_query["query_id"].unique())

    def metric_queries(self) -> dict[str, int]:
        """Number of queries each metric was averaged over."""
        if self.per_query is None:
            return {}
        return self.per_query.groupby("measure")["query_id"].nunique().to_dict()

    def means_table(self) -> pd.DataFrame:
        """Means as a run x measure frame (runs in definition order, measures in declared order)."""
        if self.means is None or self.means.empty:
            return pd.DataFrame(index=list(self.runs))
        table = self.means.pivot(index="run", columns="measure", values="value")
        cols = [m for m in self.measures if m in table.columns] + [c for c in table.columns if c not in self.measures]
        return table.reindex(index=[r for r in self.runs if r in table.index], columns=cols)

    @property
    def run_pairs(self) -> int:
        """Number of unordered pairs of runs."""
        return len(self.runs) * (len(self.runs) - 1) // 2

    def true_quality(self) -> dict[str, float] | None:
        """Each run's true quality when the data are simulated and every run comes from the simulator."""
        sim = self.simulation
        if sim is None or not set(self.runs) <= set(sim.quality):
            return None
        return sim.quality

    def ranking_label(self, method: str) -> str | None:
        """Key of the first ranking of ``method`` in :attr:`rankings` (``"<method> (<aggregate>)"``)."""
        return next((k for k in self.rankings if k.startswith(f"{method} (")), None)

    def significant_pairs(self, method: str) -> int | None:
        """Pairs of runs the all-pairs test of ``method`` finds significant (None before aggregation)."""
        sig = self.significance.get(method)
        return int(sig["significant"].sum()) if sig is not None and "significant" in sig else None

    def tie_share(self, method: str) -> float:
        """Share of (query, pair of runs) preferences of ``method`` that are ties (|value| <= TIE_TOL, as in
        :mod:`prefeval.analysis.ties`); NaN when there are none. Read from the comparison's summary, which the
        Dask engine computes without keeping per-query values."""

        summary = self.comparison.summary()
        rows = summary[summary["method"] == method]
        total = int(rows["queries"].sum())
        return float(rows["ties"].sum() / total) if total else float("nan")
