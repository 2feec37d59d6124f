"""A tree at a tag kept as one pack: every text file concatenated, so a search is one scan of one mapped file.

    <tree>/files.pack   the text files (no NUL byte) in path order, each ending in a newline, invalid
                        UTF-8 replaced by U+FFFD (as every reader here decodes); offsets are file offsets,
                        so a memory map of it is the search's haystack
    <tree>/files.idx    FORMAT magic, counts, the paths, each file's start, the ends of the lines that are
                        not pure ASCII (searched by `regex` where a linear engine reads them differently),
                        the files that had no final newline, the names of binary files (not kept), and the
                        pack's size last; it is written after the pack
    <tree>/files.sum    the pack's BLAKE2b digest, written (and fsynced, as the other two) before the index
    <tree>/files.ok     written by the first open that found the pack equal to its digest

A crash can leave a renamed folder whose pack was never flushed (right size, zero pages), which no size check
sees: so the first open of a pack without files.ok hashes it (~0.2 s for a release) and refuses one that
differs. Later opens trust the size; a read-only cache, where files.ok cannot be written, hashes once per process.

Refresh writes it straight from the release archive (no tree of loose files, ~100 MB instead of
~185 MB with the archive) and `PackedTree` (packed.py) reads it with SourceTree's interface, so
extractors and tools do not know the difference. This module imports nothing heavy: the CLI's
grep reads a pack without loading pydantic or the store. The file set is ripgrep's with `--no-ignore --hidden`: every
regular file, binaries (a NUL byte) not searched, `.git` left out.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import re
import struct
import threading
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..errors import InvalidInputError, SourceError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "DIGEST_NAME",
    "INDEX_NAME",
    "PACK_NAME",
    "VERIFIED_NAME",
    "BinaryFileError",
    "DamagedPackError",
    "Pack",
    "PackBuilder",
    "directory_files",
    "open_pack",
]

PACK_NAME = "files.pack"
INDEX_NAME = "files.idx"
DIGEST_NAME = "files.sum"
VERIFIED_NAME = "files.ok"
FORMAT = b"VQPACK01"
_UNSAFE_NAME = re.compile("[\x00-\x1f\x7f]")
_HEAD = struct.Struct("<8sIIIIIQ")  # magic, files, paths bytes, non-ASCII line ends, no-newline ids, binaries bytes


class BinaryFileError(InvalidInputError):
    """A binary file of the release: its name is known, its content is not kept (nothing reads it)."""


class DamagedPackError(SourceError):
    """The pack and its index disagree or do not parse: refresh the tag again."""


class Pack:
    """The files of one tree: `blob` (bytes or a read-only map) and where each file starts in it."""

    def __init__(
        self,
        paths: Sequence[str],
        starts: Sequence[int],
        blob: bytes | mmap.mmap,
        nonascii_ends: Sequence[int],
        no_final_newline: Iterable[int],
        binaries: Iterable[str],
    ) -> None:
        self.paths = list(paths)
        self.starts = list(starts)
        self.blob = blob
        self.size = len(blob)
        self.ends = [*self.starts[1:], self.size]
        self.nonascii_ends = nonascii_ends
        self.no_final_newline = frozenset(no_final_newline)
        self.binaries = frozenset(binaries)
        self.ids = {p: i for i, p in enumerate(self.paths)}
        self.lock = threading.Lock()  # guards what searches cache on the pack (compiled patterns, globs)
        self.cached: dict[object, object] = {}

    def text_bytes(self, file_id: int) -> bytes:
        """The file as stored (UTF-8, ending in a newline)."""
        return self.blob[self.starts[file_id] : self.ends[file_id]]

    def read(self, relpath: str) -> bytes:
        """The file's content as it was, less replaced invalid UTF-8; FileNotFoundError when absent."""
        file_id = self.ids.get(relpath)
        if file_id is None:
            if relpath in self.binaries:
                raise BinaryFileError(f"{relpath} is a binary file; the cache keeps only the text files of a tree.")
            raise FileNotFoundError(relpath)
        data = self.text_bytes(file_id)
        return data[:-1] if file_id in self.no_final_newline else data


