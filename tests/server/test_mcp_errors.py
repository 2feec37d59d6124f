"""Errors as an agent reads them over MCP: one line, the bad argument named, what is allowed, a way on over MCP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent

from vllm_quant_mcp.knowledge.registry.kinds import KIND_NAMES
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.server.mcp.app import VllmQuantServer, build_server
from vllm_quant_mcp.tools.context import ToolContext

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(tmp_path: Path) -> VllmQuantServer:
    """On an empty cache of its own: the bundled registries only, whatever the user's cache holds."""
    return build_server(lambda: ToolContext(store=Store(tmp_path), default_tag="v0.32.0"))


def _text(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


async def _errors(server: VllmQuantServer, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    async with Client(server) as client:
        results = [await client.call_tool(name, arguments) for name, arguments in calls]
    for result in results:
        assert result.is_error, _text(result)
    texts = [_text(r) for r in results]
    for text in texts:
        assert "\n" not in text and "errors.pydantic.dev" not in text and "Error executing tool" not in text, text
        assert "vllm-quant-mcp " not in text, f"a CLI command in an MCP error: {text}"
    return texts


async def test_an_argument_outside_its_choices_names_the_nearest_and_every_allowed_value(
    server: VllmQuantServer,
) -> None:
    (text,) = await _errors(server, [("get_registry", {"kind": "kv_dtypes"})])
    assert text.startswith("kind='kv_dtypes' is not allowed (nearest: kv_cache_dtypes)")
    assert all(kind in text for kind in KIND_NAMES)


async def test_a_missing_or_misspelled_argument_is_named_with_what_the_tool_takes(server: VllmQuantServer) -> None:
    missing, misspelled, bound = await _errors(
        server,
        [
            ("diff_tags", {"from_tag": "v0.27.1"}),
            ("get_registry", {"kind": "cli_flags", "tga": "v0.27.1"}),
            ("grep_vllm_source", {"pattern": "fp8", "max_results": 0}),
        ],
    )
    assert missing.startswith("missing required argument to_tag: The target release")
    assert misspelled.startswith("unknown argument tga (did you mean tag?); arguments: tag, kind, contains")
    assert bound == "max_results=0: Input should be greater than or equal to 1"


async def test_an_unknown_tag_names_the_nearest_known_ones_and_the_tool_that_lists_them(
    server: VllmQuantServer,
) -> None:
    (text,) = await _errors(server, [("get_registry", {"tag": "v0.32.9", "kind": "cli_flags"})])
    assert "'v0.32.9' is not known" in text and "v0.32.0" in text and "list_tags" in text


async def test_a_cursor_is_good_only_for_the_question_that_gave_it(server: VllmQuantServer) -> None:
    async with Client(server) as client:
        first = await client.call_tool("get_registry", {"tag": "v0.32.0", "kind": "cli_flags"})
    cursor = (first.structured_content or {})["next"]
    other, forged = await _errors(
        server,
        [
            ("get_registry", {"tag": "v0.32.0", "kind": "env_vars", "cursor": cursor}),
            ("get_registry", {"tag": "v0.32.0", "kind": "cli_flags", "cursor": "999999999999.x"}),
        ],
    )
    assert "from a get_registry call with other arguments" in other and "omit cursor" in other
    assert "not one get_registry gave" in forged


async def test_an_unknown_tool_name_suggests_the_nearest_tool(server: VllmQuantServer) -> None:
    (text,) = await _errors(server, [("get_regstry", {})])
    assert text == "unknown tool 'get_regstry'; did you mean get_registry?; tools/list names all."


async def test_a_resource_at_an_unknown_tag_or_kind_says_what_exists_without_a_cli_command(
    server: VllmQuantServer,
) -> None:
    async with Client(server) as client:
        with pytest.raises(MCPError) as tag:
            await client.read_resource("vllm-registry://v0.32.9/cli_flags")
        with pytest.raises(MCPError) as kind:
            await client.read_resource("vllm-registry://v0.32.0/cli_flag")
    assert "list_tags" in tag.value.message and "vllm-quant-mcp " not in tag.value.message
    assert "(nearest: cli_flags)" in kind.value.message
