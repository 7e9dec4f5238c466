"""The one evaluation function computes trec_eval's common measures with the numpy kernels
(:mod:`prefeval.core.trec_measures`, wired in :class:`prefeval.engine.values.MeasureEvaluator`): its values equal
those of the ir-measures providers it replaces (pytrec_eval, ``judged``, ``msmarco`` for RR@k) per query, on random
collections with tied scores, repeated documents, unjudged and negatively judged documents, judged queries a run
lacks and queries the qrels do not judge, at rel 1..3, and on the DL-Hard and TREC Web 2012 runs."""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest

from prefeval.data.inputs import qrels_frame
from prefeval.data.ranking import rank_run
from prefeval.engine.evaluate import parse_measures
from prefeval.engine.values import MeasureEvaluator, kernel_measure

KERNEL_MEASURES = ["nDCG@10", "nDCG", "nDCG@3", "AP", "AP@5", "P@5", "P@1", "R@20", "R@1000", "RR", "Rprec",
                   "Success@3", "NumRet", "NumRelRet"]
OTHER_PROVIDERS = {"RR@10": "msmarco", "RR@3": "msmarco", "Judged@10": "judged", "Judged@3": "judged"}
DOCS = ["d0", "d1", "D1", "d10", "d2", "0012", "12", "é", "a-b", "z"] + [f"n{k}" for k in range(20)]


def collection(seed: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    rng = np.random.default_rng(seed)
    qrels = [(f"q{q}", str(d), int(rng.integers(-1, 4)) if q != 4 else 0)
             for q in range(6) for d in rng.choice(DOCS, int(rng.integers(1, 12)), replace=False)]
    runs = {}
    for r in range(3):
        rows = []
        for q in rng.permutation(7):  # q6 is not judged; each run lacks one judged query
            if q == r:
                continue
            docs = rng.choice(DOCS, int(rng.integers(1, 25)))  # with repeats
            rows += [(f"q{q}", str(d), float(rng.integers(0, 4))) for d in docs]
        runs[f"r{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]), runs


def provider_values(names: list[str], qrels: pd.DataFrame, ranked, provider: str) -> np.ndarray:
    measures = parse_measures(names)
    return MeasureEvaluator(measures, qrels, provider=ir_measures.providers.registry[provider]).values(ranked)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("rel", [1, 2, 3])
def test_kernels_equal_the_providers_they_replace(seed, rel):
    qrels, runs = collection(seed)
    qrels = qrels_frame(qrels)
    names = KERNEL_MEASURES + list(OTHER_PROVIDERS)
    measures = parse_measures(names, rel)
    evaluator = MeasureEvaluator(measures, qrels)
    assert evaluator._kernels is not None and len(evaluator._kernels[1]) == len(names)  # every one by a kernel
    for name, frame in runs.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # repeated documents
            ranked = rank_run(frame, name=name)
        got = evaluator.values(ranked)
        want = provider_values(KERNEL_MEASURES, qrels, ranked, "pytrec_eval") if rel == 1 else \
            MeasureEvaluator(measures[:len(KERNEL_MEASURES)], qrels,
                             provider=ir_measures.providers.registry["pytrec_eval"]).values(ranked)
        assert np.array_equal(got[:len(KERNEL_MEASURES)], want), name
        for k, other in enumerate(OTHER_PROVIDERS, len(KERNEL_MEASURES)):
            reference = MeasureEvaluator([measures[k]], qrels,
                                         provider=ir_measures.providers.registry[OTHER_PROVIDERS[other]])
            assert np.allclose(got[k], reference.values(ranked)[0], rtol=0, atol=1e-15), (name, other)


def test_depth_cuts_every_ranking():
    qrels, runs = collection(3)
    qrels = qrels_frame(qrels)
    measures = parse_measures(["NumRet", "AP", "P@10"])
    ranked = rank_run(runs["r1"].drop_duplicates(["query_id", "doc_id"]), name="r1")
    got = MeasureEvaluator(measures, qrels, depth=4).values(ranked)
    want = MeasureEvaluator(measures, qrels, provider=ir_measures.providers.registry["pytrec_eval"],
                            depth=4).values(ranked)
    assert np.array_equal(got, want) and got[0].max() == 4


@pytest.mark.parametrize("name", ["nDCG(judged_only=True)@10", "nDCG(dcg='exp-log2')@10", "nDCG(gains={0:0,1:5})@10",
                                  "ERR@10", "Bpref", "IPrec@0.1", "RBU@20", "NumQ", "NumRel"])
def test_measures_without_a_kernel_go_to_their_providers(name):
    assert kernel_measure(parse_measures([name])[0]) is None


def test_shared_runs_equal_pytrec_eval(shared_data):
    """DL-Hard (passage and document) and TREC Web 2012 ad hoc runs, at rel 1 and 2."""
    from prefeval.data.trec import read_qrels, read_run

    cases = [("dl-hard/dl_hard-passage.qrels", "dl-hard/runs/passage"), ("dl-hard/dl_hard-doc.qrels",
                                                                         "dl-hard/runs/doc"),
             ("trec-web-2012/qrels.adhoc.txt", "trec-web-2012/runs")]
    for qrels_path, folder in cases:
        qrels = qrels_frame(read_qrels(shared_data / qrels_path))
        for rel in (1, 2):
            measures = parse_measures(KERNEL_MEASURES, rel)
            ours = MeasureEvaluator(measures, qrels)
            theirs = MeasureEvaluator(measures, qrels, provider=ir_measures.providers.registry["pytrec_eval"])
            for path in sorted((shared_data / folder).glob("*.run.gz"))[:4]:
                ranked = rank_run(read_run(path), name=path.name)
                assert np.array_equal(ours.values(ranked), theirs.values(ranked)), (path.name, rel)
