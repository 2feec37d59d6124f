"""Does it run on this GPU at this tag? One evaluator for KV dtypes, methods and online shorthands.

Every answer is a `Judgement`: yes, no, or conditional (a runtime check decides; here is where),
with its basis and the lines that decide. `source` means the vLLM behaviour was derived from
the tag's source (the support matrix, min capabilities, platform lists, refusals); the GPU's
compute capability itself comes from our GPU table. `curated` is used only by callers that fall
back to the knowledge base where the source has nothing to say (an older layout, a CPU), and
they say so. None of this guesses: a capability outside the derived grid is "not derived".
"""

from __future__ import annotations

from typing import Literal

from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.registry.matrix import (
    PRIORITY_LIST,
    CapOutcome,
    Check,
    KvSelection,
    LoadRefusal,
    Mode,
    Verdict,
)
from vllm_quant_mcp.knowledge.registry.model import OnlineQuantEntry, QuantizationMethod, Registry

from .judgement import Evidence, Judgement

__all__ = ["capability_of", "kv_support", "load_refusals", "method_support"]


def capability_of(gpu: Gpu) -> tuple[Literal["cuda", "rocm"], str] | None:
    """The platform and capability vLLM sees for a GPU: SM 9.0 for an H100, 9.4 for gfx942 (as torch reports)."""
    if gpu.vendor == "nvidia" and gpu.sm is not None:
        return "cuda", f"{gpu.sm // 10}.{gpu.sm % 10}"
    if gpu.vendor == "amd" and gpu.gfx is not None:
        digits = gpu.gfx.removeprefix("gfx").rstrip("abcdefghijklmnopqrstuvwxyz")[:-1]  # drop the stepping: 942 -> 94
        return "rocm", f"{digits[:-1]}.{digits[-1]}"
    return None


def _evidence(tag: str, checks: list[Check]) -> list[Evidence]:
    return [Evidence(why=c.why, path=c.path, line=c.line, permalink=c.link(tag)) for c in checks]


def _from_source(
    subject: str,
    gpu: Gpu,
    tag: str,
    verdict: Verdict,
    why: str,
    via: str | None = None,
    evidence: list[Evidence] | None = None,
    assumptions: list[str] | None = None,
) -> Judgement:
    """A judgement read off the source at `tag`: every one this module makes has that basis."""
    return Judgement(
        subject=subject,
        gpu=gpu.id,
        tag=tag,
        verdict=verdict,
        basis="source",
        via=via,
        why=why,
        evidence=evidence or [],
        assumptions=assumptions or [],
    )


def kv_support(registry: Registry, kv: str, gpu: Gpu, mode: Mode = "dense") -> Judgement | None:
    """Which attention backend vLLM picks for `kv` on `gpu`, or why none; None when the source was not derived."""
    subject = f"--kv-cache-dtype {kv}"
    tag = registry.tag
    if kv not in {k.name for k in registry.kv_cache_dtypes}:
        return _from_source(
            subject,
            gpu,
            tag,
            "no",
            why=f"{kv} is not a CacheDType value at {tag}; --kv-cache-dtype rejects it.",
        )
    where = capability_of(gpu)
    if where is None:
        return None
    platform, cap = where
    table: list[KvSelection] = registry.attention.cuda if platform == "cuda" else registry.attention.rocm
    selection = next((s for s in table if s.name == f"{mode}:{kv}"), None)
    outcome = next((o for o in selection.outcomes if cap in o.capabilities), None) if selection else None
    if selection is None or outcome is None:
        return None
    # A runtime check that only chooses between backends (FA3 built or not) still starts the server: yes.
    settled = outcome.verdict == "conditional" and outcome.backend is not None and not outcome.construction
    return _from_source(
        subject,
        gpu,
        tag,
        "yes" if settled else outcome.verdict,
        via=_via(outcome) if outcome.verdict != "no" else None,  # selected, then refused: runs via nothing
        why=_kv_why(kv, gpu, cap, mode, outcome),
        evidence=[
            Evidence(
                why="the platform's backend priority list",
                path=selection.provenance.path,
                line=selection.provenance.line,
                permalink=selection.provenance.permalink,
            ),
            *_evidence(tag, [c for b in outcome.considered for c in b.checks]),
            *_evidence(tag, list(outcome.construction)),
        ],
        assumptions=[*registry.attention.assumptions, *outcome.assumptions],
    )


def _via(outcome: CapOutcome) -> str | None:
    """The backend that takes it; `A or B` when a run-time check picks between A and the fallback B."""
    pending = [b.backend for b in outcome.considered if b.verdict == "conditional" and b.backend != PRIORITY_LIST]
    if outcome.backend is None:
        return None
    return " or ".join([*pending, outcome.backend])


