"""The installed `vllm-quant-mcp` run as a user runs it: a subprocess with its own cache and no reachable services."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["EXE", "cli_env", "run_cli"]

EXE = str(Path(sys.executable).with_name("vllm-quant-mcp"))


def cli_env(cache: Path, **extra: str) -> dict[str, str]:
    """The environment of a CLI run: `cache` as the cache, every remote service pointed at a closed port."""
    env = {
        **os.environ,
        "VLLM_QUANT_MCP_CACHE_DIR": str(cache),
        "VLLM_QUANT_MCP_INDEX_URL": "http://127.0.0.1:9/simple",
        "VLLM_QUANT_MCP_REMOTE": str(cache / "no-such-remote"),
        "VLLM_QUANT_MCP_GITHUB_API": "http://127.0.0.1:9",
        "HF_ENDPOINT": "http://127.0.0.1:9",
        **extra,
    }
    env.pop("VLLM_QUANT_MCP_TAG", None)
    if "VLLM_QUANT_MCP_STATE_DIR" not in extra:  # what tools write goes under `cache`, never a developer's folder
        env.pop("VLLM_QUANT_MCP_STATE_DIR", None)
    return env


def run_cli(*args: str, cache: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, *args], capture_output=True, text=True, env=cli_env(cache, **extra), timeout=120)
