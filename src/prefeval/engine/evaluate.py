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
  provider runs (cutoff >= 1, rel from 1 to 1000). When every measure is pytrec_eval's, each run (read and checked the
  same way) goes to pytrec_eval as ``{query: {doc: score}}``, a repeated document at its highest score:
  trec_eval ranks it exactly as :func:`~prefeval.data.ranking.canonical_run` does, so prefeval does not rank it
  first (:func:`direct_inputs`; the same values, tested against the ranked path).
* ``rel``: when given, every measure that has a ``rel`` parameter (AP, RR, P, R, ERR_IA, alpha_nDCG,
  RBU, TSE, the preferences, ...) and does not set it receives ``rel=rel``; the ``measure`` column shows
  the measure actually computed (``AP(rel=2)``). Measures without the parameter (nDCG) are unaffected.
* Counts as in ``trec_eval -c``: ``NumQ`` and ``NumRel`` depend on the qrels only and count every judged query,
  also one the run does not retrieve for (``num_q``, ``num_rel``); ``NumRel(rel=r)`` counts the documents of grade
  >= r. Under ``rel=r``, ``NumRelRet`` counts the retrieved documents of grade >= r (as ``NumRet(rel=r)``) and
  ``NumRel`` those judged so, while ``NumRet`` keeps counting every retrieved document (its ``rel`` is a filter,
  not a threshold): ``NumRelRet <= NumRel`` and ``NumRelRet <= NumRet`` hold at every ``rel``.
* Preference measures (LexiRecall, LexiPrecision, RPP) compare two runs. With ``baseline=`` they give the
  preference of each run over that baseline, which may also name one of ``runs``. Without a baseline they
  give each run's **mean preference over the other runs**: per query the mean of ``pref(run, other)`` over
  the other runs (computed by :func:`prefeval.compare`), and the system value is the mean over queries.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterator, Mapping
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import lazy_module
from prefeval.data.encoding import distinct
from prefeval.data.inputs import _all_str, _number_scores, qrels_frame, qrels_table, run_frame, runs_dict
from prefeval.data.ranking import (
    NO_SUBTOPIC,
    RankedRun,
    coverage_notes,
    nested_dict,
    rank_run,
    run_queries,
    scored_dict,
)
from prefeval.data.runs import registered
from prefeval.data.trec import MAX_GRADE, MIN_GRADE, Columns, first_bad_id, plain_ascii
from prefeval.engine import registry as engines
from prefeval.engine.blocks import check_relevant, evaluate_block
from prefeval.engine.methods import apply_rel, parse_method
from prefeval.errors import PrefevalError
from prefeval.methods.checks import validate
from prefeval.methods.names import parse_names
from prefeval.methods.registry import declaration_of, rel_problem

if TYPE_CHECKING:
    import ir_measures
    import pandas as pd
else:
    ir_measures = lazy_module("ir_measures")  # loads on first use, not with `import prefeval`
    pd = lazy_module("pandas")
_tqdm = lazy_module("tqdm.auto")  # progress bars load on use


#: Counts that depend on the qrels only (trec_eval ``num_q``, ``num_rel``), computed from the qrels for every judged
#: query, as ``trec_eval -c`` does (a judged query missing from the run counts; its relevant documents too).
_QRELS_COUNTS = frozenset({"NumQ", "NumRel"})


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


def _metric_rows(qrels: pd.DataFrame, run_frames: Mapping[str, pd.DataFrame], ranked: Mapping[str, RankedRun],
                 measures: list[Any], progress: bool = False) -> pd.DataFrame:
    """Per-query values of measures through ir-measures evaluators (qrels processed once), run by run.

    prefeval's provider reads the canonical run frames; the other providers read the same rankings
    (``ranked``) as dicts of dicts, ir-measures' fastest input, and the qrels as one too when they have no
    subtopics (with subtopics, the frame keeps them for the providers that read them, e.g. pyndeval)."""

    names = {m.params.get("baseline") for m in measures} & set(run_frames)
    with registered({name: run_frames[name] for name in names}):
        try:
            evaluators = metric_evaluators(measures, qrels)
        except ValueError as exc:  # unsupported measure / parameters
            raise PrefevalError(str(exc)) from None
        frames = []
        for name in _tqdm.tqdm(run_frames, desc="evaluation", unit="run", total=len(run_frames),
                         disable=not progress, leave=False):
            metrics = list(iter_metrics(evaluators, ranked[name]))
            labels: dict[int, str] = {}  # str() once per measure object (metrics keep the objects alive)
            frames.append(pd.DataFrame({
                "run": name,
                "query_id": [str(m.query_id) for m in metrics],
                "measure": [labels.get(id(m.measure)) or labels.setdefault(id(m.measure), str(m.measure))
                            for m in metrics],
                "value": np.array([m.value for m in metrics], dtype=float),
            }))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["run", "query_id", "measure", "value"])


