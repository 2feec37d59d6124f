"""Safe extraction of release archives: nothing lands outside the destination, no links are made.

An sdist or wheel is untrusted input. Members with absolute paths, `..`, links or
special files are skipped (tarfile's "data" filter is applied on top as a second
guard), so a hostile archive can at worst yield fewer files, never a write elsewhere.
"""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import IO

from ..progress import report

__all__ = ["extract_tar", "extract_zip_members", "safe_relpath"]

Include = Callable[[str], bool]


def _everything(_: str) -> bool:
    return True


def safe_relpath(name: str, strip_components: int = 0) -> str | None:
    """The member path relative to the destination, or None when it could escape or is empty."""
    if "\\" in name or "\x00" in name:
        return None
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts:
        return None
    parts = [p for p in pure.parts if p not in ("", ".")][strip_components:]
    return "/".join(parts) or None


def extract_tar(
    source: Path | IO[bytes], dest: Path, *, strip_components: int = 0, include: Include = _everything
) -> int:
    """Extract regular files (and their folders) of a tar into `dest`; return how many files were written."""
    written = 0
    with (
        tarfile.open(source, mode="r:*") if isinstance(source, Path) else tarfile.open(fileobj=source, mode="r|*")
    ) as tar:
        for member in tar:
            if not member.isfile():
                continue
            relpath = safe_relpath(member.name, strip_components)
            if relpath is None or not include(relpath):
                continue
            tar.extract(member.replace(name=relpath, deep=False), dest, filter="data")
            written += 1
            report("extract", written, None, "files")
    report("extract", written, written, "files")
    return written


def extract_zip_members(archive: zipfile.ZipFile, dest: Path, include: Include) -> int:
    """Write the regular-file members of a zip that `include` accepts into `dest`; return how many."""
    written = 0
    for info in archive.infolist():
        relpath = safe_relpath(info.filename)
        if info.is_dir() or relpath is None or not include(relpath) or _is_zip_symlink(info):
            continue
        target = dest / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(info) as src, target.open("wb") as out:
            shutil.copyfileobj(src, out)
        written += 1
        report("extract", written, None, "files")
    report("extract", written, written, "files")
    return written


def _is_zip_symlink(info: zipfile.ZipInfo) -> bool:
    return (info.external_attr >> 16) & 0o170000 == 0o120000
