"""Golden tests: linear / MoE kernel backend values and attention backends of real releases, oldest first.

Expected lists were read from each sdist with grep/sed/awk (vllm/config/kernel.py
and the attention enum's file) and cross-checked against Python's ast on every release.
"""

from __future__ import annotations

from pathlib import Path

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.backends import extract_backends
from vllm_quant_mcp.knowledge.registry.model import BackendEntry
from vllm_quant_mcp.knowledge.sources.tree import SourceTree


def _names(entries: list[BackendEntry]) -> list[str]:
    return [e.name for e in entries]


def test_0_4_1_reads_the_backend_enum_in_attention_selector_and_notes_no_kernel_config() -> None:
    result = extract_backends(release_tree("0.4.1"))
    assert _names(result.entries.attention) == ["FLASH_ATTN", "XFORMERS", "ROCM_FLASH", "TORCH_SDPA"]
    assert result.entries.linear == [] and result.entries.moe == []
    assert result.note == "no linear or MoE backend values: no vllm/config/kernel.py at this tag"


def test_0_6_0_reads_eight_attention_backends_from_attention_selector() -> None:
    attention = extract_backends(release_tree("0.6.0")).entries.attention
    assert _names(attention) == [
        "FLASH_ATTN",
        "XFORMERS",
        "ROCM_FLASH",
        "TORCH_SDPA",
        "OPENVINO",
        "FLASHINFER",
        "PALLAS",
        "IPEX",
    ]
    assert (attention[0].provenance.path, attention[0].provenance.line) == ("vllm/attention/selector.py", 19)


def test_0_9_2_reads_the_backend_enum_in_platforms_interface() -> None:
    attention = extract_backends(release_tree("0.9.2")).entries.attention
    assert _names(attention) == [
        "FLASH_ATTN",
        "FLASH_ATTN_VLLM_V1",
        "TRITON_ATTN_VLLM_V1",
        "XFORMERS",
        "ROCM_FLASH",
        "ROCM_AITER_MLA",
        "ROCM_AITER_MLA_VLLM_V1",
        "TORCH_SDPA",
        "FLASHINFER",
        "FLASHINFER_VLLM_V1",
        "TRITON_MLA",
        "TRITON_MLA_VLLM_V1",
        "FLASHMLA_VLLM_V1",
        "FLASHMLA",
        "CUTLASS_MLA_VLLM_V1",
        "HPU_ATTN",
        "PALLAS",
        "PALLAS_VLLM_V1",
        "IPEX",
        "BLOCK_SPARSE_FLASH_ATTN",
        "DUAL_CHUNK_FLASH_ATTN",
        "NO_ATTENTION",
        "FLEX_ATTENTION",
    ]
    assert (attention[0].provenance.path, attention[0].provenance.line) == ("vllm/platforms/interface.py", 42)


def test_0_11_1_prefers_attention_backend_enum_over_the_deprecated_backend_shim() -> None:
    attention = extract_backends(release_tree("0.11.1")).entries.attention
    assert _names(attention) == [
        "FLASH_ATTN",
        "TRITON_ATTN",
        "XFORMERS",
        "ROCM_ATTN",
        "ROCM_AITER_MLA",
        "ROCM_AITER_FA",
        "TORCH_SDPA",
        "FLASHINFER",
        "FLASHINFER_MLA",
        "TRITON_MLA",
        "CUTLASS_MLA",
        "FLASHMLA",
        "FLASHMLA_SPARSE",
        "FLASH_ATTN_MLA",
        "PALLAS",
        "IPEX",
        "NO_ATTENTION",
        "FLEX_ATTENTION",
        "TREE_ATTN",
        "ROCM_AITER_UNIFIED_ATTN",
        "CPU_ATTN",
        "CUSTOM",
    ]
    assert (attention[0].provenance.path, attention[0].provenance.line) == ("vllm/attention/backends/registry.py", 44)


def test_0_20_0_has_moe_backends_but_notes_the_missing_linear_backend_field() -> None:
    result = extract_backends(release_tree("0.20.0"))
    assert _names(result.entries.moe) == [
        "auto",
        "triton",
        "deep_gemm",
        "deep_gemm_mega_moe",
        "cutlass",
        "flashinfer_trtllm",
        "flashinfer_cutlass",
        "flashinfer_cutedsl",
        "marlin",
        "aiter",
        "emulation",
    ]
    assert result.entries.linear == []
    assert result.note == "no linear backend values: KernelConfig has no linear_backend field in vllm/config/kernel.py"


def test_0_22_0_reads_linear_and_moe_literals_through_kernel_config_fields() -> None:
    result = extract_backends(release_tree("0.22.0"))
    assert _names(result.entries.linear) == [
        "auto",
        "cutlass",
        "flashinfer_cutlass",
        "flashinfer_trtllm",
        "flashinfer_cudnn",
        "marlin",
        "triton",
        "deep_gemm",
        "torch",
        "aiter",
        "machete",
        "fbgemm",
        "conch",
        "exllama",
        "emulation",
    ]
    assert _names(result.entries.moe) == [
        "auto",
        "triton",
        "deep_gemm",
        "deep_gemm_mega_moe",
        "cutlass",
        "flashinfer_trtllm",
        "flashinfer_cutlass",
        "flashinfer_cutedsl",
        "flashinfer_b12x",
        "marlin",
        "humming",
        "triton_unfused",
        "aiter",
        "emulation",
    ]
    assert result.entries.moe[0].provenance.line == 123
    assert result.note is None


