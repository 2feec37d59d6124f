"""grep, read and find_symbol through a real MCP client over stdio, on the real v0.32.0 tree.

The tree reaches the server's cache the way `refresh --source DIR` puts it there,
so the server answers without a network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.mcp_session import stdio_session
from support.releases import release_tree

pytestmark = pytest.mark.anyio
CACHE_PY = "vllm/config/cache.py"


def _line_of(path: Path, prefix: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, text in enumerate(lines, 1) if text.startswith(prefix))


async def test_grep_read_and_find_symbol_agree_on_where_cachedtype_is_defined(cache_with_tree: Path) -> None:
    expected_line = _line_of(release_tree("0.32.0").root / CACHE_PY, "CacheDType = Literal[")
    async with stdio_session(cache_with_tree) as session:
        grep = await session.call_tool(
            "grep_vllm_source", {"pattern": r"^CacheDType = Literal\[", "tag": "v0.32.0", "path_glob": "vllm/config/**"}
        )
        symbol = await session.call_tool("find_symbol", {"name": "CacheDType", "tag": "v0.32.0"})
        read = await session.call_tool(
            "read_vllm_source",
            {"path": CACHE_PY, "tag": "v0.32.0", "start_line": expected_line, "end_line": expected_line + 1},
        )
    matches: list[dict[str, Any]] = (grep.structured_content or {})["matches"]
    assert [(m["path"], m["line"]) for m in matches] == [(CACHE_PY, expected_line)]
    assert matches[0]["permalink"].endswith(f"/blob/v0.32.0/{CACHE_PY}#L{expected_line}")
    definitions = (symbol.structured_content or {})["definitions"]
    # cuda.py also binds CacheDType = None outside TYPE_CHECKING; the Literal is the one in cache.py.
    assert (CACHE_PY, expected_line, "variable") in [(d["path"], d["line"], d["kind"]) for d in definitions]
    assert (read.structured_content or {})["text"].startswith("CacheDType = Literal[")


async def test_bad_inputs_are_tool_errors_that_say_what_to_do(cache_with_tree: Path) -> None:
    async with stdio_session(cache_with_tree) as session:
        invalid = await session.call_tool("grep_vllm_source", {"pattern": "get_min_capability(", "tag": "v0.32.0"})
        escape = await session.call_tool("read_vllm_source", {"path": "../../etc/passwd", "tag": "v0.32.0"})
        absolute = await session.call_tool("read_vllm_source", {"path": "/etc/passwd", "tag": "v0.32.0"})
        unknown = await session.call_tool("find_symbol", {"name": "CacheDTyp", "tag": "v0.32.0"})
    for result in (invalid, escape, absolute, unknown):
        assert result.is_error
    assert "fixed_string" in invalid.content[0].text  # type: ignore[union-attr]
    assert "relative path" in escape.content[0].text  # type: ignore[union-attr]
    assert "CacheDType" in unknown.content[0].text  # type: ignore[union-attr]


async def test_catastrophic_regex_is_stopped_with_an_error_not_a_hang(cache_with_tree: Path) -> None:
    async with stdio_session(cache_with_tree) as session:
        result = await session.call_tool("grep_vllm_source", {"pattern": "(a+)+$", "tag": "v0.32.0"})
    # Either the real tree holds no line that triggers backtracking and the search ends, or it times out
    # with an error that says so; it never hangs (pytest-timeout guards).
    if result.is_error:
        assert "time" in result.content[0].text.lower()  # type: ignore[union-attr]
