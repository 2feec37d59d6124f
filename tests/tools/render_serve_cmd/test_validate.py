"""render_serve_cmd refuses what the tag's loader refuses for the checkpoint at hand, in vLLM's own words."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.render_serve_cmd.models import RenderQuery, RenderResult
from vllm_quant_mcp.tools.render_serve_cmd.tool import render_serve_cmd
from vllm_quant_mcp.tools.render_serve_cmd.validate import InvalidServeArgsError

CHECKPOINTS = Path(__file__).parents[2] / "fixtures" / "checkpoints"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def render(ctx: ToolContext, **options: Any) -> RenderResult:
    return render_serve_cmd(ctx, RenderQuery(**{"model": MODEL, **options}))


def test_awq_marlin_on_a_bf16_checkpoint_dtype_is_refused_with_get_quant_configs_message(ctx: ToolContext) -> None:
    for tag, line in (("v0.26.0", 372), ("v0.32.0", 375)):
        with pytest.raises(InvalidServeArgsError) as caught:
            render(ctx, tag=tag, quantization="awq_marlin", checkpoint_dtype="bf16")
        assert "vLLM: `ValueError: Cannot find the config file for awq_marlin`" in str(caught.value)
        assert f"/blob/{tag}/vllm/model_executor/model_loader/weight_utils.py#L{line}" in str(caught.value)


def test_awq_marlin_on_a_local_bf16_folder_is_refused_without_being_told_the_dtype(ctx: ToolContext) -> None:
    with pytest.raises(InvalidServeArgsError, match="Cannot find the config file for awq_marlin"):
        render(ctx, model=str(CHECKPOINTS / "llama-3.1-8b-bf16"), tag="v0.26.0", quantization="awq_marlin")


def test_quark_on_a_bf16_checkpoint_is_refused_with_the_typeerror_vllm_prints(ctx: ToolContext) -> None:
    with pytest.raises(InvalidServeArgsError) as caught:
        render(ctx, tag="v0.26.0", quantization="quark", checkpoint_dtype="bf16")
    assert "TypeError: QuarkConfig.__init__() missing 1 required positional argument: 'quant_config'" in str(
        caught.value
    )


def test_an_awq_folder_renders_awq_marlin_and_a_repo_id_without_a_dtype_assumes_nothing(ctx: ToolContext) -> None:
    result = render(ctx, model=str(CHECKPOINTS / "llama-awq"), tag="v0.26.0", quantization="awq_marlin")
    assert any("override_quantization_method" in w for w in result.warnings)
    assert render(ctx, tag="v0.26.0", quantization="awq_marlin").argv[-1] == "awq_marlin"


def test_a_bf16_checkpoint_with_an_online_shorthand_renders_clean(ctx: ToolContext) -> None:
    result = render(ctx, tag="v0.26.0", quantization="fp8_per_tensor", checkpoint_dtype="bf16")
    assert result.argv[-2:] == ["--quantization", "fp8_per_tensor"]


def test_an_activation_override_for_online_fp8_is_refused_as_vllm_refuses_it_building_the_layer(
    ctx: ToolContext,
) -> None:
    config = {"linear": {"weight": "fp8_per_tensor_static", "activation": "fp8_per_tensor_dynamic"}}
    with pytest.raises(InvalidServeArgsError) as caught:
        render(ctx, tag="v0.26.0", quantization="online", quantization_config=config)
    assert "is not yet supported for online Fp8PerTensorOnlineLinearMethod" in str(caught.value)
    assert "/blob/v0.26.0/vllm/model_executor/layers/quantization/online/base.py#L142" in str(caught.value)


def test_an_attention_backend_in_extra_args_that_the_tag_lacks_is_refused_with_the_nearest(ctx: ToolContext) -> None:
    with pytest.raises(InvalidServeArgsError, match="nearest: FLASH_ATTN"):
        render(ctx, tag="v0.26.0", extra_args=["--attention-backend", "FLASH_ATTN_V9"])
    assert render(ctx, tag="v0.26.0", extra_args=["--attention-backend", "flashinfer"]).argv[-1] == "flashinfer"


def test_a_context_that_may_not_read_this_disk_leaves_a_local_folder_unread(ctx: ToolContext) -> None:
    remote = dataclasses.replace(ctx, local_models=False)
    result = render(remote, model=str(CHECKPOINTS / "llama-3.1-8b-bf16"), tag="v0.26.0", quantization="awq_marlin")
    assert result.argv[-1] == "awq_marlin"


def test_a_local_checkpoint_whose_config_from_config_refuses_is_refused_with_its_message_and_line(
    ctx: ToolContext,
) -> None:
    with pytest.raises(InvalidServeArgsError) as caught:
        render(ctx, model=str(CHECKPOINTS / "llama-gptq-5bit"), tag="v0.33.0")
    assert "vLLM: `ValueError: Unsupported quantization config: bits=5, sym=True`" in str(caught.value)
    assert "/blob/v0.33.0/vllm/model_executor/layers/quantization/auto_gptq.py#L153" in str(caught.value)
    with pytest.raises(InvalidServeArgsError, match="Unsupported activation scheme foo"):
        render(ctx, model=str(CHECKPOINTS / "llama-fp8-foo"), tag="v0.33.0")
    assert render(ctx, model=str(CHECKPOINTS / "llama-fp8-static"), tag="v0.33.0").warnings == []


def test_an_eight_bit_awq_folder_is_refused_on_an_h100_and_left_conditional_without_a_gpu(ctx: ToolContext) -> None:
    with pytest.raises(InvalidServeArgsError, match=r"Unsupported num_bits = 8\."):
        render(ctx, model=str(CHECKPOINTS / "llama-awq-8bit"), tag="v0.33.0", gpu="h100")
    result = render(ctx, model=str(CHECKPOINTS / "llama-awq-8bit"), tag="v0.33.0")
    assert any("current_platform.is_cpu()" in w and "on CUDA: refused" in w for w in result.warnings)
