"""The search data of each tree, loaded once and shared by every caller until a refresh replaces the tree.

Concurrent first callers wait for one load rather than each doing their own (200 concurrent
first greps once took a server to 2.5 GB RSS building 200 indexes). A tree of loose files
(tests' trees, a cache written by an earlier version) is packed in memory on first use.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from vllm_quant_mcp.knowledge.registry.store import SOURCE_RECORD
from vllm_quant_mcp.knowledge.sources.pack import Pack, PackBuilder, directory_files
from vllm_quant_mcp.knowledge.sources.packed import PackedTree
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

from .index import SearchIndex

__all__ = ["index_for", "loads"]


_lock = threading.Lock()
_loading: dict[object, threading.Lock] = {}
_loaded: OrderedDict[object, SearchIndex] = OrderedDict()
_counts: dict[object, int] = {}


def loads(tree: SourceTree) -> int:
    """How many times this process has loaded the tree's search data (one, however many callers)."""
    return _counts.get(_key(tree), 0)


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
            _counts[key] = _counts.get(key, 0) + 1
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


def _key(tree: SourceTree) -> object:
    if isinstance(tree, PackedTree):
        return ("pack", tree.pack)
    return ("loose", str(tree.root), _identity(tree.root))


def index_for(tree: SourceTree) -> SearchIndex:
    """The search data of a tree, loaded on first use and shared until a refresh replaces the tree."""
    if isinstance(tree, PackedTree):
        pack = tree.pack
        return _shared(_key(tree), lambda: SearchIndex(pack))
    root = tree.root
    return _shared(_key(tree), lambda: SearchIndex(_loose_files(root)))


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
