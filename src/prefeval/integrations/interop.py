"""prefeval inside PyTerrier and ranx workflows.

PyTerrier's ``pt.Experiment`` evaluates through ir-measures, so after ``import prefeval`` its ``eval_metrics`` may
mix prefeval's measures with standard ones; every measure then reports every query of the qrels (README, "Input
semantics"), so the means equal :func:`prefeval.evaluate`'s. This module adds what ``pt.Experiment`` lacks:

* :func:`sign_test` for ``pt.Experiment(test=sign_test)``: prefeval's sign test, so that the p-values of a
  preference measure against the Experiment's ``baseline=`` equal :meth:`prefeval.Comparison.significance`'s;
* :func:`experiment`: ``pt.Experiment`` with the mean columns in the order of ``eval_metrics`` (ir-measures
  groups measures in a set, so PyTerrier's order can change between Python processes) and a warning when a
  preference measure's ``baseline`` is not the Experiment's ``baseline=`` (its p-values then test the
  preference over one run against the preference of the Experiment's baseline over that same run);
* :func:`to_ranx_qrels` and :func:`to_ranx_run`: prefeval's canonical input as ranx objects (ranx ``Qrels``
  and ``Run`` are accepted wherever prefeval takes qrels or runs).

Nothing here starts a Java virtual machine: ``pt.Experiment`` on DataFrame transformers
(``pt.Transformer.from_df``) needs none.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

import prefeval.engine.provider  # noqa: F401  (installs prefeval's provider in ir-measures, which PyTerrier calls)
from prefeval.core.stats import sign_test as paired_sign_test
from prefeval.data.inputs import qrels_frame, run_frame, run_name
from prefeval.data.ranking import rank_run
from prefeval.engine.evaluate import parse_measures
from prefeval.methods.registry import declaration_of

__all__ = ["sign_test", "experiment", "to_ranx_qrels", "to_ranx_run"]


def sign_test(values: Sequence[float], baseline_values: Sequence[float]) -> tuple[float, float]:
    """Two-sided exact sign test of per-query ``values`` against ``baseline_values`` (the signature of
    ``pt.Experiment(test=...)``): wins minus losses and the binomial p-value, ties dropped; the test
    :meth:`prefeval.Comparison.significance` uses for preferences (``test="sign"``)."""
    diff = np.asarray(values, dtype=np.float64) - np.asarray(baseline_values, dtype=np.float64)
    result = paired_sign_test(diff[None, :])
    return float(np.asarray(result.statistic).reshape(-1)[0]), float(np.asarray(result.pvalue).reshape(-1)[0])


def _names(retr_systems: Any, names: Sequence[str] | None) -> list[str]:
    if isinstance(retr_systems, dict):
        return [str(n) for n in retr_systems]
    return [str(n) for n in names] if names is not None else [str(s) for s in retr_systems]


def _same_run(named: Any, label: str, system: Any) -> bool:
    """Whether a preference's ``baseline`` (a registered name or a path) names the Experiment's baseline run
    (its ``label`` among ``names``, and the system given for it): the same name, or a run file whose name
    (:func:`prefeval.data.inputs.run_name`) is the label, or the very file the system was given as."""
    if str(named) == label:
        return True
    path = os.fspath(named) if isinstance(named, (str, os.PathLike)) else None
    if path is None or not os.path.isfile(path):
        return False
    if run_name(path) == label:
        return True
    if isinstance(system, (str, os.PathLike)) and os.path.isfile(system):
        with contextlib.suppress(OSError):
            return os.path.samefile(path, system)
    return False


def experiment(retr_systems: Any, topics: pd.DataFrame, qrels: Any, eval_metrics: Sequence[Any], *,
               names: Sequence[str] | None = None, baseline: int | str | None = None, **kwargs: Any) -> Any:
    """``pt.Experiment(retr_systems, topics, qrels, eval_metrics, names=names, baseline=baseline, **kwargs)``
    with the mean columns in the order of ``eval_metrics`` and a warning for each preference measure whose
    ``baseline`` names another run than the Experiment's ``baseline=`` (matched with ``names``).
    ``qrels`` may be any qrels prefeval accepts; PyTerrier receives them as ``qid, docno, label``."""
    import pyterrier as pt  # deferred: optional (python-terrier)


    measures = parse_measures(list(eval_metrics))
    labels = _names(retr_systems, names)
    if baseline is not None:
        base = labels[baseline] if isinstance(baseline, int) else str(baseline)
        systems = list(retr_systems.values()) if isinstance(retr_systems, dict) else list(retr_systems)
        base_system = systems[labels.index(base)] if base in labels and len(systems) == len(labels) else None
        for m in measures:
            if (declaration_of(m) is not None and declaration_of(m).kind == "preference") \
                    and m.params.get("baseline") is not None \
                    and not _same_run(m.params["baseline"], base, base_system):
                warnings.warn(f"{m} prefers each run over {m['baseline']!r}, but the Experiment's baseline is "
                              f"{base!r}: its p-values compare preferences over {m['baseline']!r}, not the runs "
                              f"with {base!r}; set baseline={m['baseline']!r} in the measure or the Experiment",
                              stacklevel=2)
    frame = qrels_frame(qrels)
    pt_qrels = pd.DataFrame({"qid": frame["query_id"], "docno": frame["doc_id"], "label": frame["relevance"],
                             "iteration": frame["iteration"]})
    result = pt.Experiment(retr_systems, topics, pt_qrels, measures, names=names, baseline=baseline, **kwargs)
    if isinstance(result, pd.DataFrame) and "name" in result.columns and "measure" not in result.columns:
        order = [str(m) for m in measures]
        lead = [c for c in result.columns if c not in order and not any(c.startswith(f"{o} ") for o in order)]
        tests = [c for o in order for c in result.columns if c.startswith(f"{o} ")]  # "+", "-", "p-value", ...
        result = result[lead[:1] + [o for o in order if o in result.columns] + lead[1:] + tests]
    return result


def to_ranx_qrels(qrels: Any) -> Any:
    """``qrels`` (anything prefeval accepts) as a ranx ``Qrels``, conflicting lines resolved as for every prefeval
    measure; one grade per (query, document): the highest over subtopics."""
    from ranx import Qrels  # deferred: optional (ranx)


    grades = qrels_frame(qrels).groupby(["query_id", "doc_id"], sort=False)["relevance"].max()
    nested: dict[str, dict[str, int]] = {}
    for (query, doc), grade in grades.items():
        nested.setdefault(str(query), {})[str(doc)] = int(grade)
    return Qrels(nested)


def to_ranx_run(run: Any, name: str = "run") -> Any:
    """``run`` (anything prefeval accepts) as a ranx ``Run`` named ``name``, ranked as every prefeval measure ranks
    it (:func:`prefeval.data.ranking.canonical_run`: ties by doc id descending, a repeated document at its first
    position, score = -rank), so ranx's metrics see prefeval's order."""
    from ranx import Run  # deferred: optional (ranx)


    return Run(rank_run(run_frame(run, name), name=name).to_dict(), name=name)
