"""What an agent pays per call: the text and structured content of the tools whose results can grow.

Run: `python benchmarks/bench_result_sizes.py`. Each call goes through a real MCP client
session (in memory) against the server as `serve` builds it, on a temporary cache that
holds the v0.32.0 tree (for grep and find_symbol). For each call: the characters of the
text content (what most clients put in front of the model), ≈ tokens as characters / 4,
the characters of the structured content, and, when the tool pages, how many calls it
takes to read everything by following `next` and the largest page's text.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from mcp.client import Client
from mcp.types import CallToolResult, TextContent

from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.sources.directory import DirectorySource
from vllm_quant_mcp.server.mcp.app import build_server
from vllm_quant_mcp.tools.context import ToolContext

TREE_TAG = "v0.32.0"
TEST_CACHE = Path.home() / ".cache" / "vllm-quant-mcp-tests"
COMMAND = (
    "vllm serve meta-llama/Llama-3.1-70B-Instruct --quantization fp8 --kv-cache-dtype fp8 "
    "--tensor-parallel-size 2 --max-model-len 32768 --gpu-memory-utilization 0.9 --enable-prefix-caching"
)
LLAMA_70B = {"params_b": 70.6, "layers": 80, "kv_heads": 8, "head_dim": 128, "max_position_embeddings": 131072}
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ('get_registry(kind="cli_flags")', "get_registry", {"kind": "cli_flags", "tag": "v0.33.0"}),
    ('get_registry(kind="env_vars")', "get_registry", {"kind": "env_vars", "tag": "v0.33.0"}),
    ('diff_tags("v0.14.0", "v0.33.0")', "diff_tags", {"from_tag": "v0.14.0", "to_tag": "v0.33.0"}),
    (
        'check_gates(..., registry_changes="all")',
        "check_gates",
        {"from_tag": "v0.14.0", "to_tag": "v0.33.0", "serve_command": COMMAND, "registry_changes": "all"},
    ),
    (
        "pick_format (70B model)",
        "pick_format",
        {"gpu": "h200", "model_figures": LLAMA_70B, "num_gpus": 2, "tag": "v0.33.0"},
    ),
    ('grep_vllm_source("quant")', "grep_vllm_source", {"pattern": "quant", "tag": TREE_TAG}),
    ('find_symbol("forward")', "find_symbol", {"name": "forward", "tag": TREE_TAG}),
]


def text_of(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


def install_tree(cache: Path) -> None:
    """The v0.32.0 tree from the test cache into the store (packed there, as a refresh leaves it)."""
    tree = TEST_CACHE / "trees" / "vllm-0.32.0"
    if not tree.is_dir():
        raise SystemExit(f"no v0.32.0 tree at {tree}; run the test suite once (tests/support/releases.py fills it)")
    store = Store(cache)
    with store.lock(TREE_TAG):
        store.install_tree(TREE_TAG, DirectorySource(tree))


async def measure(client: Client, tool: str, arguments: dict[str, Any], pages: bool) -> str:
    first = await client.call_tool(tool, arguments)
    if first.is_error:
        raise SystemExit(f"{tool}({arguments}) failed: {text_of(first)}")
    text = len(text_of(first))
    structured = len(json.dumps(first.structured_content, separators=(",", ":")))
    row = f"{text:>9,} {round(text / 4 / 1000):>4}k {structured:>11,}"
    if not pages:
        return row
    calls, largest, after = 1, text, (first.structured_content or {}).get("next")
    while after:
        page = await client.call_tool(tool, {**arguments, "cursor": after})
        calls, largest = calls + 1, max(largest, len(text_of(page)))
        after = (page.structured_content or {}).get("next")
    return row + f" {calls:>6} {largest:>11,}"


async def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bench-sizes-") as tmp:
        cache = Path(tmp)
        install_tree(cache)
        store = Store(cache)
        server = build_server(lambda: ToolContext(store=store, default_tag="v0.33.0"))
        async with Client(server) as client:
            schemas = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            print(f"{'call':<42} {'text ch':>9} {'≈tok':>5} {'struct ch':>11} {'pages':>6} {'max page ch':>11}")
            for label, tool, arguments in CALLS:
                pages = "cursor" in schemas[tool].get("properties", {})
                print(f"{label:<42} {await measure(client, tool, arguments, pages)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