def test_0_32_0_kernel_and_attention_backends() -> None:
    result = extract_backends(release_tree("0.32.0"))
    assert _names(result.entries.linear) == [
        "auto",
        "cutlass",
        "flashinfer_cutlass",
        "flashinfer_cutedsl",
        "flashinfer_trtllm",
        "flashinfer_cudnn",
        "flashinfer_b12x",
        "b12x",
        "marlin",
        "humming",
        "triton",
        "deep_gemm",
        "torch",
        "aiter",
        "machete",
        "fbgemm",
        "conch",
        "exllama",
        "emulation",
        "xpu",
        "xpu_woq",
    ]
    assert _names(result.entries.moe) == [
        "auto",
        "triton",
        "batched_triton",
        "deep_gemm",
        "deep_gemm_mega_moe",
        "cutlass",
        "flashinfer_trtllm",
        "flashinfer_cutlass",
        "flashinfer_cutedsl",
        "flashinfer_moe_ep_cutedsl",
        "flashinfer_b12x",
        "b12x",
        "flashinfer_moe_ep_mega_deep_gemm",
        "marlin",
        "humming",
        "triton_unfused",
        "aiter",
        "aiter_mega_moe",
        "aiter_triton_mxfp4_bf16",
        "flydsl",
        "hpc",
        "emulation",
        "rdna3",
    ]
    assert _names(result.entries.attention) == [
        "FLASH_ATTN",
        "FLASH_ATTN_DIFFKV",
        "TRITON_ATTN",
        "TRITON_ATTN_DIFFKV",
        "TRITON_FLASH_ATTN",
        "ROCM_ATTN",
        "ROCM_SEGMENTED_ATTN",
        "ROCM_AITER_MLA",
        "ROCM_AITER_TRITON_MLA",
        "ROCM_AITER_FA",
        "ROCM_AITER_MLA_SPARSE",
        "XPU_MLA_SPARSE",
        "TORCH_SDPA",
        "FLASHINFER",
        "TRITON_FLASHINFER",
        "FLASHINFER_MLA",
        "TOKENSPEED_MLA",
        "FLASHINFER_MLA_SPARSE",
        "FLASHINFER_MLA_SPARSE_SM120",
        "FLASHINFER_MLA_SPARSE_SM90",
        "TRITON_MLA",
        "CUTLASS_MLA",
        "FLASHMLA",
        "FLASHMLA_SPARSE",
        "FLASHMLA_SPARSE_DSV4",
        "FLASHINFER_MLA_SPARSE_DSV4",
        "ROCM_FLASHMLA_SPARSE_DSV4",
        "FLASHMLA_SPARSE_DSV41",
        "FLASHINFER_MLA_SPARSE_DSV41",
        "FLASHMLA_MEGA_ATTN_DSV41",
        "B12X",
        "FLASH_ATTN_MLA",
        "FLASH_ATTN_MLA_SPARSE",
        "MINIMAX_M3_SPARSE",
        "CUTLASS_MSA",
        "TRITON_MSA",
        "NO_ATTENTION",
        "FLEX_ATTENTION",
        "HPC_ATTN",
        "ROCM_AITER_UNIFIED_ATTN",
        "CPU_ATTN",
        "CPU_MLA",
        "AMX_MLA",
        "TURBOQUANT",
        "ULTRAQUANT",
        "CUSTOM",
    ]
    assert result.note is None


def test_0_33_0_adds_aiter_triton_mxfp4_mxfp4_and_four_attention_backends() -> None:
    before = extract_backends(release_tree("0.32.0")).entries
    after = extract_backends(release_tree("0.33.0")).entries
    assert _names(after.linear) == _names(before.linear)
    assert [n for n in _names(after.moe) if n not in _names(before.moe)] == ["aiter_triton_mxfp4_mxfp4"]
    assert len(after.moe) == 24
    assert [n for n in _names(after.attention) if n not in _names(before.attention)] == [
        "ROCM_FLASHMLA_SPARSE_DSV41",
        "FLASH_ATTN_MLA_SPARSE_FA4",
        "STEP5_DSA",
        "ROCM_OCTAVE",
    ]
    assert len(after.attention) == 50
    assert {e.provenance.path for e in after.attention} == {"vllm/v1/attention/backends/registry.py"}


def test_a_tree_without_kernel_config_or_attention_enum_gives_empty_lists_and_a_note(tmp_path: Path) -> None:
    (tmp_path / "vllm").mkdir()
    result = extract_backends(SourceTree(tmp_path, "v0.0.0"))
    assert result.entries.linear == [] and result.entries.moe == [] and result.entries.attention == []
    assert result.note is not None
    assert "no vllm/config/kernel.py" in result.note and "AttentionBackendEnum" in result.note
