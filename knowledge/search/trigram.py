"""Every text file of a tree held in memory, with a trigram index over them.

The index is an in-memory SQLite FTS5 table (trigram tokenizer, contentless, no
positions): it answers "which files contain all these trigrams" in about a millisecond
and is built in C. Only the files it names are then scanned by the real regex. The
file set is ripgrep's with `--no-ignore --hidden`: every regular file, binary files
(a NUL byte) skipped, symbolic links not followed; `.git` directories are skipped too, and
so is the store's own record of where the tree came from (SOURCE_RECORD), which is no vLLM file.

Building the table takes most of the time (seconds on a full tree), so a built one can be
saved to a file (`saved`): the next process copies it into memory instead. It is used only
when it was built from the same files, byte for byte (a digest of every path and content,
read anyway since the search needs the texts), under the same INDEX_FORMAT.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from vllm_quant_mcp.knowledge.progress import report
from vllm_quant_mcp.knowledge.registry.store import SOURCE_RECORD
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

from .globs import compile_glob
from .plan import Plan, fts_query

__all__ = ["INDEX_FORMAT", "SourceIndex", "index_for"]

INDEX_FORMAT = 1  # bump when the table layout or the file-set rules change: older saved indexes are then ignored


class SourceIndex:
    def __init__(
        self, paths: Sequence[str], texts: Sequence[str], build_seconds: float, db: sqlite3.Connection | None = None
    ) -> None:
        self.paths = tuple(paths)
        self.texts = tuple(texts)
        self.build_seconds = build_seconds
        self.loaded_from: Path | None = None  # the saved index it was copied from, when it was
        self._lock = threading.Lock()
        self._db = db if db is not None else _fresh_table(self.texts)
        self._by_glob: dict[str, frozenset[int]] = {}

    @classmethod
    def build(cls, root: Path, saved: Path | None = None) -> SourceIndex:
        """The index of every text file under root; read from `saved` when that holds these files' index, else
        built (and written to `saved`, if given, for the next process)."""
        started = time.perf_counter()
        paths: list[str] = []
        texts: list[str] = []
        digest = hashlib.blake2b(str(INDEX_FORMAT).encode(), digest_size=20)
        relpaths = _walk(root)
        for read, relpath in enumerate(relpaths):
            report("index", read, len(relpaths), "reading files")
            data = (root / relpath).read_bytes()
            if b"\0" not in data:
                paths.append(relpath)
                texts.append(data.decode("utf-8", errors="replace"))
                digest.update(f"\0{relpath}\0{len(data)}\0".encode())
                digest.update(data)
        files = digest.hexdigest()
        db = _load(saved, files) if saved is not None else None
        report("index", len(relpaths), len(relpaths), "reading files")
        if db is None:
            report("index", 0, None, "building the trigram table")
        index = cls(paths, texts, 0.0, db)
        if db is not None:
            index.loaded_from = saved
        elif saved is not None:
            _save(index._db, saved, files)
        if db is None:
            report("index", 1, 1, "building the trigram table")
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


def _fresh_table(texts: Sequence[str]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.execute("CREATE VIRTUAL TABLE grams USING fts5(body, tokenize='trigram', detail='none', content='')")
    db.executemany("INSERT INTO grams(rowid, body) VALUES (?, ?)", enumerate(texts))
    db.execute("INSERT INTO grams(grams) VALUES ('optimize')")
    db.commit()
    return db


def _load(saved: Path, files: str) -> sqlite3.Connection | None:
    """The saved table copied into memory, or None when it is missing, unreadable or of other files."""
    if not saved.is_file():
        return None
    try:
        disk = sqlite3.connect(f"{saved.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = disk.execute("SELECT value FROM built_from WHERE key = 'files'").fetchone()
            if row is None or row[0] != files:
                return None
            memory = sqlite3.connect(":memory:", check_same_thread=False)
            disk.backup(memory)
        finally:
            disk.close()
    except sqlite3.Error:  # truncated or not a database: rebuilt and overwritten by the caller
        return None
    return memory


def _save(db: sqlite3.Connection, saved: Path, files: str) -> None:
    """Write the table to `saved` through a temporary file and a rename, so readers never see half of it."""
    partial = saved.with_name(f".{saved.name}.{os.getpid()}.{threading.get_ident()}.part")
    try:
        saved.parent.mkdir(parents=True, exist_ok=True)
        disk = sqlite3.connect(partial)
        try:
            db.backup(disk)
            disk.execute("CREATE TABLE built_from(key TEXT PRIMARY KEY, value TEXT)")
            disk.execute("INSERT INTO built_from VALUES ('files', ?)", (files,))
            disk.commit()
        finally:
            disk.close()
        os.replace(partial, saved)
    except (OSError, sqlite3.Error):  # a read-only or full cache costs the next start a rebuild, not this search
        partial.unlink(missing_ok=True)


def _walk(root: Path) -> list[str]:
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git" and not os.path.islink(os.path.join(dirpath, d))]
        rel = Path(dirpath).relative_to(root)
        for name in filenames:
            if name == SOURCE_RECORD and dirpath == str(root):
                continue
            full = os.path.join(dirpath, name)
            if not os.path.islink(full) and os.path.isfile(full):
                found.append((rel / name).as_posix())
    return sorted(found)


@lru_cache(maxsize=2)
def _index_at(root: Path, saved: Path | None, fetched: tuple[int, ...] | None) -> SourceIndex:
    """`fetched` only keys the cache: which fetch of the tree is at root (see _fetch_identity)."""
    return SourceIndex.build(root, saved)


def _fetch_identity(root: Path) -> tuple[int, ...] | None:
    """Stat of the tree's source record: a refresh that replaces the tree renames a new folder in with a new record."""
    try:
        st = (root / SOURCE_RECORD).stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)


def index_for(tree: SourceTree, index_dir: Path | None = None) -> SourceIndex:
    """The index of a tree, built on first use and kept for the next searches (two trees at most) until a refresh
    replaces the tree.

    With index_dir (the store's), it is also saved there as `<tag>-v<INDEX_FORMAT>.sqlite` for the next process.
    """
    saved = index_dir / f"{tree.tag}-v{INDEX_FORMAT}.sqlite" if index_dir is not None else None
    return _index_at(tree.root, saved, _fetch_identity(tree.root))
