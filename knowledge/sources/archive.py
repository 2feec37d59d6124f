"""Safe, fast reading of release archives: regular files only, every name checked, nothing written outside.

An sdist or wheel is untrusted input. The tar reader here walks the 512-byte headers itself
(ustar, pax `x`/`g` records, GNU `L` long names) and yields only regular-file members whose
name is relative, has no `..`, NUL or backslash: links, devices, fifos, directories and
sparse or vendor entries are never materialised, and a later member of a path already seen
is dropped (no overwrite tricks). Files are written with exclusive creation under folders
made here, in a destination nothing else writes to, so no link can sit in a written path
and no `realpath` check per member is needed (tarfile's "data" filter spent 9 of 11 s of a
refresh on those). Decompression uses ISA-L when installed (3x zlib), and is capped, so a
bomb ends with an error, not a full disk or an OOM kill.

    UnsafeArchiveError (SourceError)   a corrupt, truncated or oversized archive
"""

from __future__ import annotations

import os
import shutil
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import IO, Any

from ..errors import SourceError

_inflate_module: ModuleType = zlib
with suppress(ImportError):  # python-isal: the same inflate, about three times faster
    from isal import isal_zlib

    _inflate_module = isal_zlib

__all__ = [
    "MAX_UNPACKED",
    "UnsafeArchiveError",
    "extract_tar",
    "extract_zip_members",
    "gunzip",
    "safe_relpath",
    "tar_files",
]

Include = Callable[[str], bool]
MAX_UNPACKED = 2 << 30  # bytes a tar may expand to (vLLM sdists are ~150 MB)
_BLOCK = 512
_NO_DATA = frozenset(b"123456")  # hard/sym links, devices, directories, fifos: no data blocks follow
_REGULAR = frozenset(b"07\0")


class UnsafeArchiveError(SourceError):
    """The archive is corrupt, truncated or expands past MAX_UNPACKED."""


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


def gunzip(data: bytes, label: str) -> bytes:
    """The inflated bytes of a gzip stream, refusing more than MAX_UNPACKED."""
    inflater: Any = _inflate_module.decompressobj(31)
    try:
        out: bytes = inflater.decompress(data, MAX_UNPACKED)
    except zlib.error as exc:
        raise UnsafeArchiveError(f"{label} is not a readable gzip file ({exc}); delete it and refresh again.") from exc
    if inflater.unconsumed_tail:
        raise UnsafeArchiveError(f"{label} expands past {MAX_UNPACKED >> 30} GiB; it is no vLLM release.")
    return out


