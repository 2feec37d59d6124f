"""The source tools at a tag: fetch the tree (once) through the store, then run the pure search.

The pure functions in grep_source, read_source and find_symbol take a tree; these
take the ToolContext and a tag, as the MCP tools and CLI subcommands do.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.index.trigram import index_for

from .context import ToolContext
from .find_symbol import SymbolQuery, SymbolResult, find_symbol
from .grep_source import GrepQuery, GrepResult, grep_vllm_source
from .read_source import ReadQuery, ReadResult, read_vllm_source

__all__ = ["grep_at_tag", "read_at_tag", "symbol_at_tag"]


def grep_at_tag(ctx: ToolContext, query: GrepQuery, tag: str | None = None) -> GrepResult:
    tree, note = ctx.tree(tag)
    return grep_vllm_source(tree, index_for(tree, ctx.store.index_dir), query).model_copy(update={"note": note})


def read_at_tag(ctx: ToolContext, query: ReadQuery, tag: str | None = None) -> ReadResult:
    tree, note = ctx.tree(tag)
    return read_vllm_source(tree, query).model_copy(update={"note": note})


def symbol_at_tag(ctx: ToolContext, query: SymbolQuery, tag: str | None = None) -> SymbolResult:
    tree, note = ctx.tree(tag)
    return find_symbol(tree, index_for(tree, ctx.store.index_dir), query).model_copy(update={"note": note})