#: Standard measures whose value at cutoff k reads only the top k documents of a ranking (the definition of a
#: measure at a rank cutoff, as trec_eval's ``ndcg_cut``, ``P``, ``recall``, ``map_cut``), with the parameters
#: besides ``cutoff`` that keep it so; ``judged_only=True`` drops unjudged documents before cutting: not listed.
_TOP_K_ONLY: dict[str, frozenset[str]] = {
    "nDCG": frozenset({"dcg", "gains"}), "P": frozenset({"rel"}), "R": frozenset({"rel"}),
    "AP": frozenset({"rel"}), "RR": frozenset({"rel"}), "Success": frozenset({"rel"}), "Judged": frozenset(),
}


def top_k_depth(measures: list[Any]) -> int | None:
    """The largest cutoff of ``measures`` when each of them reads only the top ``cutoff`` documents of a ranking
    (then the rankings truncated at that depth give the same values), else None."""
    depth = 0
    for measure in measures:
        params = dict(measure.params)
        cutoff = params.pop("cutoff", None)
        if params.get("judged_only") is False:
            del params["judged_only"]
        allowed = _TOP_K_ONLY.get(measure.NAME)
        if allowed is None or not isinstance(cutoff, int) or cutoff < 1 or not set(params) <= allowed:
            return None
        depth = max(depth, cutoff)
    return depth or None


def metric_evaluators(measures: list[Any], qrels: pd.DataFrame,
                      provider: Any = None) -> list[tuple[Any, bool, int | None]]:
    """ir-measures evaluators of ``measures`` on canonical ``qrels`` (processed once), each with whether it reads
    the canonical run frame (prefeval's provider) or the ranking as a dict of dicts (every other provider: their
    fastest input), and the depth that dict may be cut at (:func:`top_k_depth`); see :func:`iter_metrics`.
    ``provider``: evaluate every measure with that ir-measures provider (default: prefeval's measures by
    prefeval's provider, the others by ir-measures' default pipeline)."""
    if provider is not None:
        own = provider.NAME == "prefeval"
        qrels_input = qrels if own else _standard_qrels(qrels)
        return [(provider.evaluator(measures, qrels_input), own, None if own else top_k_depth(measures))]
    own = [m for m in measures if declaration_of(m) is not None]  # prefeval's measures
    standard = [m for m in measures if declaration_of(m) is None]
    evaluators = [(ir_measures.evaluator(own, qrels), True, None)] if own else []
    if standard:
        evaluators.append((ir_measures.evaluator(standard, _standard_qrels(qrels)), False, top_k_depth(standard)))
    return evaluators


def iter_metrics(evaluators: list[tuple[Any, bool, int | None]], ranked: RankedRun) -> Iterator[Any]:
    """The per-query ``Metric`` values of one ranked run from :func:`metric_evaluators`: prefeval's provider reads
    the ranking itself (or its canonical frame ``ranked.frame()``), the others the same ranking as
    ``{query: {doc: -rank}}``, cut at the evaluator's depth when its measures read only the top documents."""
    for evaluator, own, depth in evaluators:
        if own and hasattr(evaluator, "iter_calc_ranked"):  # prefeval's evaluator: no second ranking of the run
            yield from evaluator.iter_calc_ranked(ranked)
        else:
            yield from evaluator.iter_calc(ranked.frame() if own else ranked.to_dict(depth))


class RunFrames(Mapping):
    """Name -> canonical run frame (:meth:`prefeval.data.ranking.RankedRun.frame`) of ranked runs, each built on first
    access (many evaluations never need the frames)."""

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


def _standard_qrels(qrels: Any) -> Any:
    """The qrels (a canonical frame, or :class:`~prefeval.data.trec.Columns` from the reader) as
    ``{query: {doc: grade}}`` when they have no subtopics (one line per query and document, conflicts already
    resolved), else as a frame (pyndeval and others read the subtopics from it); qrels given as such a dict
    (:func:`_qrels_as_given`) as they are."""
    if type(qrels) is dict:
        return qrels
    if not set(distinct(qrels["iteration"])[1].tolist()) <= NO_SUBTOPIC:
        return qrels.frame() if isinstance(qrels, Columns) else qrels
    return nested_dict(qrels["query_id"], qrels["doc_id"], qrels["relevance"])


