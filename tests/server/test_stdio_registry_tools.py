"""The registry tools through a real MCP client session over stdio, on the bundled registries."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from mcp.types import PaginatedRequestParams
from support.mcp_session import stdio_session
from support.releases import release_tree

from vllm_quant_mcp.knowledge.registry.kinds import KIND_NAMES

pytestmark = pytest.mark.anyio


def _literal_names(path: Path, name: str) -> list[str]:
    """The strings of `name = Literal[...]`, read with Python's own ast — independent of our extractor."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            assert isinstance(node.value, ast.Subscript)
            elts = node.value.slice.elts if isinstance(node.value.slice, ast.Tuple) else [node.value.slice]
            return [e.value for e in elts if isinstance(e, ast.Constant)]
    raise AssertionError(f"{name} not found in {path}")


async def test_kv_cache_dtypes_over_stdio_match_the_cachedtype_literal_of_the_release(tmp_path: Path) -> None:
    tree = release_tree("0.32.0")
    expected = _literal_names(tree.root / "vllm/config/cache.py", "CacheDType")
    async with stdio_session(tmp_path) as session:
        result = await session.call_tool("get_registry", {"kind": "kv_cache_dtypes", "tag": "v0.32.0"})
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content or {}
    assert [e["name"] for e in data["entries"]] == expected
    assert len(expected) == 19
    first = data["entries"][0]["provenance"]
    assert first["path"] == "vllm/config/cache.py"
    assert first["permalink"].startswith("https://github.com/vllm-project/vllm/blob/v0.32.0/vllm/config/cache.py#L")


async def test_quantization_methods_over_stdio_match_the_literal_and_say_which_are_deprecated(tmp_path: Path) -> None:
    tree = release_tree("0.32.0")
    expected = _literal_names(tree.root / "vllm/model_executor/layers/quantization/__init__.py", "QuantizationMethods")
    async with stdio_session(tmp_path) as session:
        result = await session.call_tool("get_registry", {"kind": "quantization_methods", "tag": "v0.32.0"})
    entries = (result.structured_content or {})["entries"]
    assert [e["name"] for e in entries if e["details"]["accepted_by_cli"]] == expected
    assert sorted(e["name"] for e in entries if e["details"]["deprecated"]) == ["fbgemm_fp8", "fp_quant"]


async def test_unknown_tag_is_a_tool_error_that_names_the_nearest_known_tags(tmp_path: Path) -> None:
    async with stdio_session(tmp_path) as session:
        result = await session.call_tool("get_registry", {"tag": "v0.32.9"})
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert "v0.32.9" in text and "v0.32.0" in text


async def test_malformed_tag_is_a_tool_error_that_shows_the_expected_form(tmp_path: Path) -> None:
    async with stdio_session(tmp_path) as session:
        result = await session.call_tool("get_registry", {"tag": "--upload-pack=evil"})
    assert result.is_error
    assert "v0.32.0" in result.content[0].text  # type: ignore[union-attr]


async def test_diff_over_stdio_reports_bitsandbytes_removed_between_0_27_1_and_0_28_0(tmp_path: Path) -> None:
    async with stdio_session(tmp_path) as session:
        result = await session.call_tool(
            "diff_tags", {"from_tag": "v0.27.1", "to_tag": "v0.28.0", "kind": "quantization_methods"}
        )
    kinds = (result.structured_content or {})["kinds"]
    assert [k["kind"] for k in kinds] == ["quantization_methods"]
    assert "bitsandbytes" in [e["name"] for e in kinds[0]["removed"]]


async def test_registries_are_listed_page_by_page_and_readable_as_resources(tmp_path: Path) -> None:
    bundled = sorted(p.stem for p in (Path(__file__).parents[2] / "knowledge/registry/bundled").glob("v*.json"))
    uris: list[str] = []
    pages = 0
    async with stdio_session(tmp_path) as session:
        cursor = None
        while True:
            listed = await session.list_resources(params=PaginatedRequestParams(cursor=cursor))
            uris += [str(r.uri) for r in listed.resources]
            pages += 1
            assert len(listed.resources) <= 50
            if (cursor := listed.next_cursor) is None:
                break
        read = await session.read_resource("vllm-registry://v0.32.0/kv_cache_dtypes")
    assert len(uris) == len(set(uris)) == len(bundled) * len(KIND_NAMES)
    assert {u.split("/")[2] for u in uris} == set(bundled) and pages > 1
    assert "vllm-registry://v0.32.0/kv_cache_dtypes" in uris
    assert '"name":"fp8_e4m3"' in read.contents[0].text  # type: ignore[union-attr]
