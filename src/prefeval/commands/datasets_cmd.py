"""``prefeval datasets seed ID FILE`` and ``prefeval datasets info ID``: ir_datasets files for offline use.

``seed`` copies a local copy of a file (e.g. ``dl_hard-passage.qrels``) to the place under
``$IR_DATASETS_HOME`` where ir_datasets looks for it, writes any version marker the dataset needs and
checks the md5 ir_datasets records (a mismatch is refused unless ``--force``; the cached file is replaced
only by a complete copy). ``info`` prints what the dataset
provides and which of its files are cached.
"""

from __future__ import annotations

import argparse
import json
import warnings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    seed = sub.add_parser("seed", help="copy FILE where ir_datasets looks for it (offline use)",
                          description="copy FILE where ir_datasets looks for it, with any version marker; "
                                      "the target is found by md5, else the dataset's qrels file")
    seed.add_argument("dataset_id", metavar="ID", help="ir_datasets id, e.g. msmarco-passage/trec-dl-hard")
    seed.add_argument("file", metavar="FILE", help="local copy of the file (gzip copies are unpacked when "
                                                   "the md5 of the content matches)")
    seed.add_argument("--entity", choices=["qrels", "queries", "docs", "scoreddocs", "docpairs", "qlogs"],
                      help="which file FILE replaces when its md5 matches none (default: qrels)")
    seed.add_argument("--force", action="store_true",
                      help="seed FILE even when its md5 differs from the one ir_datasets records")
    info = sub.add_parser("info", help="what a dataset provides and which files are cached",
                          description="what a dataset provides and which of its files are cached")
    info.add_argument("dataset_id", metavar="ID", help="ir_datasets id")
    info.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    # deferred: keeps `prefeval --help` fast (pandas, ir-measures and prefeval load on use)
    from prefeval.data import datasets

    if args.action == "seed":
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            path = datasets.seed(args.dataset_id, args.file, entity=args.entity, force=args.force)
        for warning in caught:
            print(f"warning: {warning.message}")
        print(f"seeded {datasets.normalise_id(args.dataset_id)}: {args.file} -> {path}")
        return 0
    report = datasets.info(args.dataset_id)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"dataset   {report['dataset_id']}")
    print(f"home      {report['home']}  (IR_DATASETS_HOME)")
    provides = ", ".join(f"{e} ({c:,})" if isinstance(c, int) else e for e, c in report["provides"].items())
    print(f"provides  {provides}")
    if report["grades"]:
        print("grades    " + "; ".join(f"{g}: {text.split(':')[0][:40]}" for g, text in report["grades"].items()))
    print(f"subtopics {'yes (diversity qrels; subtopic id -> iteration)' if report['has_subtopics'] else 'no'}")
    print("files")
    for f in report["files"]:
        state = "cached " if f["cached"] else "missing"
        where = f["under_home"] or "(temporary download)"
        extra = " [built by ir_datasets]" if f["derived"] else ""
        if f["marker"]:
            extra += f" [marker {f['marker']}]"
        print(f"  {f['entity']:<10} {state} {where}{extra}")
        if f["url"]:
            print(f"  {'':<10}         from {f['url']}" + (f" (md5 {f['md5']})" if f["md5"] else ""))
    return 0
