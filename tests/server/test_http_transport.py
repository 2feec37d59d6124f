"""`serve --transport http`: a real server process on 127.0.0.1, a real MCP client, and the two gates in front."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from support.loopback import closed_port

from vllm_quant_mcp.server.serve import allowed_hosts_and_origins

pytestmark = pytest.mark.anyio
EXE = str(Path(sys.executable).with_name("vllm-quant-mcp"))
TOKEN = "test-token-7f3a"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = closed_port()  # free now; the server binds it next
    env = {**os.environ, "VLLM_QUANT_MCP_CACHE_DIR": str(tmp_path_factory.mktemp("cache"))}
    proc = subprocess.Popen(
        [EXE, "serve", "--transport", "http", "--port", str(port), "--token", TOKEN],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:  # wait for the port to accept, never longer than the deadline
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("the HTTP server did not start") from None
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(timeout=10)


async def test_a_client_with_the_token_lists_tools_and_reads_a_registry(server_url: str) -> None:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as http,
        streamable_http_client(server_url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = await session.list_tools()
        result = await session.call_tool("get_registry", {"kind": "kv_cache_dtypes", "tag": "v0.32.0"})
    assert "grep_vllm_source" in {t.name for t in tools.tools}
    assert (result.structured_content or {})["total"] == 19


def test_a_request_without_the_token_is_refused_with_401(server_url: str) -> None:
    response = httpx.post(server_url, json=INIT, headers=HEADERS, timeout=10)
    assert response.status_code == 401
    wrong = httpx.post(server_url, json=INIT, headers={**HEADERS, "Authorization": "Bearer nope"}, timeout=10)
    assert wrong.status_code == 401
    other_scheme = httpx.post(server_url, json=INIT, headers={**HEADERS, "Authorization": f"Basic {TOKEN}"}, timeout=10)
    assert other_scheme.status_code == 401


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "Bearer"])
def test_the_bearer_scheme_is_accepted_in_any_case_as_rfc_7235_says(server_url: str, scheme: str) -> None:
    headers = {**HEADERS, "Authorization": f"{scheme} {TOKEN}"}
    response = httpx.post(server_url, json=INIT, headers=headers, timeout=10)
    assert response.status_code == 200, response.text


def test_a_foreign_origin_is_refused_even_with_the_token(server_url: str) -> None:
    headers = {**HEADERS, "Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}
    response = httpx.post(server_url, json=INIT, headers=headers, timeout=10)
    assert response.status_code == 403


def test_a_rebinding_host_header_is_refused(server_url: str) -> None:
    headers = {**HEADERS, "Authorization": f"Bearer {TOKEN}", "Host": "evil.example"}
    response = httpx.post(server_url, json=INIT, headers=headers, timeout=10)
    assert response.status_code in {403, 421}


def test_a_team_server_accepts_the_host_names_the_operator_allows() -> None:
    hosts, origins = allowed_hosts_and_origins("0.0.0.0", 8765, ["gpu-box.internal"], [])
    assert {"gpu-box.internal:8765", "127.0.0.1:8765", "localhost:8765"} <= set(hosts)
    assert "http://gpu-box.internal:8765" in origins
    assert "evil.example:8765" not in hosts
