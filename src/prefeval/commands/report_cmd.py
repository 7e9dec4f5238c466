"""``prefeval report OUTDIR [-o FILE]``: render report.html of a pipeline output folder again from its data.

The page is built from the folder's files (summary.json, which holds the report's document, and the CSV
tables per_query.csv, means.csv, preference_summary.csv, preferences.csv, rankings.csv; the analysis PNGs), as
the pipeline run built it, so it needs an output written with the ``json`` and ``csv`` formats. By default it
replaces OUTDIR/report.html (atomically) and updates that file's entry in OUTDIR/manifest.json; ``-o FILE``
writes it elsewhere and leaves the folder alone. Like ``prefeval run``, it holds the folder's lock
(:class:`~prefeval.pipeline.output.FolderLock`) while it reads the folder and writes the page: a folder a run is
writing is refused at once with a one-line error naming it. With ``-o FILE`` and a parent folder this user
cannot write (so no lock file can be made), the folder is read without the lock.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from prefeval.core.text import printable


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("outdir", help="an output folder of `prefeval run`")
    parser.add_argument("--output", "-o", help="write the page to this file instead of OUTDIR/report.html")


def _write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def run(args: argparse.Namespace) -> int:
    # deferred: the pipeline modules load pandas; `prefeval --help` stays fast
    from prefeval.errors import PrefevalError
    from prefeval.pipeline.output import FolderLock

    folder = Path(args.outdir)
    if args.output:  # checked before any work; the page is written through a temporary file beside it
        target = Path(args.output)
        if target.is_dir():
            raise PrefevalError(f"-o {printable(target)}: is a folder; give a file name (e.g. "
                                f"{printable(target / 'report.html')})")
        parent = target.parent
        if not parent.is_dir():
            raise PrefevalError(f"-o {printable(target)}: folder {printable(parent)} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise PrefevalError(f"-o {printable(target)}: folder {printable(parent)} is not writable")
    if not folder.is_dir():
        raise PrefevalError(f"{folder}: no such folder (give the output folder of `prefeval run`)")
    if folder.name in ("", "..") or folder.is_symlink():  # as `prefeval run`: the lock sits beside the real folder
        folder = Path(os.path.realpath(folder))
    if args.output and not os.access(folder.parent, os.W_OK | os.X_OK):
        return _render(args, folder)
    with FolderLock(folder):
        return _render(args, folder)


def _render(args: argparse.Namespace, folder: Path) -> int:
    # deferred: the pipeline modules load pandas; `prefeval --help` stays fast
    import json

    from prefeval.errors import PrefevalError
    from prefeval.pipeline.output import MANIFEST, MANIFEST_FORMAT, sha256
    from prefeval.pipeline.report import HTML, render_html_again

    text = render_html_again(folder)
    if args.output:
        target = Path(args.output)
        _write_atomically(target, text)
        print(f"wrote {printable(target)}")
        return 0
    target = folder / HTML
    manifest_path = folder / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise PrefevalError(f"{folder}: no prefeval manifest.json; write the page elsewhere with -o FILE")
    _write_atomically(target, text)
    entry = {"name": HTML, "bytes": target.stat().st_size, "sha256": sha256(target)}
    files = [f for f in manifest.get("files", []) if not (isinstance(f, dict) and f.get("name") == HTML)]
    manifest["files"] = sorted([*files, entry], key=lambda f: str(f.get("name", "")) if isinstance(f, dict) else "")
    _write_atomically(manifest_path, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {printable(target)}")
    return 0
