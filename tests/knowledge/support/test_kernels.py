"""Kernel judgements on the bundled registries of real releases: the kernel a method gets, native or fallback."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.kernels import kernel_judgements, kernel_support


@pytest.fixture(scope="module")
def registries(registries_at: Callable[..., dict[str, Registry]]) -> dict[str, Registry]:
    return registries_at("v0.26.0", "v0.31.0", "v0.33.0")


def test_online_fp8_on_h200_at_v0_26_0_names_cutlass_for_the_linear_layers_and_triton_for_the_experts(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    linear, moe = kernel_judgements(registries["v0.26.0"], "fp8", gpu("h200"), moe=True)
    assert (linear.verdict, linear.basis, linear.via) == ("yes", "source", "CutlassFP8ScaledMMLinearKernel")
    assert "MarlinFP8ScaledMMLinearKernel" in linear.why and "--linear-backend marlin -> none" in linear.why
    assert (moe.verdict, moe.via) == ("yes", "TRITON") and moe.why.startswith("fp8.py")


def test_fp8_is_native_on_h100_and_a_weight_only_fallback_on_a100_because_marlin_serves_it_there(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    assert kernel_support(registries["v0.26.0"], "fp8", gpu("h100")) == (
        "native",
        "CutlassFP8ScaledMMLinearKernel runs fp8-tensor as the checkpoint stores it (at v0.26.0)",
    )
    support, why = kernel_support(registries["v0.26.0"], "fp8", gpu("a100")) or ("", "")
    assert support == "fallback" and why.startswith("MarlinFP8ScaledMMLinearKernel: weight-only")


def test_forcing_marlin_for_gptq_on_h100_at_v0_33_0_is_linear_backend_marlin_since_humming_follows_machete(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    (linear,) = kernel_judgements(registries["v0.33.0"], "gptq_marlin", gpu("h100"), moe=False)
    assert linear.via == "MacheteLinearKernel"
    assert "VLLM_DISABLED_KERNELS=MacheteLinearKernel: HummingLinearKernel" in linear.why
    assert "--linear-backend marlin -> MarlinLinearKernel" in linear.why
    assert "prioritize_humming" in linear.why
    (before,) = kernel_judgements(registries["v0.31.0"], "gptq_marlin", gpu("h100"), moe=False)
    assert "VLLM_DISABLED_KERNELS=MacheteLinearKernel: MarlinLinearKernel" in before.why


def test_a_method_without_a_derived_scheme_gets_no_kernel_judgement(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    assert kernel_judgements(registries["v0.33.0"], "bitsandbytes", gpu("h100"), moe=True) == []
    assert kernel_support(registries["v0.33.0"], "bitsandbytes", gpu("h100")) is None


def test_humming_after_machete_holds_on_the_release_pin_of_humming_kernels_at_v0_33_0(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    (linear,) = kernel_judgements(registries["v0.33.0"], "gptq_marlin", gpu("h100"), moe=False)
    (pinned,) = [a for a in linear.assumptions if a.startswith("HummingLinearKernel: has_humming()")]
    assert "humming-kernels[cu13]==0.1.19 (requirements/cuda.txt:" in pinned


def test_linear_backend_marlin_for_gptq_on_h100_at_v0_33_0_is_judged_by_marlins_walk_not_the_auto_pick(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    (linear,) = kernel_judgements(registries["v0.33.0"], "gptq_marlin", gpu("h100"), moe=False, linear_backend="marlin")
    assert (linear.subject, linear.verdict, linear.via) == (
        "linear kernel for --quantization gptq_marlin with --linear-backend marlin",
        "yes",
        "MarlinLinearKernel",
    )
    assert linear.why.endswith("--linear-backend marlin -> MarlinLinearKernel; auto picks MacheteLinearKernel")
    mapped = linear.evidence[0]  # the map that narrows the list, read back from the release
    assert mapped.why.startswith("--linear-backend marlin covers ") and "MarlinLinearKernel" in mapped.why
    line = release_tree("0.33.0").read_text(mapped.path).splitlines()[mapped.line - 1]
    assert line.startswith("_LINEAR_BACKEND_KERNEL_MAP: dict[str, set[type]] = {")


def test_a_linear_backend_naming_no_gptq_kernel_falls_back_to_auto_at_v0_33_0_and_raises_at_v0_26_0(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    """--linear-backend flashinfer_cudnn covers only an NVFP4 kernel: v0.28.0 on warn and select as with auto
    (_resolve_backend_kernels); before, choose_mp_linear_kernel raised ValueError."""
    (later,) = kernel_judgements(
        registries["v0.33.0"], "gptq_marlin", gpu("h100"), moe=False, linear_backend="flashinfer_cudnn"
    )
    assert (later.verdict, later.via) == ("yes", "MacheteLinearKernel")
    assert "names no kernel of the gptq-w4a16 list: vLLM warns (" in later.why and "selects as with auto" in later.why
    (earlier,) = kernel_judgements(
        registries["v0.26.0"], "gptq_marlin", gpu("h100"), moe=False, linear_backend="flashinfer_cudnn"
    )
    assert (earlier.verdict, earlier.via) == ("no", None)
    assert (
        "ValueError(\"--linear-backend=flashinfer_cudnn was requested but no 'flashinfer_cudnn' kernel" in earlier.why
    )
    (raised,) = [e for e in earlier.evidence if "mixed-precision" in e.why]
    source = release_tree("0.26.0").read_text(raised.path).splitlines()
    assert source[raised.line - 1].strip() == "raise ValueError(" and "not filtered" in source[raised.line - 2]
    assert kernel_support(registries["v0.26.0"], "gptq_marlin", gpu("h100"), "flashinfer_cudnn") is None
