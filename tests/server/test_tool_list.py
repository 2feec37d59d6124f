"""The tool list as a model reads it: titles, read-only hints, clean schemas, descriptions under review."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from vllm_quant_mcp.server.app import build_server
from vllm_quant_mcp.server.runtime import make_context

pytestmark = pytest.mark.anyio
SNAPSHOT = Path(__file__).parent / "snapshots" / "tools.json"


async def _tools() -> list[dict[str, Any]]:
    async with Client(build_server(lambda: make_context(None))) as client:
        listed = await client.list_tools()
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]


async def test_every_tool_has_a_title_a_read_only_hint_and_a_unique_name() -> None:
    tools = await _tools()
    names = [t["name"] for t in tools]
    assert len(names) == len(set(names))
    for tool in tools:
        assert tool["annotations"]["title"], tool["name"]
        assert tool["annotations"]["readOnlyHint"] is True, tool["name"]
        assert tool["description"].strip(), tool["name"]


async def test_no_input_schema_has_a_top_level_union_that_clients_reject() -> None:
    for tool in await _tools():
        schema = tool["inputSchema"]
        assert schema["type"] == "object", tool["name"]
        assert not {"anyOf", "oneOf", "allOf"} & schema.keys(), tool["name"]


async def test_tool_schemas_and_descriptions_match_the_reviewed_snapshot() -> None:
    """A description or schema change shows up as a diff of tests/server/snapshots/tools.json.

    Regenerate after a deliberate change with UPDATE_SNAPSHOTS=1.
    """
    current = json.dumps(await _tools(), indent=1, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(current, encoding="utf-8")
    assert SNAPSHOT.read_text(encoding="utf-8") == current


async def test_tools_list_fits_the_token_budget_an_agent_pays_every_session() -> None:
    """6,000 tokens at most. Measured with Claude's published (v1) tokenizer, this JSON runs at ~3.3 characters
    per token, so 19,800 characters is the budget; chars/4, the usual rule of thumb, would be more lenient.
    """
    assert len(json.dumps(await _tools())) <= 19_800
