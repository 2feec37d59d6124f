"""Caches that heal: a damaged cache file is moved aside, said once, and rebuilt or done without.

A cache is a copy of something we can get again (a registry derived from its tree, a tree
fetched from its source, an HTTP answer asked again), so damage to it (a disk filled
mid-write, a crash, a hand edit) must never stop a tool. Every cache here heals the same
way, through this module: the damaged file or folder is renamed `<name>.corrupt-<UTC time>`
beside its place (kept for a post-mortem, never read again), one warning says so on the
log (the CLI's stderr, the MCP server's log), and the caller carries on from the source as
if the cache were empty. `DiskCache` does it for the diskcache (sqlite) caches of HTTP
answers, whose damage shows only when a query runs.

A cache folder this process may not write (a team's shared cache mounted read-only, without
VLLM_QUANT_MCP_STATE_DIR pointing elsewhere) is not damage: nothing is moved, the answers are
fetched live and not kept, and one note says how to keep them.
"""

from __future__ import annotations

import logging
import pickle
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import diskcache

__all__ = ["DiskCache", "quarantine"]

log = logging.getLogger("vllm_quant_mcp.healing")

T = TypeVar("T")

# What a damaged sqlite database or a damaged pickled value raises when read.
_DAMAGE = (sqlite3.DatabaseError, pickle.UnpicklingError, EOFError)


def _unwritable(exc: BaseException) -> bool:
    """Whether sqlite refused a database because it may not be written there (not damage, not a lock)."""
    message = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("readonly" in message or "unable to open" in message)


def quarantine(path: Path, problem: str) -> str:
    """Rename the damaged `path` aside and say so once; returns the one-line note (also logged as a warning)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    suffix = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{suffix}")
        suffix += 1
    try:
        path.rename(target)
    except FileNotFoundError:  # another process moved it first and said so
        return f"The cache {path} was damaged and another process moved it aside."
    note = f"The cache {path} was damaged ({problem}); moved it aside as {target.name} and rebuilt it."
    log.warning(note)
    return note


class DiskCache:
    """A diskcache.Cache in `directory` that, when its database turns out damaged, is moved aside and started empty.

    diskcache opens lazily and sqlite reads pages on demand, so damage can surface on open or on any
    later call: each call that meets it heals the folder and is run once more on the fresh cache.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.notes: list[str] = []  # what healing said, for the result of the call that met the damage
        self._cache: diskcache.Cache | None = None  # None: the folder cannot be written, nothing is kept
        try:
            self._cache = self._open()
        except OSError as exc:  # the folder cannot be created or written: permissions, a read-only file system
            self._bypass(exc)
        except _DAMAGE as exc:
            if _unwritable(exc):
                self._bypass(exc)
            else:
                self._cache = self._reopen(exc)

    def _open(self) -> diskcache.Cache:
        import diskcache

        cache = diskcache.Cache(str(self.directory))
        cache.get("")  # touch the database: a damaged one raises here, not at a caller's first read
        return cache

    def _bypass(self, exc: BaseException) -> None:
        note = (
            f"The cache folder {self.directory} cannot be written ({exc}): answers are fetched live and not kept. "
            "Set VLLM_QUANT_MCP_STATE_DIR to a writable folder to keep them."
        )
        log.warning(note)
        self.notes.append(note)

    def _reopen(self, exc: BaseException) -> diskcache.Cache:
        if isinstance(exc, sqlite3.OperationalError):  # locked, out of space: not damage, not ours to hide
            raise exc
        self.notes.append(quarantine(self.directory, f"{type(exc).__name__}: {exc}"))
        return self._open()

    def drain_notes(self) -> tuple[str, ...]:
        """The notes not yet handed on, once each."""
        notes, self.notes = tuple(self.notes), []
        return notes

    def _healed(self, run: Callable[[diskcache.Cache], T], bypassed: T) -> T:
        if self._cache is None:  # unwritable: nothing kept, nothing to read
            return bypassed
        try:
            return run(self._cache)
        except _DAMAGE as exc:
            self._cache.close()
            self._cache = self._reopen(exc)
            return run(self._cache)

    def get(self, key: str) -> Any:
        return self._healed(lambda cache: cache.get(key), None)

    def set(self, key: str, value: Any, expire: float | None = None) -> None:
        self._healed(lambda cache: cache.set(key, value, expire=expire), None)

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()

    def __enter__(self) -> DiskCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
