"""`diff_tags`: what was added, removed or changed between the registries of two tags, kind by kind."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.registry.diff import RegistryDiff, diff_registries
from vllm_quant_mcp.tools.context import ToolContext

from .models import DiffTagsQuery

__all__ = ["diff_tags"]


def diff_tags(ctx: ToolContext, query: DiffTagsQuery) -> RegistryDiff:
    old = ctx.registry(query.from_tag)
    new = ctx.registry(query.to_tag)
    return diff_registries(old, new, [query.kind] if query.kind else None)
