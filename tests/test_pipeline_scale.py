"""The scale pipeline: a generated recommendation collection compared on Dask gives the pipeline results of the
in-process engine (which materialises it), and the shipped scale-recsys.toml checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from prefeval.pipeline import Aggregate, Compare, Evaluate, Pipeline, Recsys

pytest.importorskip("pyarrow")  # the dask extra installs pyarrow (dask.dataframe needs it)

SIZE = dict(n_users=600, n_models=4, items_per_list=6, n_candidates=15, n_items=3000, users_per_partition=150,
            seed=4)


def run(engine: str, test: str):
    options = {"engine": engine, "workers": 2} if engine == "dask" else {}
    steps = [Recsys(**SIZE), Compare(["LexiRecall", "RPP"], **options), Evaluate(["nDCG@5"], **options),
             Aggregate(rankings=["mc4", "borda"], test=test, baseline="model02")]
    return Pipeline(steps, name="scale").run(progress=False)


@pytest.mark.integration
@pytest.mark.parametrize("test", ["sign", "t"])
def test_scale_pipeline_on_dask_equals_in_process(test):
    pytest.importorskip("distributed")  # here, not at collection: the unit run does not need it
    a, b = run("inprocess", test), run("dask", test)
    assert a.comparison.result("LexiRecall").kept and not b.comparison.result("LexiRecall").kept
    pd.testing.assert_frame_equal(a.versus_baseline, b.versus_baseline, check_exact=False, rtol=0, atol=1e-12)
    for label in a.rankings:
        pd.testing.assert_frame_equal(a.rankings[label], b.rankings[label], check_exact=False, rtol=0, atol=1e-12)
    for method in a.significance:
        pd.testing.assert_frame_equal(a.significance[method], b.significance[method], check_exact=False, rtol=0,
                                      atol=1e-12)
    pd.testing.assert_frame_equal(a.means, b.means, check_exact=False, rtol=0, atol=1e-12)
    assert np.isclose(a.tie_share("RPP"), b.tie_share("RPP"))
    assert len(b.judged_queries()) == 600 and b.simulated
