"""Every tool whose result can grow, read page by page through a real MCP client over stdio, as an agent would.

The pages must join to the whole answer, computed here without the tool's paging (from the
bundled registry files, the knowledge layer or the stand-in GitHub's own rows), and no
page may cost an agent more than its budget: 8k tokens, counted at 3.3 characters a token
(what Claude's tokenizer gives for this JSON; prose runs longer per token).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.types import CallToolResult, TextContent
from support.githubapi import GitHubApi, issue_json
from support.mcp_session import stdio_session
from support.paths import REPO
from support.releases import release_tree

from vllm_quant_mcp.knowledge.registry.diff import diff_registries
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.search.grep import search
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.tools.check_gates.models import CheckGatesQuery
from vllm_quant_mcp.tools.check_gates.tool import gates_report
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.find_symbol.models import SymbolQuery
from vllm_quant_mcp.tools.find_symbol.tool import find_in_tree

pytestmark = pytest.mark.anyio

BUDGET_CHARS = 26_400  # 8,000 tokens at 3.3 characters a token
COMMAND = (
    "vllm serve meta-llama/Llama-3.1-70B-Instruct --quantization fp8 --kv-cache-dtype fp8 "
    "--tensor-parallel-size 2 --gpu-memory-utilization 0.9 --enable-prefix-caching"
)


def _text(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


async def _pages(session: ClientSession, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of one question, following `next`; each page checked against the budget on the way."""
    pages: list[dict[str, Any]] = []
    cursor = None
    while True:
        result = await session.call_tool(tool, arguments | ({"cursor": cursor} if cursor else {}))
        assert not result.is_error, _text(result)
        data: dict[str, Any] = result.structured_content or {}
        text = _text(result)
        assert len(text) <= BUDGET_CHARS, (tool, len(pages), len(text))
        assert len(json.dumps(data)) <= BUDGET_CHARS, (tool, len(pages), len(json.dumps(data)))
        cursor = data["next"]
        if cursor is not None:
            assert f'cursor="{cursor}"' in text, "an agent reading only the text can ask for the next page"
        pages.append(data)
        if cursor is None:
            return pages
        assert len(pages) < 200, f"{tool} pages without end"


def _bundled(tag: str, kind: str) -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads((REPO / "knowledge/registry/bundled" / f"{tag}.json").read_text(encoding="utf-8"))
    entries: list[dict[str, Any]] = data[kind]
    return entries


def _flat_diff(diff: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    for k in diff["kinds"]:
        for section in ("added", "removed", "changed"):
            yield from ((k["kind"], section, json.dumps(e, sort_keys=True)) for e in k[section])
    yield from (("kernel_picks", "changed", json.dumps(c, sort_keys=True)) for c in diff["kernel_picks"])


def _flat_gates(findings: list[dict[str, Any]], hops: list[dict[str, Any]]) -> list[tuple[str, str]]:
    items = [("finding", json.dumps(f, sort_keys=True)) for f in findings]
    for hop in hops:
        where = f"{hop['from_tag']}->{hop['to_tag']}"
        items += [(where, json.dumps(g, sort_keys=True)) for g in hop["gates"]]
        items += [(where, json.dumps(c, sort_keys=True)) for c in hop["changes"]]
    return items


async def test_registry_diff_and_gates_pages_join_to_the_whole_answer_within_the_budget(tmp_path: Path) -> None:
    async with stdio_session(tmp_path) as session:
        registry = {
            kind: await _pages(session, "get_registry", {"tag": "v0.33.0", "kind": kind})
            for kind in ("cli_flags", "env_vars")
        }
        diff = await _pages(session, "diff_tags", {"from_tag": "v0.28.0", "to_tag": "v0.33.0"})
        gates_query = {"from_tag": "v0.28.0", "to_tag": "v0.33.0", "serve_command": COMMAND, "registry_changes": "all"}
        gates = await _pages(session, "check_gates", gates_query)

    for kind, pages in registry.items():
        joined = [(e["name"], e["provenance"]) for page in pages for e in page["entries"]]
        assert joined == [(e["name"], e["provenance"]) for e in _bundled("v0.33.0", kind)]
        assert len(pages) > 1 and {page["total"] for page in pages} == {len(joined)}

    store = Store(tmp_path)
    whole_diff = diff_registries(store.load_registry("v0.28.0"), store.load_registry("v0.33.0"))
    expected_diff = list(_flat_diff(whole_diff.model_dump(mode="json")))
    assert any(kind == "kernel_picks" for kind, _, _ in expected_diff)
    assert [item for page in diff for item in _flat_diff(page)] == expected_diff
    assert len(diff) > 1 and {page["total"] for page in diff} == {len(expected_diff)}

    whole = gates_report(ToolContext(store=store, default_tag="v0.33.0"), CheckGatesQuery.model_validate(gates_query))
    expected = whole.model_dump(mode="json")
    joined_gates = [item for page in gates for item in _flat_gates(page["findings"], page["hops"])]
    assert joined_gates == _flat_gates(expected["findings"], expected["hops"])
    assert len(gates) > 1 and gates[0]["command"] == expected["command"]
    assert all(page["command"] is None for page in gates[1:])


async def test_grep_and_find_symbol_pages_join_to_every_match_within_the_budget(cache_with_tree: Path) -> None:
    async with stdio_session(cache_with_tree) as session:
        grep = await _pages(session, "grep_vllm_source", {"pattern": "kv_cache_dtype", "tag": "v0.32.0", "context": 1})
        symbols = await _pages(session, "find_symbol", {"name": "create_weights", "tag": "v0.32.0", "max_results": 20})

    tree = release_tree("0.32.0")
    index = index_for(tree)
    found = search(index, "kv_cache_dtype", fixed_string=False, ignore_case=False, path_glob=None, keep=10**6)
    expected = [(index.paths[h.file_id], h.line) for h in found.hits]
    assert [(m["path"], m["line"]) for page in grep for m in page["matches"]] == expected
    assert len(grep) > 1 and {page["total_matches"] for page in grep} == {len(expected)}

    every = find_in_tree(tree, index, SymbolQuery(name="create_weights", max_results=500))
    assert not every.truncated
    joined = [(d["path"], d["line"], d["qualified_name"]) for page in symbols for d in page["definitions"]]
    assert joined == [(d.path, d.line, d.qualified_name) for d in every.definitions]
    assert len(symbols) == -(-len(every.definitions) // 20)


async def test_search_issues_pages_join_to_every_row_the_api_holds(tmp_path: Path) -> None:
    with GitHubApi() as api:
        api.search_items = [issue_json("vllm-project/vllm", n, title=f"fp8 case {n}") for n in range(1000, 1045)]
        env = {"VLLM_QUANT_MCP_GITHUB_API": api.base_url}
        async with stdio_session(tmp_path, env=env) as session:
            pages = await _pages(session, "search_issues", {"query": "fp8", "limit": 20})
            other = await session.call_tool("search_issues", {"query": "fp8", "limit": 10, "cursor": pages[0]["next"]})
    assert [row["number"] for page in pages for row in page["rows"]] == list(range(1000, 1045))
    assert len(pages) == 3
    assert other.is_error and "other arguments" in _text(other)
