"""The judgement pick_format applies to the knowledge base: which rule suits a request, what a format is.

The format rules are data (knowledge/facts/data/format_rules.yaml); what a rule's `workload` means
for a request ("accuracy-critical", "GPT-OSS models") is decided here, one entry per rule id,
and a test keeps this table in step with the data. Each weight format a rule names maps to
a family (fp8, nvfp4, int4...) whose tensor-core support the GPU table states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vllm_quant_mcp.knowledge.facts.kinds import FormatRule, Gpu, Recipe
from vllm_quant_mcp.knowledge.hub.memory import WeightFamily
from vllm_quant_mcp.knowledge.support.formats import METHOD_FAMILY

from .models import Priority

__all__ = [
    "LONG_CONTEXT",
    "PRIORITY_REGIMES",
    "RULE_CONDITIONS",
    "Condition",
    "Priority",
    "Situation",
    "checkpoint_method",
    "recipe_family",
    "relevance",
]

LONG_CONTEXT = 32768

PRIORITY_REGIMES: dict[Priority, frozenset[str]] = {
    "throughput": frozenset({"bandwidth", "compute"}),
    "latency": frozenset({"bandwidth"}),
    "accuracy": frozenset(),
    "memory": frozenset({"kv_capacity", "bandwidth"}),
}


@dataclass(frozen=True)
class Situation:
    priority: Priority
    family: str
    moe: bool
    context_len: int | None
    num_gpus: int


@dataclass(frozen=True)
class Condition:
    """`needs`: the rule is not for this model otherwise. `prefers`: when it holds, the rule leads."""

    needs: Callable[[Situation], bool] | None = None
    prefers: Callable[[Situation], bool] | None = None


def _accuracy(s: Situation) -> bool:
    return s.priority == "accuracy"


def _moe(s: Situation) -> bool:
    return s.moe


# Hardware-specific rules whose `workload` narrows them; rules absent here are the hardware's default row.
RULE_CONDITIONS: dict[str, Condition] = {
    "table-hopper-accuracy": Condition(prefers=_accuracy),
    "table-hopper-long-context-moe": Condition(
        needs=_moe, prefers=lambda s: (s.context_len or 0) >= LONG_CONTEXT or s.priority == "memory"
    ),
    "table-blackwell-gpt-oss": Condition(needs=lambda s: s.family == "gpt-oss", prefers=lambda s: True),
    "table-blackwell-low-risk": Condition(prefers=_accuracy),
    "regime-multi-node-ep": Condition(needs=_moe, prefers=lambda s: s.num_gpus > 8),
    "nvfp4-one-checkpoint": Condition(prefers=lambda s: False),
    "sm120-not-for-fp4-moe": Condition(),
    "table-cpu": Condition(),
}


def relevance(rule: FormatRule, gpu: Gpu, situation: Situation) -> int | None:
    """0 a rule written for this request, 1 the GPU's default row, 2 a regime rule for the priority,
    3 another rule for this GPU, 4 another regime rule; None when the rule is not for this GPU or model."""
    if not rule.hardware:
        return 2 if rule.regime in PRIORITY_REGIMES[situation.priority] else 4
    if gpu.id not in rule.hardware:
        return None
    condition = RULE_CONDITIONS.get(rule.id, Condition())
    if condition.needs is not None and not condition.needs(situation):
        return None
    if condition.prefers is None:
        return 1
    return 0 if condition.prefers(situation) else 3


def recipe_family(recipe: Recipe) -> WeightFamily | None:
    """The weight family a recipe produces, read from its `produces`; None for KV-scale recipes."""
    text = recipe.produces.lower()
    if " kv " in f" {text} ":
        return None
    for key, family in (("nvfp4", "nvfp4"), ("mxfp4", "mxfp4"), ("mxfp8", "mxfp8"), ("int4", "int4"), ("fp8", "fp8")):
        if key in text:
            return family  # type: ignore[return-value]
    return None


# quant_method (+ format) of a checkpoint -> the --quantization value that loads it and its family.
def checkpoint_method(quant_method: str, fmt: str | None) -> tuple[str, WeightFamily | None]:
    f = (fmt or "").lower()
    family: WeightFamily | None = None
    if "nvfp4" in f or f == "fp4":
        family = "nvfp4"
    elif "mxfp4" in f:
        family = "mxfp4"
    elif "mxfp8" in f:
        family = "mxfp8"
    elif "fp8" in f or "float-quantized" in f:
        family = "fp8"
    elif "int4" in f or f == "pack-quantized" or quant_method in ("awq", "gptq"):
        family = "int4"
    elif "int8" in f or "int-quantized" in f:
        family = "int8"
    if quant_method == "modelopt":
        method = {"nvfp4": "modelopt_fp4", "mxfp8": "modelopt_mxfp8"}.get(family or "", "modelopt")
    else:
        method = {"awq": "awq_marlin", "gptq": "gptq_marlin"}.get(quant_method, quant_method)
    return method, family or METHOD_FAMILY.get(method)
