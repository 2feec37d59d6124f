"""Which weight family a --quantization value serves, and whether a GPU's tensor cores run it.

Curated: the family table is ours and the native-format flags come from the GPU table
(knowledge/facts/data/gpus.yaml); only the minimum capability and the ROCm method list
are read from the registry of the tag. Callers label these judgements `curated`.
"""

from __future__ import annotations

from typing import Literal

from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.hub.memory import WeightFamily
from vllm_quant_mcp.knowledge.registry.model import QuantizationMethod, Registry
from vllm_quant_mcp.knowledge.sources.tree import Provenance

__all__ = [
    "CONTAINERS",
    "METHOD_FAMILY",
    "ONLINE_FOR_FAMILY",
    "Support",
    "classify",
    "hardware_native",
    "method_family",
    "where",
]

Support = Literal["native", "fallback", "unsupported"]

METHOD_FAMILY: dict[str, WeightFamily] = {
    "fp8": "fp8",
    "modelopt": "fp8",
    "fbgemm_fp8": "fp8",
    "deepseek_v4_fp8": "fp8",
    "fp8_per_tensor": "fp8",
    "fp8_per_block": "fp8",
    "fp8_per_channel": "fp8",
    "online": "fp8",
    "modelopt_fp4": "nvfp4",
    "nvfp4_per_token": "nvfp4",
    "modelopt_mxfp8": "mxfp8",
    "mxfp8": "mxfp8",
    "mxfp4": "mxfp4",
    "gpt_oss_mxfp4": "mxfp4",
    "awq": "int4",
    "awq_marlin": "int4",
    "auto_awq": "int4",
    "gptq": "int4",
    "gptq_marlin": "int4",
    "auto_gptq": "int4",
    "torchao": "int4",
    "int8_per_channel_weight_only": "int8",
    "experts_int8": "int8",
}
# Containers whose family is the scheme inside: the rule's lead format says which.
CONTAINERS = frozenset({"compressed-tensors", "modelopt_mixed"})

# Online shorthands that produce each family from a BF16 checkpoint, preferred first.
ONLINE_FOR_FAMILY: dict[WeightFamily, tuple[str, ...]] = {
    "fp8": ("fp8_per_block", "fp8_per_tensor", "fp8_per_channel"),
    "nvfp4": ("nvfp4_per_token",),
    "mxfp8": ("mxfp8",),
    "mxfp4": ("mxfp4",),
    "int8": ("int8_per_channel_weight_only",),
}


def method_family(method: str, lead: str | None, gpu: Gpu) -> WeightFamily | None:
    """The weight family a --quantization value serves; a container takes its rule's lead format's family."""
    if method in CONTAINERS:
        return METHOD_FAMILY.get(lead or "") if lead not in CONTAINERS else None
    if method == "quark":
        return "mxfp4" if gpu.native.mxfp4 else "fp8"
    return METHOD_FAMILY.get(method)


def hardware_native(family: WeightFamily, gpu: Gpu) -> tuple[bool, str]:
    """Whether the GPU's tensor cores run `family`, and the KB evidence."""
    n = gpu.native
    flags = f"KB gpus.yaml {gpu.id}: native fp8={n.fp8}, nvfp4={n.nvfp4}, mxfp4={n.mxfp4}"
    if family in ("int4", "int8", "bf16"):
        return True, f"weight-only format: weights are widened to 16 bit for the matmul; no low-precision MMA ({flags})"
    if family == "mxfp8":
        return n.fp8 and n.mxfp4, f"MXFP8 needs FP8 MMA with MX block scaling, which comes with MXFP4 ({flags})"
    return {"fp8": n.fp8, "nvfp4": n.nvfp4, "mxfp4": n.mxfp4}[family], flags


def where(p: Provenance) -> str:
    return f"{p.path}:{p.line} ({p.permalink})"


def classify(
    entry: QuantizationMethod, family: WeightFamily, gpu: Gpu, registry: Registry
) -> tuple[Support, list[str]]:
    """native / fallback / unsupported for `gpu`, with the registry and knowledge-base evidence."""
    native, why = hardware_native(family, gpu)
    if gpu.vendor == "cpu":
        if family in ("int4", "int8"):
            return "native", [f"{entry.name}: weight-only INT format, served by the CPU kernels ({why})"]
        return "unsupported", [f"{entry.name} ({family}) needs GPU tensor cores; {gpu.id} is a CPU ({why})"]
    if gpu.vendor == "amd":
        rocm = next((p for p in registry.platforms if p.name == "RocmPlatform"), None)
        if rocm is not None and entry.name not in rocm.methods:
            return "unsupported", [
                f"{entry.name} is not in RocmPlatform.supported_quantization at {where(rocm.provenance)}"
            ]
        listed = f"listed by RocmPlatform at {where(rocm.provenance)}" if rocm else "no ROCm list at this tag"
        return ("native" if native else "fallback"), [f"{entry.name} {listed}", why]
    floor = entry.min_capability
    # The registry records the value, not the line of get_min_capability: name the class and its file
    # (find_symbol gives the line), never the --quantization list entry as if it defined the value.
    defined_in = f" in {entry.config_path}" if entry.config_path else ""
    found = f"{entry.name}: {entry.config_class}.get_min_capability() = {floor}{defined_in}"
    if floor is not None and floor >= 0 and gpu.sm is not None and gpu.sm < floor:
        return "unsupported", [f"{found}; {gpu.id} is SM{gpu.sm}, below the lowest SM vLLM accepts"]
    if floor is None:
        found = f"{entry.name}: min capability not a literal at {where(entry.provenance)} (not checked)"
    return ("native" if native else "fallback"), [found, why]
