"""Where the GitHub API is, who we are to it, and which repositories a caller may ask about.

VLLM_QUANT_MCP_GITHUB_API     REST API base URL (default https://api.github.com; GitHub Enterprise, tests)
GITHUB_TOKEN / GH_TOKEN       optional token; raises the rate limit, is sent only to the API base URL
VLLM_QUANT_MCP_GITHUB_REPOS   comma list of extra owner/name repositories lookups may name
VLLM_QUANT_MCP_REMOTE         the vLLM git remote whose tags prove which release holds a fix (as for `refresh`)

The token is a SecretStr from the moment it is read, so a repr, a log line or a
validation error shows `**********`, never the value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError

from ..settings import DEFAULT_REMOTE, settings

__all__ = ["DEFAULT_API_URL", "DEFAULT_REPO", "GitHubSettings", "RepoNotAllowedError", "github_settings"]

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_REPO = "vllm-project/vllm"
_REPO_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9_.][A-Za-z0-9_.-]{0,99}$")


class RepoNotAllowedError(InvalidInputError):
    """A repository outside the configured allow-list, or not shaped like owner/name."""


class GitHubSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    api_url: str = Field(default=DEFAULT_API_URL, description="REST API base URL, without a trailing slash.")
    token: SecretStr | None = Field(default=None, description="Bearer token; never logged or cached.")
    repos: tuple[str, ...] = Field(default=(DEFAULT_REPO,), description="Repositories lookups may name, first=default.")
    cache_dir: Path = Field(description="Where diskcache keeps responses (<state>/github).")
    remote: str = Field(default=DEFAULT_REMOTE, description="vLLM's git remote, fetched treeless to prove releases.")
    history_dir: Path = Field(description="Where the treeless history repositories live (<state>/git/history).")
    timeout: float = Field(default=10.0, gt=0, description="Seconds per request (connect, read, write, pool).")
    deadline: float = Field(default=30.0, gt=0, description="Seconds one lookup may spend on the network in all.")
    open_ttl: float = Field(default=600.0, ge=0, description="Seconds an open item or a list is served as is.")
    closed_ttl: float = Field(default=7 * 86400.0, ge=0, description="The same for a closed issue or PR.")

    @classmethod
    def from_env(cls, environ: Mapping[str, str], cache_root: Path) -> GitHubSettings:
        token = environ.get("GITHUB_TOKEN") or environ.get("GH_TOKEN") or None
        extra = [r.strip() for r in (environ.get("VLLM_QUANT_MCP_GITHUB_REPOS") or "").split(",") if r.strip()]
        for repo in extra:
            if not _REPO_RE.match(repo):
                raise RepoNotAllowedError(
                    f"VLLM_QUANT_MCP_GITHUB_REPOS names {clip(repo)}, which is not owner/name; fix the comma list."
                )
        repos = tuple(dict.fromkeys([DEFAULT_REPO, *extra]))
        return cls(
            api_url=(environ.get("VLLM_QUANT_MCP_GITHUB_API") or DEFAULT_API_URL).rstrip("/"),
            token=SecretStr(token) if token else None,
            repos=repos,
            cache_dir=cache_root / "github",
            remote=environ.get("VLLM_QUANT_MCP_REMOTE") or DEFAULT_REMOTE,
            history_dir=cache_root / "git" / "history",
        )

    def check_repo(self, repo: str | None) -> str:
        """The allowed repository a call names (default vllm-project/vllm), spelled as configured."""
        if repo is None:
            return self.repos[0]
        wanted = repo.strip().removeprefix("https://github.com/").removesuffix(".git").strip("/")
        for allowed in self.repos:
            if wanted.lower() == allowed.lower():
                return allowed
        raise RepoNotAllowedError(
            f"Repository {clip(repo)} is not allowed here; allowed: {', '.join(self.repos)}. "
            "Omit repo for vllm-project/vllm, or add it to VLLM_QUANT_MCP_GITHUB_REPOS."
        )


def github_settings() -> GitHubSettings:
    """Settings from the process environment, under the folder for what tools write as they answer."""
    return GitHubSettings.from_env(os.environ, settings().state_dir)
