"""What the knowledge base says about a KV dtype on a GPU, for when the source of the tag says nothing.

The derived matrix covers the GPUs of its grid from the release where the platforms list their
backend priorities; outside that (an older tag, a CPU, a capability off the grid) the curated
platform and SM limits are all there is. They are advisory: a `Judgement` with basis `curated`
and the knowledge-base id and citations, never an answer dressed as the source's.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.facts.kinds import Gpu, KvCacheDtypeFact
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.matrix import Mode
from vllm_quant_mcp.knowledge.registry.model import Registry

from .evaluate import kv_support
from .judgement import Judgement

__all__ = ["curated_kv", "dissent", "kv_fact", "kv_judgement"]


def kv_fact(kb: KnowledgeBase, kv: str, tag: str) -> KvCacheDtypeFact | None:
    return next((k for k in kb.kv_cache_dtypes if k.name == kv and k.applies_at(tag)), None)


def curated_kv(kb: KnowledgeBase, kv: str, gpu: Gpu, tag: str) -> Judgement | None:
    """The knowledge base's platform and SM limits for `kv` on `gpu`; None when it states none that apply."""
    fact = kv_fact(kb, kv, tag)
    if fact is None:
        return None
    platform = {"nvidia": "cuda", "amd": "rocm", "cpu": "cpu"}[gpu.vendor]
    problem = None
    if "any" not in fact.platforms and platform not in fact.platforms:
        problem = f"runs on {', '.join(fact.platforms)} only; {gpu.id} is {platform}"
    elif fact.only_sm and gpu.sm not in fact.only_sm:
        problem = f"is limited to SM {', '.join(map(str, fact.only_sm))}; {gpu.id} is SM{gpu.sm}"
    elif fact.min_sm is not None and (gpu.sm or 0) < fact.min_sm:
        problem = f"needs SM{fact.min_sm}+; {gpu.id} is SM{gpu.sm}"
    return Judgement(
        subject=f"--kv-cache-dtype {kv}",
        gpu=gpu.id,
        tag=tag,
        verdict="yes" if problem is None else "no",
        basis="curated",
        why=f"KV {kv} {problem} (knowledge base {fact.id})."
        if problem
        else f"The knowledge base ({fact.id}) sets no platform or SM limit that excludes {gpu.id}.",
        citations=[c.url for c in fact.citations],
    )


def kv_judgement(kb: KnowledgeBase, registry: Registry, kv: str, gpu: Gpu, mode: Mode = "dense") -> Judgement | None:
    """The source's answer when the tag's matrix covers the GPU, else the knowledge base's; None when neither speaks."""
    return kv_support(registry, kv, gpu, mode) or curated_kv(kb, kv, gpu, registry.tag)


def dissent(kb: KnowledgeBase, judged: Judgement) -> Judgement | None:
    """The knowledge base's `no` where the source's selection says yes, shown beside it, never instead of it.

    The matrix follows the call path into the selected backend's builder and impl constructors; a
    failure beyond vLLM's source (NVFP4 KV on SM90 at v0.21-v0.22, in FlashInfer's TRTLLM-gen kernels)
    is what such a curated limit records.
    """
    if judged.basis != "source" or judged.verdict != "yes" or not judged.subject.startswith("--kv-cache-dtype "):
        return None
    kv = judged.subject.removeprefix("--kv-cache-dtype ")
    gpu = next((g for g in kb.gpus if g.id == judged.gpu), None)
    curated = curated_kv(kb, kv, gpu, judged.tag) if gpu is not None else None
    return curated if curated is not None and curated.verdict == "no" else None
