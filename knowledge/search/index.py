"""The search data of a tree: its pack, with the compiled patterns and glob selections searches reuse.

For a tree the store keeps packed (every refresh writes one), the search data *is* the pack:
opening it maps one file and reads a ~0.5 MB index, in milliseconds, so there is no index to
build on a caller's clock. Imports nothing heavy (no pydantic, no store), so the CLI's grep
starts fast; loading per tree lives in loading.py.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from vllm_quant_mcp.knowledge.sources.pack import Pack

from .globs import select
from .scan import Engine, Ranges

__all__ = ["SearchIndex"]


class SearchIndex:
    """A pack with its compiled patterns and glob selections."""

    def __init__(self, pack: Pack) -> None:
        self.pack = pack
        self.paths = pack.paths
        self.engine = Engine(pack)
        self._lock = threading.Lock()
        self._scopes: OrderedDict[str, tuple[list[int], Ranges]] = OrderedDict()
        self._nonascii: frozenset[int] | None = None
        self._joined: tuple[bytes, list[int]] | None = None
        self._all = (list(range(len(pack.paths))), [(0, pack.size)])

    def nonascii_ends(self) -> frozenset[int]:
        if self._nonascii is None:
            self._nonascii = frozenset(self.pack.nonascii_ends)
        return self._nonascii

    def scope(self, path_glob: str | None) -> tuple[list[int], Ranges]:
        """The file ids a glob selects and their byte ranges in the pack (adjacent files merged)."""
        if path_glob is None:
            return self._all
        with self._lock:
            known = self._scopes.get(path_glob)
        if known is not None:
            return known
        files = select(self.paths, *self._joined_paths(), path_glob)
        ranges: list[tuple[int, int]] = []
        starts, ends = self.pack.starts, self.pack.ends
        for file_id in files:
            if ranges and ranges[-1][1] == starts[file_id]:
                ranges[-1] = (ranges[-1][0], ends[file_id])
            else:
                ranges.append((starts[file_id], ends[file_id]))
        with self._lock:
            self._scopes[path_glob] = (files, ranges)
            if len(self._scopes) > 256:
                self._scopes.popitem(last=False)
        return files, ranges

    def _joined_paths(self) -> tuple[bytes, list[int]]:
        if self._joined is None:
            encoded = [p.encode("utf-8", "surrogateescape") for p in self.paths]
            offsets, pos = [], 0
            for path in encoded:
                offsets.append(pos)
                pos += len(path) + 1
            self._joined = (b"\n".join(encoded), offsets)
        return self._joined

    def text(self, file_id: int) -> bytes:
        return self.pack.text_bytes(file_id)
