"""What a GitHub lookup needs, built once per process from the environment: client, knowledge base, history."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase, load_knowledge

from .client import GitHubClient
from .history import HistoryRepo
from .settings import GitHubSettings, github_settings

__all__ = ["GitHubDeps", "default_github"]


@dataclass(frozen=True)
class GitHubDeps:
    """The GitHub client (with its cache and settings), the knowledge base, and vLLM's treeless history.

    `history` None: no git proof (the compare endpoint and release notes still answer).
    """

    client: GitHubClient
    knowledge: KnowledgeBase
    history: HistoryRepo | None

    @property
    def settings(self) -> GitHubSettings:
        return self.client.config


@cache
def default_github() -> GitHubDeps:
    """The process-wide dependencies, built from the environment on first use."""
    config = github_settings()
    return GitHubDeps(GitHubClient(config), load_knowledge(), HistoryRepo(config.remote, config.history_dir))
