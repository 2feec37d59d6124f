"""What every tool needs from the outside world, passed in rather than imported.

Tools stay pure: the server or CLI builds one ToolContext (the store, the default tag, and how to
reach the knowledge base, the model hub and GitHub) and hands it to each call; tests build theirs on
real data and real stand-in servers. Each outside dependency is made on first use and then kept for
the context's life: a call that never reads the hub never builds a hub client, and start-up loads
none of them (tests/server/test_startup_imports.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from vllm_quant_mcp.knowledge.errors import UnavailableError
from vllm_quant_mcp.knowledge.registry.model import Registry, SourceInfo
from vllm_quant_mcp.knowledge.sources.tree import SourceTree
from vllm_quant_mcp.knowledge.tags import normalize_tag

if TYPE_CHECKING:
    from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
    from vllm_quant_mcp.knowledge.github.service import GitHubDeps
    from vllm_quant_mcp.knowledge.hub.client import HubClient
    from vllm_quant_mcp.knowledge.registry.names import Names

__all__ = ["FetchRefusedError", "Fetches", "RegistryStore", "ToolContext"]


class FetchRefusedError(UnavailableError):
    """The tree is not on disk and this process may not fetch it (--no-fetch, a read-only cache, the quota)."""


class Fetches:
    """What a process may fetch into the cache: nothing (`why` says which setting), or up to `quota` trees.

    A tree is ~85 MB packed; a shared server's clients name tags, its operator owns the disk.
    """

    def __init__(self, why_not: str | None = None, quota: int | None = None) -> None:
        self.why_not = why_not
        self.quota = quota
        self._taken = 0
        self._lock = threading.Lock()

    def take(self, tag: str, on_disk: list[str]) -> None:
        """Count one fetch of `tag`, or raise FetchRefusedError naming the setting and the tags on disk."""
        have = f" On disk: {', '.join(on_disk)}." if on_disk else " No tree is on disk."
        if self.why_not is not None:
            raise FetchRefusedError(
                f"The source of {tag} is not on disk and {self.why_not}, so it is not fetched.{have} "
                f"Ask the operator to run `vllm-quant-mcp refresh --tag {tag}`."
            )
        with self._lock:
            if self.quota is not None and self._taken >= self.quota:
                raise FetchRefusedError(
                    f"The source of {tag} is not on disk and this server has fetched its quota of {self.quota} "
                    f"trees (~85 MB each) since it started.{have} Ask the operator to run "
                    f"`vllm-quant-mcp refresh --tag {tag}`."
                )
            self._taken += 1


class RegistryStore(Protocol):
    def known_tags(self) -> list[str]: ...

    def load_registry(self, tag: str) -> Registry: ...

    def names(self, tag: str) -> Names: ...

    def ensure_tree(self, tag: str) -> SourceTree: ...

    def tree_source(self, tag: str) -> SourceInfo | None: ...

    def registry_path(self, tag: str) -> Path: ...


def bundled_knowledge() -> KnowledgeBase:
    from vllm_quant_mcp.knowledge.facts.knowledge_base import load_knowledge

    return load_knowledge()


def hub_from_env() -> HubClient:
    from vllm_quant_mcp.knowledge.hub.client import HubClient

    return HubClient.from_env()


def github_from_env(knowledge: KnowledgeBase) -> GitHubDeps:
    from vllm_quant_mcp.knowledge.github.service import github_from_env

    return github_from_env(knowledge)


@dataclass(frozen=True)
class ToolContext:
    store: RegistryStore
    default_tag: str
    # Whether a tool may read a model directory on this machine: the CLI and stdio serve whoever owns the disk;
    # an HTTP server serves clients who do not, and reads one only when its operator says so.
    local_models: bool = True
    # How to make each outside dependency, called once on first use (defaults: the bundled data, the environment).
    make_knowledge: Callable[[], KnowledgeBase] = bundled_knowledge
    make_hub: Callable[[], HubClient] = hub_from_env
    make_github: Callable[[KnowledgeBase], GitHubDeps] = github_from_env

    @cached_property
    def knowledge(self) -> KnowledgeBase:
        """The curated knowledge base."""
        return self.make_knowledge()

    @cached_property
    def hub(self) -> HubClient:
        """The model hub client (model configs, safetensors indexes)."""
        return self.make_hub()

    @cached_property
    def github(self) -> GitHubDeps:
        """The GitHub client, with the knowledge base and vLLM's history."""
        return self.make_github(self.knowledge)

    fetches: Fetches = field(default_factory=Fetches)
    # Whether answers may show paths on this machine (a tree's origin): not to an HTTP server's clients.
    local_paths: bool = True

    def origin(self, info: SourceInfo) -> SourceInfo:
        """The record as this caller may see it: a local path (no URL scheme) hidden from remote clients."""
        if self.local_paths or "://" in info.origin:
            return info
        return info.model_copy(update={"origin": "(a path on the server's host)"})

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
        known = self.store.known_tags()
        if resolved not in known:
            self.store.load_registry(resolved)  # raises UnknownTagError with the nearest tags
        self.fetches.take(resolved, [t for t in known if self.store.tree_source(t) is not None])
        tree = self.store.ensure_tree(resolved)
        info = self.store.tree_source(resolved)
        how = f" from {info.kind} ({self.origin(info).origin})" if info else ""
        return tree, f"The source of {resolved} was not cached; fetched it{how} for this call."
