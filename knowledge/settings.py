"""Settings read from the environment once per process.

VLLM_QUANT_MCP_CACHE_DIR   where registries, trees, sdists and the git repository are kept
                           (default: the platform user cache dir, e.g. ~/.cache/vllm-quant-mcp)
VLLM_QUANT_MCP_REMOTE      git remote the `git` source fetches tags from
VLLM_QUANT_MCP_INDEX_URL   PEP 691 simple-index base URL the `pypi` and `wheel` sources use
VLLM_QUANT_MCP_KEEP_SDISTS 1 keeps each downloaded sdist under <cache>/sdists/ (default: read, then dropped)
VLLM_QUANT_MCP_STATE_DIR   where answers fetched on demand are kept (GitHub responses, model configs from the hub,
                           the treeless history lookup_issue proves releases with); default: the cache dir.
                           Apart from it because a team shares one prepared cache read-only among its servers,
                           while these answers are written by each server as its clients ask.
VLLM_QUANT_MCP_OFFLINE     1 never touches the network (`--offline`): answers come from the bundled registries and
                           the cache, and what would need a fetch says what is missing instead of trying.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import platformdirs
from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.errors import NetworkError

__all__ = ["DEFAULT_INDEX_URL", "DEFAULT_REMOTE", "Settings", "refuse_network", "settings"]

DEFAULT_REMOTE = "https://github.com/vllm-project/vllm.git"
DEFAULT_INDEX_URL = "https://pypi.org/simple"


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True)

    cache_dir: Path = Field(description="Root of the user cache (registries/, trees/, sdists/, git/).")
    remote: str = Field(default=DEFAULT_REMOTE, description="Git remote for the `git` source.")
    index_url: str = Field(default=DEFAULT_INDEX_URL, description="Simple-index base URL, without /vllm/.")
    keep_sdists: bool = Field(default=False, description="Keep downloaded sdists (45 MB each) for the next refresh.")
    state_dir: Path = Field(description="Root of what tools write as they answer (github/, hub/, git/history/).")
    offline: bool = Field(default=False, description="Never reach the network; answer from what is here.")

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        cache_dir = Path(environ.get("VLLM_QUANT_MCP_CACHE_DIR") or platformdirs.user_cache_dir("vllm-quant-mcp"))
        state_dir = environ.get("VLLM_QUANT_MCP_STATE_DIR")
        return cls(
            cache_dir=cache_dir.expanduser(),
            state_dir=Path(state_dir).expanduser() if state_dir else cache_dir.expanduser(),
            remote=environ.get("VLLM_QUANT_MCP_REMOTE") or DEFAULT_REMOTE,
            index_url=(environ.get("VLLM_QUANT_MCP_INDEX_URL") or DEFAULT_INDEX_URL).rstrip("/"),
            keep_sdists=environ.get("VLLM_QUANT_MCP_KEEP_SDISTS", "") not in ("", "0"),
            offline=environ.get("VLLM_QUANT_MCP_OFFLINE", "") not in ("", "0"),
        )


@cache
def settings() -> Settings:
    """The process-wide settings; tests that change the environment run a subprocess or pass values explicitly."""
    return Settings.from_env(os.environ)


def refuse_network(missing: str, via: str) -> None:
    """Before any request leaves the machine: offline, say what is missing and how to get it, instead."""
    if settings().offline:
        raise NetworkError(
            f"offline (--offline or VLLM_QUANT_MCP_OFFLINE=1): not cached here: {missing}; getting it needs {via}; "
            "run once without --offline (or `vllm-quant-mcp refresh --tag TAG` on a connected machine) to cache it."
        )
