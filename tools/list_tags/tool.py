"""`list_tags`: the releases this server can answer for, oldest first, and the one used when a call names none."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.tags import tag_key
from vllm_quant_mcp.tools.context import ToolContext

from .models import ListTagsQuery, TagList

__all__ = ["list_tags"]


def list_tags(ctx: ToolContext, query: ListTagsQuery) -> TagList:
    return TagList(tags=sorted(ctx.store.known_tags(), key=tag_key), default_tag=ctx.default_tag)
