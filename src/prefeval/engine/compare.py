"""Compare many runs pairwise: per-query preferences, system-level matrices, rankings and significance.

``compare(qrels, runs, methods)`` evaluates every unordered pair of runs on every evaluated query with

* prefeval's preferences, named as in ir-measures (``"LexiRecall"``, ``"LexiPrecision(magnitude='rr')"``,
  ``"RPP(weighting='dcg')"``, ``"RPP(graded=False)@100"``; Diaz & Mitra (2023) §5.2, Diaz (2023) §3, Diaz & Ferraro (2022) Eq. 3-6), computed
  per query for all S x S pairs at once by the kernels of :mod:`prefeval.core`;
* any other ir-measures measure (``"nDCG@10"``, ``"AP(rel=2)"``, ``"RBU@20"``), which becomes the metric-difference
  preference ``mu(a) - mu(b)`` per query (one ``iter_calc`` pass per run).

Semantics (README, "Input semantics"): runs are ordered by score descending, ties by doc_id descending; a repeated
document keeps its best position; every query of the qrels is compared (as ``evaluate``, ir-measures and PyTerrier
average over them): a query with a document at grade >= ``rel`` gets the authors' preference, a judged query without
one a tie (0); a query missing from a run is a ranking that retrieved nothing (worst case); run queries absent
from the qrels are ignored. ``@k`` on a preference and ``depth`` truncate the runs first (metrics see the same
truncated, deduplicated rankings as the preferences). The system-level preference of a pair is the mean of its
per-query preferences. Positive values mean ``run_a`` is preferred; each unordered pair appears once, with
``run_a`` before ``run_b`` in the input order of the runs.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.arrays import sorted_unique
from prefeval.core.lazy import lazy_module
from prefeval.core.reduce import PairAccumulator
from prefeval.data.encoding import column_values, distinct
from prefeval.data.inputs import qrels_table, run_frame, runs_dict
from prefeval.data.ranking import (
    PositionTable,
    RankedRun,
    coverage_note,
    encoded_runs,
    judged_queries,
    qrels_queries,
    query_block_runs,
    query_candidates,
    rank_query_blocks,
    rank_run,
    warn_repeated,
)
from prefeval.data.trec import Columns
from prefeval.engine import registry as engines
from prefeval.engine.comparison import Comparison
from prefeval.engine.methods import Method, parse_methods
from prefeval.engine.results import MethodResult
from prefeval.errors import PrefevalError
from prefeval.methods.registry import declaration_of, parameters, rel_problem

if TYPE_CHECKING:
    import ir_measures
    import pandas as pd
else:
    ir_measures = lazy_module("ir_measures")  # loads on use: prefeval's preferences do not need it
    pd = lazy_module("pandas")
_tqdm = lazy_module("tqdm.auto")  # progress bars load on use

#: compare(per_query=None) keeps the per-query preferences when they take at most this many bytes
KEEP_BYTES = 256 * 2**20
#: entries (queries x runs x runs) of the per-query matrices one call of a preference's kernel for many queries gives
BATCH_ENTRIES = 1 << 16


# ----------------------------------------------------------------------------------------------
# computation


def _progress(iterable: Iterable, enabled: bool, desc: str, total: int | None = None) -> Iterable:
    if not enabled:
        return iterable

    return _tqdm.tqdm(iterable, desc=desc, total=total, leave=False)


class _MetricTable:
    """Per-query values of the metric methods sharing one run depth, one ``iter_calc`` pass per run."""

    def __init__(self, methods: list[Method], qrels: pd.DataFrame, depth: int | None, n_runs: int) -> None:
        self.methods, self.depth, self.n_runs = methods, depth, n_runs
        self.measures = list(dict.fromkeys(m.measure for m in methods))
        try:
            self.evaluator = ir_measures.evaluator(self.measures, qrels)
        except (ValueError, NameError) as exc:
            raise PrefevalError(f"cannot evaluate {', '.join(m.label for m in methods)}: {exc}") from None
        self.values: dict[Any, dict[str, np.ndarray]] = {ms: {} for ms in self.measures}

    def fill(self, s: int, run: RankedRun) -> None:
        ranking = run.to_dict(self.depth)
        if not ranking:  # retrieved nothing: every query gets measure.DEFAULT below
            return
        for metric in self.evaluator.iter_calc(ranking):
            self.values[metric.measure].setdefault(metric.query_id, np.full(self.n_runs, np.nan))[s] = metric.value

    def results(self, qrels: pd.DataFrame) -> list[MethodResult]:
        out = []
        qids = judged_queries(qrels)
        for m in self.methods:
            per_query = self.values[m.measure]
            V = np.vstack([per_query.get(q, np.full(self.n_runs, np.nan)) for q in qids])
            # ir-measures gives measure.DEFAULT to qrels queries absent from a run; fill the same way.
            V[np.isnan(V)] = m.measure.DEFAULT
            out.append(MethodResult(m, qids, None, V))
        return out


class _PreferenceCollector:
    """Collects one preference's per-query matrices: win rates always, pair sums streamed, the tensor if kept."""

    def __init__(self, method: Method, n_queries: int, n_runs: int, keep: bool) -> None:
        self.method = method
        self.win_rates = np.zeros((n_queries, n_runs))
        self.prefs = np.zeros((n_queries, n_runs, n_runs)) if keep else None
        self.sums = PairAccumulator(n_runs)

    def add(self, row: int, P: np.ndarray) -> None:
        self.win_rates[row] = P.sum(axis=1)
        if self.prefs is not None:
            self.prefs[row] = P
        self.sums.add(P)

    def result(self, query_ids: np.ndarray) -> MethodResult:
        return MethodResult(self.method, query_ids, self.prefs, win_rates=self.win_rates,
                            sums=self.sums.sums(len(query_ids)))


