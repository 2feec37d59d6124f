"""Which MoE backend a --quantization value gets on a GPU at a tag: the oracle's walk, or a forced --moe-backend.

The backend and its expert class are the source's answer (the registry's kernel_support.moe, replayed from
fused_moe/oracle/); which MoE scheme a method builds is ours (kernels.METHOD_SCHEMES, curated).
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.registry.kernels import MoeOutcome
from vllm_quant_mcp.knowledge.registry.matrix import Check, Verdict
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.judgement import Evidence, Judgement
from vllm_quant_mcp.knowledge.support.kernel_evidence import checks_of, deciding, evidence_of, on

__all__ = ["moe_judgement"]


def moe_judgement(
    registry: Registry, method: str, gpu: str, where: tuple[str, str], scheme: str, moe_backend: str = "auto"
) -> tuple[Judgement, str | None] | None:
    """The MoE judgement (tensor parallel) and the expert class picked, or None where the tag walks no such scheme.

    With `moe_backend` other than auto, what that one backend does (the oracle's forced path, replayed): its expert
    class, or the raise vLLM meets, with its line; a release whose oracle maps no such value is judged as auto and
    says so.
    """
    selection = next((s for s in registry.kernel_support.moe if s.name == scheme), None)
    if selection is None:
        return None
    if moe_backend != "auto" and selection.unmapped and moe_backend not in selection.forced:
        return _unmapped_judgement(registry, method, gpu, moe_backend, selection.forced, selection.unmapped), None
    tp = [o for o in selection.outcomes if on(o, where) and o.parallel == "tp"]
    outcome = next((o for o in tp if o.moe_backend == moe_backend), None) or next(
        (o for o in tp if o.moe_backend == "auto"), None
    )
    if outcome is None:
        return None
    return _moe_judgement(registry, method, gpu, selection.provenance.path, outcome, moe_backend), outcome.experts


def _moe_judgement(
    registry: Registry, method: str, gpu: str, path: str, outcome: MoeOutcome, asked: str = "auto"
) -> Judgement:
    file = path.rsplit("/", 1)[-1]
    if outcome.moe_backend != "auto":
        return _forced_judgement(registry, method, gpu, file, outcome)
    refused = [v.kernel.split(":")[0] for v in outcome.considered if v.verdict == "no"]
    pending = [v.kernel for v in outcome.considered if v.verdict == "conditional"]
    why = f"{file}: {outcome.backend or 'no backend'} ({outcome.experts})"
    why += f" after {', '.join(refused)} refused" if refused else ""
    why += f"; decided on the machine ahead of it: {', '.join(pending)}" if pending else ""
    if asked != "auto":
        why += f"; the oracle at {registry.tag} has no map_*_backend to replay --moe-backend {asked}: judged as auto"
    else:
        why += "; --moe-backend <name> asks for one backend and raises if it refuses"
    return _judged(
        registry, method, gpu, "", outcome.verdict, outcome.backend, why, deciding(registry.tag, outcome.considered)
    )


def _unmapped_judgement(
    registry: Registry, method: str, gpu: str, asked: str, mapped: list[str], raised: Check
) -> Judgement:
    """A --moe-backend value the scheme's oracle does not map: vLLM raises before any backend is tried."""
    file = raised.path.rsplit("/", 1)[-1]
    why = f"--moe-backend {asked}: vLLM raises ValueError at {file}:{raised.line}, the oracle maps only "
    why += ", ".join(mapped)
    return _judged(
        registry, method, gpu, f"--moe-backend {asked}", "no", None, why, [evidence_of(raised, registry.tag)]
    )


def _forced_judgement(registry: Registry, method: str, gpu: str, file: str, outcome: MoeOutcome) -> Judgement:
    """`--moe-backend X`: the one backend it maps to, its expert class, or the raise with the reasons it refused."""
    asked = f"--moe-backend {outcome.moe_backend}"
    if outcome.verdict == "yes":
        why = f"{file}: {asked} -> {outcome.backend} ({outcome.experts})"
        if "Emulation" in (outcome.experts or ""):
            why += "; emulated: the experts are dequantized and multiplied in BF16"
    else:
        reasons = [c.why for v in outcome.considered for c in v.checks if v.verdict != "yes"][:3]
        where = f"{file}:{outcome.raises.line}" if outcome.raises else file
        head = "raises" if outcome.verdict == "no" else "raises unless a check decided on the machine holds"
        why = f"{asked} -> {outcome.backend or 'no backend'}: vLLM {head} ValueError at {where}"
        why += f" ({'; '.join(reasons)})" if reasons else ""
    checks = [c for v in outcome.considered for c in checks_of(v)] + ([outcome.raises] if outcome.raises else [])
    via = outcome.backend if outcome.verdict == "yes" else None
    evidence = [evidence_of(c, registry.tag) for c in checks][-6:]
    return _judged(registry, method, gpu, asked, outcome.verdict, via, why, evidence)


def _judged(
    registry: Registry,
    method: str,
    gpu: str,
    asked: str,
    verdict: Verdict,
    via: str | None,
    why: str,
    evidence: list[Evidence],
) -> Judgement:
    """A MoE judgement read off the source, under the oracle walk's assumptions (tensor parallel, BF16 SiLU experts)."""
    forced = f" with {asked}" if asked else ""
    return Judgement(
        subject=f"MoE backend for --quantization {method}{forced} (MoE layers, tensor parallel)",
        gpu=gpu,
        tag=registry.tag,
        verdict=verdict,
        basis="source",
        via=via,
        why=why,
        evidence=evidence,
        assumptions=registry.kernel_support.moe_assumptions,
    )
