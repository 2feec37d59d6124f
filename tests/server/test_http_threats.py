"""A hostile client of a shared HTTP server cannot stall it, fill it or lock others out: each threat, on a real process.

Bounds here are generous, to fail instead of hang; benchmarks/bench_load.py measures the real figures.
"""

from __future__ import annotations

import resource
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from support.cli import cli_env
from support.http_server import EXE, MCP_HEADERS, HttpServer, http_server, http_session
from support.http_server import INITIALIZE as INIT
from support.httpindex import IndexServer
from support.loopback import closed_port
from support.releases import sdist

from vllm_quant_mcp.knowledge.deploy.expand import MAX_CONTAINERS
from vllm_quant_mcp.knowledge.hub.model_facts import MAX_LAYERS
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.search.grep import MAX_NESTING
from vllm_quant_mcp.knowledge.sources.base import SourceInfo
from vllm_quant_mcp.server.http.sessions import PER_CLIENT
from vllm_quant_mcp.tools.find_symbol.tool import PARSE_LIMIT
from vllm_quant_mcp.tools.grep_vllm_source.models import GrepQuery
from vllm_quant_mcp.tools.paging import Window

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(cache_with_tree: Path) -> Iterator[HttpServer]:
    with http_server(cache_with_tree) as running:
        yield running


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_model_figures_of_millions_of_layers_cannot_hold_the_server(server: HttpServer) -> None:
    figures = {"params_b": 70, "layers": 30_000_000, "kv_heads": 8, "head_dim": 128}
    async with http_session(server.url) as session:
        result = await session.call_tool("pick_format", {"gpu": "h200", "model_figures": figures})
    assert result.is_error and str(MAX_LAYERS) in _text(result)


async def test_an_anchored_container_list_under_thousands_of_pods_cannot_hold_the_server(server: HttpServer) -> None:
    containers = "".join(f"  - {{name: c{i}, image: vllm/vllm-openai:v0.32.0, args: [m]}}\n" for i in range(1000))
    pods = "  - {kind: Pod, spec: {containers: *all}}\n" * 7000
    text = f"kind: List\nshared: &all\n{containers}items:\n{pods}"
    async with http_session(server.url) as session:
        result = await session.call_tool("audit_deployment", {"text": text, "filename": "pods.yaml"})
    assert result.is_error and f"{MAX_CONTAINERS:,} containers" in _text(result)


async def test_a_host_header_in_capitals_cannot_be_refused(server: HttpServer) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(server.url, json=INIT, headers={**MCP_HEADERS, "host": f"LOCALHOST:{server.port}"})
    assert response.status_code == 200


async def test_one_clients_initialize_flood_cannot_lock_out_a_new_session(server: HttpServer) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        opened = [await http.post(server.url, json=INIT, headers=MCP_HEADERS) for _ in range(PER_CLIENT + 20)]
        first = opened[0].headers["mcp-session-id"]
        again = await http.post(
            server.url,
            json={"jsonrpc": "2.0", "id": 2, "method": "ping"},
            headers={**MCP_HEADERS, "mcp-session-id": first, "mcp-protocol-version": "2025-06-18"},
        )
    assert {r.status_code for r in opened} == {200}
    assert again.status_code == 404  # the oldest idle session made room
    async with http_session(server.url) as session:
        assert not (await session.call_tool("list_tags", {})).is_error


async def test_idle_connections_past_the_file_limit_cannot_end_the_server(cache_with_tree: Path) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this test holds more than 1,024 sockets
    held: list[socket.socket] = []
    with http_server(cache_with_tree, file_limit=1024) as limited:
        try:
            for _ in range(1030):
                held.append(socket.create_connection(("127.0.0.1", limited.port), timeout=10))
            with anyio.fail_after(60):
                async with http_session(limited.url) as session:
                    answer = await session.call_tool("list_tags", {})
            assert limited.proc.poll() is None and not answer.is_error
        finally:
            for sock in held:
                sock.close()


async def test_a_stateless_server_cannot_be_held_by_get_streams(cache_with_tree: Path) -> None:
    with http_server(cache_with_tree, "--stateless") as stateless:
        async with httpx2.AsyncClient(timeout=30) as http:
            response = await http.get(stateless.url, headers={"accept": "text/event-stream"})
    assert response.status_code == 405


