"""Offline seeding: copy a file to where ir_datasets looks for it (the work of :func:`prefeval.data.datasets.seed`)."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import shutil
import tempfile
import warnings
from pathlib import Path

from prefeval.data.datasets.files import NeededFile, irds_dataset, needed_files, provides, under_home
from prefeval.errors import PrefevalError


def _digests(path: Path) -> dict[str, bool]:
    """md5 of the file (-> False) and, for a gzip file, of its content (-> True), streamed."""
    raw = hashlib.md5()  # noqa: S324 - ir_datasets records md5
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            raw.update(block)
    out = {raw.hexdigest(): False}
    with path.open("rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    if gzipped:
        content = hashlib.md5()  # noqa: S324
        try:
            with gzip.open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    content.update(block)
            out.setdefault(content.hexdigest(), True)
        except (OSError, EOFError):
            pass
    return out


def gzipped(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def _archive(needed: NeededFile) -> bool:
    """A compressed or archived file (its recorded md5 is that of the archive, not of the text inside)."""
    return needed.name.lower().endswith((".gz", ".tgz", ".tar", ".zip", ".bz2", ".xz", ".lz4", ".zst"))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def seed_file(key: str, source: Path, entity: str | None, force: bool) -> Path:
    """Place ``source`` as the file of dataset ``key`` it matches (rules: :func:`prefeval.data.datasets.seed`)."""
    if source.is_dir():
        raise PrefevalError(f"{source} is a folder; give the file to seed (e.g. the qrels file itself)")
    if not source.exists():
        raise FileNotFoundError(f"file to seed not found: {source}")
    if not source.is_file():
        raise PrefevalError(f"{source} is not a regular file; give the file to seed")
    digests = _digests(source)
    candidates = [n for n in needed_files(key) if n.path is not None]
    matches = [n for n in candidates if n.md5 and n.md5 in digests]
    if matches:
        target, unpack = matches[0], digests[matches[0].md5]  # type: ignore[index]
    else:
        wanted = entity or "qrels"
        pool = [n for n in candidates if n.entity == wanted and not n.derived]
        plain = [n for n in candidates if n.entity == wanted and not _archive(n)]
        if not gzipped(source) and plain:  # a plain file: an md5 recorded for an archive (.gz, .tar) is not its
            # md5; it goes where ir_datasets keeps the plain text it extracts from the archive (e.g. queries.tsv)
            pool = [n for n in plain if not n.derived] or plain
        pool = pool or [n for n in candidates if n.entity == wanted]
        if not pool:
            raise PrefevalError(f"{key} has no {wanted} file that can be seeded "
                                f"(it provides: {provides(irds_dataset(key))})")
        if len(pool) > 1:
            listing = "; ".join(f"{n.name} -> {under_home(n.path)}" for n in pool)  # type: ignore[arg-type]
            remedy = "give a file with the right md5" if any(n.md5 for n in pool) else \
                "seeding cannot tell which one this file is"
            topics = " (for a pipeline's topics, qrels.topics = FILE needs no seeding)" if wanted == "queries" else ""
            raise PrefevalError(f"{source} matches none of the md5s ir_datasets records for {key}, and its "
                                f"{wanted} come from several files ({listing}); {remedy}{topics}")
        target, unpack = pool[0], False
        assert target.path is not None
        if target.md5 and not force:
            actual = next(iter(digests))
            if _archive(target) and not gzipped(source):
                raise PrefevalError(f"{source} is a plain file, but ir_datasets reads the {wanted} of {key} from the "
                                    f"archive {target.name} (md5 {target.md5}) at {under_home(target.path)}; give "
                                    "that archive, or --force to seed this file in its place (compressed when the archive is a .gz file)")
            raise PrefevalError(f"{source}: md5 {actual} differs from {target.md5}, which ir_datasets records for "
                                f"{target.name} ({under_home(target.path)}); not seeded. Give the right file, or "
                                "--force to seed it anyway")
        if target.md5:
            actual = next(iter(digests))
            warnings.warn(f"{source}: md5 {actual} differs from {target.md5}, which ir_datasets records for "
                          f"{target.name}; seeding it as {under_home(target.path)} anyway", stacklevel=3)
        else:
            warnings.warn(f"ir_datasets records no md5 for {under_home(target.path)}; {source} was not checked",
                          stacklevel=3)
    assert target.path is not None
    target.path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(prefix=f".{target.path.name}.", suffix=".prefeval-tmp",
                                        dir=target.path.parent)
    try:
        # a plain file forced in place of a .gz file is compressed: ir_datasets reads that path with gzip
        pack = target.name.lower().endswith(".gz") and not target.name.lower().endswith(".tar.gz") \
            and not unpack and not gzipped(source)
        with (gzip.open(source, "rb") if unpack else source.open("rb")) as src, os.fdopen(handle, "wb") as raw, \
                (gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if pack else contextlib.nullcontext(raw)) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.chmod(tmp_name, 0o666 & ~_umask())  # as open() would create it (mkstemp: owner only), readable by others
        os.replace(tmp_name, target.path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    if target.marker is not None:
        version_file, version = target.marker
        version_file.parent.mkdir(parents=True, exist_ok=True)
        version_file.write_text(version)  # exactly the version, no newline
    return target.path
