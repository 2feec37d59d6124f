"""The installed `vllm-quant-mcp` run as a user runs it, with its own cache and no reachable services.

`run_cli` starts a subprocess: for tests about the process (exit on a signal, a terminal, two
processes sharing a cache, start-up imports). `call_cli` calls the console script's `main` in this
process with the same environment and the same captured output: for tests about what the CLI
says and its exit status, at a fraction of the cost (no interpreter start, no imports per call).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["EXE", "call_cli", "cli_env", "run_cli"]

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


def _forget_settings() -> None:
    """The process-wide settings and store are read from the environment once; a call with another one re-reads."""
    from vllm_quant_mcp.knowledge.registry.store import default_store
    from vllm_quant_mcp.knowledge.settings import settings

    settings.cache_clear()
    default_store.cache_clear()


def call_cli(*args: str, cache: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    """`vllm-quant-mcp ARGS` in this process: the environment run_cli gives, stdout and stderr captured."""
    from vllm_quant_mcp.server.entry import main

    saved = dict(os.environ)
    out, err = io.StringIO(), io.StringIO()
    os.environ.clear()
    os.environ.update(cli_env(cache, **extra))
    _forget_settings()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        os.environ.clear()
        os.environ.update(saved)
        _forget_settings()
    return subprocess.CompletedProcess([EXE, *args], code, out.getvalue(), err.getvalue())
