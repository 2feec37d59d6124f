"""MCP wiring of the source tools: grep_vllm_source, read_vllm_source, find_symbol.

The query models in tools/ hold the authoritative bounds; the signatures here
repeat them so the input schema tells the model before it calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from mcp.server import MCPServer
from pydantic import Field

from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.grep_models import GrepQuery, GrepResult
from vllm_quant_mcp.tools.read_source import ReadQuery, ReadResult
from vllm_quant_mcp.tools.symbol_models import SymbolQuery, SymbolResult

from .app import READ_ONLY, anticipated
from .mcp_registry_tools import TagArg


def register(server: MCPServer, ctx: Callable[[], ToolContext]) -> None:
    @server.tool(annotations=READ_ONLY("Grep vLLM source at a tag"))
    @anticipated
    def grep_vllm_source(
        pattern: Annotated[str, Field(min_length=1, max_length=1000, description="Python regex, one line at a time.")],
        tag: TagArg = None,
        path_glob: Annotated[
            str | None, Field(max_length=300, description="e.g. 'vllm/model_executor/**', '!tests/**'.")
        ] = None,
        fixed_string: bool = False,
        ignore_case: bool = False,
        context: Annotated[int, Field(ge=0, le=10, description="Lines before/after each match.")] = 0,
        max_results: Annotated[int, Field(ge=1, le=500)] = 100,
    ) -> GrepResult:
        """Search the vLLM source tree at a tag; each match has path, line, text and a permalink. Use it to confirm
        where a flag, dtype or env var is handled. Example: grep_vllm_source(pattern="def get_min_capability",
        tag="v0.32.0", path_glob="vllm/model_executor/layers/quantization/**")
        """
        from vllm_quant_mcp.tools.source_at_tag import grep_at_tag  # the index and regex load on the first call

        query = GrepQuery(
            pattern=pattern,
            path_glob=path_glob,
            fixed_string=fixed_string,
            ignore_case=ignore_case,
            context=context,
            max_results=max_results,
        )
        return grep_at_tag(ctx(), query, tag)

    @server.tool(annotations=READ_ONLY("Read vLLM source at a tag"))
    @anticipated
    def read_vllm_source(
        path: Annotated[str, Field(min_length=1, max_length=1000, description="Repo-relative, e.g. vllm/envs.py.")],
        tag: TagArg = None,
        start_line: Annotated[int, Field(ge=1)] = 1,
        end_line: Annotated[int | None, Field(ge=1)] = None,
    ) -> ReadResult:
        """A file or line range of the vLLM tree at a tag, with a permalink; long files come in pages of 400
        lines (follow next_start_line). Example: read_vllm_source(path="vllm/config/cache.py", tag="v0.32.0",
        start_line=30, end_line=70)
        """
        from vllm_quant_mcp.tools.source_at_tag import read_at_tag

        return read_at_tag(ctx(), ReadQuery(path=path, start_line=start_line, end_line=end_line), tag)

    @server.tool(annotations=READ_ONLY("Find a symbol's definition"))
    @anticipated
    def find_symbol(
        name: Annotated[
            str, Field(max_length=200, description="Name or Class.method, e.g. Fp8Config.get_min_capability")
        ],
        tag: TagArg = None,
        kind: Literal["class", "function", "variable"] | None = None,
        max_results: Annotated[int, Field(ge=1, le=500)] = 50,
    ) -> SymbolResult:
        """Where a class, function/method or module-level name is defined in vLLM at a tag (path, line, first line,
        permalink). Example: find_symbol(name="CacheDType", tag="v0.32.0")
        """
        from vllm_quant_mcp.tools.source_at_tag import symbol_at_tag  # tree-sitter loads on the first call

        return symbol_at_tag(ctx(), SymbolQuery(name=name, kind=kind, max_results=max_results), tag)
