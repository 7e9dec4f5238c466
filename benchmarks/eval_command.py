"""``prefeval eval QRELS RUN nDCG@10 AP P@10`` against the ``ir_measures`` command, whole process (issue 24: at
most 1.5x).

Both commands run on one DL-Hard document run (``--run``, default the first), as subprocesses, taking turns for
``--repeat`` rounds (so a change of the machine's load hits both); the best time of each and the ratio are printed,
and the two outputs are compared line by line (the same values to the 4 places printed). prefeval runs from this
checkout (``src`` first on ``PYTHONPATH``); ``ir_measures`` is the command installed beside the Python running this
script.

Measured on the 2-core development machine (shared): 1.13x at load average 2.9 (0.196 s vs 0.173 s), 1.26x at 7.5
(0.544 s vs 0.433 s); before, 2.3x (0.89 s vs 0.38 s, most of it importing pandas, which this command no longer
needs for standard measures).

Run: ``python benchmarks/eval_command.py [--data DIR] [--repeat 7]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
MEASURES = ["nDCG@10", "AP", "P@10"]


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--run", default=None, help="run file name in dl-hard/runs/doc (default: the first)")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    folder = args.data / "dl-hard"
    qrels = folder / "dl_hard-doc.qrels"
    runs = sorted((folder / "runs" / "doc").glob("*.run.gz"))
    if not qrels.exists() or not runs:
        print(f"skipped: no DL-Hard data in {folder}")
        return
    run = folder / "runs" / "doc" / args.run if args.run else runs[0]
    irm = shutil.which("ir_measures", path=str(Path(sys.executable).parent)) or shutil.which("ir_measures")
    if irm is None:
        print("skipped: no ir_measures command")
        return
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    commands = {"ir_measures": [irm, str(qrels), str(run), *MEASURES],
                "prefeval eval": [sys.executable, "-m", "prefeval", "eval", str(qrels), str(run), *MEASURES]}
    times: dict[str, list[float]] = {name: [] for name in commands}
    outputs: dict[str, str] = {}
    for _ in range(args.repeat):
        for name, command in commands.items():
            seconds, outputs[name] = timed(command, env)
            times[name].append(seconds)
    load = os.getloadavg()
    print(f"{run.name}: best of {args.repeat}, taking turns; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, "
          f"{os.cpu_count()} cores")
    for name in commands:
        print(f"  {name:14s} {min(times[name]):6.3f} s")
    ratio = min(times["prefeval eval"]) / min(times["ir_measures"])
    print(f"  ratio {ratio:.2f}x (target <= 1.5x); same output: {outputs['prefeval eval'] == outputs['ir_measures']}")


if __name__ == "__main__":
    main()
