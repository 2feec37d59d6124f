"""A SourceTree whose files live in a pack (the store's layout, see pack.py) instead of loose on disk."""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from .pack import Pack, open_pack
from .tree import SourceTree

__all__ = ["PackedTree"]


class PackedTree(SourceTree):
    """A SourceTree whose files live in a pack (the store's layout) instead of loose on disk."""

    def __init__(self, root: Path, tag: str, commit: str | None = None, pack: Pack | None = None) -> None:
        super().__init__(root, tag, commit)
        self.pack = pack if pack is not None else open_pack(self.root)

    def _relpath(self, relpath: str) -> str:
        self.resolve(relpath)  # refuses `..`, absolute paths and `~`
        return PurePosixPath(relpath).as_posix()

    def exists(self, relpath: str) -> bool:
        path = self._relpath(relpath)
        return path in self.pack.ids or path in self.pack.binaries

    def read_bytes(self, relpath: str) -> bytes:
        return self.pack.read(self._relpath(relpath))

    def glob(self, pattern: str) -> list[str]:
        """Paths (text and binary files) matching a pathlib-style glob (`**` spans folders), sorted."""
        parts = pattern.split("/")
        return sorted(p for p in (*self.pack.paths, *self.pack.binaries) if _glob_match(parts, p.split("/")))


def _glob_match(parts: list[str], segments: list[str]) -> bool:
    """pathlib's reading of a glob (our own fixed patterns, never a caller's): fnmatch per segment."""
    if not parts:
        return not segments
    if parts[0] == "**":
        return any(_glob_match(parts[1:], segments[i:]) for i in range(len(segments) + 1))
    return bool(segments) and fnmatchcase(segments[0], parts[0]) and _glob_match(parts[1:], segments[1:])
