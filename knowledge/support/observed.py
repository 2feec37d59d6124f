"""The `observed` basis: what the real vLLM wheel did on real hardware, set above the source's verdict.

An observation (knowledge/facts/data/observations.yaml) records, for one KV dtype and model shape
at one tag on one GPU capability, what each attention backend did. It decides the verdict at that
tag and capability for the backends the source says vLLM selects there (or the one forced with
--attention-backend). At another tag it is carried only where the source shows the same path:
the same backend selected through the same deciding checks (the same reasons in the same files;
line numbers move between releases). Otherwise the source's verdict stands, with the observation
beside it in the text. `verify` reports each observation the source's selection disagrees with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from vllm_quant_mcp.knowledge.facts.kinds import Gpu, Observation
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.facts.predicates import RegistryEvidence
from vllm_quant_mcp.knowledge.facts.verify import ClaimResult
from vllm_quant_mcp.knowledge.registry.matrix import Mode, Verdict
from vllm_quant_mcp.knowledge.registry.model import Registry

from .evaluate import kv_support
from .judgement import Judgement
from .shape import AttentionShape

__all__ = ["observation_claims", "with_observations"]

RegistryAt = Callable[[str], Registry]


def _matching(kb: KnowledgeBase, kv: str, mode: Mode, dtype: str, gpu: Gpu) -> Observation | None:
    return next(
        (
            o
            for o in kb.observations
            if o.kv_cache_dtype == kv and o.mode == mode and o.model_dtype == dtype and gpu.sm == o.run.sm
        ),
        None,
    )


def _observed(o: Observation, backends: list[str]) -> tuple[Verdict, str] | None:
    """What the run showed for the backends vLLM would take: None when one of them was not run."""
    runs = [o.outcome_of(b) for b in backends]
    if not backends or any(r is None for r in runs):
        return None
    ran = [r for r in runs if r is not None]
    parts = [
        f"{r.backend} {r.outcome.replace('_', ' ')}"
        + (f" ({r.stage})" if r.stage else "")
        + (f": {r.error}" if r.error else "")
        for r in ran
    ]
    if all(r.outcome == "runs" for r in ran):
        return "yes", "; ".join(parts)
    if all(r.outcome != "runs" for r in ran):
        return "no", "; ".join(parts)
    return "conditional", "; ".join(parts) + " (which one vLLM takes is a run-time check)"


def _path(j: Judgement) -> tuple[str | None, list[tuple[str, str]]]:
    return j.via, [(e.why, e.path) for e in j.evidence]


def with_observations(
    kb: KnowledgeBase, judged: Judgement, shape: AttentionShape, gpu: Gpu, registry: Registry, at: RegistryAt
) -> Judgement:
    """The source's KV verdict decided (at the observed tag), carried (same path) or accompanied by an observation."""
    kv = judged.subject.removeprefix("--kv-cache-dtype ")
    o = _matching(kb, kv, shape.mode, shape.dtype, gpu)
    if o is None or judged.basis != "source":
        return judged
    forced = shape.flags.get("--attention-backend")
    backends = [forced.upper()] if forced else (judged.via.split(" or ") if judged.via else [])
    seen = _observed(o, backends)
    cites = [o.provenance(), *(c.url for c in o.citations)]
    if seen is None:
        return judged
    verdict, what = seen
    if registry.tag == o.tag:
        how = f"{o.provenance()[0].upper()}{o.provenance()[1:]} ({o.id}): {what.rstrip('.')}."
    else:
        there = kv_support(at(o.tag), kv, gpu, shape.mode)
        if forced is None and (there is None or _path(there) != _path(judged)):
            if verdict == judged.verdict:
                return judged
            beside = (
                f" Beside it, not carried (the source at {o.tag} takes another path): {o.summary} ({o.provenance()})."
            )
            return judged.model_copy(update={"why": judged.why + beside, "citations": [*judged.citations, *cites]})
        how = (
            f"{o.provenance()[0].upper()}{o.provenance()[1:]} ({o.id}), carried to {registry.tag}: the source selects "
            f"{judged.via or forced} through the same checks at both tags. {what.rstrip('.')}."
        )
    return judged.model_copy(
        update={
            "verdict": verdict,
            "basis": "observed",
            "via": judged.via if verdict != "no" else None,
            "why": f"{how} The source's selection alone: {judged.why}",
            "citations": [*judged.citations, *cites],
        }
    )


def observation_claims(kb: KnowledgeBase, registries: Mapping[str, Registry]) -> list[ClaimResult]:
    """Each observation held against the source at its tag: confirmed where the selection agrees, else contradicted."""
    out = []
    for o in kb.observations:
        registry = registries.get(o.tag)
        gpu = next((g for g in kb.gpus if g.id == o.gpu), None)
        if registry is None or gpu is None:
            continue
        source = kv_support(registry, o.kv_cache_dtype, gpu, o.mode)
        if source is None:
            continue
        backends = [o.default_backend] if o.default_backend else (source.via.split(" or ") if source.via else [])
        seen = _observed(o, backends)
        observed: Verdict = seen[0] if seen else "conditional"
        agrees = observed == source.verdict or (source.verdict == "no" and observed == "no")
        where = source.evidence[-1] if source.evidence else None
        out.append(
            ClaimResult(
                fact_id=o.id,
                fact_kind="observations",
                claim=f"observed(kv={o.kv_cache_dtype}, mode={o.mode}, sm={o.run.sm}, tag={o.tag}) = {observed}",
                status="confirmed" if agrees else "contradicted",
                reason=f"The source at {o.tag} says {source.verdict}"
                + (f" via {source.via}" if source.via else "")
                + f"; {o.provenance()}: {o.summary}",
                evidence=[
                    RegistryEvidence(
                        tag=o.tag,
                        path=where.path if where else None,
                        line=where.line if where else None,
                        permalink=where.permalink if where else None,
                        observed=f"source {source.verdict}, observed {observed}",
                    )
                ],
            )
        )
    return out
