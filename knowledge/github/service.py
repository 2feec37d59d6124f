"""What a GitHub lookup needs, built from the environment for one ToolContext: client, knowledge base, history."""

from __future__ import annotations

from dataclasses import dataclass

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase

from .client import GitHubClient
from .history import HistoryRepo
from .settings import GitHubSettings, github_settings

__all__ = ["GitHubDeps", "github_from_env"]


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


def github_from_env(knowledge: KnowledgeBase) -> GitHubDeps:
    """The dependencies as the environment configures them (GitHubSettings), over the given knowledge base."""
    config = github_settings()
    return GitHubDeps(GitHubClient(config), knowledge, HistoryRepo(config.remote, config.history_dir))
