"""What a GitHub lookup needs, built once per process from the environment: the client and the knowledge base."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase, load_knowledge

from .client import GitHubClient
from .settings import GitHubSettings, github_settings

__all__ = ["GitHubDeps", "default_github"]


@dataclass(frozen=True)
class GitHubDeps:
    """The GitHub client (with its cache and settings) and the knowledge base a lookup reads."""

    client: GitHubClient
    knowledge: KnowledgeBase

    @property
    def settings(self) -> GitHubSettings:
        return self.client.config


@cache
def default_github() -> GitHubDeps:
    """The process-wide dependencies, built from the environment on first use."""
    return GitHubDeps(GitHubClient(github_settings()), load_knowledge())
