"""`serve --transport http`: a real server process on 127.0.0.1, a real MCP client, and the two gates in front."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from support.http_server import INITIALIZE as INIT
from support.http_server import MCP_HEADERS as HEADERS
from support.http_server import http_server, http_session
from support.hubserver import llama_70b_config

from vllm_quant_mcp.server.cli.serve import allowed_hosts_and_origins

pytestmark = pytest.mark.anyio
TOKEN = "test-token-7f3a"


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with http_server(tmp_path_factory.mktemp("cache"), "--token", TOKEN) as server:
        yield server.url


async def test_a_client_with_the_token_lists_tools_and_reads_a_registry(server_url: str) -> None:
    async with (
        httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=30) as http,
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
    wrong = httpx.post(server_url, json=INIT, headers={**HEADERS, "authorization": "Bearer nope"}, timeout=10)
    assert wrong.status_code == 401
    other_scheme = httpx.post(server_url, json=INIT, headers={**HEADERS, "authorization": f"Basic {TOKEN}"}, timeout=10)
    assert other_scheme.status_code == 401


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "Bearer"])
def test_the_bearer_scheme_is_accepted_in_any_case_as_rfc_7235_says(server_url: str, scheme: str) -> None:
    headers = {**HEADERS, "authorization": f"{scheme} {TOKEN}"}
    response = httpx.post(server_url, json=INIT, headers=headers, timeout=10)
    assert response.status_code == 200, response.text


def test_a_foreign_origin_is_refused_even_with_the_token(server_url: str) -> None:
    headers = {**HEADERS, "authorization": f"Bearer {TOKEN}", "origin": "http://evil.example"}
    response = httpx.post(server_url, json=INIT, headers=headers, timeout=10)
    assert response.status_code == 403


def test_a_rebinding_host_header_is_refused(server_url: str) -> None:
    headers = {**HEADERS, "authorization": f"Bearer {TOKEN}", "host": "evil.example"}
    response = httpx.post(server_url, json=INIT, headers=headers, timeout=10)
    assert response.status_code in {403, 421}


def test_a_team_server_accepts_the_host_names_the_operator_allows() -> None:
    hosts, origins = allowed_hosts_and_origins("0.0.0.0", 8765, ["gpu-box.internal"], [])
    assert {"gpu-box.internal:8765", "127.0.0.1:8765", "localhost:8765"} <= set(hosts)
    assert "http://gpu-box.internal:8765" in origins
    assert "evil.example:8765" not in hosts


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model folder on the server's host, as an operator would keep one."""
    folder = tmp_path_factory.mktemp("models") / "llama-70b"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(llama_70b_config()), encoding="utf-8")
    return folder


def _pick(model: str) -> dict[str, object]:
    return {"gpu": "h200", "model": model, "num_gpus": 2, "tag": "v0.32.0"}


async def test_an_http_client_cannot_probe_which_directories_exist_on_the_server(
    server_url: str, model_dir: Path
) -> None:
    async with http_session(server_url, TOKEN) as session:
        existing = await session.call_tool("pick_format", _pick(str(model_dir)))
        missing = await session.call_tool("pick_format", _pick(str(model_dir.with_name("no-such-model"))))
        etc = await session.call_tool("pick_format", _pick("/etc"))
    texts = [r.content[0].text for r in (existing, missing, etc)]  # type: ignore[union-attr]
    assert all(r.is_error for r in (existing, missing, etc))
    assert "--allow-local-models" in texts[0]
    # The same answer whether the path exists, is a model or is not there: only the echoed path differs.
    after_the_path = {t.split(" is not a Hugging Face repo id", 1)[1] for t in texts}
    assert len(after_the_path) == 1 and all(t.startswith("model ") for t in texts)


async def test_an_operator_who_allows_local_models_lets_http_clients_read_them(tmp_path: Path, model_dir: Path) -> None:
    with http_server(tmp_path / "cache", "--allow-local-models") as server:
        async with http_session(server.url) as session:
            result = await session.call_tool("pick_format", _pick(str(model_dir)))
    assert not result.is_error, result.content
    assert (result.structured_content or {})["model"]["source"] == str(model_dir)