def _mean_preference_rows(qrels: pd.DataFrame, run_frames: Mapping[str, pd.DataFrame], measure: Any,
                          rel: int | None, progress: bool = False, block: bool = False) -> pd.DataFrame:
    """Per query: each run's mean preference over the other runs (its win rate / (S - 1)). ``block``: the queries
    are one partition of a larger input (no error when none has a relevant document, no coverage warnings)."""

    if len(run_frames) < 2:
        raise PrefevalError(f"{measure} without a baseline is each run's mean preference over the other runs, "
                            f"which needs at least two runs; give baseline='...' to compare with one run")
    method = parse_method(measure, 1 if rel is None else rel)
    if not block:
        check_relevant([method], qrels)
    method = evaluate_block([method], dict(run_frames), qrels, keep=False, progress=progress, warn=not block)[0]
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
    """``run, measure, value``: each measure's own ir-measures aggregator (the mean for all built-in ones)
    over the per-query values of each run (``measure`` matched by name); NaN for a run without values."""
    keys = [per_query["run"], per_query["measure"].astype(str)]
    groups = {key: frame["value"].to_numpy() for key, frame in per_query.groupby(keys, sort=False)}
    rows = []
    for run in runs:
        for measure in measures:
            values = groups.get((run, str(measure)))
            agg = measure.aggregator()
            for v in values if values is not None else ():
                agg.add(v)
            rows.append((run, str(measure), float(agg.result()) if values is not None else float("nan")))
    return pd.DataFrame(rows, columns=["run", "measure", "value"])


def _warn_disjoint(qrels: Any, ranked: Mapping[str, Any]) -> set[str]:
    """Warn about the runs (:func:`prefeval.data.ranking.run_queries` reads them) that share no query with the qrels
    (a frame or :class:`~prefeval.data.trec.Columns`); returns their names."""
    judged = set(qrels) if type(qrels) is dict else \
        set(distinct(qrels["query_id"], grouped=True)[1].tolist())  # (in order of first appearance)
    disjoint = set()
    for name, run in ranked.items():
        queries = run_queries(run)
        if len(queries) and not judged.intersection(queries):
            disjoint.add(name)
            warnings.warn(f"run {name!r} shares no query id with the qrels (e.g. run {queries[0]!r} vs "
                          f"qrels {next(iter(judged), '-')!r}); it scores as an empty ranking", stacklevel=4)
    return disjoint


def _pytrec_eval_only(measures: list[Any]) -> bool:
    """Whether pytrec_eval (available) computes every one of ``measures`` as prefeval reports it: not ``NumQ`` or
    ``NumRel``, which prefeval counts from the qrels for every judged query (``trec_eval -c``,
    :func:`_qrels_count_rows`) where pytrec_eval gives a query missing from the run its default 0."""
    provider = ir_measures.providers.registry.get("pytrec_eval")
    return provider is not None and provider.is_available() \
        and all(declaration_of(m) is None and not _is_qrels_count(m) and provider.supports(m) for m in measures)


def _as_given(runs: Any, measures: list[Any]) -> dict[str, dict] | None:
    """The runs, when they can be given to pytrec_eval as they are with the values of their canonical rankings:
    every measure is computed by pytrec_eval, and every run is a dict of dicts ``{query_id: {doc_id: score}}`` of
    ``str`` ids following the rules of :mod:`prefeval.data.trec` and number scores (no NaN). Such a run repeats no
    document within a query, and trec_eval orders a query's documents as :func:`prefeval.data.ranking.rank_run` does
    (score descending, ties by doc id descending in code point order), so ranking it first changes no value. None
    otherwise (the runs are then read and ranked: errors are reported there)."""
    if not isinstance(runs, Mapping) or not runs or not _pytrec_eval_only(measures):
        return None
    given: dict[str, dict] = {}
    for name, run in runs.items():
        if str(name) in given or not _valid_as_given(run):
            return None
        given[str(name)] = run
    return given


