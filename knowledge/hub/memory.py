"""Memory arithmetic: weights per GPU at a format, KV bytes per token at a KV dtype, tokens that fit.

Units are decimal (1 GB = 10^9 bytes), GPU memory as sold. Tensor parallelism splits the
weights evenly and the KV heads (a GPU holds at least one head; MLA's latent cache is
replicated on every rank). vLLM's activation peak and CUDA graphs are not modelled: they
come out of the same budget, so treat `tokens_fit` as an upper bound. The share of memory vLLM
takes is the caller's: the tag's --gpu-memory-utilization default (knowledge/support/utilization.py),
or ASSUMED_GPU_MEMORY_UTILIZATION where the tag states none.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .model_facts import DTYPE_BYTES, ModelFacts

__all__ = [
    "ASSUMED_GPU_MEMORY_UTILIZATION",
    "FORMAT_BITS",
    "KV_BYTES",
    "Layers",
    "MemoryEstimate",
    "WeightFamily",
    "estimate",
    "expert_params",
    "kv_bytes_per_token",
    "weight_bytes",
]

# vLLM's default before v0.20.0; used only where the tag's registry states no default, and said so.
ASSUMED_GPU_MEMORY_UTILIZATION = 0.9
GB = 1e9

WeightFamily = Literal["bf16", "fp8", "mxfp8", "int8", "nvfp4", "mxfp4", "int4"]

# Bits per quantized weight including its scales: NVFP4 = 4 + one FP8 scale per 16; MXFP4/MXFP8 = one
# 8-bit exponent per 32; INT4 W4A16 = one FP16 scale per group of 128; FP8/INT8 per-tensor or per-channel
# scales are too few to count.
FORMAT_BITS: dict[WeightFamily, float] = {
    "bf16": 16.0,
    "fp8": 8.0,
    "mxfp8": 8.0 + 8 / 32,
    "int8": 8.0,
    "nvfp4": 4.0 + 8 / 16,
    "mxfp4": 4.0 + 8 / 32,
    "int4": 4.0 + 16 / 128,
}

# Bytes per cached element; "auto" follows the model dtype. NVFP4 KV = 4 bits + an FP8 scale per 16.
KV_BYTES: dict[str, float] = {
    "bfloat16": 2.0,
    "float16": 2.0,
    "fp8": 1.0,
    "fp8_e4m3": 1.0,
    "fp8_e5m2": 1.0,
    "fp8_inc": 1.0,
    "fp8_ds_mla": 1.0,
    "nvfp4": 0.5 + 1 / 16,
    "nvfp4_4over6": 0.5 + 1 / 16,
}


class MemoryEstimate(BaseModel):
    model_config = ConfigDict(frozen=True)

    weight_bits: float = Field(description="Bits per quantized weight, scales included; embeddings stay 16 bit.")
    quantized_layers: Literal["all", "moe"] = Field(
        default="all", description="moe: only the experts are compressed; the rest stays 16 bit."
    )
    weights_gb_per_gpu: float
    weights_exact: bool = Field(description="True when read from the checkpoint's safetensors index.")
    kv_bytes_per_token: float | None = Field(description="On one GPU, summed over the full-attention layers.")
    kv_budget_gb_per_gpu: float | None = Field(
        description="memory x gpu_memory_utilization - weights (None: no fixed memory)."
    )
    tokens_fit: int | None = Field(description="KV tokens the budget holds (an upper bound; activations not counted).")
    context_len: int | None = None
    concurrency: int | None = None
    tokens_needed: int | None = None
    fits: bool | None = Field(default=None, description="Weights fit and, when asked, context x concurrency too.")
    max_concurrency: int | None = Field(default=None, description="Sequences of context_len that fit at once.")
    gpu_memory_utilization: float = Field(description="The share of memory the budget counts (see the result's note).")


Layers = Literal["all", "moe"]


def expert_params(facts: ModelFacts) -> int | None:
    """Parameters in the routed and shared experts' MLPs (gate, up, down), when the config says their size."""
    moe = facts.moe
    if moe is None or moe.expert_intermediate_size is None or facts.hidden_size is None:
        return None
    moe_layers = sum(t != "linear_attention" for t in facts.layer_types) if facts.layer_types else facts.layers
    per_expert = 3 * facts.hidden_size * moe.expert_intermediate_size
    return moe_layers * (moe.num_experts + moe.shared_experts) * per_expert


def weight_bytes(facts: ModelFacts, family: WeightFamily, layers: Layers = "all") -> tuple[float, bool]:
    """Total weight bytes at `family`, and whether the figure is the checkpoint's exact size.

    `layers="moe"` is a shorthand that quantizes only the experts (nvfp4_per_token, int8 weight-only):
    the rest stays 16 bit, and a dense model is not compressed at all.
    """
    quant = facts.quantization
    if layers == "moe" and facts.moe is None:
        family = "bf16"
    if facts.weight_bytes is not None and (
        (quant is None and family == "bf16") or (quant is not None and quant.format == family)
    ):
        return float(facts.weight_bytes), True
    body = facts.params - facts.embedding_params
    if layers == "moe" and family != "bf16":
        experts = min(expert_params(facts) or body, body)
        return experts * FORMAT_BITS[family] / 8 + (facts.params - experts) * 2, False
    return body * FORMAT_BITS[family] / 8 + facts.embedding_params * 2, False


def kv_bytes_per_token(facts: ModelFacts, kv_dtype: str, tensor_parallel: int = 1) -> float | None:
    """KV bytes one token occupies on one GPU; None for a dtype whose layout is not modelled here."""
    per_elem = DTYPE_BYTES.get(facts.dtype, 2) if kv_dtype == "auto" else KV_BYTES.get(kv_dtype)
    if per_elem is None:
        return None
    if facts.mla is not None:
        return facts.full_attention_layers * (facts.mla.kv_lora_rank + facts.mla.qk_rope_head_dim) * per_elem
    heads = max(1, facts.kv_heads // tensor_parallel)
    return facts.full_attention_layers * 2 * heads * facts.head_dim * per_elem


def estimate(
    facts: ModelFacts,
    family: WeightFamily,
    kv_dtype: str,
    gpu_memory_gb: float | None,
    num_gpus: int = 1,
    context_len: int | None = None,
    concurrency: int | None = None,
    utilization: float = ASSUMED_GPU_MEMORY_UTILIZATION,
    layers: Layers = "all",
) -> MemoryEstimate:
    total, exact = weight_bytes(facts, family, layers)
    if layers == "moe" and facts.moe is None:
        family = "bf16"
    weights = total / num_gpus
    per_token = kv_bytes_per_token(facts, kv_dtype, num_gpus)
    needed = context_len * (concurrency or 1) if context_len else None
    budget: float | None = None
    tokens: int | None = None
    fits: bool | None = None
    if gpu_memory_gb is not None:
        budget = gpu_memory_gb * GB * utilization - weights
        tokens = 0 if budget <= 0 else (math.floor(budget / per_token) if per_token else None)
        fits = budget > 0 and (needed is None or tokens is None or tokens >= needed)
    return MemoryEstimate(
        weight_bits=FORMAT_BITS[family],
        quantized_layers=layers,
        weights_gb_per_gpu=round(weights / GB, 2),
        weights_exact=exact,
        kv_bytes_per_token=per_token,
        kv_budget_gb_per_gpu=None if budget is None else round(budget / GB, 2),
        tokens_fit=tokens,
        context_len=context_len,
        concurrency=concurrency,
        tokens_needed=needed,
        fits=fits,
        max_concurrency=tokens // context_len if context_len and tokens is not None else None,
        gpu_memory_utilization=utilization,
    )
