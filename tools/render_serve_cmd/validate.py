"""The checks `render_serve_cmd` runs before it writes anything: names, values, the GPU, the gates.

Every flag and value is looked up in the registry of the tag; a miss is an error that
names the nearest names there and the tags where the name does exist, so the caller
can fix the tag or the flag. What vLLM accepts but does worse (a Marlin fallback, a
deprecated flag) is a warning, never a silent change; the one change made on the
caller's behalf (a curated gate such as fp8 on a BF16 checkpoint) says why and cites it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from vllm_quant_mcp.knowledge.errors import InternalError, InvalidInputError
from vllm_quant_mcp.knowledge.facts.fact import CitationRef, cite
from vllm_quant_mcp.knowledge.facts.kinds import Gpu, VersionGate
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.registry.across import release_spans, tags_where
from vllm_quant_mcp.knowledge.registry.model import CliFlag, QuantizationMethod, Registry
from vllm_quant_mcp.knowledge.support.formats import classify, method_family
from vllm_quant_mcp.knowledge.tags import tag_key
from vllm_quant_mcp.tools.context import ToolContext

__all__ = [
    "FP8_REDIRECT_GATE",
    "InvalidServeArgsError",
    "Notes",
    "check_gpu",
    "check_kv_on_gpu",
    "fp8_redirect",
    "lookup_flag",
    "lookup_value",
]

FP8_REDIRECT_GATE = "gate-v0.31.0-fp8-not-online"
_UNQUANTIZED = {"bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "float16": "fp16", "half": "fp16"}
T = TypeVar("T")


class InvalidServeArgsError(InvalidInputError):
    """An argument names something the tag lacks, or two arguments contradict; the message says the fix."""


@dataclass
class Notes:
    """Warnings and citations gathered while checking, without repeats."""

    warnings: list[str] = field(default_factory=list)
    citations: dict[str, CitationRef] = field(default_factory=dict)

    def warn(self, text: str, citations: Iterable[CitationRef] = ()) -> None:
        if text not in self.warnings:
            self.warnings.append(text)
        for c in citations:
            self.citations.setdefault(c.url, c)


MAX_LISTED = 30


def _elsewhere(ctx: ToolContext, tags: list[str]) -> str:
    if not tags:
        return "no bundled release has it"
    return f"it exists at {release_spans(ctx.store.known_tags(), tags)} ({len(tags)} releases)"


def lookup_flag(ctx: ToolContext, registry: Registry, written: str) -> tuple[CliFlag, bool]:
    """The tag's entry for a flag spelling (name, alias or --no- form) and whether it negates; else an error."""
    found = registry.find_flag(written)
    if found is not None:
        return found
    near = nearest(written, (f.name for f in registry.cli_flags))
    tags = tags_where(ctx.store, lambda r: r.find_flag(written) is not None)
    hint = f" Nearest flags at {registry.tag}: {', '.join(near)}." if near else ""
    raise InvalidServeArgsError(
        f"`{written}` is not a `vllm serve` flag at {registry.tag}; {_elsewhere(ctx, tags)}.{hint} "
        "Drop it, or pick a tag that defines it."
    )


def lookup_value(
    ctx: ToolContext,
    registry: Registry,
    what: str,
    value: str,
    entries: Callable[[Registry], list[T]],
    name: Callable[[T], str],
    extra: str = "",
) -> T:
    """The registry entry named `value` among `entries` at the tag; else an error with the nearest and where it is."""
    found = next((e for e in entries(registry) if name(e) == value), None)
    if found is not None:
        return found
    valid = [name(e) for e in entries(registry)]
    near = nearest(value, valid, cutoff=0.5)
    tags = tags_where(ctx.store, lambda r: any(name(e) == value for e in entries(r)))
    if not valid:
        listing = f"; {registry.tag} lists none"
    elif len(valid) <= MAX_LISTED:
        listing = f"; valid at {registry.tag}: {', '.join(valid)}"
    else:  # env vars and flags run to hundreds: name the count and how to look, not every name
        listing = f"; {registry.tag} has {len(valid)} (get_registry with kind and contains narrows them)"
    hint = f" Nearest: {', '.join(near)}." if near else ""
    raise InvalidServeArgsError(
        f"{what} `{value}` is not defined at {registry.tag} ({_elsewhere(ctx, tags)}){listing}.{hint}{extra}"
    )


