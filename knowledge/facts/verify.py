"""Run every curated claim against the registries and say which the source confirms.

A contradiction is a finding about the knowledge base (or an extractor), never a
reason to loosen the claim: the report carries the tag, path and line to settle it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.tags import tag_key

from .knowledge_base import KnowledgeBase
from .predicates import RegistryEvidence, Status, describe, evaluate

__all__ = ["ClaimResult", "VerifyReport", "verify", "with_results"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ClaimResult(_Model):
    fact_id: str
    fact_kind: str
    claim: str = Field(description="The predicate in one line, e.g. method_present(name=bitsandbytes, present=False).")
    status: Status
    reason: str
    evidence: list[RegistryEvidence] = []


class VerifyReport(_Model):
    tags: list[str] = Field(description="Tags whose registries were checked, oldest first.")
    results: list[ClaimResult]
    counts: dict[Status, int] = Field(description="How many claims ended in each status.")


def verify(
    knowledge: KnowledgeBase, registries: Mapping[str, Registry], known_tags: Sequence[str] | None = None
) -> VerifyReport:
    """Evaluate every predicate of every fact; `known_tags` as in predicates.evaluate."""
    results = [
        ClaimResult(
            fact_id=fact.id,
            fact_kind=kind,
            claim=describe(predicate),
            **evaluate(predicate, registries, known_tags).model_dump(),
        )
        for kind, fact in knowledge.facts()
        for predicate in fact.predicates
    ]
    return with_results(VerifyReport(tags=sorted(registries, key=tag_key), results=[], counts={}), results)


def with_results(report: VerifyReport, more: Sequence[ClaimResult]) -> VerifyReport:
    """The report with `more` results added and the counts recomputed over all of them."""
    results = [*report.results, *more]
    tally = Counter(r.status for r in results)
    statuses: tuple[Status, ...] = ("confirmed", "contradicted", "not_checkable")
    counts = {status: tally.get(status, 0) for status in statuses}
    return report.model_copy(update={"results": results, "counts": counts})
