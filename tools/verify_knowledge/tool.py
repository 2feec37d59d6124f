"""`verify_knowledge`: every machine-checkable claim of the knowledge base, run against the registries."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase, load_knowledge
from vllm_quant_mcp.knowledge.facts.verify import VerifyReport, verify
from vllm_quant_mcp.knowledge.tags import tag_key
from vllm_quant_mcp.tools.context import ToolContext

from .models import VerifyQuery

__all__ = ["verify_knowledge"]


def verify_knowledge(ctx: ToolContext, query: VerifyQuery, knowledge: KnowledgeBase | None = None) -> VerifyReport:
    """Every claim checked against every known registry; with `tags`, only the claims that speak of them.

    A "since v0.28.0" claim needs every release from there on (and the one before), so the
    registries are always all loaded (~0.1 s); `tags` narrows what is reported, not what is read.
    """
    tags = query.tags
    known = sorted(ctx.store.known_tags(), key=tag_key)
    report = verify(knowledge or load_knowledge(), {tag: ctx.registry(tag) for tag in known}, known)
    if not tags:
        return report
    wanted = {ctx.registry(t).tag for t in tags}  # an unknown tag raises, naming the nearest ones
    results = [r for r in report.results if any(e.tag in wanted for e in r.evidence)]
    counts = {status: sum(r.status == status for r in results) for status in report.counts}
    return report.model_copy(update={"tags": sorted(wanted, key=tag_key), "results": results, "counts": counts})
