"""`refresh`: obtain the tree of a tag (or reuse the cached one), derive its registry, save it.

The whole step runs under the tag's lock. A failure leaves the cache as it was: the
tree is only renamed into place once complete, the registry only written once derived.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.sources.base import Source
from vllm_quant_mcp.knowledge.sources.chain import FallbackSource
from vllm_quant_mcp.knowledge.sources.directory import DirectorySource
from vllm_quant_mcp.knowledge.sources.git import GitSource
from vllm_quant_mcp.knowledge.sources.select import make_source
from vllm_quant_mcp.knowledge.tags import normalize_tag

from .model import SourceInfo
from .store import Store, default_store

__all__ = ["RefreshResult", "refresh"]


class RefreshResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    tag: str
    source: SourceInfo = Field(description="How the tree the registry was derived from was obtained.")
    tree: Literal["fetched", "reused"] = Field(description="Whether the tree was fetched now or reused from the cache.")
    tree_path: str
    registry_path: str
    notes: list[str] = Field(default=[], description="What was tried and what else to know, e.g. fallbacks taken.")


def refresh(
    tag: str,
    source: str = "auto",
    remote: str | None = None,
    index_url: str | None = None,
    store: Store | None = None,
) -> RefreshResult:
    """Refresh the registry of `tag`; `source` is auto, git, pypi, wheel, installed or a directory path."""
    from .derive import derive_registry

    tag = normalize_tag(tag)
    store = store or default_store()
    chosen = make_source(source, store.root, remote=remote, index_url=index_url)
    notes: list[str] = []
    tree: Literal["fetched", "reused"]
    with store.lock(tag):
        kept = store.tree_source(tag)
        if kept is not None and _satisfies(kept, chosen):
            info, tree = kept, "reused"
            notes.append(f"Reused the cached tree of {tag} (from the {kept.kind} source, {kept.origin}).")
            if store.pack_loose_tree(tag):
                notes.append("Packed the cached tree for search (it was kept as loose files by an earlier version).")
        else:
            info, tree = store.install_tree(tag, chosen), "fetched"
            if isinstance(chosen, FallbackSource):
                notes.extend(chosen.notes)
            if info.kind == "wheel":
                notes.append(f"The index has no sdist of {tag}; read the .py files of the wheel {info.origin}.")
        registry = derive_registry(store.source_tree(tag), info)
        path = store.save_registry(registry)
    return RefreshResult(
        tag=tag,
        source=info,
        tree=tree,
        tree_path=str(store.tree_path(tag)),
        registry_path=str(path),
        notes=notes,
    )


def _satisfies(kept: SourceInfo, wanted: Source) -> bool:
    """Whether a cached tree came from the source the caller asked for (auto accepts any)."""
    if isinstance(wanted, FallbackSource):
        return True
    if isinstance(wanted, GitSource):
        return kept.kind == "git" and kept.origin == wanted.remote
    if isinstance(wanted, DirectorySource):
        return kept.kind == "dir" and kept.origin == str(wanted.root)
    return kept.kind in ("pypi", "wheel")
