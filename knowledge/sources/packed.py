"""A SourceTree whose files live in a pack (the store's layout, see pack.py) instead of loose on disk."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path, PurePosixPath

from .pack import Pack, open_pack
from .tree import SourceTree, refuse_escape

__all__ = ["PackedTree"]


class PackedTree(SourceTree):
    """A SourceTree whose files live in a pack (the store's layout) instead of loose on disk."""

    def __init__(self, root: Path, tag: str, commit: str | None = None, pack: Pack | None = None) -> None:
        super().__init__(root, tag, commit)
        self.pack = pack if pack is not None else open_pack(self.root)

    def _relpath(self, relpath: str) -> str:
        """The pack's key for a path: its text checked, never the disk (the pack's files are not loose there)."""
        refuse_escape(relpath)
        return PurePosixPath(relpath).as_posix()

    def exists(self, relpath: str) -> bool:
        path = self._relpath(relpath)
        return path in self.pack.ids or path in self.pack.binaries

    def read_bytes(self, relpath: str) -> bytes:
        return self.pack.read(self._relpath(relpath))

    @cached_property
    def _files(self) -> list[str]:
        """The pack's paths, text and binary files alike, sorted: what `glob` matches."""
        return sorted({*self.pack.paths, *self.pack.binaries})
