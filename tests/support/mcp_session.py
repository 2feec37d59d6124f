"""A real MCP client session against `vllm-quant-mcp serve`, spawned as a subprocess over stdio."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp.client.session import ClientSession, LoggingFnT
from mcp.client.stdio import StdioServerParameters, stdio_client

SERVER_EXE = str(Path(sys.executable).with_name("vllm-quant-mcp"))


@asynccontextmanager
async def stdio_session(
    cache_dir: Path, *args: str, env: dict[str, str] | None = None, logging_callback: LoggingFnT | None = None
) -> AsyncIterator[ClientSession]:
    """Initialized session with the server; the cache is the test's own, nothing from the user's."""
    params = StdioServerParameters(
        command=SERVER_EXE,
        args=["serve", *args],
        env={
            "VLLM_QUANT_MCP_CACHE_DIR": str(cache_dir),
            "VLLM_QUANT_MCP_INDEX_URL": os.environ.get("VLLM_QUANT_MCP_INDEX_URL", "http://127.0.0.1:9/simple"),
            "VLLM_QUANT_MCP_REMOTE": str(cache_dir / "no-remote"),
            **(env or {}),
        },
    )
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, logging_callback=logging_callback) as session,
        ):
            await session.initialize()
            yield session
