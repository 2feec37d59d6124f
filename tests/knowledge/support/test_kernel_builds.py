"""Kernel judgements that read the build: which GPUs the release's wheel compiles a kernel's op for (cuda_archs),
what `--moe-backend X` does on a GPU (the oracle's forced path), and where vLLM emulates a format.

The registries are derived here from the real releases, so the judgements follow the extractors under test
rather than the bundled copies.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.registry.bundle import read_bundled
from vllm_quant_mcp.knowledge.registry.derive import derive_registry
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.cuda_archs import kernel_compiled, loose_intersection, runs_on
from vllm_quant_mcp.knowledge.support.kernels import kernel_judgements, kernel_support


@pytest.fixture(scope="module")
def registries() -> dict[str, Registry]:
    found: dict[str, Registry] = {}
    for version in ("0.17.0", "0.33.0"):
        bundled = read_bundled(f"v{version}")
        assert bundled is not None
        found[version] = derive_registry(release_tree(version), bundled.source)
    return found


def _cmake(version: str, line: int) -> str:
    return (release_tree(version).root / "CMakeLists.txt").read_text(encoding="utf-8").splitlines()[line - 1]


def _source(version: str, path: str, line: int) -> str:
    return (release_tree(version).root / path).read_text(encoding="utf-8").splitlines()[line - 1]


def test_the_loose_intersection_keeps_family_and_arch_specific_targets_as_cmake_utils_documents() -> None:
    assert loose_intersection(["7.5", "8.0", "8.6", "9.0", "9.0a"], ["8.0", "8.9", "9.0"]) == ["9.0a", "8.0", "8.6"]
    assert loose_intersection(["8.0+PTX"], ["9.0"]) == ["8.0+PTX"]
    assert loose_intersection(["12.0f"], ["12.1"]) == ["12.1"]
    assert runs_on("10.0a", (10, 0)) and not runs_on("10.0a", (10, 3)) and runs_on("10.0f", (10, 3))
    assert runs_on("8.0+PTX", (12, 0)) and not runs_on("8.0", (9, 0))


def test_nvfp4_cutlass_is_not_built_for_sm90_at_v0_33_0_and_is_for_sm100_with_the_cmakelists_line(
    registries: dict[str, Registry],
) -> None:
    registry = registries["0.33.0"]
    hopper = kernel_compiled(registry, "CutlassNvFp4LinearKernel", 90)
    blackwell = kernel_compiled(registry, "CutlassNvFp4LinearKernel", 100)
    assert hopper is not None and hopper.built is False and blackwell is not None and blackwell.built is True
    assert "FP4_SM100_ARCHS" in hopper.why and "the wheel's CUDA 13.0" in hopper.why
    assert blackwell.family.name == "FP4_SM100_ARCHS"
    assert "cuda_archs_loose_intersection(FP4_SM100_ARCHS" in _cmake("0.33.0", blackwell.family.provenance.line)


def test_a_pick_whose_op_the_v0_17_0_wheel_does_not_build_for_b300_is_conditional_with_the_cmake_lines(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    registry = registries["0.17.0"]
    assert registry.build.main_cuda == "12.9"
    built, b300 = (
        kernel_judgements(registry, "modelopt_fp4", gpu(name), moe=True, moe_backend="cutlass")[-1]
        for name in ("b200", "b300")
    )
    assert (built.verdict, built.via) == ("yes", "VLLM_CUTLASS") and "is built for SM 10.0" in built.why
    assert (b300.verdict, b300.via) == ("conditional", "VLLM_CUTLASS")
    assert "not built for SM 10.3" in b300.why and "CUDA_SUPPORTED_ARCHS 7.0;7.2;7.5" in b300.why
    cmake = b300.evidence[-1]
    assert cmake.path == "CMakeLists.txt" and "FP4_ARCHS" in _cmake("0.17.0", cmake.line)


def test_forcing_flashinfer_trtllm_for_nvfp4_experts_on_h100_raises_at_the_oracles_line_and_runs_on_b200(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    for version, line in (("0.17.0", 193), ("0.33.0", 273)):
        registry = registries[version]
        h100 = kernel_judgements(registry, "modelopt_fp4", gpu("h100"), moe=True, moe_backend="flashinfer_trtllm")[-1]
        b200 = kernel_judgements(registry, "modelopt_fp4", gpu("b200"), moe=True, moe_backend="flashinfer_trtllm")[-1]
        assert h100.verdict == "no" and h100.via is None and f"raises ValueError at nvfp4.py:{line}" in h100.why
        raised = h100.evidence[-1]
        assert raised.line == line and "raise ValueError(_make_log_unsupported" in _source(version, raised.path, line)
        assert (b200.verdict, b200.via) == ("yes", "FLASHINFER_TRTLLM")


def test_a_moe_backend_the_oracle_does_not_map_raises_in_its_mapping_and_auto_is_judged_as_before(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    registry = registries["0.33.0"]
    triton = kernel_judgements(registry, "modelopt_fp4", gpu("h100"), moe=True, moe_backend="triton")[-1]
    assert triton.verdict == "no" and triton.evidence[-1].path.endswith("oracle/nvfp4.py")
    assert "is not supported for NvFP4 MoE" in _source("0.33.0", triton.evidence[-1].path, triton.evidence[-1].line + 1)
    auto = kernel_judgements(registry, "modelopt_fp4", gpu("h100"), moe=True)[-1]
    assert auto.via == "MARLIN" and "--moe-backend <name> asks for one backend" in auto.why


def test_the_vllm_cutlass_fp8_moe_backend_forced_raises_because_its_caller_does_not_allow_it(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    judged = kernel_judgements(registries["0.33.0"], "fp8", gpu("h100"), moe=True, moe_backend="cutlass")[-1]
    assert judged.verdict == "no"
    raised = judged.evidence[-1]
    assert "raise ValueError(" in _source("0.33.0", raised.path, raised.line)
    assert "disabled for this configuration" in _source("0.33.0", raised.path, raised.line + 1)


def test_nvfp4_is_emulated_with_the_emulation_linear_backend_and_a_weight_only_fallback_with_marlin_on_h100(
    registries: dict[str, Registry],
    gpu: Callable[[str], Gpu],
) -> None:
    registry = registries["0.33.0"]
    emulated = kernel_support(registry, "modelopt_fp4", gpu("h100"), "emulation")
    marlin = kernel_support(registry, "modelopt_fp4", gpu("h100"), "marlin")
    assert emulated is not None and emulated[0] == "emulated" and emulated[1].startswith("EmulationNvFp4LinearKernel")
    assert marlin is not None and marlin[0] == "fallback" and marlin[1].startswith("MarlinNvFp4LinearKernel")