def check_relevant(methods: list[Method], qrels: pd.DataFrame | Columns) -> None:
    """An error when no query has a relevant document at a method's ``rel``: there is nothing to compare."""
    grades = column_values(qrels["relevance"], np.int64)
    for rel in dict.fromkeys(m.rel for m in methods):
        if not np.any(grades >= rel):
            labels = ", ".join(m.label for m in methods if m.rel == rel)
            raise PrefevalError(f"no query has a relevant document (grade >= {rel}) in the qrels; nothing to "
                                f"compare for {labels}")


def evaluate_block(methods: list[Method], run_frames: dict[str, Any], qrels: pd.DataFrame | Columns, *,
                   keep: bool, progress: bool = False, warn: bool = True) -> list[MethodResult]:
    """Every method on the queries of ``qrels``: one pass over the runs (rank each once, locate its documents for
    every position and metric table), then the per-query kernels, folded into :class:`MethodResult` (pair sums
    streamed; per-query preferences kept only with ``keep``).

    Runs and qrels are DataFrames or :class:`~prefeval.data.trec.Columns` (pandas is then needed only by metric
    methods); a run may also be a TREC file path, read when its turn comes (one run in memory at a time). Every query of ``qrels`` counts (one without a document at a method's ``rel`` is a tie). The engines call
    this on blocks of queries and combine the results (:func:`combine_results`); ``warn=False`` leaves the
    coverage warnings to the caller.
    """
    names = list(run_frames)
    S = len(names)
    queries = qrels_queries(qrels)
    qids = judged_queries(qrels)
    pref_groups: dict[tuple[int, int | None], list[Method]] = {}
    metric_groups: dict[int | None, list[Method]] = {}
    for m in methods:
        if m.kind == "preference":
            pref_groups.setdefault((m.rel, m.depth), []).append(m)
        else:
            metric_groups.setdefault(m.depth, []).append(m)
    min_rel = min(m.rel for m in methods)
    candidates = query_candidates(qrels, min_rel)  # each block of a run's queries looked up among its own
    tables = {rel: PositionTable(qrels, rel, queries) for rel in dict.fromkeys(rel for rel, _ in pref_groups)}
    doc_pos = {key: np.full((S, len(tables[key[0]])), np.inf) for key in pref_groups}
    qrels_df = qrels.frame() if metric_groups and isinstance(qrels, Columns) else qrels  # ir-measures reads frames
    metric_tables = [_MetricTable(group, qrels_df, depth, S) for depth, group in metric_groups.items()]
    query_codes, query_ids = distinct(qrels["query_id"], grouped=True)
    evaluated = np.zeros(len(queries), dtype=bool)  # per query (of ``queries``): has a document at grade >= min_rel
    evaluated[queries.get_indexer(
        query_ids[sorted_unique(query_codes[column_values(qrels["relevance"], np.int64) >= min_rel])])] = True
    ties = "all" if metric_tables else "candidates"  # metrics read full rankings; preferences only positions
    blocked = query_block_runs(run_frames, candidates) if ties == "candidates" else []  # large runs in memory
    row = {name: s for s, name in enumerate(names)}
    streamed = {name: run for name, run in run_frames.items() if name not in set(blocked)}
    for name, frame in _progress(_read_ahead(encoded_runs(streamed, queries)), progress, "ranking runs",
                                 len(streamed)):
        s = row[name]
        run = rank_run(frame, queries, candidates, name, ties=ties)
        del frame  # the ranking keeps integer codes; the columns of a file go
        if warn:
            _warn_coverage(name, _covered(run), evaluated, len(queries))
        for (rel, depth), pos in doc_pos.items():
            pos[s] = tables[rel].locate(run, depth)
        for mt in metric_tables:
            mt.fill(s, run)
    if blocked:
        _locate_blocked({name: run_frames[name] for name in blocked}, [row[name] for name in blocked], queries,
                        candidates, tables, doc_pos, evaluated if warn else None, progress)
    results = []
    for (rel, depth), group in pref_groups.items():
        kernels = [(m, declaration_of(m.measure), parameters(m.measure)) for m in group]
        subtopics = any(decl.reads_subtopics(params) for _, decl, params in kernels)
        positions = tables[rel].positions(doc_pos[rel, depth], subtopics=subtopics)
        rows = np.searchsorted(qids, np.array([p.query_id for p in positions], dtype=object))
        collectors = [_PreferenceCollector(m, len(qids), S, keep) for m in group]
        for collector, (m, decl, params) in zip(collectors, kernels):
            matrices = _query_matrices(decl, params, positions)
            for q, P in enumerate(_progress(matrices, progress, f"{m.label} (rel={rel})", len(positions))):
                collector.add(rows[q], P)
        results += [collector.result(qids) for collector in collectors]
    for mt in metric_tables:
        results += mt.results(qrels)
    return results


