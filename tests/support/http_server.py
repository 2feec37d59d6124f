"""`vllm-quant-mcp serve --transport http` as a real process on a free loopback port, and a client session to it."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from .loopback import closed_port
from .proctree import cpu_seconds

# A raw JSON-RPC initialize and the headers streamable HTTP asks for, for tests that speak to /mcp without a client.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


__all__ = ["HttpServer", "http_server", "http_session", "until_working", "wait_for_port"]

EXE = str(Path(sys.executable).with_name("vllm-quant-mcp"))


@dataclass(frozen=True)
class HttpServer:
    proc: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def wait_for_port(proc: subprocess.Popen[bytes], port: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:  # until the port accepts, never longer than the deadline
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("the HTTP server did not start") from None
            time.sleep(0.05)


async def until_working(pid: int, seconds: float = 1.0, done: Callable[[], bool] = lambda: False) -> None:
    """Until the server (its workers included) has spent `seconds` of CPU on the calls: they are running, not
    still on the way; or until `done()` says the calls are over already."""
    start = cpu_seconds(pid)
    with anyio.fail_after(120):
        while cpu_seconds(pid) - start < seconds and not done():
            await anyio.sleep(0.1)


@contextmanager
def http_server(
    cache_dir: Path, *args: str, env: dict[str, str] | None = None, file_limit: int | None = None
) -> Iterator[HttpServer]:
    """A server on its own cache (under `file_limit` open files, soft and hard); stopped (killed if it will not
    stop) when the block ends."""
    port = closed_port()  # free now; the server binds it next
    limit = (file_limit, file_limit) if file_limit else None
    proc = subprocess.Popen(
        [EXE, "serve", "--transport", "http", "--port", str(port), *args],
        env={
            **os.environ,
            "VLLM_QUANT_MCP_CACHE_DIR": str(cache_dir),
            "VLLM_QUANT_MCP_INDEX_URL": "http://127.0.0.1:9/simple",
            **(env or {}),
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, limit)) if limit else None,
    )
    try:
        wait_for_port(proc, port, 60)
        yield HttpServer(proc, port)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@asynccontextmanager
async def http_session(url: str, token: str | None = None, timeout: float = 60) -> AsyncIterator[ClientSession]:
    """An initialized MCP client session over streamable HTTP."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session
