"""The server speaks MCP 2026-07-28 and keeps serving 2025-11-25 clients: real stdio sessions of each.

2026-07-28: the SDK client's `auto` mode probes `server/discover` and adopts the revision; results
that depend only on the tag (registry resources, the listings) carry a day-long public cache hint;
log messages arrive only for a request that asks for them (`_meta` log level), at that level.
2025-11-25: the initialize handshake, no cache hints on the wire, `logging/setLevel` as before.
Both see only the toolsets `serve --toolsets` names.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import LOG_LEVEL_META_KEY, LoggingMessageNotificationParams
from support.mcp_session import stdio_session

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),  # logging: SEP-2577
]
EXE = str(Path(sys.executable).with_name("vllm-quant-mcp"))
RESOURCE = "vllm-registry://v0.32.0/kv_cache_dtypes"
DAY_MS = 86_400_000


def modern(cache: Path, *args: str, logs: list[LoggingMessageNotificationParams] | None = None) -> Client:
    async def on_log(params: LoggingMessageNotificationParams) -> None:
        if logs is not None:
            logs.append(params)

    params = StdioServerParameters(
        command=EXE,
        args=["serve", *args],
        env={
            **{k: v for k, v in os.environ.items() if k in {"PATH", "HOME"}},
            "VLLM_QUANT_MCP_CACHE_DIR": str(cache),
            "VLLM_QUANT_MCP_INDEX_URL": "http://127.0.0.1:9/simple",
            "VLLM_QUANT_MCP_REMOTE": str(cache / "no-remote"),
        },
    )
    return Client(params, mode="auto", logging_callback=on_log, read_timeout_seconds=300)


async def test_a_2026_client_discovers_the_revision_and_gets_long_public_hints_on_tag_fixed_results(
    tmp_path: Path,
) -> None:
    async with modern(tmp_path) as client:
        assert client.protocol_version == "2026-07-28"
        read = await client.read_resource(RESOURCE)
        listed = await client.list_tools()
        templates = await client.list_resource_templates()
        resources = await client.list_resources()
    assert (read.ttl_ms, read.cache_scope) == (DAY_MS, "public")
    assert (listed.ttl_ms, listed.cache_scope) == (DAY_MS, "public")
    assert (templates.ttl_ms, templates.cache_scope) == (DAY_MS, "public")
    assert resources.cache_scope == "public" and 0 < resources.ttl_ms < DAY_MS  # grows when refresh adds a tag


async def test_a_2026_client_hears_logs_only_for_the_request_that_asks_and_at_its_level(
    cache_with_tree: Path,
) -> None:
    logs: list[LoggingMessageNotificationParams] = []
    damaged = cache_with_tree / "registries" / "v0.32.0.json"
    damaged.parent.mkdir(exist_ok=True)
    async with modern(cache_with_tree, logs=logs) as client:
        damaged.write_text("{damaged", encoding="utf-8")
        silent = await client.call_tool("get_registry", {"tag": "v0.32.0", "kind": "kv_cache_dtypes"})
        assert not silent.is_error and logs == [], "no _meta log level: the request did not opt in"
        damaged.write_text("{damaged", encoding="utf-8")
        told = await client.call_tool(
            "get_registry", {"tag": "v0.32.0", "kind": "kv_cache_dtypes"}, meta={LOG_LEVEL_META_KEY: "info"}
        )
    assert not told.is_error
    assert logs and {p.level for p in logs} == {"info"}
    assert {str(p.data).partition(":")[0] for p in logs} == {"derive"}


async def test_a_2025_11_25_client_still_connects_and_reads_without_cache_hints_on_the_wire(tmp_path: Path) -> None:
    async with stdio_session(tmp_path) as session:
        listed = await session.list_tools()
        read = await session.read_resource(RESOURCE)
    assert session.protocol_version == "2025-11-25"  # type: ignore[attr-defined]
    assert listed.tools and read.contents
    assert (listed.ttl_ms, read.ttl_ms) == (0, 0)  # the hints are 2026-07-28 vocabulary, sieved off legacy wires


async def test_serve_toolsets_offers_only_those_tools_to_clients_of_either_revision(tmp_path: Path) -> None:
    async with modern(tmp_path, "--toolsets", "registry") as client:
        names = {t.name for t in (await client.list_tools()).tools}
        refused = await client.call_tool("grep_vllm_source", {"pattern": "x"})
    assert names == {"list_tags", "get_registry", "diff_tags"}
    assert refused.is_error and "--toolsets" in refused.content[0].text  # type: ignore[union-attr]
    async with stdio_session(tmp_path, "--toolsets", "registry,deploy") as session:
        legacy = {t.name for t in (await session.list_tools()).tools}
    assert legacy == names | {"pick_format", "render_serve_cmd", "audit_deployment"}


def test_an_unknown_toolset_is_refused_at_start_naming_the_valid_ones(tmp_path: Path) -> None:
    done = subprocess.run([EXE, "serve", "--toolsets", "registri"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "registry, source, upgrade, deploy, knowledge" in done.stderr
