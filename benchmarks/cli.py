"""End to end: ``prefeval compare`` on the 14 DL-Hard document runs vs the authors' tool and a stdlib script.

Three commands on the same files (qrels + 14 gzip runs), each a fresh interpreter (start-up included, prefeval
from compiled bytecode as when installed), taking turns, best of ``--repeat`` wall-clock times and the peak RSS of
each child process:

* ``prefeval compare QRELS RUN... -m LexiRecall LexiPrecision "RPP(graded=False)" --per-query --format csv -q``;
* the authors' ``pref_eval.py -R QRELS -m lexirecall -m lexiprecision -m rpp -q RUN...`` (Diaz & Ferraro's public
  tool, github.com/diazf/pref_eval) -- its path from the ``PREF_EVAL`` environment variable; skipped with a
  message when it is not set. Its ``rpp`` is binary RPP (a document is relevant from the query's lowest positive
  grade, here grade >= 1: its per-grade loop reads one cached vector), so prefeval computes ``RPP(graded=False)``:
  the same three measures on both sides, and its per-query values are checked equal to prefeval's;
* ``benchmarks/naive_compare.py`` (a per-pair stdlib-only implementation of the same three definitions, each run's
  position vectors built once); its per-query values are checked equal to prefeval's.

Also timed: ``import prefeval`` alone and the modules the command imports (scipy, statsmodels, matplotlib,
ir_datasets, pandas, pyarrow) as seen by ``sys.modules`` at exit.

``--without isal`` runs prefeval as if that optional module were not installed (its import fails), as in an
environment without the ``fast`` extra: gzip files are then inflated by zlib (pyarrow is a dependency: it reads every
file).

Run: ``PREF_EVAL=/path/to/pref_eval.py python benchmarks/cli.py [--data PATH] [--repeat 3] [--without MODULE...]``.
"""

from __future__ import annotations

import argparse
import compileall
import csv
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
HEAVY = ("scipy", "statsmodels", "matplotlib", "ir_datasets", "pandas", "pyarrow")


def measure(cmd: list[str]) -> tuple[float, float, bytes]:
    """Wall time, peak RSS (MB, from ``os.wait4``) and standard output of one run of ``cmd``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"{' '.join(cmd[:4])} ... failed ({os.waitstatus_to_exitcode(status)}): {err.decode()[-500:]}")
    return wall, usage.ru_maxrss / 1024, out


#: the measures compared: prefeval's name -> pref_eval.py's
MEASURES = {"LexiRecall": "lexirecall", "LexiPrecision": "lexiprecision", "RPP(graded=False)": "rpp"}


def values(text: bytes) -> dict[tuple[str, ...], float]:
    return {(r["method"], r["query_id"], r["run_a"], r["run_b"]): float(r["value"])
            for r in csv.DictReader(io.StringIO(text.decode()))}


def pref_eval_values(text: bytes) -> dict[tuple[str, ...], float]:
    """pref_eval.py's per-query preferences (JSON lines) keyed as :func:`values` (runs named without ``.run``)."""
    out = {}
    for line in text.decode().splitlines():
        row = json.loads(line)
        if row.get("type") != "preference":
            continue
        a, b = row["runi"].removesuffix(".run"), row["runj"].removesuffix(".run")
        out.update({(ours, row["qid"], a, b): float(row[theirs]) for ours, theirs in MEASURES.items()})
    return out


