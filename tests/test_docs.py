"""The documentation site and its examples, as a user meets them.

- ``mkdocs build --strict`` passes with MkDocs' link and anchor validation on (mkdocs.yml ``validation``), so a
  dead link, a missing anchor or a page outside the navigation fails the build;
- the API reference shows cross-references, not Sphinx roles (docs/_hooks/sphinx_roles.py);
- no built page loads anything from another host (no CDN: Pygments highlights at build time);
- every entry point's page links to the Input semantics page;
- every Python example is a doctest (``>>>`` with its output) or says why it is only shown, and there are at
  least 20 of them; they run from any folder (``python -m pytest --doctest-glob="*.md" README.md docs``).
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
ROLES = re.compile(r":(?:py:)?(?:class|func|meth|mod):")
LOADS = re.compile(r"<(?:script|link|img|iframe|source|video|audio|embed|object)\b[^>]*\b(?:src|href|data)=[\"']"
                   r"(?:https?:)?//", re.IGNORECASE)
CSS_LOADS = re.compile(r"(?:url\(\s*[\"']?|@import\s+[\"']?)(?:https?:)?//", re.IGNORECASE)
ENTRY_POINT_PAGES = ["getting-started.md", "guide/measures.md", "guide/compare.md", "guide/datasets.md",
                     "pipelines.md", "guide/meta-evaluation.md", "diversity.md", "performance.md"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    target = tmp_path_factory.mktemp("site")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(target)],
                          cwd=REPO, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "WARNING" not in done.stderr, done.stderr[-3000:]
    return target


@pytest.mark.integration
def test_mkdocs_build_strict(site):
    assert (site / "api" / "compare.html").is_file()  # use_directory_urls: false (file:// navigation works)
    guide = (site / "guide" / "compare.html").read_text(encoding="utf-8")
    assert "pref_aggregate" in guide
    assert (site / "input-semantics.html").is_file()


@pytest.mark.integration
def test_api_pages_render_cross_references_not_roles(site):
    pages = sorted(site.rglob("*.html"))
    raw = {str(p.relative_to(site)): ROLES.findall(p.read_text(encoding="utf-8")) for p in pages}
    assert not {name: found for name, found in raw.items() if found}
    api = "".join(p.read_text(encoding="utf-8") for p in (site / "api").glob("*.html"))
    assert api.count('class="autorefs autorefs-internal"') > 20


@pytest.mark.integration
def test_no_page_loads_anything_from_another_host(site):
    for page in [*site.rglob("*.html"), *site.rglob("*.css")]:
        text = page.read_text(encoding="utf-8", errors="replace")
        assert not LOADS.findall(text) and not CSS_LOADS.findall(text), page.relative_to(site)
    assert "highlight" in (site / "getting-started.html").read_text(encoding="utf-8")  # Pygments classes


@pytest.mark.integration
def test_edit_links_point_at_main(site):
    text = (site / "getting-started.html").read_text(encoding="utf-8")
    assert "/edit/main/docs/getting-started.md" in text and "/edit/master/" not in text


# ---------------------------------------------------------------------------------------------------------
# unit checks on the sources


def test_mkdocs_validation_makes_links_and_anchors_fail_the_strict_build():
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    block = config.split("validation:", 1)[1].split("\nhooks:", 1)[0]
    for key in ("not_found: warn", "anchors: warn", "unrecognized_links: warn", "omitted_files: warn"):
        assert key in block, key
    assert "strict: true" in config and "edit_uri: edit/main/docs/" in config and "highlightjs: false" in config


def test_every_docs_page_is_in_the_navigation():
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w./-]+\.md)\s*$", config, flags=re.MULTILINE))
    pages = {str(p.relative_to(REPO / "docs")) for p in (REPO / "docs").rglob("*.md")}
    assert pages == listed, (pages - listed, listed - pages)


@pytest.mark.parametrize("page", ENTRY_POINT_PAGES)
def test_entry_point_pages_link_to_input_semantics(page):
    path = REPO / "docs" / page
    target = os.path.relpath(REPO / "docs" / "input-semantics.md", path.parent).replace(os.sep, "/")
    assert f"]({target})" in path.read_text(encoding="utf-8")


def test_readme_is_a_landing_page_with_the_test_command():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) < 15_000
    command = text.split("<!-- test-command -->\n```sh\n", 1)[1].split("```", 1)[0].strip()
    assert command.startswith('pip install ".[test]" && python -m pytest -q && python -m pytest -q -m integration')
    assert '--doctest-glob="*.md" README.md docs' in command
    assert "docs/input-semantics.md" in text


def _python_blocks(page: Path) -> list[tuple[str, str]]:
    text = page.read_text(encoding="utf-8")
    return [(m.group(1) or "", m.group(2)) for m in
            re.finditer(r"(?:<!-- no-run: ?([^>]*?) ?-->\n *)?```python\n(.*?)```", text, flags=re.DOTALL)]


def test_python_examples_are_doctests_or_say_why_not():
    parser = doctest.DocTestParser()
    examples = 0
    for page in PAGES:
        for reason, code in _python_blocks(page):
            if ">>>" not in code:
                assert reason.strip(), f"{page.relative_to(REPO)}: a Python block without >>> and without a reason"
        for example in parser.get_examples(page.read_text(encoding="utf-8")):
            if example.options.get(doctest.SKIP):
                assert "doctest: +SKIP" in example.source
                continue
            examples += 1
    assert examples >= 20, examples


@pytest.mark.integration
def test_doctests_pass_from_another_folder(tmp_path):
    """The README's doctest command, run from a folder outside the checkout (as a user's session)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                           "--doctest-glob=*.md", str(REPO / "README.md"), str(REPO / "docs")],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r"\b(\d+) passed", done.stdout) and int(re.search(r"\b(\d+) passed", done.stdout)[1]) >= 8
    assert list(tmp_path.iterdir()) == [], "the examples wrote into the working folder"


