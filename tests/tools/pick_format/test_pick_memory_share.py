"""pick_format's memory figures count the tag's own --gpu-memory-utilization default (bundled registries).

Hand counts for the same 70.6B dense model (80 layers, 8 KV heads of 128; no embeddings given, so every
parameter is quantized) on one H100 (80 GB) at FP8 weights and FP8 KV: weights 70.6 GB; KV per token
80 x 2 x 8 x 128 x 1 B = 163,840 B. At 0.9 (v0.19.1): budget 72 - 70.6 = 1.4 GB, 1.4e9 / 163,840 = 8,544
tokens. At 0.92 (v0.20.0 on): 73.6 - 70.6 = 3.0 GB, 18,310 tokens.
"""

from __future__ import annotations

import pytest

from vllm_quant_mcp.knowledge.hub.model_facts import ExplicitModel
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.pick_format.models import PickFormatQuery, PickFormatResult
from vllm_quant_mcp.tools.pick_format.tool import pick_format

DENSE_70B = ExplicitModel(params_b=70.6, layers=80, kv_heads=8, head_dim=128, max_position_embeddings=131072)


def _pick(ctx: ToolContext, tag: str) -> PickFormatResult:
    return pick_format(ctx, PickFormatQuery(gpu="h100", model_figures=DENSE_70B, tag=tag, kv_cache_dtype="fp8_e4m3"))


@pytest.mark.parametrize(
    ("tag", "share", "budget_gb", "tokens", "line"),
    [("v0.19.1", 0.9, 1.4, 8_544, 41), ("v0.20.0", 0.92, 3.0, 18_310, 66), ("v0.33.0", 0.92, 3.0, 18_310, 215)],
)
def test_the_kv_budget_counts_the_tags_gpu_memory_utilization_default(
    ctx: ToolContext, tag: str, share: float, budget_gb: float, tokens: int, line: int
) -> None:
    result = _pick(ctx, tag)
    fp8 = next(o for o in result.options if o.weight_format == "fp8").memory
    assert (fp8.weights_gb_per_gpu, fp8.kv_bytes_per_token) == (70.6, 163_840)
    assert (fp8.gpu_memory_utilization, fp8.kv_budget_gb_per_gpu, fp8.tokens_fit) == (share, budget_gb, tokens)
    assert result.gpu_memory_utilization.basis == "source"
    where = f"vllm/config/cache.py:{line}"
    assert f"Memory figures take {share:g} (the --gpu-memory-utilization default at {tag}, {where})" in " ".join(
        result.notes
    )


def test_the_same_model_fits_twice_the_kv_tokens_after_the_default_rose(ctx: ToolContext) -> None:
    before, after = (_pick(ctx, tag).options[0].memory for tag in ("v0.19.1", "v0.20.0"))
    assert before.weights_gb_per_gpu == after.weights_gb_per_gpu
    assert (before.tokens_fit, after.tokens_fit) == (8_544, 18_310)
