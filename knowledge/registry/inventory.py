"""What the user cache holds, tag by tag, and removing it: `cache list`, `cache prune`, `cache clear`.

A refreshed tag costs a few hundred MB (its tree, the saved search index, the downloaded
archive, the registry); the bundled registries cost nothing here, they ship in the
package. Everything is found by the store's layout (knowledge/registry/store.py):

    registries/<tag>.json   trees/<tag>/   index/<tag>-*   locks/<tag>.lock
    sdists/vllm-<version>.*   (archives the package-index source kept)
    git/  github/  hub/       shared by every tag

Only those folders are ever removed: a cache directory pointed somewhere unusual (by
VLLM_QUANT_MCP_CACHE_DIR) keeps every file this package did not write. A tag's files
are removed under its refresh lock, so a prune never pulls a tree from under a refresh
(the lock file itself stays: removing it could let two processes hold the lock at once);
the registry is removed first, so an interrupted prune leaves no registry whose tree is gone.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.tags import InvalidTagError, normalize_tag, tag_key

from .bundle import bundled_tags
from .model import SourceInfo
from .store import Store, staging_tag

__all__ = [
    "OWNED",
    "CacheInventory",
    "Removal",
    "TagCache",
    "TagOrigin",
    "clear",
    "inventory",
    "prune",
    "tag_origins",
]

OWNED = ("registries", "trees", "index", "locks", "sdists", "git", "github", "hub")
SHARED = ("git", "github", "hub")
PRUNE_LOCK_TIMEOUT = 30.0
_TAGGED_NAMES: dict[str, re.Pattern[str]] = {
    "registries": re.compile(r"^(?P<tag>v[^/]+)\.json$"),
    "trees": re.compile(r"^(?P<tag>v[^/]+)$"),
    "index": re.compile(r"^(?P<tag>v.+?)-v\d+\.sqlite.*$"),
    "locks": re.compile(r"^(?P<tag>v[^/]+)\.lock$"),
    "sdists": re.compile(r"^vllm-(?P<tag>\d[\w.]*?)(?:\.tar\.gz|\.zip|-[^/]*\.whl)(?:\.json|\.part)?$"),
}


class TagOrigin(BaseModel):
    """Where the registry of a tag comes from, and whether its source tree is at hand."""

    tag: str
    bundled: bool = Field(description="Shipped with the package: answers offline right after install.")
    refreshed: bool = Field(description="Derived by `refresh` into the user cache (wins over the bundled copy).")
    tree: bool = Field(description="The source tree is cached: grep, read and symbol answer without the network.")


class TagCache(TagOrigin):
    bytes: int = Field(description="Everything the cache holds for this tag.")
    parts: dict[str, int] = Field(description="Bytes per part: registry, tree, index, archive.")
    refreshed_at: float | None = Field(description="When the newest of its files was written (Unix time).")


class CacheInventory(BaseModel):
    root: str
    tags: list[TagCache] = Field(description="Every known tag, oldest release first.")
    shared: dict[str, int] = Field(description="Bytes of what all tags share: the git repository, HTTP caches.")
    bytes: int = Field(description="Everything under the folders this package owns.")


class Removal(BaseModel):
    removed: list[str] = Field(description="Tags (or shared folders) removed.")
    freed_bytes: int
    kept_bundled: list[str] = Field(default=[], description="Removed tags whose bundled registry still answers.")
    kept: list[str] = Field(default=[], description="Tags or folders that could not be removed whole (permissions).")


class _Known(Protocol):
    def known_tags(self) -> list[str]: ...

    def registry_path(self, tag: str) -> Path: ...

    def tree_source(self, tag: str) -> SourceInfo | None: ...


@dataclass
class _TagFiles:
    paths: dict[str, list[Path]]

    def add(self, part: str, path: Path) -> None:
        self.paths.setdefault(part, []).append(path)


_PARTS = {"registries": "registry", "trees": "tree", "index": "index", "locks": "lock", "sdists": "archive"}
_INTERRUPTED = "interrupted"  # the temporary folders of a fetch killed outright (store.staging_tag)


def tag_origins(store: _Known) -> list[TagOrigin]:
    """Bundled, refreshed and tree-cached, for every known tag; cheap (no sizes)."""
    bundled = set(bundled_tags())
    return [
        TagOrigin(
            tag=tag,
            bundled=tag in bundled,
            refreshed=store.registry_path(tag).is_file(),
            tree=store.tree_source(tag) is not None,
        )
        for tag in store.known_tags()
    ]


def _tag_of(folder: str, name: str) -> str | None:
    match = _TAGGED_NAMES[folder].match(name)
    return None if match is None else _valid_tag(match["tag"])


def _valid_tag(text: str) -> str | None:
    try:
        return normalize_tag(text)
    except InvalidTagError:
        return None


def _files_by_tag(root: Path) -> tuple[dict[str, _TagFiles], dict[str, list[Path]]]:
    """Each tagged file or folder under the owned folders, by tag; the rest by folder (shared)."""
    tagged: dict[str, _TagFiles] = {}
    shared: dict[str, list[Path]] = {}
    for folder in OWNED:
        directory = root / folder
        if not directory.is_dir():
            continue
        for child in sorted(directory.iterdir()):
            staging = staging_tag(folder, child.name)
            if staging is not None:
                tag, part = _valid_tag(staging), _INTERRUPTED
            else:
                tag, part = (_tag_of(folder, child.name) if folder in _TAGGED_NAMES else None), _PARTS.get(folder, "")
            if tag is None:
                shared.setdefault(folder, []).append(child)
            else:
                tagged.setdefault(tag, _TagFiles({})).add(part, child)
    return tagged, shared


def _size(path: Path) -> int:
    """Bytes under `path` (files as stored, links not followed)."""
    if path.is_symlink() or not path.is_dir():
        try:
            return path.lstat().st_size
        except OSError:
            return 0
    total = 0
    for dirpath, _, filenames in os.walk(path):
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                continue
    return total


def _newest(paths: Iterable[Path]) -> float | None:
    times = []
    for path in paths:
        try:
            times.append(path.lstat().st_mtime)
        except OSError:
            continue
    return max(times, default=None)


def inventory(store: Store) -> CacheInventory:
    tagged, shared = _files_by_tag(store.root)
    origins = {o.tag: o for o in tag_origins(store)}
    tags = []
    for tag in sorted(set(origins) | set(tagged), key=tag_key):
        files = tagged.get(tag, _TagFiles({}))
        parts = {part: sum(_size(p) for p in paths) for part, paths in files.paths.items() if part != "lock"}
        origin = origins.get(tag) or TagOrigin(tag=tag, bundled=False, refreshed=False, tree=False)
        tags.append(
            TagCache(
                **origin.model_dump(),
                bytes=sum(parts.values()),
                parts=parts,
                refreshed_at=_newest(p for part, paths in files.paths.items() if part != "lock" for p in paths),
            )
        )
    shared_bytes = {folder: sum(_size(p) for p in paths) for folder, paths in shared.items()}
    return CacheInventory(
        root=str(store.root),
        tags=tags,
        shared=shared_bytes,
        bytes=sum(t.bytes for t in tags) + sum(shared_bytes.values()),
    )


def prune(
    store: Store, tags: Iterable[str] = (), older_than_s: float | None = None, now: float | None = None
) -> Removal:
    """Remove what the cache holds for the given tags, and for every tag refreshed more than `older_than_s` ago."""
    asked = {normalize_tag(t) for t in tags}
    current = inventory(store)
    if older_than_s is not None:
        cutoff = (time.time() if now is None else now) - older_than_s
        asked |= {t.tag for t in current.tags if t.refreshed_at is not None and t.refreshed_at < cutoff}
    tagged, _ = _files_by_tag(store.root)
    sizes = {t.tag: t.bytes for t in current.tags}
    bundled = set(bundled_tags())
    chosen = sorted((t for t in asked if set(tagged.get(t, _TagFiles({})).paths) - {"lock"}), key=tag_key)
    locking = Store(store.root, lock_timeout=PRUNE_LOCK_TIMEOUT)
    failures: list[OSError] = []
    for tag in chosen:
        files = tagged[tag].paths
        with locking.lock(tag):
            for part in ("registry", "index", "tree", _INTERRUPTED, "archive"):
                failures += [f for path in files.get(part, []) if (f := _remove(path)) is not None]
    left = {t.tag: t.bytes for t in inventory(store).tags}
    removed = [t for t in chosen if not left.get(t)]
    _raise_if_nothing_removed(store, failures, removed)
    return Removal(
        removed=removed,
        freed_bytes=sum(sizes.get(t, 0) - left.get(t, 0) for t in chosen),
        kept_bundled=[t for t in removed if t in bundled],
        kept=[t for t in chosen if left.get(t)],
    )


def clear(store: Store) -> Removal:
    """Remove every folder this package owns under the cache root; nothing else there is touched."""
    before = inventory(store).bytes
    present = [folder for folder in OWNED if (store.root / folder).exists()]
    failures = [f for folder in present if (f := _remove(store.root / folder)) is not None]
    removed = [folder for folder in present if not (store.root / folder).exists()]
    _raise_if_nothing_removed(store, failures, removed)
    return Removal(
        removed=removed,
        freed_bytes=before - inventory(store).bytes,
        kept=[folder for folder in present if folder not in removed],
    )


def _raise_if_nothing_removed(store: Store, failures: list[OSError], removed: list[str]) -> None:
    """A cache that refused every removal says so (it is read-only), instead of reporting bytes freed."""
    if failures and not removed:
        raise store.read_only(failures[0])


def _remove(path: Path) -> OSError | None:
    """Remove a file or folder; the first error that kept any of it, or None."""
    errors: list[OSError] = []

    def keep(_function: object, _path: str, info: tuple[type[BaseException], BaseException, object]) -> None:
        errors.append(info[1] if isinstance(info[1], OSError) else OSError(str(info[1])))

    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, onerror=keep)
        else:
            path.unlink(missing_ok=True)
    except OSError as exc:
        errors.append(exc)
    return errors[0] if errors else None
