"""render_serve_cmd says what `--moe-backend X` and `--linear-backend X` do on the GPU at the tag: the kernel or
expert class that value's walk picks, or the raise; and, on an AMD GPU, what the walk of ROCm's lists picks.

The registry is derived here from the real v0.33.0 release (installed in a store of the test's own), so the
judgement follows the extractors under test rather than the bundled copy.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.releases import install_release_tree

from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.render_serve_cmd.models import RenderQuery
from vllm_quant_mcp.tools.render_serve_cmd.tool import render_serve_cmd

V2_LITE = str(Path(__file__).parents[2] / "fixtures" / "models" / "DeepSeek-V2-Lite")
GPTQ = str(Path(__file__).parents[2] / "fixtures" / "checkpoints" / "llama-gptq")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> ToolContext:
    cache = tmp_path_factory.mktemp("cache")
    install_release_tree(cache, "0.33.0")
    store = Store(cache)
    store.rebuild_registry("v0.33.0")
    return ToolContext(store, "v0.33.0")


def _moe(fresh: ToolContext, gpu: str, backend: str) -> tuple[list[str], str]:
    query = RenderQuery(model=V2_LITE, tag="v0.33.0", gpu=gpu, quantization="fp8", moe_backend=backend)
    result = render_serve_cmd(fresh, query)
    judged = next(j for j in result.judgements if j.subject.startswith("MoE backend"))
    assert result.argv[-2:] == ["--moe-backend", backend]
    return result.warnings, f"{judged.verdict} {judged.via} {judged.why}"


def test_online_fp8_experts_forced_to_flashinfer_trtllm_on_h100_warn_with_the_oracles_raise(
    fresh: ToolContext,
) -> None:
    warnings, judged = _moe(fresh, "h100", "flashinfer_trtllm")
    assert judged.startswith("no None --moe-backend flashinfer_trtllm -> FLASHINFER_TRTLLM: vLLM raises ValueError")
    raised = [w for w in warnings if "A MoE model fails to load with this --moe-backend on h100" in w]
    assert raised and "/blob/v0.33.0/vllm/model_executor/layers/fused_moe/oracle/fp8.py#L" in raised[0]


def test_online_fp8_experts_forced_to_marlin_on_h100_name_marlin_experts_and_warn_of_no_refusal(
    fresh: ToolContext,
) -> None:
    warnings, judged = _moe(fresh, "h100", "marlin")
    assert judged.startswith("yes MARLIN fp8.py: --moe-backend marlin -> MARLIN (MarlinExperts)")
    assert not any("fails to load" in w for w in warnings)


def _linear(fresh: ToolContext, backend: str) -> tuple[list[str], str]:
    query = RenderQuery(model=GPTQ, tag="v0.33.0", gpu="h100", quantization="gptq_marlin", linear_backend=backend)
    result = render_serve_cmd(fresh, query)
    (judged,) = [j for j in result.judgements if j.subject.startswith("linear kernel")]
    assert result.argv[-2:] == ["--linear-backend", backend]
    return result.warnings, f"{judged.verdict} {judged.via} {judged.why}"


def test_a_gptq_checkpoint_forced_to_linear_backend_marlin_on_h100_names_marlin_not_the_auto_pick_machete(
    fresh: ToolContext,
) -> None:
    warnings, judged = _linear(fresh, "marlin")
    assert judged.startswith(
        "yes MarlinLinearKernel __init__.py gptq-w4a16: --linear-backend marlin -> MarlinLinearKernel"
    )
    assert "auto picks MacheteLinearKernel" in judged
    assert not any("fails to load" in w for w in warnings)


def test_a_gptq_checkpoint_forced_to_linear_backend_cutlass_on_h100_warns_that_no_kernel_takes_the_layer(
    fresh: ToolContext,
) -> None:
    warnings, judged = _linear(fresh, "cutlass")
    assert judged.startswith("no None __init__.py gptq-w4a16: --linear-backend cutlass -> no kernel: CutlassW4A8")
    assert any("The model fails to load with this --linear-backend on h100" in w for w in warnings)


def test_fp8_on_mi300x_names_the_rocm_linear_kernel_with_its_accepting_line_and_triton_experts(
    fresh: ToolContext,
) -> None:
    query = RenderQuery(model=V2_LITE, tag="v0.33.0", gpu="mi300x", quantization="fp8")
    judged = {j.subject: j for j in render_serve_cmd(fresh, query).judgements}
    linear = judged["linear kernel for --quantization fp8"]
    assert (linear.verdict, linear.basis, linear.via) == ("yes", "source", "ROCmFP8ScaledMMLinearKernel")
    assert "AiterPerTokenFp8ScaledMMLinearKernel" in linear.why  # refused ahead of it: VLLM_ROCM_USE_AITER unset
    # v0.33.0 vllm/model_executor/kernels/linear/scaled_mm/rocm.py:107, can_implement's `return True, None`
    accepted = linear.evidence[-1]
    assert accepted.permalink.endswith("/blob/v0.33.0/vllm/model_executor/kernels/linear/scaled_mm/rocm.py#L107")
    moe = judged["MoE backend for --quantization fp8 (MoE layers, tensor parallel)"]
    assert (moe.verdict, moe.via) == ("yes", "TRITON") and "AITER" in moe.why
