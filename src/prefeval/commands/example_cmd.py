"""``prefeval example DIR``: write a small SIMULATED test collection to try prefeval on.

The files (qrels, topics, five runs named like common systems, a pipeline definition) are the ones the
README and the documentation's examples read; :func:`prefeval.data.simulate.write_example` writes them.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", metavar="DIR", help="folder to write into (created if needed; files of the same "
                                                     "names are replaced, nothing else is touched)")
    parser.add_argument("--seed", type=int, default=None, help="another simulation seed (default: the documented one)")


def run(args: argparse.Namespace) -> int:
    from prefeval.data.simulate import EXAMPLE_PARAMS, write_example  # deferred: keeps `prefeval --help` fast

    written = write_example(args.folder, seed=args.seed)
    seed = EXAMPLE_PARAMS["seed"] if args.seed is None else args.seed
    print(f"wrote a SIMULATED collection (prefeval.data.simulate, seed {seed}; not TREC data) to {args.folder}:")
    width = max(len(str(path)) for path in written.values())
    what = {"qrels": f"judgments of {EXAMPLE_PARAMS['n_queries']} queries, grades 0-3",
            "topics": "query id and text, tab-separated",
            "pipeline": f"a pipeline over these files: prefeval run {written['pipeline'].as_posix()}"}
    for name, path in written.items():
        print(f"  {str(path):<{width}}  {what.get(name, 'run ' + repr(name))}")
    return 0