def tar_files(tar: bytes, label: str, strip_components: int = 0) -> Iterator[tuple[str, memoryview]]:
    """(relative path, content) of each regular-file member of an uncompressed tar whose name is safe."""
    view = memoryview(tar)
    pos, size = 0, len(tar)
    global_pax: dict[str, str] = {}
    pax: dict[str, str] = {}
    long_name: str | None = None
    seen: set[str] = set()
    while pos + _BLOCK <= size:
        header = tar[pos : pos + _BLOCK]
        if header.count(0) == _BLOCK:
            return
        _check_sum(header, pos, label)
        length = _number(header[124:136], label)
        kind = header[156]
        body = pos + _BLOCK
        pos = body + (0 if kind in _NO_DATA else (length + _BLOCK - 1) // _BLOCK * _BLOCK)
        if pos > size:
            raise UnsafeArchiveError(f"{label} is truncated; delete it and refresh again.")
        if kind in b"xg":
            (pax if kind == ord("x") else global_pax).update(_pax_records(tar[body : body + length], label))
            continue
        if kind == ord("L"):
            long_name = tar[body : body + length].split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
            continue
        if kind == ord("K"):
            continue
        name = pax.get("path") or long_name or global_pax.get("path") or _header_name(header)
        if "size" in pax and kind in _REGULAR:
            length = int(pax["size"])
            pos = body + (length + _BLOCK - 1) // _BLOCK * _BLOCK
        pax, long_name = {}, None
        relpath = safe_relpath(name, strip_components)
        if kind not in _REGULAR or relpath is None or relpath in seen:
            continue
        seen.add(relpath)
        yield relpath, view[body : body + length]
    if pos != size:
        raise UnsafeArchiveError(f"{label} is truncated; delete it and refresh again.")


def _header_name(header: bytes) -> str:
    name = header[0:100].split(b"\0", 1)[0]
    if header[257:262] == b"ustar":
        prefix = header[345:500].split(b"\0", 1)[0]
        if prefix:
            name = prefix + b"/" + name
    return name.decode("utf-8", "surrogateescape")


def _number(field: bytes, label: str) -> int:
    if field[:1] and field[0] & 0x80:  # GNU base-256 for sizes past 8 GiB
        return int.from_bytes(field[1:], "big")
    digits = field.split(b"\0", 1)[0].strip()
    try:
        return int(digits, 8) if digits else 0
    except ValueError as exc:
        raise UnsafeArchiveError(f"{label} has a malformed tar header; delete it and refresh again.") from exc


def _check_sum(header: bytes, pos: int, label: str) -> None:
    stored = _number(header[148:156], label)
    unsigned = sum(header[:148]) + 8 * 32 + sum(header[156:])
    signed = unsigned - 256 * sum(1 for b in header[:148] + header[156:] if b > 127)
    if stored not in (unsigned, signed):
        raise UnsafeArchiveError(f"{label} has a corrupt tar header at byte {pos}; delete it and refresh again.")


def _pax_records(data: bytes, label: str) -> dict[str, str]:
    records: dict[str, str] = {}
    pos = 0
    try:
        while pos < len(data) and data[pos] != 0:
            space = data.index(b" ", pos)
            length = int(data[pos:space])
            if length <= space - pos:
                raise ValueError(f"record length {length}")
            key, _, value = data[space + 1 : pos + length - 1].partition(b"=")
            records[key.decode("utf-8", "surrogateescape")] = value.decode("utf-8", "surrogateescape")
            pos += length
    except ValueError as exc:
        raise UnsafeArchiveError(f"{label} has a malformed pax header ({exc}); delete it and refresh again.") from exc
    return records


def _read_tar(source: Path | IO[bytes]) -> tuple[bytes, str]:
    if isinstance(source, Path):
        raw, label = source.read_bytes(), str(source)
    else:
        raw, label = source.read(MAX_UNPACKED + 1), "the tar stream"
    if raw[:2] == b"\x1f\x8b":
        return gunzip(raw, label), label
    if len(raw) > MAX_UNPACKED:
        raise UnsafeArchiveError(f"{label} is larger than {MAX_UNPACKED >> 30} GiB; it is no vLLM release.")
    return raw, label


def extract_tar(
    source: Path | IO[bytes], dest: Path, *, strip_components: int = 0, include: Include = _everything
) -> int:
    """Write the safe regular files of a tar (gzip or plain) into the empty folder `dest`; return how many."""
    tar, label = _read_tar(source)
    return write_files(((p, d) for p, d in tar_files(tar, label, strip_components) if include(p)), dest)


def write_files(files: Iterator[tuple[str, memoryview | bytes]], dest: Path) -> int:
    """Create each file under `dest` (fresh folders, exclusive creation); a path that clashes is dropped."""
    made = {""}
    written = 0
    for relpath, data in files:
        folder = relpath.rpartition("/")[0]
        try:
            if folder not in made:
                os.makedirs(dest / folder, exist_ok=True)
                made.add(folder)
            with open(dest / relpath, "xb") as out:
                out.write(data)
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            continue  # a file and a folder of one name: the later member loses
        written += 1
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
    return written


def _is_zip_symlink(info: zipfile.ZipInfo) -> bool:
    return (info.external_attr >> 16) & 0o170000 == 0o120000