def _kv_why(kv: str, gpu: Gpu, cap: str, mode: Mode, outcome: CapOutcome) -> str:
    shape = {"dense": "a dense model", "mla": "an MLA model", "sparse_mla": "a sparse-MLA model"}[mode]
    arch = gpu.gfx if gpu.vendor == "amd" else f"SM {cap}"
    on = f"{kv} KV on {gpu.id} ({arch}, {shape})"
    rejected = [b.backend for b in outcome.considered if b.verdict == "no"]
    pending = [b for b in outcome.considered if b.verdict == "conditional"]
    if rejected:
        before = f" after {rejected[0]} rejects it" if len(rejected) == 1 else f" after {', '.join(rejected)} reject it"
    else:
        before = ""
    if outcome.verdict == "yes":
        return f"vLLM selects {outcome.backend} for {on}{before}."
    built = outcome.construction[0] if outcome.construction else None
    if built is not None and outcome.verdict == "no":
        return (
            f"vLLM selects {outcome.backend} for {on}{before}, then fails to start: "
            f"{built.why} ({built.path}:{built.line})."
        )
    if built is not None and not pending:
        return f"vLLM selects {outcome.backend} for {on}{before}; then {built.why} ({built.path}:{built.line})."
    if outcome.verdict == "no":
        return f"No attention backend accepts {on}: vLLM fails to start."
    first = pending[0]
    check = first.checks[0].why if first.checks else "a runtime check"
    if first.backend == PRIORITY_LIST:
        return (
            f"{on}: the platform's backend order itself depends on a run-time check ({check}); the source does "
            "not settle which backend takes it."
        )
    if outcome.backend:
        return f"{on} runs: vLLM selects {first.backend} if a run-time check passes ({check}), else {outcome.backend}."
    return f"{on} runs only if a run-time check passes ({check}): then {first.backend}, else vLLM fails to start."


def method_support(registry: Registry, method: str, gpu: Gpu, moe: bool | None = None) -> Judgement:
    """Whether `--quantization method` loads on `gpu`: min capability, platform list, online refusals."""
    subject = f"--quantization {method}"
    tag = registry.tag
    entry = next((m for m in registry.quantization_methods if m.name == method), None)
    online = next((o for o in registry.online_quantization if o.kind == "shorthand" and o.name == method), None)
    if entry is None and online is None:
        return _from_source(
            subject,
            gpu,
            tag,
            "no",
            why=f"{method} is not a --quantization value at {tag}.",
        )
    where = capability_of(gpu)
    if where is None:
        return _from_source(
            subject,
            gpu,
            tag,
            "conditional",
            why=f"{gpu.id} is not a CUDA or ROCm GPU; vLLM's CPU path decides per kernel at run time.",
        )
    platform, cap = where
    if platform == "rocm":
        refused = _rocm_refusal(registry, method, gpu)
        if refused is not None:
            return refused
    elif entry is not None:
        floor = _floor(registry, entry, gpu, cap)
        if floor is not None:
            return floor
    if online is not None:
        refused = _online_refusal(registry, online, gpu, cap, moe)
        if refused is not None:
            return refused
    passed = f"its minimum capability is {entry.min_capability / 10:.1f}" if entry and entry.min_capability else ""
    return _from_source(
        subject,
        gpu,
        tag,
        "yes",
        why=f"{method} loads on {gpu.id} (SM {cap}) at {tag}" + (f": {passed}." if passed else "."),
        evidence=_min_capability_evidence(entry) if entry else [],
    )


def _min_capability_evidence(entry: QuantizationMethod) -> list[Evidence]:
    where = entry.min_capability_provenance or entry.provenance
    return [
        Evidence(
            why=f"{entry.config_class}.get_min_capability() returns {entry.min_capability}",
            path=where.path,
            line=where.line,
            permalink=where.permalink,
        )
    ]


def _floor(registry: Registry, entry: QuantizationMethod, gpu: Gpu, cap: str) -> Judgement | None:
    floor = entry.min_capability
    sm = gpu.sm or 0
    if floor is None or floor < 0 or sm >= floor:
        return None
    return _from_source(
        f"--quantization {entry.name}",
        gpu,
        registry.tag,
        "no",
        why=f"{entry.name} needs SM {floor / 10:.1f}+ ({entry.config_class}.get_min_capability()); {gpu.id} is SM "
        f"{cap}: vLLM refuses it while building the config.",
        evidence=_min_capability_evidence(entry),
    )


def _rocm_refusal(registry: Registry, method: str, gpu: Gpu) -> Judgement | None:
    rocm = next((p for p in registry.platforms if p.name == "RocmPlatform"), None)
    if rocm is None or method in rocm.methods:
        return None
    return _from_source(
        f"--quantization {method}",
        gpu,
        registry.tag,
        "no",
        why=f"{method} is not in RocmPlatform.supported_quantization at {registry.tag}; vLLM refuses it on ROCm.",
        evidence=[
            Evidence(
                why="RocmPlatform.supported_quantization",
                path=rocm.provenance.path,
                line=rocm.provenance.line,
                permalink=rocm.provenance.permalink,
            )
        ],
    )


def _online_refusal(
    registry: Registry, online: OnlineQuantEntry, gpu: Gpu, cap: str, moe: bool | None
) -> Judgement | None:
    for refusal in online.refusals:
        if refusal.family is None or (gpu.sm or 0) // 10 == refusal.family // 10:
            continue
        applies = refusal.layer == "linear" or moe is True
        verdict: Verdict = "no" if applies else "conditional"
        scope = "" if applies else " for a model with MoE layers (a dense model has none, and stays unquantized)"
        return _from_source(
            f"--quantization {online.name}",
            gpu,
            registry.tag,
            verdict,
            why=f"{online.name}'s {refusal.layer} method raises on {gpu.id} (SM {cap}){scope}: {refusal.message}",
            evidence=[
                Evidence(
                    why=refusal.condition,
                    path=refusal.provenance.path,
                    line=refusal.provenance.line,
                    permalink=refusal.provenance.permalink,
                )
            ],
        )
    return None


def load_refusals(registry: Registry, method: str) -> list[LoadRefusal]:
    """The checkpoint properties `--quantization method` refuses at load at this tag (only those the path reaches)."""
    return [r for r in registry.load_refusals if r.outcome == "refused" and r.reached and method in r.methods]