def _valid_as_given(run: Any) -> bool:
    """Whether ``run`` is a dict of dicts of valid ``str`` ids (:func:`prefeval.data.trec.first_bad_id`) and number
    scores without NaN (:func:`_as_given`)."""
    if not isinstance(run, dict) or not all(type(inner) is dict for inner in run.values()) or not _all_str(list(run)) \
            or first_bad_id(list(run)) is not None:
        return False
    try:  # the usual case checked in C: ids of printable ASCII (none empty: no inner dict has the key ""), float scores
        joined = "".join(chain.from_iterable(run.values()))
        total = sum(chain.from_iterable(map(dict.values, run.values())))
    except (TypeError, OverflowError):
        joined = total = None
    if joined is not None and plain_ascii(joined) and not any("" in inner for inner in run.values()) \
            and type(total) is float and total == total:  # a NaN makes the sum NaN (as inf - inf: then checked below)
        return True
    docs = list(chain.from_iterable(run.values()))
    scores = list(chain.from_iterable(inner.values() for inner in run.values()))
    return _number_scores(scores) is not None and first_bad_id(docs) is None  # (first_bad_id: also a non-str id)


def _qrels_as_given(qrels: Any) -> bool:
    """Whether ``qrels`` is a dict of non-empty dicts ``{query_id: {doc_id: grade}}`` of valid ``str`` ids
    (:func:`prefeval.data.trec.first_bad_id`) and ``int`` grades from ``MIN_GRADE`` to ``MAX_GRADE``: the canonical
    qrels as pytrec_eval reads them already (one grade per query and document, no subtopic), used as they are by
    :func:`direct_inputs`. Otherwise they are read by :func:`prefeval.data.inputs.qrels_frame` (errors there)."""
    if type(qrels) is not dict or not qrels or not all(type(inner) is dict and inner for inner in qrels.values()) \
            or not _all_str(list(qrels)) or first_bad_id(list(qrels)) is not None:
        return False
    grades = list(chain.from_iterable(map(dict.values, qrels.values())))
    if set(map(type, grades)) != {int} or min(grades) < MIN_GRADE or max(grades) > MAX_GRADE:
        return False
    try:
        joined = "".join(chain.from_iterable(qrels.values()))
    except TypeError:
        return False
    if plain_ascii(joined) and not any("" in inner for inner in qrels.values()):
        return True
    return first_bad_id(list(chain.from_iterable(qrels.values()))) is None


def direct_inputs(qrels: Any, runs: Any, measures: list[Any],
                  columns: bool = False) -> tuple[Any, dict[str, dict]] | None:
    """(the canonical qrels, each run as pytrec_eval reads it) when every measure is pytrec_eval's, else None: a
    dict-of-dicts run as given (:func:`_as_given`), any other run (a file, a frame, records, a ranx ``Run``) read
    and checked by :func:`prefeval.data.inputs.run_frame` (the one reader) and turned into ``{query: {doc: score}}``
    by :func:`prefeval.data.ranking.scored_dict` (a repeated document keeps its highest score, i.e. its first
    position, with the warning of :func:`prefeval.data.ranking.rank_run`). trec_eval orders each query by score
    descending, ties by doc id descending, as :func:`prefeval.data.ranking.rank_run` does, so the values are those
    of the canonical rankings. The qrels are read first, the runs named as :func:`prefeval.data.inputs.runs_dict`
    names them (its errors are raised there), and the warnings of :func:`ranked_inputs` given. ``columns``: qrels
    files are read into :class:`~prefeval.data.trec.Columns` (:func:`prefeval.data.inputs.qrels_table`: no pandas)."""
    if not runs or not _pytrec_eval_only(measures):
        return None
    if isinstance(runs, Mapping):
        items = [(str(name), run) for name, run in runs.items()]
        if len({name for name, _ in items}) < len(items):
            return None  # names that collide as str: runs_dict's error
    else:
        items = None
    qrels_df = qrels if _qrels_as_given(qrels) else qrels_table(qrels) if columns else qrels_frame(qrels)
    if items is None:
        items = list(runs_dict(runs, columns=True).items())  # files not read yet
    converted: dict[int, dict] = {}  # one conversion per object given under several names
    direct = {}
    for name, run in items:
        if id(run) not in converted:
            if _valid_as_given(run):
                converted[id(run)] = run
            else:
                read = run_frame(run, name, columns=True)
                converted[id(run)] = scored_dict(read["query_id"], read["doc_id"], read["score"], name)
        direct[name] = converted[id(run)]
    disjoint = _warn_disjoint(qrels_df, direct)
    for note in coverage_notes(qrels_df, {n: run for n, run in direct.items() if n not in disjoint}):
        warnings.warn(note, stacklevel=3)
    return qrels_df, direct


