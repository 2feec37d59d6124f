"""The search data of a tree, loaded once per tree and shared by every caller.

For a tree the store keeps packed (every refresh writes one), the search data *is* the pack:
opening it maps one file and reads a ~0.5 MB index, in milliseconds, so there is no index to
build on a caller's clock. A tree of loose files (tests' trees, a cache written by an earlier
version) is packed in memory on first use. Either way, concurrent first callers wait for one
load rather than each doing their own (200 concurrent first greps once took a server to 2.5 GB).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from vllm_quant_mcp.knowledge.registry.store import SOURCE_RECORD
from vllm_quant_mcp.knowledge.sources.pack import Pack, PackBuilder, PackedTree, directory_files
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

from .globs import select
from .scan import Engine, Ranges

__all__ = ["SearchIndex", "index_for"]


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


_lock = threading.Lock()
_loading: dict[object, threading.Lock] = {}
_loaded: OrderedDict[object, SearchIndex] = OrderedDict()


def _shared(key: object, load: Callable[[], SearchIndex]) -> SearchIndex:
    """One load per key however many threads ask at once; the two most recent kept."""
    with _lock:
        found = _loaded.get(key)
        if found is not None:
            return found
        loading = _loading.setdefault(key, threading.Lock())
    with loading:
        with _lock:
            found = _loaded.get(key)
        if found is None:
            found = load()
            with _lock:
                _loaded[key] = found
                while len(_loaded) > 2:
                    _loaded.popitem(last=False)
                _loading.pop(key, None)
    return found


def _loose_files(root: Path) -> Pack:
    builder = PackBuilder()
    for relpath, data in directory_files(root):
        if relpath != SOURCE_RECORD:  # the store's record of where the tree came from is no vLLM file
            builder.add(relpath, data)
    return builder.in_memory()


def index_for(tree: SourceTree) -> SearchIndex:
    """The search data of a tree, loaded on first use and shared until a refresh replaces the tree."""
    if isinstance(tree, PackedTree):
        pack = tree.pack
        return _shared(("pack", pack), lambda: SearchIndex(pack))
    root = tree.root
    return _shared(("loose", str(root), _identity(root)), lambda: SearchIndex(_loose_files(root)))


def _identity(root: Path) -> tuple[int, ...] | None:
    """Stat of the tree's folder and its store record: a refresh that replaces the tree renames a new one in."""
    stats = []
    for path in (root, root / SOURCE_RECORD):
        try:
            st = path.stat()
        except OSError:
            continue
        stats += [st.st_ino, st.st_mtime_ns, st.st_ctime_ns]
    return tuple(stats) or None