def equal(ours: dict[tuple[str, ...], float], theirs: dict[tuple[str, ...], float]) -> bool:
    """Every value of ``theirs`` is prefeval's (a pair listed the other way round: the negated value)."""
    def mine(key: tuple[str, ...]) -> float | None:
        method, query, a, b = key
        if key in ours:
            return ours[key]
        return -ours[(method, query, b, a)] if (method, query, b, a) in ours else None

    return bool(theirs) and all(mine(k) is not None and abs(mine(k) - v) < 1e-9 for k, v in theirs.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder (with dl-hard/)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--without", nargs="+", default=[], metavar="MODULE",
                        help="optional modules prefeval must run without (e.g. isal)")
    args = parser.parse_args()
    folder = args.data / "dl-hard"
    if not folder.is_dir():
        sys.exit(f"DL-Hard data not found under {args.data}; pass --data")
    qrels = str(folder / "dl_hard-doc.qrels")
    runs = [str(p) for p in sorted((folder / "runs" / "doc").glob("*.run.gz"))]
    print(f"{len(runs)} DL-Hard doc runs; LexiRecall + LexiPrecision + binary RPP per query; best of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.2f} at start", flush=True)
    py = sys.executable
    prefeval = [py, "-m", "prefeval"]
    if args.without:  # the modules' imports fail, as when they are not installed; then the program as ``-m`` runs it
        print(f"prefeval runs without {', '.join(args.without)}")
        prefeval = [py, "-c", f"import sys; sys.modules.update(dict.fromkeys({args.without!r})); sys.argv[0] = '-m'; "
                    "from prefeval.commands.cli import main; sys.exit(main())"]
    commands = {
        "prefeval compare": [*prefeval, "compare", qrels, *runs, "-m", *MEASURES, "--per-query", "--format", "csv",
                             "-q"],
        "stdlib per-pair script": [py, str(ROOT / "benchmarks" / "naive_compare.py"), qrels, *runs],
    }
    pref_eval = os.environ.get("PREF_EVAL")
    if pref_eval and Path(pref_eval).is_file():
        commands["pref_eval.py (authors)"] = [py, pref_eval, "-R", qrels, "-m", "lexirecall", "-m", "lexiprecision",
                                              "-m", "rpp", "-q", "-n", *runs]
    else:
        print("pref_eval.py skipped: set PREF_EVAL to the authors' pref_eval.py (github.com/diazf/pref_eval)")
    commands["python -c 'import prefeval'"] = [py, "-c", "import prefeval"]
    if args.without:
        commands["python -c 'import prefeval'"][2] = f"import sys; sys.modules.update(dict.fromkeys({args.without!r})); " \
            "import prefeval"
    commands["python -c pass (start-up)"] = [py, "-c", "pass"]
    # An installed package runs from compiled bytecode (pip compiles it); the source tree may have none (e.g. under
    # PYTHONDONTWRITEBYTECODE), so compile it once instead of timing the compiler on every run.
    compileall.compile_dir(ROOT / "src", quiet=1)
    results: dict[str, tuple[float, float, bytes]] = {}
    for _ in range(args.repeat):  # the commands take turns, so a burst of load on the machine hits them alike
        for label, cmd in commands.items():
            run = measure(cmd)
            if label not in results or run[0] < results[label][0]:
                results[label] = run
    for label, (wall, rss, _) in results.items():
        print(f"  {label:<30} {wall:7.3f} s   peak RSS {rss:6.0f} MB", flush=True)
    ours = results["prefeval compare"]
    got, expected = values(ours[2]), values(results["stdlib per-pair script"][2])
    same = got.keys() == expected.keys() and all(abs(got[k] - expected[k]) < 1e-9 for k in got)
    print(f"per-query values equal to the stdlib script's: {same} ({len(got):,} rows)")
    if "pref_eval.py (authors)" in results:
        theirs = pref_eval_values(results["pref_eval.py (authors)"][2])
        same_as_authors = equal(got, theirs)
        print(f"per-query values equal to pref_eval.py's: {same_as_authors} ({len(theirs):,} rows)")
        same = same and same_as_authors
    for label in ("pref_eval.py (authors)", "stdlib per-pair script"):
        if label in results:
            print(f"prefeval compare vs {label}: {results[label][0] / ours[0]:.2f}x faster")
    probe = ("import sys, runpy; sys.argv = ['prefeval'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('prefeval', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             f"sys.stderr.write(' '.join(m for m in {HEAVY!r} if sys.modules.get(m) is not None))")
    if args.without:
        probe = f"import sys; sys.modules.update(dict.fromkeys({args.without!r}))\n" + probe
    proc = subprocess.run([py, "-c", probe, *commands["prefeval compare"][len(prefeval):]], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    print(f"heavy modules the command imported: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else 'none'}")
    if not same:
        sys.exit("per-query values differ")


if __name__ == "__main__":
    main()