class PackBuilder:
    """Collects files (any order), then writes the pack and its index, or makes an in-memory Pack."""

    def __init__(self) -> None:
        self._texts: dict[str, bytes] = {}
        self._binaries: set[str] = set()
        self.refused: list[str] = []  # names with control characters, left out

    def add(self, relpath: str, data: bytes | memoryview) -> None:
        """Keep one file; a name holding a control character is left out (refused), as no vLLM file has one and
        a newline in it would shift every later path of the index by one."""
        if _UNSAFE_NAME.search(relpath):
            self.refused.append(relpath)
            return
        raw = bytes(data)
        if b"\0" in raw:
            self._binaries.add(relpath)
            return
        if not raw.isascii():
            raw = raw.decode("utf-8", "replace").encode("utf-8")
        self._texts[relpath] = raw

    def __len__(self) -> int:
        return len(self._texts) + len(self._binaries)

    def _layout(self) -> tuple[list[str], array[int], array[int], list[int], list[bytes]]:
        paths = sorted(self._texts)
        starts, nonascii, missing_newline, chunks = array("Q"), array("Q"), [], []
        pos = 0
        for file_id, path in enumerate(paths):
            data = self._texts[path]
            if data and not data.endswith(b"\n"):
                data += b"\n"
                missing_newline.append(file_id)
            elif not data:
                data = b"\n"
                missing_newline.append(file_id)
            starts.append(pos)
            if not data.isascii():
                end = pos
                for line in data.split(b"\n")[:-1]:
                    end += len(line) + 1
                    if not line.isascii():
                        nonascii.append(end)
            pos += len(data)
            chunks.append(data)
        return paths, starts, nonascii, missing_newline, chunks

    def in_memory(self) -> Pack:
        paths, starts, nonascii, missing_newline, chunks = self._layout()
        return Pack(paths, starts, b"".join(chunks), nonascii, missing_newline, self._binaries)

    def write(self, folder: Path) -> int:
        """Write files.pack, files.sum then files.idx into `folder`, each flushed to disk; returns the text files."""
        paths, starts, nonascii, missing_newline, chunks = self._layout()
        digest = hashlib.blake2b()
        with open(folder / PACK_NAME, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
                digest.update(chunk)
            size = out.tell()
            _flush(out)
        with open(folder / DIGEST_NAME, "w", encoding="ascii") as out:
            out.write(digest.hexdigest() + "\n")
            _flush(out)
        names = "\n".join(paths).encode("utf-8", "surrogateescape")
        binaries = "\n".join(sorted(self._binaries)).encode("utf-8", "surrogateescape")
        head = _HEAD.pack(FORMAT, len(paths), len(names), len(nonascii), len(missing_newline), len(binaries), size)
        with open(folder / INDEX_NAME, "wb") as out:
            out.write(head + names + starts.tobytes() + nonascii.tobytes())
            out.write(array("Q", missing_newline).tobytes() + binaries)
            _flush(out)
        return len(paths)


def _flush(out: IO[Any]) -> None:
    out.flush()
    os.fsync(out.fileno())


def _verify_once(folder: Path, blob: bytes | mmap.mmap) -> None:
    """Hash the pack against files.sum unless an earlier open did (files.ok); a pack from before digests is
    trusted by its size, as it always was."""
    if (folder / VERIFIED_NAME).exists():
        return
    try:
        expected = (folder / DIGEST_NAME).read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return
    if hashlib.blake2b(blob).hexdigest() != expected:
        raise DamagedPackError(
            f"{folder / PACK_NAME} differs from its digest (a crash before it reached the disk?); refresh the tag."
        )
    with contextlib.suppress(OSError):  # a read-only cache: the next process hashes it again
        (folder / VERIFIED_NAME).touch()


def _load(folder: Path) -> Pack:
    raw = (folder / INDEX_NAME).read_bytes()
    try:
        magic, count, names_len, nonascii_len, missing_len, binaries_len, size = _HEAD.unpack_from(raw)
        if magic != FORMAT:
            raise ValueError(f"format {magic!r}, expected {FORMAT!r}")
        pos = _HEAD.size
        names = raw[pos : pos + names_len].decode("utf-8", "surrogateescape")
        pos += names_len
        arrays = []
        for length in (count, nonascii_len, missing_len):
            part = array("Q")
            part.frombytes(raw[pos : pos + 8 * length])
            arrays.append(part)
            pos += 8 * length
        binaries = raw[pos : pos + binaries_len].decode("utf-8", "surrogateescape")
        if pos + binaries_len != len(raw):
            raise ValueError("trailing or missing bytes")
    except (struct.error, ValueError, UnicodeDecodeError) as exc:
        raise DamagedPackError(f"{folder / INDEX_NAME} is damaged ({exc}); refresh the tag again.") from exc
    with open(folder / PACK_NAME, "rb") as f:
        if os.fstat(f.fileno()).st_size != size:
            raise DamagedPackError(f"{folder / PACK_NAME} does not match its index; refresh the tag again.")
        blob: bytes | mmap.mmap = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    _verify_once(folder, blob)
    starts, nonascii, missing = arrays
    paths = names.split("\n") if count else []
    if len(paths) != count:  # a name with a newline, written before such names were refused
        raise DamagedPackError(f"{folder / INDEX_NAME} lists {len(paths)} paths for {count} files; refresh the tag.")
    return Pack(paths, starts, blob, nonascii, missing, binaries.split("\n") if binaries else [])


_open_lock = threading.Lock()
_opened: dict[tuple[str, int, int, int, int, int], Pack] = {}


def open_pack(folder: Path) -> Pack:
    """The pack in `folder`, mapped once per process and shared by every caller until the folder is replaced."""
    idx, data = (folder / INDEX_NAME).stat(), (folder / PACK_NAME).stat()
    key = (str(folder), idx.st_ino, idx.st_mtime_ns, data.st_ino, data.st_mtime_ns, data.st_size)
    with _open_lock:
        pack = _opened.get(key)
        if pack is None:
            if len(_opened) >= 4:
                _opened.pop(next(iter(_opened)))
            pack = _opened[key] = _load(folder)
    return pack


def directory_files(root: Path) -> Iterator[tuple[str, bytes]]:
    """(relative path, content) of every regular file under root: links not followed, `.git` skipped."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git" and not os.path.islink(os.path.join(dirpath, d))]
        rel = os.path.relpath(dirpath, root)
        for name in filenames:
            full = os.path.join(dirpath, name)
            if not os.path.islink(full) and os.path.isfile(full):
                with open(full, "rb") as f:
                    yield (name if rel == "." else f"{rel}/{name}".replace(os.sep, "/")), f.read()
