"""A documented, deterministic simulator of test collections with runs of KNOWN quality.

The simulator exists so that prefeval can be demonstrated and tested offline (``pipelines/demo.toml``):
the collection is SIMULATED, not TREC data, and every report built from it says so.

Model (all draws from ``numpy.random.default_rng(seed)``, in a fixed order, so the result is a pure
function of the arguments for a given numpy version):

1. **Candidates and latent relevance.** Each of ``n_queries`` queries has ``n_docs`` candidate documents.
   A query's share of relevant candidates is ``pi_q ~ Beta(*relevant_beta)`` (queries differ in how many
   relevant documents they have). Each candidate is relevant with probability ``pi_q``; a relevant
   candidate gets a grade ``k`` in ``1..max_grade`` with probability proportional to ``2**-(k-1)`` (high
   grades are rarer, as in TREC DL). Every query has at least one relevant candidate (if the draw gave none,
   candidate 0 gets grade 1). These are the *latent* grades ``g*(q, d)`` (``SimulatedCollection.true_qrels``).
2. **Runs of known quality.** Run ``s`` has a quality ``theta_s >= 0``. On query ``q`` it works with
   ``theta_sq = max(0, theta_s + query_variation * z_sq)``, ``z_sq ~ N(0, 1)`` (systems do better on some
   queries than on others), and scores every candidate ``score_s(q, d) = theta_sq * g*(q, d) + noise * eps``,
   ``eps ~ N(0, 1)`` i.i.d.; it returns its ``depth`` best-scoring candidates per query. ``theta = 0`` is a
   random ranking; the expected quality of a ranking grows with ``theta_sq``, which grows (in distribution)
   with ``theta_s``, so the run order by ``theta_s`` is the ground-truth system order
   (``SimulatedCollection.true_order``). Qualities are spread evenly over ``quality_range`` and assigned
   to the run names in a seeded random order (so input order reveals nothing). With ``score_decimals`` the
   scores are rounded, which creates score ties (exercising trec_eval tie-breaking).
3. **Judgments.** With ``judged_depth=None`` every candidate is judged (complete judgments). Otherwise only
   the pool of the runs' top ``judged_depth`` documents is judged (TREC-style pooling; unpooled relevant
   documents are unjudged, i.e. non-relevant for evaluation).
4. **Label noise.** Each judged label is, with probability ``label_noise``, replaced by a grade drawn
   uniformly from ``0..max_grade`` (assessor disagreement). Runs are scored on the latent grades; the qrels
   carry the noisy labels, so a query may end up with no relevant document (it is then not evaluated).

Returned frames are canonical prefeval frames: qrels ``query_id, doc_id, relevance, iteration`` (iteration
"0"), runs ``query_id, doc_id, score``, topics ``query_id, text``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from prefeval.data.trec_writer import write_qrels, write_run
from prefeval.errors import PrefevalError

__all__ = ["SimulatedCollection", "collection", "check_params", "run_names", "DEFAULTS", "RecsysCollection", "recsys",
           "RECSYS_DEFAULTS", "write_example", "EXAMPLE_RUNS", "EXAMPLE_PARAMS"]

#: Default parameters of :func:`collection` (the demo pipeline's collection).
DEFAULTS: dict[str, Any] = {
    "n_queries": 300,
    "n_runs": 12,
    "depth": 100,
    "n_docs": 200,
    "max_grade": 3,
    "relevant_beta": (1.0, 12.0),
    "quality_range": (0.2, 1.2),
    "query_variation": 0.5,
    "noise": 1.0,
    "label_noise": 0.0,
    "judged_depth": None,
    "score_decimals": None,
    "seed": 0,
}


@dataclass(frozen=True)
class SimulatedCollection:
    """A simulated test collection: qrels, topics, runs and the known truth behind them."""

    qrels: pd.DataFrame
    runs: dict[str, pd.DataFrame]
    topics: pd.DataFrame
    quality: dict[str, float]
    true_qrels: pd.DataFrame
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def true_order(self) -> list[str]:
        """Run names from the best (highest quality) to the worst; equal qualities keep name order."""
        return sorted(self.quality, key=lambda name: (-self.quality[name], name))

    def describe(self) -> str:
        """One line saying that this collection is simulated, and how."""
        p = self.params
        return (
            f"SIMULATED collection (prefeval.data.simulate, seed {p['seed']}): {p['n_queries']} queries, "
            f"{len(self.runs)} runs of known quality {p['quality_range'][0]}..{p['quality_range'][1]}, "
            f"depth {p['depth']}, grades 0..{p['max_grade']}, label noise {p['label_noise']}"
            + ("" if p["judged_depth"] is None else f", pooled to depth {p['judged_depth']}")
        )


def check_params(**kwargs: Any) -> dict[str, Any]:
    """Validate simulator parameters without simulating; return them with defaults filled in."""
    unknown = sorted(set(kwargs) - set(DEFAULTS))
    if unknown:
        raise PrefevalError(f"simulate: unknown parameter(s) {unknown}; known: {sorted(DEFAULTS)}")
    params = {**DEFAULTS, **kwargs}
    params["relevant_beta"] = tuple(params["relevant_beta"])
    params["quality_range"] = tuple(params["quality_range"])
    _check(params)
    entries = int(params["n_runs"]) * int(params["n_queries"]) * int(params["n_docs"])
    if entries > MAX_SIMULATED_ENTRIES:
        key = max(("n_runs", "n_queries", "n_docs"), key=lambda k: params[k] / DEFAULTS[k])  # the one set too high
        raise PrefevalError(
            f"simulate: {key} = {params[key]:,} is too large: n_runs x n_queries x n_docs = {params['n_runs']:,} x "
            f"{params['n_queries']:,} x "
            f"{params['n_docs']:,} = {entries:.3g} scores, more than the {MAX_SIMULATED_ENTRIES:.0e} this in-memory "
            "simulator allows; use fewer (or simulate.recsys, generated partition by partition)")
    return params


#: The in-memory simulator holds n_runs x n_queries x n_docs scores at once (several arrays of that size): at most
#: this many (``simulate.recsys`` applies it to one partition: users_per_partition x n_models x n_candidates).
MAX_SIMULATED_ENTRIES = 5 * 10**7
#: The highest relevance grade a simulation may draw (grade g has probability proportional to 2^-(g-1): grades
#: beyond this have probability 0 in float64 anyway).
MAX_SIMULATED_GRADE = 1000


def run_names(n_runs: int) -> list[str]:
    """Names of the simulated runs: ``sim01``, ``sim02``, ... (zero-padded to at least two digits)."""
    width = max(2, len(str(n_runs)))
    return [f"sim{i:0{width}d}" for i in range(1, n_runs + 1)]


def _check(params: dict[str, Any]) -> None:
    for key in ("relevant_beta", "quality_range"):
        if len(params[key]) != 2:
            raise PrefevalError(f"simulate: {key} must have two values, got {params[key]!r}")
    def positive_int(key: str, minimum: int = 1) -> None:
        value = params[key]
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
            raise PrefevalError(f"simulate: {key} must be an integer >= {minimum}, got {value!r}")

    for key, minimum in (("n_queries", 1), ("n_runs", 1), ("depth", 1), ("n_docs", 1), ("max_grade", 1)):
        positive_int(key, minimum)
    if params["max_grade"] > MAX_SIMULATED_GRADE:
        raise PrefevalError(f"simulate: max_grade must be at most {MAX_SIMULATED_GRADE}, got {params['max_grade']!r}")
    seed = params.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise PrefevalError(f"simulate: seed must be a non-negative integer, got {seed!r}")
    if params["depth"] > params["n_docs"]:
        raise PrefevalError(
            f"simulate: depth ({params['depth']}) cannot exceed n_docs ({params['n_docs']}), "
            "the number of candidates per query"
        )
    if params["judged_depth"] is not None:
        positive_int("judged_depth")
    if params["score_decimals"] is not None:
        positive_int("score_decimals", 0)
    if not 0.0 <= float(params["label_noise"]) <= 1.0:
        raise PrefevalError(f"simulate: label_noise must be in [0, 1], got {params['label_noise']!r}")
    if float(params["query_variation"]) < 0:
        raise PrefevalError(f"simulate: query_variation must be >= 0, got {params['query_variation']!r}")
    if float(params["noise"]) < 0:
        raise PrefevalError(f"simulate: noise must be >= 0, got {params['noise']!r}")
    lo, hi = (float(x) for x in params["quality_range"])
    if lo < 0 or hi < lo:
        raise PrefevalError(f"simulate: quality_range must be (low, high) with 0 <= low <= high, got {params['quality_range']!r}")
    a, b = (float(x) for x in params["relevant_beta"])
    if a <= 0 or b <= 0:
        raise PrefevalError(f"simulate: relevant_beta must be two positive numbers, got {params['relevant_beta']!r}")


def _ids(prefix: str, n: int) -> np.ndarray:
    width = len(str(n))
    return np.array([f"{prefix}{i:0{width}d}" for i in range(1, n + 1)], dtype=object)


def _latent_grades(rng: np.random.Generator, n: int, m: int, beta: tuple[float, float], gmax: int) -> np.ndarray:
    """Grades (n, m) of m documents for each of n queries: each document of a query is relevant with the query's
    probability, drawn from Beta(``beta``); a relevant document has grade g in 1..gmax with probability proportional
    to 2^-(g-1); every query has at least one relevant document (its first, grade 1, when none was drawn)."""
    share = rng.beta(*beta, size=n)
    relevant = rng.random((n, m)) < share[:, None]
    level_p = 2.0 ** -np.arange(gmax)
    level = rng.choice(np.arange(1, gmax + 1), size=(n, m), p=level_p / level_p.sum())
    grades = np.where(relevant, level, 0)
    grades[~relevant.any(axis=1), 0] = 1
    return grades


def collection(**kwargs: Any) -> SimulatedCollection:
    """Simulate a test collection (see the module docstring for the model).

    Keyword arguments (defaults in :data:`DEFAULTS`): ``n_queries``, ``n_runs``, ``depth`` (documents
    returned per query), ``n_docs`` (candidates per query), ``max_grade``, ``relevant_beta`` (Beta
    parameters of a query's share of relevant candidates), ``quality_range`` (lowest and highest run
    quality), ``query_variation`` (s.d. of a run's per-query quality around its quality), ``noise``
    (score noise s.d.), ``label_noise`` (probability that a judged label is redrawn),
    ``judged_depth`` (pool depth; None = all candidates judged), ``score_decimals`` (round scores, making
    ties; None = no rounding), ``seed``.
    """
    p = check_params(**kwargs)
    rng = np.random.default_rng(p["seed"])
    nq, nr, nd, depth, gmax = p["n_queries"], p["n_runs"], p["n_docs"], p["depth"], p["max_grade"]

    # 1. latent grades (nq, nd)
    grades = _latent_grades(rng, nq, nd, p["relevant_beta"], gmax)

    # 2. runs: scores (nr, nq, nd); top `depth` per query, ordered by score desc then doc id desc
    theta = np.linspace(*p["quality_range"], nr)[rng.permutation(nr)]
    theta_q = np.maximum(0.0, theta[:, None] + float(p["query_variation"]) * rng.standard_normal((nr, nq)))
    scores = theta_q[:, :, None] * grades[None] + float(p["noise"]) * rng.standard_normal((nr, nq, nd))
    if p["score_decimals"] is not None:
        scores = np.round(scores, p["score_decimals"])
    # doc index order within a query equals doc-id string order (zero-padded), so sorting by
    # (-score, -index) is trec_eval's order: score desc, doc id desc
    order = np.lexsort((-np.broadcast_to(np.arange(nd), scores.shape), -scores), axis=-1)[..., :depth]
    top_scores = np.take_along_axis(scores, order, axis=-1)

    query_ids = _ids("q", nq)
    doc_ids = np.array(
        [[f"{q}-d{i:0{len(str(nd))}d}" for i in range(1, nd + 1)] for q in query_ids], dtype=object
    )
    names = run_names(nr)
    runs = {}
    q_rep = np.repeat(query_ids, depth)
    for s, name in enumerate(names):
        runs[name] = pd.DataFrame({
            "query_id": q_rep,
            "doc_id": np.take_along_axis(doc_ids, order[s], axis=1).ravel(),
            "score": top_scores[s].ravel().astype(np.float64),
        })

    # 3. judgments (complete or pooled)
    if p["judged_depth"] is None:
        judged = np.ones((nq, nd), dtype=bool)
    else:
        judged = np.zeros((nq, nd), dtype=bool)
        pool = order[:, :, : p["judged_depth"]]  # (nr, nq, k)
        rows = np.broadcast_to(np.arange(nq)[None, :, None], pool.shape)
        judged[rows.ravel(), pool.ravel()] = True

    # 4. label noise
    redraw = rng.random((nq, nd)) < float(p["label_noise"])
    observed = np.where(redraw, rng.integers(0, gmax + 1, size=(nq, nd)), grades)

    def frame(values: np.ndarray, mask: np.ndarray) -> pd.DataFrame:
        qi, di = np.nonzero(mask)
        return pd.DataFrame({
            "query_id": query_ids[qi],
            "doc_id": doc_ids[qi, di],
            "relevance": values[qi, di].astype(np.int64),
            "iteration": "0",
        })

    topics = pd.DataFrame({"query_id": query_ids, "text": [f"simulated query {i}" for i in range(1, nq + 1)]})
    return SimulatedCollection(
        qrels=frame(observed, judged),
        runs=runs,
        topics=topics,
        quality={name: float(t) for name, t in zip(names, theta)},
        true_qrels=frame(grades, np.ones((nq, nd), dtype=bool)),
        params=p,
    )


# ----------------------------------------------------------------------------------------------
# recommendation-style collections, generated partition by partition

#: Default parameters of :func:`recsys`; the relevance and quality model's are :func:`collection`'s.
RECSYS_DEFAULTS: dict[str, Any] = {
    "n_users": 10_000,
    "n_models": 10,
    "items_per_list": 20,
    "n_candidates": 50,
    "n_items": 100_000,
    **{key: DEFAULTS[key] for key in ("max_grade", "relevant_beta", "quality_range", "query_variation", "noise")},
    "users_per_partition": 10_000,
    "seed": 0,
}


@dataclass(frozen=True)
class RecsysCollection:
    """A simulated recommendation collection described by its parameters and generated on demand, one
    partition of users at a time (:meth:`partition`), so that no process ever holds all of it.

    Users play the role of queries (``query_id`` ``u0000001``...), items of documents (``doc_id``
    ``i000042``...), models of runs (``model01``...). :meth:`partition` is a pure function of the parameters
    and the partition index; :meth:`materialise` concatenates some or all partitions (small sizes only).
    """

    params: dict[str, Any]

    @property
    def n_partitions(self) -> int:
        """Number of partitions: ``ceil(n_users / users_per_partition)``."""
        return -(-self.params["n_users"] // self.params["users_per_partition"])

    @property
    def run_names(self) -> list[str]:
        """The models' names: ``model01``, ``model02``, ..."""
        width = max(2, len(str(self.params["n_models"])))
        return [f"model{i:0{width}d}" for i in range(1, self.params["n_models"] + 1)]

    @property
    def quality(self) -> dict[str, float]:
        """Each model's quality ``theta_m`` (spread evenly over ``quality_range``, assigned in a seeded order)."""
        p = self.params
        theta = np.linspace(*p["quality_range"], p["n_models"])
        theta = theta[np.random.default_rng([p["seed"], 2**32 - 1]).permutation(p["n_models"])]
        return {name: float(t) for name, t in zip(self.run_names, theta)}

    @property
    def true_order(self) -> list[str]:
        """Model names from the best (highest quality) to the worst; equal qualities keep name order."""
        quality = self.quality
        return sorted(quality, key=lambda name: (-quality[name], name))

    def describe(self) -> str:
        """One line saying that this collection is simulated, and how."""
        p = self.params
        return (f"SIMULATED recommendation collection (prefeval.data.simulate.recsys, seed {p['seed']}): {p['n_users']} "
                f"users x {p['n_models']} models x {p['items_per_list']} items per list "
                f"({p['n_users'] * p['n_models'] * p['items_per_list']} run rows), grades 0..{p['max_grade']}, "
                f"{self.n_partitions} partitions of {p['users_per_partition']} users")

    def partition(self, index: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
        """Qrels and runs (canonical frames, ``{model: run}``) of the users of partition ``index``."""
        p = self.params
        if not 0 <= index < self.n_partitions:
            raise PrefevalError(f"simulate.recsys: partition {index} out of range 0..{self.n_partitions - 1}")
        first = index * p["users_per_partition"]
        nu = min(p["users_per_partition"], p["n_users"] - first)
        nc, nm, k, gmax, n_items = (p["n_candidates"], p["n_models"], p["items_per_list"], p["max_grade"],
                                    p["n_items"])
        rng = np.random.default_rng([p["seed"], index])
        # 1. candidates: nc distinct items per user, base + j * step (mod n_items)
        step = n_items // nc
        items = (rng.integers(0, n_items, size=nu)[:, None] + step * np.arange(nc)[None, :]) % n_items
        # 2. latent grades, as in collection()
        grades = _latent_grades(rng, nu, nc, p["relevant_beta"], gmax)
        # 3. each model's top-k list; candidates are in item order within a user only by chance, so ties
        # (probability 0 for continuous scores) are broken by the candidate index
        theta = np.array(list(self.quality.values()))
        theta_u = np.maximum(0.0, theta[:, None] + float(p["query_variation"]) * rng.standard_normal((nm, nu)))
        scores = theta_u[:, :, None] * grades[None] + float(p["noise"]) * rng.standard_normal((nm, nu, nc))
        order = np.argsort(-scores, axis=-1, kind="stable")[..., :k]
        item_names = _ids("i", n_items)
        user_names = np.array([f"u{first + u + 1:0{len(str(p['n_users']))}d}" for u in range(nu)], dtype=object)
        users = np.repeat(user_names, k)
        runs = {name: pd.DataFrame({
            "query_id": users,
            "doc_id": item_names[np.take_along_axis(items, order[m], axis=1).ravel()],
            "score": np.take_along_axis(scores[m], order[m], axis=1).ravel(),
        }) for m, name in enumerate(self.run_names)}
        # 4. labels: the user's held-out items with a grade >= 1 (graded feedback)
        ui, ci = np.nonzero(grades)
        qrels = pd.DataFrame({"query_id": user_names[ui], "doc_id": item_names[items[ui, ci]],
                              "relevance": grades[ui, ci].astype(np.int64), "iteration": "0"})
        return qrels, runs

    def materialise(self, partitions: Any = None) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
        """Qrels and runs of the given partitions (default: all) concatenated, for in-process evaluation."""
        indices = range(self.n_partitions) if partitions is None else partitions
        parts = [self.partition(i) for i in indices]
        qrels = pd.concat([q for q, _ in parts], ignore_index=True)
        runs = {name: pd.concat([r[name] for _, r in parts], ignore_index=True) for name in self.run_names}
        return qrels, runs


def recsys(**kwargs: Any) -> RecsysCollection:
    """A simulated recommendation collection: ``n_users`` users (queries), ``n_models`` models (runs) that each
    recommend ``items_per_list`` items per user, graded labels; generated partition by partition.

    Model (per partition ``k``, draws from ``numpy.random.default_rng([seed, k])``): each user has
    ``n_candidates`` distinct candidate items out of a catalogue of ``n_items`` (``base + j * (n_items //
    n_candidates)`` modulo ``n_items``, ``base`` uniform), latent grades drawn as in :func:`collection` (a
    user's share of relevant candidates ``~ Beta(*relevant_beta)``, grades ``1..max_grade`` with probability
    proportional to ``2**-(k-1)``, at least one relevant candidate), and model ``m`` with quality ``theta_m``
    scores candidates ``max(0, theta_m + query_variation * z) * grade + noise * eps`` and recommends its
    ``items_per_list`` best. The labels (qrels) are every candidate with a grade >= 1, the user's graded
    held-out feedback. Diaz & Ferraro (2022) evaluate recall-paired preference on such recommendation data.
    """
    unknown = sorted(set(kwargs) - set(RECSYS_DEFAULTS))
    if unknown:
        raise PrefevalError(f"simulate.recsys: unknown parameter(s) {unknown}; known: {sorted(RECSYS_DEFAULTS)}")
    p = {**RECSYS_DEFAULTS, **kwargs}
    p["relevant_beta"], p["quality_range"] = tuple(p["relevant_beta"]), tuple(p["quality_range"])
    for key in ("n_users", "n_models", "items_per_list", "n_candidates", "n_items", "max_grade",
                "users_per_partition"):
        value = p[key]
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise PrefevalError(f"simulate.recsys: {key} must be an integer >= 1, got {value!r}")
    if not p["items_per_list"] <= p["n_candidates"] <= p["n_items"]:
        raise PrefevalError(f"simulate.recsys: need items_per_list <= n_candidates <= n_items, got "
                            f"{p['items_per_list']}, {p['n_candidates']}, {p['n_items']}")
    _check({**p, "n_queries": p["n_users"], "n_runs": p["n_models"], "depth": 1, "n_docs": 1,
            "label_noise": 0.0, "judged_depth": None, "score_decimals": None})
    per_partition = min(p["users_per_partition"], p["n_users"]) * p["n_models"] * p["n_candidates"]
    if per_partition > MAX_SIMULATED_ENTRIES:
        raise PrefevalError(
            f"simulate.recsys: users_per_partition x n_models x n_candidates = {per_partition:.3g} scores in one "
            f"partition, more than {MAX_SIMULATED_ENTRIES:.0e}; use a smaller users_per_partition")
    return RecsysCollection(p)


# ----------------------------------------------------------------------------------------------
# the example collection of the documentation (`prefeval example DIR`)

#: Run names of :func:`write_example`, from the lowest simulated quality to the highest.
EXAMPLE_RUNS: tuple[str, ...] = ("bm25", "bm25_rm3", "dense", "splade", "monot5")

#: Parameters of the collection :func:`write_example` writes (:func:`collection`'s model).
EXAMPLE_PARAMS: dict[str, Any] = {
    "n_queries": 50, "n_runs": len(EXAMPLE_RUNS), "depth": 100, "n_docs": 200, "max_grade": 3,
    "quality_range": (0.3, 1.1), "judged_depth": 20, "label_noise": 0.05, "score_decimals": 3, "seed": 2024,
}

_EXAMPLE_PIPELINE = """\
# A pipeline on the SIMULATED example collection written by `prefeval example` (not TREC data).
# Run it from the folder that holds this folder: prefeval run {folder}/pipeline.toml
# Schema: docs/pipelines.md. Paths are relative to this file.

[pipeline]
name = "example"
description = "The example collection: metrics, preferences, rankings and significance against bm25."

[qrels]
source = "qrels.txt"

[runs]
paths = ["*.run"]

[evaluate]
measures = ["nDCG@10", "AP", "RR", "RBU(p=0.8)@20"]

[compare]
methods = ["LexiRecall", "LexiPrecision", "RPP"]

[aggregate]
baseline = "bm25"
"""


def write_example(folder: str | os.PathLike, *, seed: int | None = None) -> dict[str, Path]:
    """Write the documentation's example collection into ``folder`` (created if needed) and return the files
    written, by name: ``qrels`` (``qrels.txt``, TREC qrels graded 0-3), ``topics`` (``topics.tsv``: query id,
    tab, text), one TREC run per name of :data:`EXAMPLE_RUNS` (``bm25.run``, ``bm25_rm3.run``, ``dense.run``,
    ``splade.run``, ``monot5.run``) and ``pipeline`` (``pipeline.toml``, a pipeline over these files).

    The data is SIMULATED by :func:`collection` with :data:`EXAMPLE_PARAMS` (50 queries, pooled judgments
    to depth 20, 5% label noise, scores rounded to 3 decimals, so some are tied); the run names are assigned
    in the order of the simulated qualities (``bm25`` lowest, ``monot5`` highest), so the names only suggest
    what such systems usually do. Existing files of these names are replaced; nothing else in ``folder`` is
    touched. ``seed`` replaces the default seed."""
    params = dict(EXAMPLE_PARAMS) if seed is None else {**EXAMPLE_PARAMS, "seed": seed}
    simulated = collection(**params)
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise PrefevalError(f"{target}: exists and is not a folder")
    target.mkdir(parents=True, exist_ok=True)
    written = {"qrels": target / "qrels.txt", "topics": target / "topics.tsv"}
    write_qrels(simulated.qrels, written["qrels"])
    simulated.topics.to_csv(written["topics"], sep="\t", header=False, index=False)
    for name, simulated_name in zip(EXAMPLE_RUNS, reversed(simulated.true_order)):
        written[name] = target / f"{name}.run"
        write_run(simulated.runs[simulated_name], written[name], tag=name)
    written["pipeline"] = target / "pipeline.toml"
    written["pipeline"].write_text(_EXAMPLE_PIPELINE.format(folder=target.as_posix()), encoding="utf-8")
    return written
