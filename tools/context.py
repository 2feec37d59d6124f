"""What every tool needs from the outside world, passed in rather than imported.

Tools stay pure: the server or CLI builds one ToolContext (the store, the
default tag) and hands it to each call, and tests build theirs on real data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from vllm_quant_mcp.knowledge.registry.model import Registry, SourceInfo
from vllm_quant_mcp.knowledge.sources.tree import SourceTree
from vllm_quant_mcp.knowledge.tags import normalize_tag

__all__ = ["RegistryStore", "ToolContext"]


class RegistryStore(Protocol):
    def known_tags(self) -> list[str]: ...

    def load_registry(self, tag: str) -> Registry: ...

    def ensure_tree(self, tag: str) -> SourceTree: ...

    def tree_source(self, tag: str) -> SourceInfo | None: ...

    def registry_path(self, tag: str) -> Path: ...


@dataclass(frozen=True)
class ToolContext:
    store: RegistryStore
    default_tag: str
    # Whether a tool may read a model directory on this machine: the CLI and stdio serve whoever owns the disk;
    # an HTTP server serves clients who do not, and reads one only when its operator says so.
    local_models: bool = True

    def tag(self, tag: str | None) -> str:
        """The tag a call is about: the explicit one, validated, else the pinned default."""
        return normalize_tag(tag) if tag else self.default_tag

    def registry(self, tag: str | None) -> Registry:
        return self.store.load_registry(self.tag(tag))

    def tree(self, tag: str | None) -> tuple[SourceTree, str | None]:
        """The source tree at the tag, fetched into the cache on first use; the note says when it was."""
        resolved = self.tag(tag)
        if self.store.tree_source(resolved) is not None:
            return self.store.ensure_tree(resolved), None
        if resolved not in self.store.known_tags():
            self.store.load_registry(resolved)  # raises UnknownTagError with the nearest tags
        tree = self.store.ensure_tree(resolved)
        info = self.store.tree_source(resolved)
        how = f" from {info.kind} ({info.origin})" if info else ""
        return tree, f"The source of {resolved} was not cached; fetched it{how} for this call."