def _query_matrices(decl: Any, params: dict, positions: list) -> Iterator[np.ndarray]:
    """The (S, S) matrix of one preference on each of ``positions`` (one :class:`~prefeval.data.ranking.QueryPositions`
    per query): from its kernel for many queries (``decl.matrices``) in blocks of at most :data:`BATCH_ENTRIES`
    entries where it has one for these parameters and a block holds 16 queries or more (few runs: per-query work
    dominates), else query by query (``decl.matrix``)."""
    S = positions[0].doc_pos.shape[0] if positions else 0
    step = max(1, BATCH_ENTRIES // max(1, S * S))
    batched = decl.matrices is not None and step >= 16
    for start in range(0, len(positions), step):
        chunk = positions[start:start + step]
        batch = decl.matrices(chunk, params) if batched else None
        yield from (decl.matrix(query, params) for query in chunk) if batch is None else batch


def _locate_blocked(runs: dict[str, Any], rows: list[int], queries: Any, candidates: Any, tables: dict,
                    doc_pos: dict, evaluated: np.ndarray | None, progress: bool) -> None:
    """:func:`evaluate_block`'s positions of large runs in memory, ranked together block of queries by block of
    queries (:func:`prefeval.data.ranking.rank_query_blocks`): ``doc_pos[rel, depth][rows[k]]`` for the ``k``-th run;
    the warnings of each run (repeated documents; coverage unless ``evaluated`` is None) after the last block."""
    covered = np.zeros((len(runs), len(queries)), dtype=bool)
    repeated = np.zeros(len(runs), dtype=np.int64)
    at = np.asarray(rows, dtype=np.intp)
    for block in _progress(rank_query_blocks(runs, queries, candidates), progress, "ranking runs by query blocks"):
        for (rel, depth), pos in doc_pos.items():
            tables[rel].locate_block(block, depth, pos, at)
        covered[:, block.first:block.first + block.width] = block.covered
        repeated += block.repeated
    for k, name in enumerate(runs):
        if repeated[k]:
            warn_repeated(name, int(repeated[k]), stacklevel=2)  # as from rank_run
        if evaluated is not None:
            _warn_coverage(name, np.flatnonzero(covered[k]), evaluated, len(queries), stacklevel=6)


def _covered(run: RankedRun) -> np.ndarray:
    """The codes of the queries ``run`` retrieved something for (linear, no sort)."""
    return np.flatnonzero(np.bincount(run.query_codes, minlength=len(run.queries)))


def _read_ahead(items: Iterable[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """``items`` (name, run) in order, each run given as a TREC file path read into columns (:func:`run_frame`): a
    file is read in a thread while the caller works on the run before it (inflating and parsing release the GIL,
    so the two overlap on two cores). Other runs pass as they are, without a thread. At most two files are in
    memory: the run the caller holds and the one being read. An error reading a file is raised when its turn comes,
    as without the thread."""
    from concurrent.futures import ThreadPoolExecutor  # deferred: a thread only for run files

    pool = None
    ahead = None  # (name, future) of the file being read
    try:
        for name, source in items:
            if not isinstance(source, (str, os.PathLike)):
                if ahead is not None:
                    yield ahead[0], ahead[1].result()
                    ahead = None
                yield name, source
                continue
            if pool is None:
                pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prefeval-read")
            following = name, pool.submit(run_frame, source, name, columns=True)
            if ahead is not None:
                yield ahead[0], ahead[1].result()
            ahead = following  # the run the caller had goes
        if ahead is not None:
            yield ahead[0], ahead[1].result()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _warn_coverage(name: str, covered: np.ndarray, evaluated: np.ndarray, judged: int, stacklevel: int = 5) -> None:
    if not evaluated[covered].any():
        warnings.warn(f"run {name!r} has none of the {int(evaluated.sum())} evaluated queries of the qrels; "
                      "it counts as retrieving nothing for every query", stacklevel=stacklevel)
    elif note := coverage_note(name, len(covered), judged):
        warnings.warn(note, stacklevel=stacklevel)


def compare(qrels: Any, runs: Any, methods: Any, rel: int = 1, depth: int | None = None, *,
            per_query: bool | str | os.PathLike | None = None, progress: bool = False, engine: str = "inprocess",
            client: Any = None, scheduler: str | None = None, workers: int | None = None,
            partitions: int | None = None, baseline: str | None = None) -> Comparison:
    """Compare every pair of ``runs`` on every evaluated query under each of ``methods``.

    ``qrels``: a TREC qrels path, ir_datasets id, DataFrame, dict of dicts or Qrel records.
    ``runs``: a dict name -> run (DataFrame, dict of dicts or path) or a list of run paths (named by file name).
    ``methods``: names in ir-measures syntax or measure objects (one or a list); see the module docstring.
    ``rel``: minimum grade of a relevant document (a method's own ``rel=`` wins). ``depth``: truncate every
    run to its top ``depth`` documents first. ``progress``: show a progress bar.

    ``per_query``: keep every per-query preference (``Comparison.per_query``, the wilcoxon and permutation
    tests, the analyses that resample queries). ``None`` (default) keeps them when they take at most
    :data:`KEEP_BYTES`; ``False`` never. Summaries, matrices, rankings, sign and t tests and randomized
    Tukey HSD need only per-pair sums and per-query win rates, which are always computed, query by query,
    so comparing thousands of runs does not need ``queries x runs^2`` memory.

    ``engine="dask"``: the same computation on a Dask cluster, partitioned by query, with the same results
    (:mod:`prefeval.engine.dask_engine`): ``client`` (a ``distributed.Client``), ``scheduler`` (an address) or
    ``workers`` (local worker processes; default one per core); ``partitions`` (default: from the number of
    queries and workers). ``runs`` may then also be a folder of Parquet files, a Dask DataFrame or a collection
    generated partition by partition (:func:`prefeval.data.simulate.recsys`, with ``qrels=None``), and ``per_query``
    a folder: the per-query values are written there as Parquet files, one per partition.

    ``baseline`` (a run name): the summary, tests and reports cover only the pairs of each other run with it
    (``run_a`` the run, ``run_b`` the baseline), the correction only those pairs (:meth:`Comparison.against`).
    """

    if isinstance(methods, str) or hasattr(methods, "NAME"):
        methods = [methods]
    methods = list(methods)
    if not methods:
        raise PrefevalError("no methods given; e.g. methods=['LexiRecall', 'RPP', 'nDCG@10']")
    if depth is not None and (not isinstance(depth, (int, np.integer)) or depth < 1):
        raise PrefevalError(f"depth must be a positive integer; got {depth!r}")
    if rel_problem(rel):  # one rule: prefeval.methods.registry.rel_problem
        raise PrefevalError(f"{rel_problem(rel)}; got {rel!r}")
    other = engines.options(engine, client, scheduler, workers, partitions)
    if per_query not in (None, True, False) and not (other is not None and isinstance(per_query, (str, os.PathLike))):
        raise PrefevalError(f"per_query must be True, False or None (keep when small), or a folder with "
                            f"engine='dask'; got {per_query!r}")
    parsed = parse_methods(methods, rel, depth)
    seen: dict[str, str] = {}
    for m in parsed:
        key = f"{m.measure!r}|rel={m.rel}|depth={m.depth}"
        if key in seen:
            raise PrefevalError(f"methods {seen[key]!r} and {m.label!r} are the same; give each once")
        seen[key] = m.label
    if other is not None:
        result = other.compare(qrels, runs, parsed, per_query=per_query, client=client, scheduler=scheduler,
                               workers=workers, partitions=partitions, progress=progress)
        return result if baseline is None else result.against(baseline)
    return compare_methods(qrels, runs, parsed, per_query=per_query, progress=progress, baseline=baseline)


def compare_methods(qrels: Any, runs: Any, methods: Sequence[Method], *, per_query: bool | None = None,
                    progress: bool = False, min_runs: int = 2, baseline: str | None = None) -> Comparison:
    """:func:`compare` in process of parsed ``methods`` (:func:`parse_methods`), with at least ``min_runs`` runs
    (1: a table of one run's metric values, without pairs); ``baseline`` is checked before any work."""
    qrels_df = qrels_table(qrels)  # files are read into columns: no pandas on this path
    run_frames = runs_dict(runs, columns=True)
    if len(run_frames) < min_runs:
        raise PrefevalError(f"compare needs at least two runs; got {len(run_frames)} ({', '.join(run_frames) or '-'})")
    if baseline is not None and baseline not in run_frames:
        raise PrefevalError(f"baseline {baseline!r} is not one of the runs: {', '.join(run_frames)}")
    check_relevant(list(methods), qrels_df)
    keep = keep_per_query(per_query, methods, qrels_df, len(run_frames))
    results = {r.method.label: r
               for r in evaluate_block(list(methods), run_frames, qrels_df, keep=keep, progress=progress)}
    return Comparison(list(run_frames), [results[m.label] for m in methods],
                      query_order=qrels_queries(qrels_df).tolist(), baseline=baseline)


def per_query_bytes(methods: Sequence[Method], n_queries: int, n_runs: int) -> int:
    """Bytes of the kept per-query preferences: a (queries, runs, runs) float64 tensor per preference method."""
    return sum(m.kind == "preference" for m in methods) * n_queries * n_runs * n_runs * 8


def keep_per_query(per_query: bool | None, methods: Sequence[Method], qrels: pd.DataFrame | Columns,
                   n_runs: int) -> bool:
    """Whether :func:`compare` keeps the per-query preferences (see its ``per_query``). Asked to keep more than the
    machine's available memory, a warning gives the estimate and the options that avoid it."""
    need = per_query_bytes(methods, len(judged_queries(qrels)), n_runs)
    if per_query is None:
        return need <= KEEP_BYTES
    if per_query and need > available_memory():
        warnings.warn(f"keeping the per-query preferences needs about {need / 2**30:.1f} GiB (more than the "
                      f"{available_memory() / 2**30:.1f} GiB available); summaries, matrices, rankings, sign and "
                      "t tests do not need them (per_query=False, or leave out --per-query)", stacklevel=4)
    return bool(per_query)


def available_memory() -> int:
    """Bytes of physical memory available now (Linux and macOS; a large number where unknown)."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2**62