def test_an_empty_token_cannot_turn_authentication_off(tmp_path: Path) -> None:
    done = subprocess.run(
        [EXE, "serve", "--transport", "http", "--port", str(closed_port()), "--token", ""],
        capture_output=True,
        text=True,
        timeout=60,
        env={"VLLM_QUANT_MCP_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2 and "--token" in done.stderr and "empty" in done.stderr


def test_a_port_in_use_cannot_be_buried_in_log_lines(server: HttpServer, tmp_path: Path) -> None:
    done = subprocess.run(
        [EXE, "serve", "--transport", "http", "--port", str(server.port)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"VLLM_QUANT_MCP_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"error: cannot listen on 127.0.0.1:{server.port}: Address already in use"
    ]


def _forged_cursor(query: dict[str, Any]) -> str:
    """What a client computes from the tool's own fingerprint: the check is no secret."""
    key = Window.of(GrepQuery(**query), "grep_vllm_source", 20, ignore=("max_results",)).key
    return f"999999999.{key}"


async def test_a_forged_cursor_far_past_the_end_cannot_build_millions_of_lines(server: HttpServer) -> None:
    query = {"tag": "v0.32.0", "pattern": ".", "context": 10}
    async with http_session(server.url) as session:
        result = await session.call_tool("grep_vllm_source", {**query, "cursor": _forged_cursor(query)})
    assert result.is_error and "past the end of this result" in _text(result)


async def test_a_symbol_named_in_every_file_cannot_parse_them_all(server: HttpServer) -> None:
    async with http_session(server.url) as session:
        common = await session.call_tool("find_symbol", {"tag": "v0.32.0", "name": "self"})
        qualified = await session.call_tool("find_symbol", {"tag": "v0.32.0", "name": "Zzz.self"})
    assert common.is_error and f"in {PARSE_LIMIT:g} s" in _text(common)
    assert qualified.is_error and "no definition of 'Zzz.self'" in _text(qualified)


async def test_a_pattern_too_costly_to_compile_is_refused_without_holding_the_tag(server: HttpServer) -> None:
    async with http_session(server.url) as session:
        costly = await session.call_tool(
            "grep_vllm_source", {"tag": "v0.32.0", "pattern": "(?:(?:(?:a{1,10}){1000}){1000})"}
        )
        quick = await session.call_tool(
            "grep_vllm_source", {"tag": "v0.32.0", "pattern": "class Fp8Config", "max_results": 1}
        )
    assert costly.is_error and f"{MAX_NESTING:,}" in _text(costly)
    assert not quick.is_error


async def test_a_client_naming_a_tag_not_on_disk_cannot_fill_a_no_fetch_servers_disk(tmp_path: Path) -> None:
    with http_server(tmp_path, "--no-fetch") as running:
        async with http_session(running.url) as session:
            result = await session.call_tool("grep_vllm_source", {"tag": "v0.30.0", "pattern": "Fp8Config"})
    assert result.is_error and "v0.30.0 is not on disk" in _text(result) and "--no-fetch" in _text(result)
    assert not (tmp_path / "trees").exists() or not any((tmp_path / "trees").iterdir())


async def test_get_registry_cannot_show_an_http_client_the_operators_source_paths(tmp_path: Path) -> None:
    store = Store(tmp_path)
    bundled = store.load_registry("v0.32.0")
    local = SourceInfo(kind="dir", origin=str(tmp_path / "operators-checkout"))
    store.save_registry(bundled.model_copy(update={"source": local}))
    with http_server(tmp_path) as running:
        async with http_session(running.url) as session:
            summary = await session.call_tool("get_registry", {"tag": "v0.32.0"})
            flags = await session.call_tool("get_registry", {"tag": "v0.32.0", "kind": "cli_flags", "limit": 1})
    assert not summary.is_error and not flags.is_error
    assert "operators-checkout" not in _text(summary) + _text(flags)


async def test_a_second_request_with_the_same_id_cannot_hang_the_first_stream(server: HttpServer) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "grep_vllm_source", "arguments": {"tag": "v0.32.0", "pattern": r"(\w+)\s+\1"}},
    }
    async with httpx2.AsyncClient(timeout=60) as http:
        opened = await http.post(server.url, json=INIT, headers=MCP_HEADERS)
        headers = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
        headers["mcp-protocol-version"] = "2025-06-18"
        await http.post(server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        answers: list[httpx2.Response] = []

        async def post() -> None:
            answers.append(await http.post(server.url, json=call, headers=headers))

        async with anyio.create_task_group() as group:
            group.start_soon(post)
            group.start_soon(post)
    assert sorted(a.status_code for a in answers) == [200, 409]
    refused = next(a for a in answers if a.status_code == 409)
    assert refused.json()["id"] == 7 and "already in flight" in refused.json()["error"]["message"]


async def test_a_mirror_that_signs_its_links_cannot_have_the_signature_stored_or_served(tmp_path: Path) -> None:
    signed = "?X-Amz-Credential=AKIASECRET7/20261202&X-Amz-Signature=5ec2e7deadbeef&private_token=glpat-SECRET7"
    with IndexServer([sdist("0.6.3")]) as index:
        index.file_query = signed
        cache = tmp_path / "cache"
        env = cli_env(cache, VLLM_QUANT_MCP_INDEX_URL=index.index_url)
        argv = [EXE, "refresh", "--tag", "v0.6.3", "--source", "pypi"]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        assert any("X-Amz-Signature" in r for r in index.requests)  # the download did use the signed link
    stored = [p for p in cache.rglob("*") if p.is_file()]  # registries, source info, packs: nothing keeps it
    assert stored and not [p for p in stored if b"SECRET7" in p.read_bytes() or b"deadbeef" in p.read_bytes()]
    with http_server(cache) as running:
        async with http_session(running.url) as session:
            answer = await session.call_tool("get_registry", {"tag": "v0.6.3", "kind": "quantization_methods"})
    shown = _text(answer) + str(answer.structured_content)
    assert not answer.is_error and "SECRET7" not in shown and "deadbeef" not in shown
    assert "X-Amz-Signature=***" in shown  # the link is shown, its signature is not
    assert "SECRET7" not in done.stdout + done.stderr
