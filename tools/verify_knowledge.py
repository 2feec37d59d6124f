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
    """Every claim checked against every known registry; with `tags`, only the claims that speak of them.

    A "since v0.28.0" claim needs every release from there on (and the one before), so the
    registries are always all loaded (~0.1 s); `tags` narrows what is reported, not what is read.
    """
    known = sorted(ctx.store.known_tags(), key=tag_key)
    report = verify(knowledge or load_knowledge(), {tag: ctx.registry(tag) for tag in known}, known)
    if not tags:
        return report
    wanted = {ctx.registry(t).tag for t in tags}  # an unknown tag raises, naming the nearest ones
    results = [r for r in report.results if any(e.tag in wanted for e in r.evidence)]
    counts = {status: sum(r.status == status for r in results) for status in report.counts}
    return report.model_copy(update={"tags": sorted(wanted, key=tag_key), "results": results, "counts": counts})
