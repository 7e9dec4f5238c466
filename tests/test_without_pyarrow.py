"""The suite without pyarrow: CI runs the unit tests both ways, as the tox env ``nopyarrow`` does.

pyarrow is optional (the ``fast`` extra): without it pandas keeps ids as Python objects and prefeval reads runs
with pandas' tokenizer; every value must stay the same. ``PREFEVAL_TEST_WITHOUT_PYARROW=1`` makes
``tests/conftest.py`` block ``import pyarrow`` before anything imports pandas, so the unit suite runs as in an
environment where pyarrow is not installed (tests of Arrow-only features skip).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BLOCKED = bool(os.environ.get("PREFEVAL_TEST_WITHOUT_PYARROW"))


@pytest.mark.skipif(not BLOCKED, reason="runs only inside the suite without pyarrow")
def test_pyarrow_is_blocked() -> None:
    import pandas as pd

    with pytest.raises(ImportError):
        import pyarrow  # noqa: F401
    assert "pyarrow" not in str(pd.Series(["a"]).dtype).lower() + repr(pd.Series(["a"]).array)

    import prefeval

    run = prefeval.io.read_run(__import__("io").StringIO("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n"))
    assert run["doc_id"].tolist() == ["d1", "d2"]


@pytest.mark.integration
@pytest.mark.skipif(BLOCKED, reason="already inside the suite without pyarrow")
def test_unit_suite_passes_without_pyarrow() -> None:
    env = dict(os.environ, PREFEVAL_TEST_WITHOUT_PYARROW="1")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=3600)
    tail = "\n".join(proc.stdout.splitlines()[-30:])
    assert proc.returncode == 0, f"the unit suite fails without pyarrow:\n{tail}\n{proc.stderr[-2000:]}"
    assert " passed" in tail
    assert "runs only inside the suite without pyarrow" not in proc.stdout  # the block did take effect
