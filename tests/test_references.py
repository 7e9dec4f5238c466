"""Citations in code, docs and help resolve to papers of prefeval.methods.references; no internal document names."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from prefeval.methods.references import PAPERS, cite

REPO = Path(__file__).resolve().parent.parent
TEXTS = [*sorted((REPO / "src").rglob("*.py")), *sorted((REPO / "docs").rglob("*.md")),
         *sorted((REPO / "pipelines").rglob("*.toml")), REPO / "README.md",
         *sorted(p for p in (REPO / "tests").rglob("*.py") if p.name != "test_references.py"),
         *sorted((REPO / "benchmarks").rglob("*.py"))]
INTERNAL = re.compile(r"spec §|spec/|spec lexi|spec rbu|DESIGN\.md|\bdigest\b|digest's|lexirecall §|seed 00|"
                      r"§[AB]\d|/w[o]rk/")  # [o]: this pattern must not match itself
CITATION = re.compile(r"((?:[A-Z][\w\-ó]+)(?: (?:& [A-Z][\w\-ó]+|et al\.))?) \((\d{4})\)")


def test_no_internal_references():
    found = [f"{path.relative_to(REPO)}:{n}: {line.strip()}" for path in TEXTS
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if INTERNAL.search(line)]
    assert not found, "\n".join(found)


def test_every_citation_names_a_known_paper():
    known = {paper.short for paper in PAPERS.values()}
    unknown = {f"{m.group(1)} ({m.group(2)}) in {path.relative_to(REPO)}" for path in TEXTS
               for m in CITATION.finditer(path.read_text(encoding="utf-8"))
               if f"{m.group(1)} ({m.group(2)})" not in known}
    assert not unknown, sorted(unknown)


def test_reference_forms():
    assert cite("diaz-mitra-2023", "§5.2, Eq. 11") == "Diaz & Mitra (2023) §5.2, Eq. 11"
    assert PAPERS["amigo-2018"].short == "Amigó et al. (2018)"
    assert PAPERS["diaz-ferraro-2022"].full().endswith("https://doi.org/10.1145/3477495.3532033")


def test_help_texts_have_no_internal_references():
    for command in ("axioms", "compare", "eval", "analyse", "run", "datasets"):
        out = subprocess.run([sys.executable, "-m", "prefeval", command, "--help"], capture_output=True, text=True,
                             env={"PYTHONPATH": str(REPO / "src"), "PATH": ""}, check=False)
        assert out.returncode == 0, out.stderr
        assert not INTERNAL.search(out.stdout) and "seed00" not in out.stdout, command