def direct_evaluator(measures: list[Any], qrels: Any) -> Any:
    """pytrec_eval's ir-measures evaluator of ``measures`` on the qrels of :func:`direct_inputs` (processed once);
    :func:`direct_metrics` evaluates the runs of :func:`direct_inputs` with it."""
    return ir_measures.providers.registry["pytrec_eval"].evaluator(measures, _standard_qrels(qrels))


def direct_metrics(evaluator: Any, run: dict) -> Iterator[Any]:
    """The ``Metric`` values of ``evaluator.iter_calc(run)`` (:func:`direct_evaluator`), in the same order: those
    pytrec_eval computes, then ``measure.DEFAULT`` for every (measure, judged query) it did not give (a judged query
    missing from the run), by measure name and query id. The same bookkeeping as ir-measures' ``Evaluator.iter_calc``
    around the provider's ``_iter_calc``, without hashing a measure object per value (which costs ~8 us each there:
    1.6 s of 5 runs x 10,000 queries x 4 measures, benchmarks/standard_measures.py)."""
    compute = getattr(evaluator, "_iter_calc", None)
    if compute is None:  # another ir-measures version: its own bookkeeping
        yield from evaluator.iter_calc(run)
        return
    label_of: dict[int, str] = {}
    seen: dict[str, set] = {}  # measure name -> the queries it has a value for
    for metric in compute(run):
        label = label_of.get(id(metric.measure)) or label_of.setdefault(id(metric.measure), str(metric.measure))
        seen.setdefault(label, set()).add(metric.query_id)
        yield metric
    judged = set(evaluator.qrel_qids)
    missing = [(label, q, m) for label, m in ((str(m), m) for m in evaluator.measures)
               for q in judged.difference(seen.get(label, ()))]
    for _, query_id, measure in sorted(missing, key=lambda item: (item[0], item[1])):
        yield ir_measures.Metric(query_id=query_id, measure=measure, value=measure.DEFAULT)


def _given_rows(qrels: Any, runs: dict[str, dict], measures: list[Any], progress: bool,
                means: bool = False) -> pd.DataFrame:
    """Per-query values ``run, query_id, measure, value`` of the runs of :func:`direct_inputs`, computed by
    pytrec_eval on the runs as they are (the qrels processed once); ``means``: instead, the frame of
    :func:`system_values` (each measure's aggregator fed the same values in the same order), without the per-query
    frame."""
    evaluator = direct_evaluator(measures, qrels)
    names, query_ids, labels, values = [], [], [], []
    label_of: dict[int, str] = {}  # str() once per measure object (the evaluator keeps the objects alive)
    rows = []
    for name in _tqdm.tqdm(runs, desc="evaluation", unit="run", total=len(runs), disable=not progress, leave=False):
        metrics = list(direct_metrics(evaluator, runs[name]))
        run_labels = [label_of.get(id(m.measure)) or label_of.setdefault(id(m.measure), str(m.measure))
                      for m in metrics]
        if means:
            aggregators = {str(m): m.aggregator() for m in measures}
            for label, metric in zip(run_labels, metrics):
                aggregators[label].add(float(metric.value))
            counts = Counter(run_labels)
            rows.extend((name, label, float(aggregator.result()) if counts[label] else float("nan"))
                        for label, aggregator in aggregators.items())
            continue
        names.append(np.full(len(metrics), name, dtype=object))
        query_ids.extend(str(m.query_id) for m in metrics)
        labels.extend(run_labels)
        values.extend(m.value for m in metrics)
    if means:
        return pd.DataFrame(rows, columns=["run", "measure", "value"])
    return pd.DataFrame({"run": np.concatenate(names), "query_id": query_ids, "measure": labels,
                         "value": np.array(values, dtype=float)})


def canonical_inputs(qrels: Any, runs: Any) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """The canonical input every measure of one call reads: the qrels with conflicting lines resolved, and each
    run ranked once by :func:`prefeval.data.ranking.canonical_run` (named as given); warns about runs that share no
    query with the qrels or cover only some of the judged queries."""
    qrels_df, run_frames, _ = ranked_inputs(qrels, runs)
    return qrels_df, dict(run_frames)


