"""Which weight family a --quantization value serves, and whether a GPU's tensor cores run it.

Curated: the family table is ours and the native-format flags come from the GPU table
(knowledge/facts/data/gpus.yaml). Callers label these judgements `curated`; whether vLLM
loads a method on a GPU at all is decided from the source, in `evaluate`.
"""

from __future__ import annotations

from typing import Literal

from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.hub.memory import WeightFamily
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

# emulated: vLLM runs the format by dequantizing to BF16 in software (an Emulation* kernel the source picks)
Support = Literal["native", "fallback", "emulated", "unsupported"]

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


def classify(method: str, family: WeightFamily, gpu: Gpu) -> tuple[Support, list[str]]:
    """native / fallback for `gpu` from the GPU table's tensor-core flags; unsupported only for a CPU.

    Whether vLLM loads `method` on the GPU at all is the source's call (`evaluate.method_support`);
    this is the curated half: how well the hardware runs what loads.
    """
    native, why = hardware_native(family, gpu)
    if gpu.vendor == "cpu":
        if family in ("int4", "int8"):
            return "native", [f"{method}: weight-only INT format, served by the CPU kernels ({why})"]
        return "unsupported", [f"{method} ({family}) needs GPU tensor cores; {gpu.id} is a CPU ({why})"]
    return ("native" if native else "fallback"), [why]