def _public_modules() -> list[str]:
    """Every module of the package whose dotted name has no part starting with ``_`` (the package face too)."""
    src = REPO / "src"
    names = []
    for path in sorted((src / "prefeval").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not any(part.startswith("_") for part in parts):
            names.append(".".join(parts))
    return names


def test_api_reference_documents_every_public_module_once():
    """Each public module (the layer packages and their modules) is the target of exactly one ``::: name`` line
    of docs/api/*.md, so the API reference is complete and has one primary URL per object."""
    targets: list[str] = []
    for page in sorted((REPO / "docs" / "api").glob("*.md")):
        targets += re.findall(r"^::: ([\w.]+)\s*$", page.read_text(encoding="utf-8"), flags=re.MULTILINE)
    repeated = sorted({t for t in targets if targets.count(t) > 1})
    assert not repeated, f"documented more than once: {repeated}"
    missing = [m for m in _public_modules() if m not in targets and m != "prefeval"]
    if "::: prefeval.compare\n" in (REPO / "docs" / "api" / "compare.md").read_text(encoding="utf-8"):
        # the page from before engine/compare.py was split documents the module's face, prefeval.compare;
        # the split rewrites that page by module (and then this exemption no longer applies)
        missing = [m for m in missing if m != "prefeval.engine.compare"]
    # `::: prefeval` documents the package face (with a members list); every other module by its own name
    assert "prefeval" in targets
    assert not missing, f"public modules missing from docs/api/*.md: {missing}"
    assert "prefeval.data.trec" in targets and "prefeval.report.html" in targets and "prefeval.methods.names" in targets


def test_every_dotted_name_in_the_docs_works_after_import_prefeval(tmp_path):
    """``prefeval.data.simulate.write_example``, ``prefeval.integrations.interop``, ...: every dotted name README.md
    and docs/ write resolves by attribute access after ``import prefeval`` alone, in a fresh interpreter (as a user
    types it; the layer packages import their modules on first access)."""
    names = sorted({m for page in PAGES for m in re.findall(r"\bprefeval(?:\.[A-Za-z_]\w*)+",
                                                             page.read_text(encoding="utf-8"))})
    assert "prefeval.data.simulate.write_example" in names and len(names) > 20
    code = ("import operator, sys, prefeval\n"
            "bad = []\n"
            "for name in sys.argv[1:]:\n"
            "    try:\n"
            "        operator.attrgetter(name.split('.', 1)[1])(prefeval)\n"
            "    except AttributeError as exc:\n"
            "        bad.append(f'{name}: {exc}')\n"
            "print('\\n'.join(bad))\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    for first in ("prefeval.data.simulate.write_example", "prefeval.integrations.interop", "prefeval.report.html"):
        done = subprocess.run([sys.executable, "-c", code, first], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr[-2000:]
    done = subprocess.run([sys.executable, "-c", code, *names], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr[-2000:]


def test_input_semantics_states_the_readers_limits():
    """The grade range and the ``rel`` range the Input semantics page states are the constants the code checks."""
    from prefeval.data.trec import MAX_GRADE, MIN_GRADE
    from prefeval.methods.registry import MAX_REL

    page = " ".join((REPO / "docs" / "input-semantics.md").read_text(encoding="utf-8").split())
    assert f"from {MIN_GRADE} to {MAX_GRADE}" in page
    assert f"`rel` is an integer from 1 to {MAX_REL}" in page
    assert "16 MiB" not in page and "numpy" not in page and "PREFEVAL_TEST_WITHOUT_PYARROW" not in page


def test_installation_page_names_every_extra_and_what_fast_holds():
    """guide/install.md names each extra of pyproject.toml; it says the `fast` extra is python-isal only and that
    pyarrow is a core dependency (the one reader); no page mentions a pyarrow-less mode."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    page = " ".join((REPO / "docs" / "guide" / "install.md").read_text(encoding="utf-8").split())
    for extra in extras:
        assert f"`{extra}` (" in page, extra
    assert [re.split(r"[<>=\[;]", r)[0].strip() for r in extras["fast"]] == ["isal"]
    assert "`fast` (python-isal only" in page
    assert any(r.startswith("pyarrow") for r in project["dependencies"]) and "pyarrow (the one reader" in page
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        for stale in ("nopyarrow", "PREFEVAL_TEST_WITHOUT_PYARROW", "without pyarrow", "textscan", "16 MiB"):
            assert stale not in text, (path.name, stale)
    assert "nopyarrow" not in (REPO / "tox.ini").read_text(encoding="utf-8")


def test_api_face_page_names_every_name_bound_on_first_use():
    """docs/api/prefeval.md names each name ``import prefeval`` binds lazily (``prefeval.table``, ``read_run``,
    the measures, ...) and each layer package, with the module that documents it."""
    import prefeval

    page = (REPO / "docs" / "api" / "prefeval.md").read_text(encoding="utf-8")
    for name, (module, _attr) in prefeval._LAZY.items():
        assert f"`prefeval.{name}`" in page, name
        assert module in page or module.rsplit(".", 1)[0] in page, (name, module)
    for layer in prefeval._LAYERS:
        assert f"`prefeval.{layer}`" in page, layer


def test_the_example_collection_is_described_as_written():
    """README.md and getting-started.md describe ``prefeval example``'s collection with its parameters: the number of
    queries, the grades, the judged depth and the run names in order of simulated quality."""
    from prefeval.data.simulate import EXAMPLE_PARAMS, EXAMPLE_RUNS

    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    started = " ".join((REPO / "docs" / "getting-started.md").read_text(encoding="utf-8").split())
    n, top = EXAMPLE_PARAMS["n_queries"], EXAMPLE_PARAMS["max_grade"]
    assert f"`qrels.txt` ({n} queries, graded 0-{top})" in readme
    assert ", ".join(f"`{name}.run`" for name in EXAMPLE_RUNS) in readme
    assert f"`qrels.txt` ({n} queries, grades 0-{top}, judged to depth {EXAMPLE_PARAMS['judged_depth']})" in started
    assert ", ".join(f"`{name}`" for name in EXAMPLE_RUNS) in started