def check_gpu(kb: KnowledgeBase, registry: Registry, gpu: Gpu, method: QuantizationMethod, notes: Notes) -> None:
    """Refuse a method the GPU cannot run at all; warn where vLLM runs it through a slower fallback path."""
    family = method_family(method.name, None, gpu)
    if family is None:
        floor = method.min_capability
        if floor is not None and floor >= 0 and gpu.sm is not None and gpu.sm < floor:
            raise InvalidServeArgsError(
                f"--quantization {method.name} needs SM{floor}+ (get_min_capability() at {method.provenance.path}:"
                f"{method.provenance.line}, {registry.tag}); {gpu.id} is SM{gpu.sm}. Pick a method for this GPU."
            )
        notes.warn(
            f"Whether {gpu.id} runs {method.name} natively depends on the scheme inside the checkpoint; "
            "the min-capability check passed."
        )
        return
    support, evidence = classify(method, family, gpu, registry)
    if support == "unsupported":
        raise InvalidServeArgsError(
            f"--quantization {method.name} is unsupported on {gpu.id} at {registry.tag}: {'; '.join(evidence)}. "
            "Pick another method (pick_format lists what this GPU runs)."
        )
    if support == "fallback":
        notes.warn(
            f"{gpu.id} has no {family} tensor cores: vLLM serves {method.name} through a weight-only or emulated "
            f"path (works, slower). Evidence: {'; '.join(evidence)}."
        )


def check_kv_on_gpu(kb: KnowledgeBase, kv: str, gpu: Gpu, tag: str, notes: Notes) -> None:
    """The curated platform and SM limits of a KV dtype (the registry only says the name exists)."""
    fact = next((k for k in kb.kv_cache_dtypes if k.name == kv and k.applies_at(tag)), None)
    if fact is None:
        return
    platform = {"nvidia": "cuda", "amd": "rocm", "cpu": "cpu"}[gpu.vendor]
    problem = None
    if "any" not in fact.platforms and platform not in fact.platforms:
        problem = f"runs on {', '.join(fact.platforms)} only; {gpu.id} is {platform}"
    elif fact.only_sm and gpu.sm not in fact.only_sm:
        problem = f"is limited to SM {', '.join(map(str, fact.only_sm))}; {gpu.id} is SM{gpu.sm}"
    elif fact.min_sm is not None and (gpu.sm or 0) < fact.min_sm:
        problem = f"needs SM{fact.min_sm}+; {gpu.id} is SM{gpu.sm}"
    if problem is not None:
        raise InvalidServeArgsError(
            f"--kv-cache-dtype {kv} {problem} (knowledge base {fact.id}). Use auto or a dtype this GPU supports."
        )
    if fact.needs_scales:
        notes.warn(
            f"--kv-cache-dtype {kv} wants calibrated scales in the checkpoint (knowledge base {fact.id}); "
            "without them vLLM uses scale 1.0.",
            [cite(c) for c in fact.citations],
        )


def fp8_redirect(
    kb: KnowledgeBase, registry: Registry, quantization: str, checkpoint_dtype: str | None, notes: Notes
) -> str:
    """The --quantization value to render: fp8 on a 16-bit checkpoint becomes fp8_per_tensor from the gate on."""
    gate = _gate(kb, FP8_REDIRECT_GATE)
    if quantization != "fp8" or tag_key(registry.tag) < tag_key(gate.version):
        return quantization
    citations = [cite(c) for c in gate.citations]
    dtype = _UNQUANTIZED.get((checkpoint_dtype or "").strip().lower())
    online = {m.name for m in registry.quantization_methods if m.accepted_by_cli}
    if dtype is None:
        if checkpoint_dtype is None:
            notes.warn(
                f"From {gate.version}, --quantization fp8 only loads FP8-serialized checkpoints: {gate.change} "
                f"If the checkpoint is BF16/FP16, pass checkpoint_dtype='bf16' (renders fp8_per_tensor).",
                citations,
            )
        return quantization
    if "fp8_per_tensor" not in online:
        return quantization
    notes.warn(
        f"--quantization fp8 was rendered as fp8_per_tensor: the checkpoint is {dtype}, and from {gate.version} "
        f"{gate.change} {gate.action}",
        citations,
    )
    return "fp8_per_tensor"


def _gate(kb: KnowledgeBase, gate_id: str) -> VersionGate:
    found = next((g for g in kb.version_gates if g.id == gate_id), None)
    if found is None:
        raise InternalError(f"The knowledge base has no version gate {gate_id!r}; it is required to render fp8.")
    return found
