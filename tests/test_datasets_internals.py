"""prefeval reads private classes of ir_datasets to list and guard dataset files: pin the versions it was
tested with, and check that another version gets a clear message instead of a quiet failure."""

from __future__ import annotations

import ir_datasets
import pytest

from prefeval.data import datasets
from prefeval.data.datasets import files
from prefeval.errors import PrefevalError


def test_installed_ir_datasets_is_a_tested_version_with_the_private_api():
    assert ".".join(ir_datasets.__version__.split(".")[:2]) in datasets.TESTED_IR_DATASETS
    assert datasets.private_api_problem() is None


def test_a_changed_private_api_is_reported_clearly(monkeypatch):
    monkeypatch.setitem(datasets.PRIVATE_API, "ir_datasets.util:Migrator", ("_wrapped", "_renamed_field"))
    datasets.private_api_problem.cache_clear()
    try:
        problem = datasets.private_api_problem()
        assert problem is not None and "Migrator._renamed_field" in problem
        assert "tested with ir_datasets 0.6.x" in problem
        with pytest.raises(PrefevalError, match="lacks Migrator._renamed_field"):
            files.require_private_api()
    finally:
        monkeypatch.undo()
        datasets.private_api_problem.cache_clear()
    assert datasets.private_api_problem() is None
