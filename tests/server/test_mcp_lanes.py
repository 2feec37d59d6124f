"""Tool calls run in lanes per kind of cost: a full lane turns callers away in time, never the other lanes.

The slow calls are real: pick_format reading a model from a stand-in hub that holds its
answers until the test lets go, so a slot of its lane stays taken as long as the test needs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp.client import Client
from mcp.types import CallToolResult, TextContent
from support.hubserver import HubServer

from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.server.mcp.app import VllmQuantServer, build_server
from vllm_quant_mcp.server.mcp.lanes import LANES, Lane
from vllm_quant_mcp.server.toolsets import mcp_specs
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.spec import Cost

pytestmark = pytest.mark.anyio
SLOW = "meta-llama/Llama-3.1-70B-Instruct"
OTHER = "Qwen/Qwen3-30B-A3B"
THIRD = "Qwen/Qwen3-Next-80B-A3B-Instruct"


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    with HubServer() as server:
        server.stalled.add(SLOW)
        monkeypatch.setenv("HF_ENDPOINT", server.endpoint)
        monkeypatch.setenv("VLLM_QUANT_MCP_CACHE_DIR", str(tmp_path / "cache"))
        yield server


def _server(tmp_path: Path, compute: Lane) -> VllmQuantServer:
    lanes: dict[Cost, Lane] = {**LANES, "compute": compute}
    return build_server(lambda: ToolContext(store=Store(tmp_path / "store"), default_tag="v0.32.0"), lanes)


def _text(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


def _pick(model: str) -> dict[str, object]:
    return {"gpu": "h200", "model": model, "num_gpus": 2, "tag": "v0.32.0"}


def test_cheap_and_expensive_tools_never_share_a_lane() -> None:
    costs = {spec.name: spec.cost for spec in mcp_specs()}
    assert costs["get_registry"] == costs["list_tags"] == "registry"
    assert costs["grep_vllm_source"] == "source"
    assert costs["lookup_issue"] == "network"
    expensive = ("audit_deployment", "check_gates", "diff_tags", "render_serve_cmd", "pick_format")
    assert {costs[name] for name in expensive} == {"compute"}


async def test_a_call_that_waits_past_the_bound_is_told_the_server_is_busy_while_cheap_calls_answer(
    tmp_path: Path, hub: HubServer
) -> None:
    server = _server(tmp_path, Lane(1, 0.2, "rankings"))
    results: dict[str, CallToolResult] = {}
    async with Client(server) as client:
        await client.call_tool("list_tags", {})  # tools registered first: the calls below reach the lanes in order

        async def call(key: str, name: str, arguments: dict[str, object]) -> None:
            results[key] = await client.call_tool(name, arguments)

        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "held", "pick_format", _pick(SLOW))
            await call("registry", "get_registry", {"kind": "kv_cache_dtypes"})
            await call("turned_away", "pick_format", _pick(OTHER))
            hub.release.set()
    assert not results["registry"].is_error and (results["registry"].structured_content or {})["total"] == 19
    assert results["turned_away"].is_error
    assert _text(results["turned_away"]).startswith("busy: 1 rankings running"), _text(results["turned_away"])
    assert "retry" in _text(results["turned_away"])
    assert not any(OTHER in path for path in hub.requests)  # it never ran


async def test_a_queued_call_the_client_cancels_never_runs(tmp_path: Path, hub: HubServer) -> None:
    server = _server(tmp_path, Lane(1, 60, "rankings"))
    queued = anyio.CancelScope()
    async with Client(server) as client:
        await client.call_tool("list_tags", {})  # tools registered first: the calls below reach the lane in order

        async def cancelled_call() -> None:
            with queued:
                await client.call_tool("pick_format", _pick(OTHER))

        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "pick_format", _pick(SLOW))
            tg.start_soon(cancelled_call)
            await client.call_tool("list_tags", {})  # answered in order: the call behind SLOW is queued by now
            queued.cancel()
            hub.release.set()
        # The lane is first come, first served: had the cancelled call stayed queued, it would run before this one.
        await client.call_tool("pick_format", _pick(THIRD))
    assert any(THIRD in path for path in hub.requests)
    assert not any(OTHER in path for path in hub.requests)
