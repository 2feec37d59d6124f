"""The knowledge base's KV-dtype limits held against the derived matrix: where the two disagree, the source wins.

A curated `platforms: [rocm]` or `only_sm: [100]` is a claim about every GPU of our table at every
tag the fact covers. For each GPU whose capability the matrix derives, and each such tag, the
claim says "runs" or "does not run"; the source says yes in some model shape (dense, MLA,
sparse MLA), no in all of them, or leaves it to run time. A `yes` where the claim says no,
or a `no` where it says yes, is a contradiction, reported once per fact and GPU with the
tags and the deciding lines. Run-time verdicts decide nothing either way.

A source `yes` against a curated `no` can be a failure past what the source shows (a library's
kernels): the matrix follows vLLM's call path into the selected backend's constructors, so the
result says that no raise there is reached, and quotes the fact's notes for those tags and its
citations, so a reader sees both sides. The source still wins: the status stays contradicted.
"""

from __future__ import annotations

from collections.abc import Mapping

from vllm_quant_mcp.knowledge.facts.kinds import Gpu, KvCacheDtypeFact
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.facts.predicates import RegistryEvidence
from vllm_quant_mcp.knowledge.facts.verify import ClaimResult
from vllm_quant_mcp.knowledge.registry.across import release_spans
from vllm_quant_mcp.knowledge.registry.matrix import Mode
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.tags import tag_key

from .evaluate import kv_support
from .judgement import Judgement

__all__ = ["kv_limit_claims"]

MODES: tuple[Mode, ...] = ("dense", "mla", "sparse_mla")


def kv_limit_claims(kb: KnowledgeBase, registries: Mapping[str, Registry]) -> list[ClaimResult]:
    """One result per KV fact stating a limit and GPU the matrix covers: confirmed or contradicted."""
    ordered = sorted(registries, key=tag_key)
    results = []
    for fact in kb.kv_cache_dtypes:
        if fact.platforms == ["any"] and not fact.only_sm and fact.min_sm is None:
            continue
        for gpu in kb.gpus:
            results.append(_held(fact, gpu, [registries[t] for t in ordered if fact.applies_at(t)], ordered))
    return [r for r in results if r is not None]


def _claimed(fact: KvCacheDtypeFact, gpu: Gpu) -> bool:
    platform = {"nvidia": "cuda", "amd": "rocm", "cpu": "cpu"}[gpu.vendor]
    if "any" not in fact.platforms and platform not in fact.platforms:
        return False
    if fact.only_sm and gpu.sm not in fact.only_sm:
        return False
    return fact.min_sm is None or (gpu.sm or 0) >= fact.min_sm


def _judged(registry: Registry, kv: str, gpu: Gpu) -> Judgement | None:
    """Yes in any model shape, else no in every shape; None when a shape is left to run time or not derived."""
    judged = [kv_support(registry, kv, gpu, mode) for mode in MODES]
    if any(j is None for j in judged):
        return None
    found = [j for j in judged if j is not None]
    yes = next((j for j in found if j.verdict == "yes"), None)
    if yes is not None:
        return yes
    return found[0] if all(j.verdict == "no" for j in found) else None


def _held(fact: KvCacheDtypeFact, gpu: Gpu, registries: list[Registry], known: list[str]) -> ClaimResult | None:
    claimed = _claimed(fact, gpu)
    limits = ", ".join(
        part
        for part in (
            f"platforms={fact.platforms}" if fact.platforms != ["any"] else "",
            f"only_sm={fact.only_sm}" if fact.only_sm else "",
            f"min_sm={fact.min_sm}" if fact.min_sm is not None else "",
        )
        if part
    )
    claim = f"kv_runs_on(name={fact.name}, gpu={gpu.id}, {limits}) -> {'yes' if claimed else 'no'}"
    judged = [
        (r.tag, j)
        for r in registries
        if fact.name in {k.name for k in r.kv_cache_dtypes} and (j := _judged(r, fact.name, gpu)) is not None
    ]
    if not judged:
        return None
    against = [(tag, j) for tag, j in judged if (j.verdict == "yes") != claimed]
    if not against:
        tags = [tag for tag, _ in judged]
        return ClaimResult(
            fact_id=fact.id,
            fact_kind="kv_cache_dtypes",
            claim=claim,
            status="confirmed",
            reason=f"The derived matrix agrees at {release_spans(known, tags)}.",
            evidence=[_evidence(tags[-1], judged[-1][1])],
        )
    tags = [tag for tag, _ in against]
    latest = against[-1][1]
    reason = f"The source says {latest.verdict} at {release_spans(known, tags)}: {latest.why}"
    if latest.verdict == "yes" and not claimed:
        reason += " " + _beyond_source(fact, latest, tags)
    return ClaimResult(
        fact_id=fact.id,
        fact_kind="kv_cache_dtypes",
        claim=claim,
        status="contradicted",
        reason=reason,
        evidence=[_evidence(tag, j) for tag, j in against[-1:]],
    )


def _beyond_source(fact: KvCacheDtypeFact, judged: Judgement, tags: list[str]) -> str:
    """What each side rests on when vLLM's source lets it run and the knowledge base says it fails."""
    minors = {tag[: tag.rfind(".")] for tag in tags}  # v0.21.0 -> v0.21, as notes name a span
    notes = [n for n in fact.notes if any(m in n for m in minors)]
    cited = ", ".join(c.url for c in fact.citations)
    backend = judged.via or "the selected backend"
    said = f" Its notes: {' '.join(notes)}" if notes else ""
    return (
        f"No raise in {backend}'s metadata builder or impl constructor is reached for it there, so the "
        f"failure the knowledge base ({fact.id}) records lies outside vLLM's source.{said} Cited: {cited}."
    )


def _evidence(tag: str, judged: Judgement) -> RegistryEvidence:
    deciding = judged.evidence[-1] if judged.evidence else None
    return RegistryEvidence(
        tag=tag,
        path=deciding.path if deciding else None,
        line=deciding.line if deciding else None,
        permalink=deciding.permalink if deciding else None,
        observed=f"{judged.verdict}" + (f" via {judged.via}" if judged.via else ""),
    )
