"""SKILL.md and the server agree: every call it shows exists with those arguments, every tool is shown."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml
from mcp.client import Client

from vllm_quant_mcp.server.mcp.app import build_server
from vllm_quant_mcp.server.runtime import make_context

pytestmark = pytest.mark.anyio
SKILL = Path(__file__).resolve().parents[1] / "SKILL.md"


def _calls(text: str) -> list[ast.Call]:
    calls = []
    for span in re.findall(r"`([a-z_]+\(.*?\))`", text):
        node = ast.parse(span, mode="eval").body
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name), span
        calls.append(node)
    return calls


async def _schemas() -> dict[str, dict[str, object]]:
    async with Client(build_server(lambda: make_context(None))) as client:
        tools = (await client.list_tools()).tools
    return {t.name: t.input_schema for t in tools}


def test_frontmatter_has_the_skill_fields() -> None:
    _, front, body = SKILL.read_text(encoding="utf-8").split("---", 2)
    meta = yaml.safe_load(front)
    assert {"name", "description", "when_to_use"} <= meta.keys()
    assert "tag" in body and "permalink" in body


async def test_every_call_in_the_skill_names_a_real_tool_with_real_arguments() -> None:
    schemas = await _schemas()
    calls = _calls(SKILL.read_text(encoding="utf-8"))
    assert calls
    for call in calls:
        name = call.func.id  # type: ignore[attr-defined]
        assert name in schemas, f"SKILL.md calls {name}, which the server does not expose"
        properties = schemas[name]["properties"]
        assert isinstance(properties, dict)
        for keyword in call.keywords:
            assert keyword.arg in properties, f"{name} has no argument {keyword.arg!r}"


async def test_every_tool_the_server_exposes_appears_in_the_skill() -> None:
    shown = {call.func.id for call in _calls(SKILL.read_text(encoding="utf-8"))}  # type: ignore[attr-defined]
    assert set(await _schemas()) - shown == set()
