"""Shared fixtures. Tests that need the TREC data in ``../shared/data`` skip cleanly without it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("PREFEVAL_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder ``../shared/data`` beside the checkout (override with PREFEVAL_SHARED_DATA)."""
    if not (SHARED_DATA / "dl-hard").is_dir():
        pytest.skip("../shared/data is not available")
    return SHARED_DATA


try:  # property tests must not fail on a slow CI machine because of hypothesis' per-example deadline
    from hypothesis import settings

    settings.register_profile("prefeval", deadline=None)
    settings.load_profile("prefeval")
except ImportError:  # pragma: no cover
    pass
