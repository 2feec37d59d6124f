"""The tool list as a model reads it: titles, read-only hints, clean schemas, descriptions under review.

The server answers tools/list from server/mcp/tools_list.json; these tests hold that file to what
registering the tools produces, so a description or schema change is a reviewable diff of it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.types import Tool

from vllm_quant_mcp.server.mcp.app import TOOLS_LIST, build_server, shipped_tools
from vllm_quant_mcp.server.runtime import make_context

pytestmark = pytest.mark.anyio
SHIPPED = Path(__file__).resolve().parents[2] / "server" / "mcp" / TOOLS_LIST


def _dump(tools: list[Tool]) -> list[dict[str, Any]]:
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]


async def _tools() -> list[dict[str, Any]]:
    """The listing registration produces (not the shipped file the server answers with)."""
    return _dump(await build_server(lambda: make_context(None)).live_tools())


async def test_every_tool_has_a_title_a_read_only_hint_and_a_unique_name() -> None:
    tools = await _tools()
    names = [t["name"] for t in tools]
    assert len(names) == len(set(names))
    for tool in tools:
        assert tool["title"], tool["name"]
        assert tool["annotations"]["readOnlyHint"] is True, tool["name"]
        assert tool["description"].strip(), tool["name"]


async def test_only_the_tools_that_can_reach_the_network_say_so() -> None:
    """MCP reads a missing openWorldHint as true, so every tool states it. GitHub (issues), the Hugging Face hub
    (a model's config) and a fetch of a tag's tree the cache lacks (the source tools) are the network."""
    reaching = {"lookup_issue", "search_issues", "pick_format", "grep_vllm_source", "read_vllm_source", "find_symbol"}
    hints = {t["name"]: t["annotations"]["openWorldHint"] for t in await _tools()}
    assert {name for name, open_world in hints.items() if open_world} == reaching
    assert all(isinstance(v, bool) for v in hints.values())


async def test_no_input_schema_has_a_top_level_union_that_clients_reject() -> None:
    for tool in await _tools():
        schema = tool["inputSchema"]
        assert schema["type"] == "object", tool["name"]
        assert not {"anyOf", "oneOf", "allOf"} & schema.keys(), tool["name"]


async def test_the_shipped_listing_is_what_registering_the_tools_produces() -> None:
    """Regenerate server/mcp/tools_list.json after a deliberate change with UPDATE_SNAPSHOTS=1."""
    current = json.dumps(await _tools(), indent=1, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SHIPPED.write_text(current, encoding="utf-8")
    assert SHIPPED.read_text(encoding="utf-8") == current


async def test_a_client_lists_the_shipped_tools_and_calls_one_before_anything_was_registered() -> None:
    server = build_server(lambda: make_context(None))
    async with Client(server) as client:
        listed = await client.list_tools()
        result = await client.call_tool("list_tags", {})
    assert _dump(listed.tools) == _dump(shipped_tools())
    assert "v0.32.0" in (result.structured_content or {})["tags"]


async def test_listing_the_tools_starts_their_registration_so_no_call_pays_it_on_the_event_loop() -> None:
    server = build_server(lambda: make_context(None))
    async with Client(server) as client:
        assert not server.tools_registered
        await client.list_tools()
        with anyio.fail_after(30):
            while not server.tools_registered:  # no tool was called: the listing alone set it going
                await anyio.sleep(0.02)


# What a model is shown of each tool: Claude's tool-use API, into which Claude Code and the Agent SDK map MCP tools,
# carries a tool's name, description and input schema; the output schema stays with the client (it checks
# structuredContent against it). 6,000 tokens at most of that: measured with Claude's published (v1) tokenizer this
# JSON runs at ~3.3 characters per token, so 19,800 characters (chars/4, the usual rule of thumb, would be lenient).
MODEL_BUDGET = 19_800
# The whole listing as sent, output schemas included: 12 tools took 19,774 characters (about 1,650 each); this
# leaves room for four more of that size, so the output schemas cannot grow unchecked either.
LISTING_BUDGET = 26_500


async def test_what_a_model_reads_of_the_tool_list_fits_the_token_budget_an_agent_pays_every_session() -> None:
    shown = [{key: tool[key] for key in ("name", "description", "inputSchema")} for tool in _dump(shipped_tools())]
    assert len(json.dumps(shown)) <= MODEL_BUDGET


async def test_the_whole_tool_list_as_sent_fits_its_budget() -> None:
    assert len(json.dumps(_dump(shipped_tools()))) <= LISTING_BUDGET
