"""`verify`: every machine-checkable claim of the knowledge base, run against the registries."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.facts import KnowledgeBase, load_knowledge
from vllm_quant_mcp.knowledge.tags import tag_key
from vllm_quant_mcp.knowledge.verify import VerifyReport, verify

from .context import ToolContext

__all__ = ["verify_knowledge"]


def verify_knowledge(
    ctx: ToolContext, tags: list[str] | None = None, knowledge: KnowledgeBase | None = None
) -> VerifyReport:
    """Claims checked on `tags` (default: every known tag); every known tag still orders "since" claims."""
    known = sorted(ctx.store.known_tags(), key=tag_key)
    wanted = [ctx.tag(t) for t in tags] if tags else known
    registries = {tag: ctx.registry(tag) for tag in wanted}
    return verify(knowledge or load_knowledge(), registries, known)
