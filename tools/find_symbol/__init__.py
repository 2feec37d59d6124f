"""`find_symbol`: where a class, function or module-level name is defined at a tag."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import SymbolQuery, SymbolResult

SPEC = ToolSpec(
    name="find_symbol",
    title="Find a symbol's definition",
    description=(
        "Where a class, function/method (Class.method) or module-level name is defined in vLLM at a tag: path, "
        "line, first line and permalink."
    ),
    query=SymbolQuery,
    result=SymbolResult,
    cli="symbol",
    cli_help="where a class, function or module-level name is defined at a tag",
    # A tag whose tree is not cached yet is fetched (git, then PyPI) on first use: the network.
    open_world=True,
    cost="source",
)
