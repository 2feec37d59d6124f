"""Where registries and trees are kept: bundled registries in the package, plus a user cache.

    <cache>/registries/<tag>.json   registries derived by `refresh` (win over bundled ones when valid)
    <cache>/trees/<tag>/            the fetched tree as a pack (files.pack + files.idx, see sources/pack.py:
                                    ~100 MB for a whole release), with .vllm-quant-mcp-source.json saying where
                                    from; the pack is also the search data, so no index is built on first use
    <cache>/sdists/, <cache>/git/   what the sources keep for reuse (sdists only when VLLM_QUANT_MCP_KEEP_SDISTS=1)
    <cache>/locks/<tag>.lock        one lock per tag: refreshes of a tag run one at a time

Nothing here is ever half-written: registries go through atomic_write_text, trees
are packed in a temporary folder and renamed into place. A tree cached as loose files by an
earlier version is still read as it is (searches then pack it in memory); a refresh repacks it. A cached registry that
does not parse, or was written under another schema or extractor version, is
rebuilt from the cached tree (or the bundled copy is used) instead of trusted.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import filelock
from pydantic import ValidationError

from vllm_quant_mcp.knowledge.atomic import atomic_write_text
from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import (
    CacheReadOnlyError,
    InternalError,
    LockTimeoutError,
    RegistryUnavailableError,
)
from vllm_quant_mcp.knowledge.extract.version import extractor_version
from vllm_quant_mcp.knowledge.healing import quarantine
from vllm_quant_mcp.knowledge.progress import report
from vllm_quant_mcp.knowledge.settings import settings
from vllm_quant_mcp.knowledge.sources.base import Source
from vllm_quant_mcp.knowledge.sources.pack import INDEX_NAME, DamagedPackError, PackBuilder, directory_files
from vllm_quant_mcp.knowledge.sources.packed import PackedTree
from vllm_quant_mcp.knowledge.sources.tree import SourceTree
from vllm_quant_mcp.knowledge.tags import InvalidTagError, UnknownTagError, nearest_tags, normalize_tag, tag_key

from .bundle import bundled_tags, read_bundled
from .model import SCHEMA_VERSION, Registry, SourceInfo
from .names import Names, bundled_names, names_of

__all__ = ["SOURCE_RECORD", "Store", "default_store", "staging_tag"]

SOURCE_RECORD = ".vllm-quant-mcp-source.json"
LOCK_TIMEOUT = 900.0
_STAGING = {  # the temporary folders a fetch writes in: install_tree's, and the package-index source's download
    "trees": re.compile(r"^\.tmp-(?P<tag>v.+)-[A-Za-z0-9_]+$"),
    "sdists": re.compile(r"^\.download-vllm-(?P<version>\d[\w.]*?)(?:\.tar\.gz|\.zip|-[^/]*\.whl)-[A-Za-z0-9_]+$"),
}


def staging_tag(folder: str, name: str) -> str | None:
    """The tag whose fetch writes the temporary folder `name` under `folder` (trees, sdists), as written."""
    pattern = _STAGING.get(folder)
    match = pattern.match(name) if pattern else None
    if match is None:
        return None
    return match["tag"] if "tag" in match.re.groupindex else "v" + match["version"]


class Store:
    def __init__(self, root: Path, lock_timeout: float = LOCK_TIMEOUT) -> None:
        self.root = root
        self.lock_timeout = lock_timeout
        self._locks: dict[str, filelock.FileLock] = {}
        self._parsed: dict[str, tuple[_Identity, Registry]] = {}

    # -- registries -------------------------------------------------------------------------------------------

    def known_tags(self) -> list[str]:
        """Tags with a bundled or cached registry, oldest release first."""
        names = set(bundled_tags())
        if self.registries_dir.is_dir():
            names |= {p.stem for p in self.registries_dir.glob("v*.json")}
        return sorted((t for t in names if _is_tag(t)), key=tag_key)

    def names(self, tag: str) -> Names:
        """The names the registry of `tag` defines per kind: the bundled index unless a refreshed registry is cached
        (it may differ from the bundled one), where a question across every release would parse each in full."""
        if not self.registry_path(tag).is_file():
            bundled = bundled_names(tag)
            if bundled is not None:
                return bundled
        return names_of(self.load_registry(tag))

    def registry_path(self, tag: str) -> Path:
        return self.registries_dir / f"{normalize_tag(tag)}.json"

    def load_registry(self, tag: str) -> Registry:
        """The cached registry when valid, else one rebuilt from the cached tree, else the bundled one.

        A registry is parsed once per state of its cached file (inode, size, mtime): parsing takes ~20 ms, and
        questions asked of every release (where else does this flag exist) would otherwise pay it per name.
        Registries are frozen models, so one parsed copy is safely shared by every call.
        """
        tag = normalize_tag(tag)
        identity = _identity(self.registry_path(tag))
        remembered = self._parsed.get(tag)
        if remembered is not None and remembered[0] == identity:
            return remembered[1]
        registry = self._load_registry(tag)
        self._parsed[tag] = (identity, registry)
        return registry

    def _load_registry(self, tag: str) -> Registry:
        path = self.registry_path(tag)
        if path.is_file():
            registry, problem, damaged = _read_cached(path, tag)
            if registry is not None:
                return registry
            if damaged:  # a stale one is only superseded; a damaged one must not be read on every call
                quarantine(path, problem)
            if self.tree_source(tag) is not None:
                return self.rebuild_registry(tag)
            bundled = read_bundled(tag)
            if bundled is not None:
                return bundled
            raise RegistryUnavailableError(
                f"The cached registry {path} is unusable ({problem}) and no tree of {tag} is cached; "
                f"run `vllm-quant-mcp refresh --tag {tag}` to rebuild it."
            )
        bundled = read_bundled(tag)
        if bundled is None:
            raise UnknownTagError(tag, nearest_tags(tag, self.known_tags()))
        return bundled

    def save_registry(self, registry: Registry) -> Path:
        path = self.registry_path(registry.tag)
        atomic_write_text(path, registry.model_dump_json(indent=1) + "\n")
        return path

    def rebuild_registry(self, tag: str) -> Registry:
        """Derive the registry of `tag` again from its cached tree and save it."""
        from .derive import derive_registry

        tag = normalize_tag(tag)
        with self.lock(tag):
            info = self.tree_source(tag)
            if info is None:
                raise RegistryUnavailableError(f"No tree of {tag} is cached; run `vllm-quant-mcp refresh --tag {tag}`.")
            registry = derive_registry(self.source_tree(tag), info)
            self.save_registry(registry)
        return registry

    # -- trees ------------------------------------------------------------------------------------------------

    def tree_path(self, tag: str) -> Path:
        return self.trees_dir / normalize_tag(tag)

    def tree_source(self, tag: str) -> SourceInfo | None:
        """How the cached tree of `tag` was obtained, or None when no complete tree is cached."""
        record = self.tree_path(tag) / SOURCE_RECORD
        try:
            return SourceInfo.model_validate_json(record.read_text(encoding="utf-8"))
        except (OSError, ValidationError):
            return None

    def source_tree(self, tag: str) -> SourceTree:
        """The cached tree; a pack that does not open is moved aside (DamagedPackError: ensure_tree fetches anew)."""
        info = self.tree_source(tag)
        if info is None:
            raise RegistryUnavailableError(f"No tree of {tag} is cached; run `vllm-quant-mcp refresh --tag {tag}`.")
        root = self.tree_path(tag)
        if (root / INDEX_NAME).is_file():
            try:
                return PackedTree(root, normalize_tag(tag), info.commit)
            except (DamagedPackError, OSError) as exc:  # OSError: a part of the pack is gone
                with self.lock(tag):
                    note = quarantine(root, str(exc))
                raise DamagedPackError(note) from exc
        return SourceTree(root, normalize_tag(tag), info.commit)

    def ensure_tree(self, tag: str, source: Source | None = None) -> SourceTree:
        """The cached tree of `tag`, fetched first (default: git, then the package index) when missing or damaged."""
        tag = normalize_tag(tag)
        try:
            return self._ensure_tree(tag, source)
        except DamagedPackError:  # moved aside by source_tree: fetch it again, once
            return self._ensure_tree(tag, source)

    def _ensure_tree(self, tag: str, source: Source | None) -> SourceTree:
        if self.tree_source(tag) is None:
            with self.lock(tag):
                if self.tree_source(tag) is None:
                    if source is None:
                        from vllm_quant_mcp.knowledge.sources.select import make_source

                        source = make_source("auto", self.root)
                    self.install_tree(tag, source)
        return self.source_tree(tag)

    def install_tree(self, tag: str, source: Source) -> SourceInfo:
        """Fetch `tag` from `source` into a temporary folder and rename it into place; call under lock(tag)."""
        tag = normalize_tag(tag)
        self.trees_dir.mkdir(parents=True, exist_ok=True)
        for stale in self.trees_dir.glob(f".*-{tag}-*"):
            shutil.rmtree(stale, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix=f".tmp-{tag}-", dir=self.trees_dir))
        try:
            fresh = staging / "tree"
            fresh.mkdir()
            builder = PackBuilder()
            fetch_files = getattr(source, "fetch_files", None)
            info: SourceInfo
            if fetch_files is not None:  # straight from the archive into the pack, no loose files
                info = fetch_files(tag, builder.add)
            else:
                loose = staging / "loose"
                loose.mkdir()
                info = source.fetch(tag, loose)
                for relpath, data in directory_files(loose):
                    builder.add(relpath, data)
            report("index", 0, len(builder), f"packing {len(builder)} files of {tag}")
            builder.write(fresh)
            report("index", len(builder), len(builder), f"packed {len(builder)} files of {tag}")
            atomic_write_text(fresh / SOURCE_RECORD, info.model_dump_json())
            target = self.tree_path(tag)
            if target.exists():
                target.rename(staging / "old")
            fresh.rename(target)
            _sync_folder(self.trees_dir)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return info

    def pack_loose_tree(self, tag: str) -> bool:
        """Repack a tree an earlier version cached as loose files (call under lock(tag)); False when already packed."""
        tag = normalize_tag(tag)
        info = self.tree_source(tag)
        if info is None or (self.tree_path(tag) / INDEX_NAME).is_file():
            return False
        self.install_tree(tag, _LooseTree(self.tree_path(tag), info))
        return True

    # -- locking ----------------------------------------------------------------------------------------------

    @contextmanager
    def lock(self, tag: str) -> Iterator[None]:
        """Hold the refresh lock of `tag` (re-entrant within one thread; other threads and processes wait)."""
        tag = normalize_tag(tag)
        lock = self._locks.get(tag)
        if lock is None:
            try:
                self.locks_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise self.read_only(exc) from exc
            lock = self._locks.setdefault(tag, filelock.FileLock(self.locks_dir / f"{tag}.lock"))
        try:
            lock.acquire(timeout=self.lock_timeout)
        except filelock.Timeout as exc:
            raise LockTimeoutError(
                f"Another refresh of {tag} has held {lock.lock_file} for over {self.lock_timeout:.0f} s; "
                "wait for it to finish and retry (the lock is released when that process exits)."
            ) from exc
        except OSError as exc:  # after Timeout, which is an OSError too
            raise self.read_only(exc) from exc
        try:
            yield
        finally:
            lock.release()

    def read_only(self, exc: OSError) -> CacheReadOnlyError:
        """The one error for a cache this process cannot write, whichever write found it."""
        return CacheReadOnlyError(
            f"The cache {self.root} cannot be written ({exc.strerror or exc}); nothing in it was changed. "
            "Tools still answer from what it holds; to refresh or remove, set VLLM_QUANT_MCP_CACHE_DIR "
            "to a folder this process can write."
        )

    def sweep_interrupted(self) -> list[Path]:
        """Remove the staging folders of fetches that no process is running (their tag's lock is free); the
        folders still in use are returned. A fetch killed outright (SIGKILL, a cancelled server thread at exit)
        runs no `finally`, so without this its 70-100 MB would stay."""
        kept = []
        for parent in _STAGING:
            directory = self.root / parent
            for folder in sorted(directory.glob(".*")) if directory.is_dir() else []:
                tag = staging_tag(parent, folder.name)
                if tag is not None and not self._remove_unless_locked(tag, folder):
                    kept.append(folder)
        return kept

    def _remove_unless_locked(self, tag: str, folder: Path) -> bool:
        """Remove `folder` if no process holds the lock of `tag`; whether it is gone."""
        try:
            with Store(self.root, lock_timeout=0).lock(tag):
                shutil.rmtree(folder, ignore_errors=True)
        except (LockTimeoutError, CacheReadOnlyError, InvalidTagError):
            pass
        return not folder.exists()

    @property
    def registries_dir(self) -> Path:
        return self.root / "registries"

    @property
    def trees_dir(self) -> Path:
        return self.root / "trees"

    @property
    def locks_dir(self) -> Path:
        return self.root / "locks"


class _LooseTree:
    """The files of a cached loose tree, handed to install_tree to be packed (see pack_loose_tree)."""

    kind = "dir"

    def __init__(self, root: Path, info: SourceInfo) -> None:
        self.root, self.info = root, info

    def fetch_files(self, tag: str, add: Callable[[str, bytes], None]) -> SourceInfo:
        for relpath, data in directory_files(self.root):
            if relpath != SOURCE_RECORD:
                add(relpath, data)
        return self.info

    def fetch(self, tag: str, dest: Path) -> SourceInfo:
        raise InternalError("a cached loose tree is only ever repacked, never copied")  # pragma: no cover


_Identity = tuple[int, int, int] | None


def _sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable, so a crash cannot leave the old name after the new pack was trusted."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _identity(path: Path) -> _Identity:
    """What changes when the file is replaced or rewritten (atomic writes give a new inode); None when absent."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def _is_tag(text: str) -> bool:
    try:
        return normalize_tag(text) == text
    except InvalidTagError:
        return False


def _read_cached(path: Path, tag: str) -> tuple[Registry | None, str, bool]:
    """The registry at `path` if it is whole and current, else None, why not, and whether it is damaged."""
    try:
        registry = Registry.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as exc:
        return None, f"unreadable: {clip(str(exc).splitlines()[0], 200, quote=False)}", True
    if registry.schema_version != SCHEMA_VERSION:
        return None, f"schema {registry.schema_version}, expected {SCHEMA_VERSION}", False
    if registry.extractor_version != extractor_version():
        return None, f"extractor {registry.extractor_version}, current {extractor_version()}", False
    if registry.tag != tag:
        return None, f"it holds {registry.tag}", True
    return registry, "", False


@cache
def default_store() -> Store:
    """The store under VLLM_QUANT_MCP_CACHE_DIR (or the platform cache dir)."""
    return Store(settings().cache_dir)