def ranked_inputs(qrels: Any, runs: Any, depth: int | None = None) -> tuple[pd.DataFrame, RunFrames,
                                                                           dict[str, RankedRun]]:
    """:func:`canonical_inputs` and the rankings the run frames were made from. ``depth``: only the top ``depth``
    ranks need be exact (every measure reads only those, :func:`top_k_depth`): tied scores are ordered only where
    they reach them (:func:`prefeval.data.ranking.rank_run`), and the run frames are not available."""
    qrels_df = qrels_frame(qrels)
    ranked = {name: rank_run(frame, name=name, depth=depth) for name, frame in runs_dict(runs).items()}
    run_frames = RunFrames(ranked)
    disjoint = _warn_disjoint(qrels_df, ranked)
    for note in coverage_notes(qrels_df, {n: r for n, r in ranked.items() if n not in disjoint}):
        warnings.warn(note, stacklevel=4)
    return qrels_df, run_frames, ranked


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
    elif (direct := direct_inputs(qrels, runs, parsed)) is not None:
        if not per_query:  # the means straight from the values (no per-query frame)
            out = _given_rows(direct[0], direct[1], parsed, progress, means=True)
            return out.assign(given=out["measure"].map(given))
        table, names = _given_rows(direct[0], direct[1], parsed, progress), list(direct[1])
    else:
        qrels_df, run_frames, ranked = ranked_inputs(qrels, runs, top_k_depth(parsed))
        table, names = _per_query_values(qrels_df, run_frames, ranked, parsed, rel, progress), list(run_frames)
    if not per_query:
        out = system_values(table, parsed, names)
        return out.assign(given=out["measure"].map(given))
    order = {str(m): i for i, m in enumerate(parsed)}
    table = table.assign(_r=table["run"].map({n: i for i, n in enumerate(names)}), _m=table["measure"].map(order))
    table = table.sort_values(["_r", "query_id", "_m"], kind="stable").drop(columns=["_r", "_m"])
    table["given"] = table["measure"].map(given)
    return table.reset_index(drop=True)[["run", "query_id", "measure", "value", "given"]]


def per_query_table(qrels: pd.DataFrame, runs: Mapping[str, pd.DataFrame], measures: list[Any],
                    rel: int | None) -> pd.DataFrame:
    """Per-query values ``run, query_id, measure, value`` of parsed ``measures`` on canonical inputs, in-process
    (what one partition of the Dask engine computes; rows in no particular order)."""
    ranked = {name: rank_run(frame, name=name) for name, frame in runs.items()}
    return _per_query_values(qrels, RunFrames(ranked), ranked, measures, rel, False, block=True)


def _per_query_values(qrels_df: pd.DataFrame, run_frames: Mapping[str, pd.DataFrame],
                      ranked: Mapping[str, RankedRun], parsed: list[Any], rel: int | None,
                      progress: bool, block: bool = False) -> pd.DataFrame:
    if not run_frames:
        raise PrefevalError("no runs given; pass a dict name -> run or a list of run files")
    free = [m for m in parsed if _is_free_preference(m)]
    counts = [m for m in parsed if _is_qrels_count(m)]
    bound = [m for m in parsed if not _is_free_preference(m) and not _is_qrels_count(m)]
    parts = []
    if counts:
        parts.append(_qrels_count_rows(qrels_df, list(run_frames), counts))
    if bound:
        parts.append(_metric_rows(qrels_df, run_frames, ranked, bound, progress))
    for measure in free:
        parts.append(_mean_preference_rows(qrels_df, run_frames, measure, rel, progress, block))
    return pd.concat(parts, ignore_index=True)


def _is_qrels_count(measure: Any) -> bool:
    return declaration_of(measure) is None and getattr(measure, "NAME", None) in _QRELS_COUNTS


def _qrels_count_rows(qrels: pd.DataFrame, runs: list[str], measures: list[Any]) -> pd.DataFrame:
    """``NumQ`` (1) and ``NumRel(rel=r)`` (the documents of grade >= r; a document judged for several subtopics
    counts once, with its highest grade) of every judged query, the same for every run: ``trec_eval -c``'s
    ``num_q`` and ``num_rel``, which count a judged query the run does not retrieve for."""
    grades = qrels.groupby(["query_id", "doc_id"], sort=False)["relevance"].max()
    queries = pd.unique(qrels["query_id"]).astype(str)
    frames = []
    for measure in measures:
        if measure.NAME == "NumQ":
            values = np.ones(len(queries))
        else:
            threshold = int(measure.params.get("rel", 1))
            relevant = (grades >= threshold).groupby(level="query_id", sort=False).sum()
            values = relevant.reindex(queries, fill_value=0).to_numpy(dtype=float)
        for run in runs:
            frames.append(pd.DataFrame({"run": run, "query_id": queries, "measure": str(measure), "value": values}))
    return pd.concat(frames, ignore_index=True)


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
