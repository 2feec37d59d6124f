"""pick_format asked about the caller's own candidates, on a dense and an MLA model config (real configs, folders)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.pick_format.models import PickFormatQuery
from vllm_quant_mcp.tools.pick_format.tool import pick_format

MODELS = Path(__file__).parents[2] / "fixtures" / "models"


def test_fp8_kv_asked_for_deepseek_v2_lite_on_a100_at_v0_16_0_is_dropped_with_the_mla_reason(ctx: ToolContext) -> None:
    query = PickFormatQuery(gpu="a100", model=str(MODELS / "DeepSeek-V2-Lite"), tag="v0.16.0", kv_cache_dtype="fp8")
    result = pick_format(ctx, query)
    assert result.options == []
    assert result.excluded and all(e.kv_cache_dtype == "fp8" and e.basis == "source" for e in result.excluded)
    assert all(
        "No attention backend accepts fp8 KV on a100 (SM 8.0, an MLA model)" in e.reason for e in result.excluded
    )


def test_the_same_kv_asked_for_a_dense_llama_on_a100_at_v0_16_0_survives(ctx: ToolContext) -> None:
    query = PickFormatQuery(
        gpu="a100", model=str(MODELS / "Llama-3.1-8B-Instruct"), tag="v0.16.0", kv_cache_dtype="fp8"
    )
    result = pick_format(ctx, query)
    assert result.options and {o.kv_cache_dtype.name for o in result.options} == {"fp8"}
    kv = [j for j in result.options[0].judgements if j.subject == "--kv-cache-dtype fp8"]
    assert kv[0].model is not None and "dense decoder, head size 128" in kv[0].model


def test_an_asked_method_is_the_only_one_judged(ctx: ToolContext) -> None:
    query = PickFormatQuery(gpu="h200", model=str(MODELS / "Llama-3.1-8B-Instruct"), tag="v0.32.0", quantization="fp8")
    result = pick_format(ctx, query)
    assert {o.quantization.name for o in result.options} == {"fp8"}
    assert any("Judged only the candidates asked for (--quantization fp8)" in n for n in result.notes)


def test_a_candidate_the_tag_does_not_define_is_an_error_naming_the_nearest(ctx: ToolContext) -> None:
    query = PickFormatQuery(
        gpu="h200", model=str(MODELS / "Llama-3.1-8B-Instruct"), tag="v0.32.0", kv_cache_dtype="fp9"
    )
    with pytest.raises(InvalidInputError, match=r"--kv-cache-dtype 'fp9' is not defined at v0\.32\.0; .* Nearest: fp8"):
        pick_format(ctx, query)
