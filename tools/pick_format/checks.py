"""Checks of one pick_format candidate against the registry of the tag and the GPU: support, KV, flags, sources."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.hub.memory import WeightFamily
from vllm_quant_mcp.knowledge.hub.model_facts import ModelFacts
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.curated import kv_fact
from vllm_quant_mcp.knowledge.support.formats import ONLINE_FOR_FAMILY, where
from vllm_quant_mcp.knowledge.support.judgement import Judgement

from .models import CheckpointSource, FlagValue
from .rules import checkpoint_method, recipe_family

__all__ = ["CheckpointSource", "FlagValue", "checkpoint_sources", "head_size_problem", "serve_flags"]


def head_size_problem(kb: KnowledgeBase, kv: str, facts: ModelFacts, tag: str, judged: Judgement | None) -> str | None:
    """A curated head-size exclusion, applied only where the source's answer does not cover this model.

    The derived matrix assumes head size 128 (576 with MLA); a model with another head size, or a
    tag the matrix does not cover, falls back to the knowledge base's list of excluded sizes.
    """
    fact = kv_fact(kb, kv, tag)
    if fact is None or facts.head_dim not in fact.excluded_head_sizes:
        return None
    if judged is not None and judged.basis == "source" and facts.head_dim == (576 if facts.mla else 128):
        return None
    return f"KV {kv} rejects head size {facts.head_dim} (knowledge base {fact.id}) [curated]"


def serve_flags(wanted: dict[str, str], registry: Registry) -> tuple[list[FlagValue], str | None]:
    """The rule's extra flags checked against the tag's CLI registry (dotted --quantization-config keys included)."""
    out: list[FlagValue] = []
    config_names = {o.name for o in registry.online_quantization}
    for flag, value in wanted.items():
        base = flag.split(".")[0]
        entry = next((f for f in registry.cli_flags if f.name == base), None)
        if entry is None:
            return [], f"flag {base} does not exist at {registry.tag}"
        if entry.choices is not None and value not in entry.choices:
            return [], f"{base} {value} is not among its choices at {registry.tag}: {', '.join(entry.choices)}"
        if flag != base and value not in config_names:
            return [], f"{value} is not an online quantization name at {registry.tag} (for {flag})"
        out.append(FlagValue(flag=flag, value=value, provenance=entry.provenance))
    return out, None


def checkpoint_sources(
    kb: KnowledgeBase, facts: ModelFacts, method: str, family: WeightFamily, registry: Registry, choice: str
) -> list[CheckpointSource]:
    """How to get weights `method` serves: the checkpoint itself, a published build, a recipe, or online."""
    quant = facts.quantization
    if quant is not None and checkpoint_method(quant.quant_method, quant.format)[0] == method:
        return [
            CheckpointSource(kind="as_is", how=f"Serve {facts.source} as is; its quantization_config selects {method}.")
        ]
    shorthands = {o.name: o for o in registry.online_quantization if o.kind == "shorthand"}
    if method in shorthands:
        return [
            CheckpointSource(
                kind="online",
                how=f"No checkpoint step: --quantization {method} quantizes the BF16 weights at load "
                f"(peak load memory is the BF16 size); defined at {where(shorthands[method].provenance)}.",
            )
        ]
    out = [
        CheckpointSource(
            kind="vendor",
            how=f"A published {family} checkpoint of this model that loads with {method} "
            "(e.g. the publisher's quantized build), served unchanged.",
        )
    ]
    for r in kb.recipes:
        if r.serve_quantization == method and recipe_family(r) == family and r.applies_at(registry.tag):
            out.append(
                CheckpointSource(
                    kind=r.tool,
                    how=f"{r.tool} {r.scheme} -> {r.produces}"
                    + (f"; calibration: {r.calibration}" if r.calibration else ""),
                    citations=[c.url for c in r.citations],
                )
            )
    online = next((m for m in ONLINE_FOR_FAMILY.get(family, ()) if m in shorthands), None)
    if online and choice != "offline":
        out.append(
            CheckpointSource(
                kind="online",
                how=f"Or skip the checkpoint: --quantization {online} quantizes the BF16 model at load "
                f"({where(shorthands[online].provenance)}).",
            )
        )
    return out
