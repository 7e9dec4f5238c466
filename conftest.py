"""The documentation's examples as doctests: ``python -m pytest --doctest-glob="*.md" README.md docs``.

Each page runs in a fresh temporary folder, as a user who copies its examples into a new session would:
the examples write the files they read (``prefeval.simulate.write_example``, the files of ``prefeval example``).
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _doctest_in_a_fresh_folder(request, tmp_path, monkeypatch):
    """A Markdown page's examples run in an empty temporary folder, offline, with pandas printing wide frames."""
    if type(request.node).__name__ != "DoctestItem":
        yield
        return
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PREFEVAL_OFFLINE", "1")
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / ".ir_datasets"))
    import pandas as pd

    with pd.option_context("display.width", 120, "display.max_columns", 20):
        yield
