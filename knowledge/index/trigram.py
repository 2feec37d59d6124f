"""Every text file of a tree held in memory, with a trigram index over them.

The index is an in-memory SQLite FTS5 table (trigram tokenizer, contentless, no
positions): it answers "which files contain all these trigrams" in about a millisecond
and is built in C. Only the files it names are then scanned by the real regex. The
file set is ripgrep's with `--no-ignore --hidden`: every regular file, binary files
(a NUL byte) skipped, symbolic links not followed; `.git` directories are skipped too.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from ..tree import SourceTree
from .globs import compile_glob
from .plan import Plan, fts_query

__all__ = ["SourceIndex", "index_for"]


class SourceIndex:
    def __init__(self, paths: Sequence[str], texts: Sequence[str], build_seconds: float) -> None:
        self.paths = tuple(paths)
        self.texts = tuple(texts)
        self.build_seconds = build_seconds
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute("CREATE VIRTUAL TABLE grams USING fts5(body, tokenize='trigram', detail='none', content='')")
        self._db.executemany("INSERT INTO grams(rowid, body) VALUES (?, ?)", enumerate(self.texts))
        self._db.execute("INSERT INTO grams(grams) VALUES ('optimize')")
        self._db.commit()
        self._by_glob: dict[str, frozenset[int]] = {}

    @classmethod
    def build(cls, root: Path) -> SourceIndex:
        started = time.perf_counter()
        paths: list[str] = []
        texts: list[str] = []
        for relpath in _walk(root):
            data = (root / relpath).read_bytes()
            if b"\0" not in data:
                paths.append(relpath)
                texts.append(data.decode("utf-8", errors="replace"))
        index = cls(paths, texts, 0.0)
        index.build_seconds = time.perf_counter() - started
        return index

    def candidates(self, plan: Plan | None, path_glob: str | None) -> list[int]:
        """Ids (ascending, so in path order) of files that may match; all files when plan is None."""
        if plan is None:
            ids: set[int] | frozenset[int] = frozenset(range(len(self.paths)))
        else:
            with self._lock:
                rows = self._db.execute("SELECT rowid FROM grams WHERE grams MATCH ?", (fts_query(plan),))
                ids = {row[0] for row in rows}
        if path_glob is not None:
            ids = self._glob_ids(path_glob) & ids
        return sorted(ids)

    def _glob_ids(self, path_glob: str) -> frozenset[int]:
        ids = self._by_glob.get(path_glob)
        if ids is None:
            matches = compile_glob(path_glob)
            ids = frozenset(i for i, p in enumerate(self.paths) if matches(p))
            if len(self._by_glob) > 256:
                self._by_glob.clear()
            self._by_glob[path_glob] = ids
        return ids


def _walk(root: Path) -> list[str]:
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git" and not os.path.islink(os.path.join(dirpath, d))]
        rel = Path(dirpath).relative_to(root)
        for name in filenames:
            full = os.path.join(dirpath, name)
            if not os.path.islink(full) and os.path.isfile(full):
                found.append((rel / name).as_posix())
    return sorted(found)


@lru_cache(maxsize=2)
def _index_at(root: Path) -> SourceIndex:
    return SourceIndex.build(root)


def index_for(tree: SourceTree) -> SourceIndex:
    """The index of a tree, built on first use and kept for the next searches (two trees at most)."""
    return _index_at(tree.root)
