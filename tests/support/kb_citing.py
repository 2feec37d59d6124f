"""A knowledge base whose facts cite a PR the bundled data no longer cites (the data cites merged PRs only).

lookup_issue compares curated facts with GitHub; its disagreement paths need facts that cite an open or
not-yet-released PR, as the data did before. model_copy skips the load-time check on purpose.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.facts.fact import PrCitation
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase

__all__ = ["citing"]


def citing(kb: KnowledgeBase, number: int, *fact_ids: str) -> KnowledgeBase:
    """`kb` with each named fact also citing vLLM PR #`number`."""
    update = {}
    for kind, facts in ((k, getattr(kb, k)) for k in type(kb).model_fields):
        if any(f.id in fact_ids for f in facts):
            update[kind] = [
                f.model_copy(update={"citations": [*f.citations, PrCitation(kind="pr", number=number)]})
                if f.id in fact_ids
                else f
                for f in facts
            ]
    assert sum(f.id in fact_ids for _, f in kb.facts()) == len(fact_ids), f"unknown fact ids in {fact_ids}"
    return kb.model_copy(update=update)
