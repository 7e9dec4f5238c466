"""Packaging: built-in pipelines as package data, ``prefeval --version``/``pipelines``/``run demo``, extras,
and a wheel installed outside the checkout."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import venv
from contextlib import redirect_stdout
from pathlib import Path

import pytest

import prefeval
from prefeval.commands.cli import main as cli_main
from prefeval.commands.run_cmd import builtin_pipelines, resolve_pipeline
from prefeval.errors import PrefevalError

REPO = Path(__file__).resolve().parent.parent


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        try:
            code = cli_main(list(args))
        except SystemExit as exc:  # argparse's --version
            code = int(exc.code or 0)
    return code, out.getvalue()


def test_version():
    assert _cli("--version") == (0, f"prefeval {prefeval.__version__}\n")


def test_pipelines_lists_every_builtin_with_one_line():
    code, text = _cli("pipelines")
    assert code == 0
    lines = text.splitlines()
    assert [line.split()[0] for line in lines] == list(builtin_pipelines())
    assert "demo" in builtin_pipelines() and all(len(line.split()) > 1 for line in lines)


def test_checkout_pipelines_folder_is_the_package_data():
    assert sorted(p.name for p in (REPO / "pipelines").glob("*.toml")) == \
        sorted(p.name for p in builtin_pipelines().values())


def test_resolve_builtin_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no pipelines/ folder here
    demo = str(builtin_pipelines()["demo"])
    assert resolve_pipeline("demo") == resolve_pipeline("demo.toml") == resolve_pipeline("pipelines/demo.toml") == demo
    (tmp_path / "demo").write_text("[pipeline]\n")
    assert resolve_pipeline("demo") == "demo"  # an existing file wins
    with pytest.raises(PrefevalError, match="built-in pipeline: demo"):
        resolve_pipeline("other/demo.toml")


def test_missing_extra_is_named(monkeypatch):
    import ir_measures

    from prefeval.integrations.extras import check_measures

    provider = ir_measures.providers.registry["pyndeval"]
    monkeypatch.setattr(provider, "_is_available", False)
    with pytest.raises(PrefevalError, match=r"pip install 'prefeval\[diversity\]'"):
        check_measures(["nDCG@10", "alpha_nDCG@10"], "the axioms table")
    with pytest.raises(PrefevalError, match=r"pip install 'prefeval\[diversity\]'"):  # prefeval's entry points
        prefeval.evaluate({"1": {"d": 1}}, {"a": {"1": {"d": 1.0}}}, ["alpha_nDCG@10"])
    assert "prefeval" not in provider.install_instructions()  # ir-measures' own providers are left as they are


def _network_failure(text: str) -> bool:
    return any(s in text for s in ("No matching distribution", "Could not find a version", "NewConnectionError",
                                   "Temporary failure in name resolution", "Network is unreachable"))


def _running_site_packages() -> list[str]:
    """The site-packages folders of the interpreter running the tests (the test venv's, plus the system's only
    when that venv itself includes them): where the project's declared dependencies are installed."""
    found = [entry for entry in sys.path if Path(entry).name in ("site-packages", "dist-packages")]
    return list(dict.fromkeys(str(Path(entry).resolve()) for entry in found if Path(entry).is_dir()))


def _inherit_running_packages(python: Path, env: dict[str, str]) -> None:
    """Make the running environment's packages importable in the new venv through a ``.pth`` file of folder
    lines. The folders come after the venv's own site-packages (the wheel's prefeval wins), and ``.pth`` files
    inside them are not processed (an editable install of the checkout stays out). The new venv is isolated from
    the base interpreter (``venv``'s default), so only the packages the test venv installed reach it."""
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, env=env, check=True).stdout.strip()
    folders = _running_site_packages()
    assert folders, "the running interpreter has no site-packages folder on sys.path"
    (Path(purelib) / "_prefeval_test_dependencies.pth").write_text("\n".join(folders) + "\n", encoding="utf-8")


@pytest.mark.integration
def test_wheel_installed_outside_the_checkout_runs_the_demo(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    dist = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(REPO)],
                           capture_output=True, text=True, env=env, cwd=tmp_path)
    if build.returncode != 0 and _network_failure(build.stdout + build.stderr):
        pytest.skip("building the wheel needs setuptools from the package index, which is unreachable")
    assert build.returncode == 0, build.stderr
    wheel = next(dist.glob("prefeval-*.whl"))
    # prefeval from the wheel only; its dependencies from the environment running this test (no network needed)
    root = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(root)  # isolated: nothing of the base interpreter
    bindir = root / ("Scripts" if os.name == "nt" else "bin")
    python, command = bindir / "python", str(bindir / "prefeval")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, env=env,
                   cwd=tmp_path)
    _inherit_running_packages(python, env)  # after pip: an installed prefeval there must not make pip skip the wheel
    work = tmp_path / "elsewhere"
    work.mkdir()

    def run(*args: str) -> str:
        done = subprocess.run(list(args), capture_output=True, text=True, env=env, cwd=work)
        assert done.returncode == 0, done.stderr
        return done.stdout

    location = Path(run(str(python), "-c", "import prefeval; print(prefeval.__file__)").strip())
    assert root in location.parents  # the wheel, not this checkout or another editable install
    assert run(command, "--version").strip() == f"prefeval {prefeval.__version__}"
    assert "demo" in run(command, "pipelines")
    out = tmp_path / "demo-out"
    run(command, "run", "demo", "--out", str(out), "-q")
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "simulated" in report.lower() and (out / "summary.json").is_file()
    shutil.rmtree(root)
