"""What every tool needs from the outside world, passed in rather than imported.

Tools stay pure: the server or CLI builds one ToolContext (the store, the default tag, and how to
reach the knowledge base, the model hub and GitHub) and hands it to each call; tests build theirs on
real data and real stand-in servers. Each outside dependency is made on first use and then kept for
the context's life: a call that never reads the hub never builds a hub client, and start-up loads
none of them (tests/server/test_startup_imports.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from vllm_quant_mcp.knowledge.registry.model import Registry, SourceInfo
from vllm_quant_mcp.knowledge.sources.tree import SourceTree
from vllm_quant_mcp.knowledge.tags import normalize_tag

if TYPE_CHECKING:
    from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
    from vllm_quant_mcp.knowledge.github.service import GitHubDeps
    from vllm_quant_mcp.knowledge.hub.client import HubClient

__all__ = ["RegistryStore", "ToolContext"]


class RegistryStore(Protocol):
    def known_tags(self) -> list[str]: ...

    def load_registry(self, tag: str) -> Registry: ...

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
