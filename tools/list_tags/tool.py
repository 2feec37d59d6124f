"""`list_tags`: the releases this server can answer for, oldest first, and the one used when a call names none."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.registry.inventory import tag_origins
from vllm_quant_mcp.tools.context import ToolContext

from .models import KnownTag, ListTagsQuery, TagList

__all__ = ["list_tags"]


def list_tags(ctx: ToolContext, query: ListTagsQuery) -> TagList:
    known = [KnownTag(**origin.model_dump()) for origin in tag_origins(ctx.store)]
    return TagList(tags=[k.tag for k in known], default_tag=ctx.default_tag, known=known)
