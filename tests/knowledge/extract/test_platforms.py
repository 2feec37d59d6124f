"""Golden tests: per-platform supported_quantization lists of real releases, oldest first.

Expected lists were read by hand from vllm/platforms/*.py of each sdist.
"""

from __future__ import annotations

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.engine import language
from vllm_quant_mcp.knowledge.extract.platforms import extract_platforms


def test_0_4_1_has_no_platforms_package_and_the_note_says_so() -> None:
    result = extract_platforms(release_tree("0.4.1"))
    assert result.entries == []
    assert result.note is not None and "vllm/platforms/ does not exist at v0.4.1" in result.note


def test_0_6_3_platform_classes_set_no_list_and_the_note_says_so() -> None:
    result = extract_platforms(release_tree("0.6.3"))
    assert result.entries == []
    assert result.note is not None and "no platform class" in result.note and "vllm/config.py" in result.note


def test_0_7_0_lists_rocm_tpu_and_neuron_with_their_literal_methods() -> None:
    result = extract_platforms(release_tree("0.7.0"))
    assert [(p.name, p.methods, p.provenance.path, p.provenance.line) for p in result.entries] == [
        ("NeuronPlatform", ["neuron_quant"], "vllm/platforms/neuron.py", 20),
        (
            "RocmPlatform",
            ["awq", "gptq", "fp8", "compressed_tensors", "compressed-tensors", "fbgemm_fp8", "gguf", "quark"],
            "vllm/platforms/rocm.py",
            71,
        ),
        ("TpuPlatform", ["tpu_int8", "compressed-tensors", "compressed_tensors"], "vllm/platforms/tpu.py", 25),
    ]


def test_0_14_0_rocm_keeps_the_literal_list_and_notes_the_conditional_bitsandbytes() -> None:
    result = extract_platforms(release_tree("0.14.0"))
    assert [(p.name, p.methods, p.provenance.line) for p in result.entries] == [
        (
            "RocmPlatform",
            [
                "awq",
                "awq_marlin",
                "gptq",
                "gptq_marlin",
                "fp8",
                "compressed-tensors",
                "fbgemm_fp8",
                "gguf",
                "quark",
                "ptpc_fp8",
                "mxfp4",
                "petit_nvfp4",
                "torchao",
            ],
            171,
        )
    ]
    assert result.note is not None
    assert 'RocmPlatform adds ["bitsandbytes"] under a condition at vllm/platforms/rocm.py:188' in result.note


def test_0_20_0_only_rocm_restricts_methods() -> None:
    result = extract_platforms(release_tree("0.20.0"))
    assert [(p.name, p.methods, p.provenance.line) for p in result.entries] == [
        (
            "RocmPlatform",
            [
                "awq",
                "awq_marlin",
                "gptq",
                "gptq_marlin",
                "fp8",
                "compressed-tensors",
                "fbgemm_fp8",
                "gguf",
                "quark",
                "mxfp4",
                "gpt_oss_mxfp4",
                "torchao",
                "bitsandbytes",
                "modelopt_fp4",
            ],
            406,
        )
    ]


def test_0_32_0_lists_rocm_and_xpu_and_leaves_unrestricted_cuda_out() -> None:
    result = extract_platforms(release_tree("0.32.0"))
    platforms = {p.name: p for p in result.entries}
    assert list(platforms) == ["RocmPlatform", "XPUPlatform"]
    assert platforms["RocmPlatform"].methods == [
        "awq",
        "auto_awq",
        "awq_marlin",
        "gptq",
        "auto_gptq",
        "fp8",
        "deepseek_v4_fp8",
        "compressed-tensors",
        "fbgemm_fp8",
        "inc",
        "quark",
        "mxfp4",
        "mxfp8",
        "torchao",
        "modelopt",
        "modelopt_fp4",
        "modelopt_mxfp8",
        "modelopt_mixed",
        "fp8_per_tensor",
        "fp8_per_block",
        "fp8_per_channel",
        "online",
        "gpt_oss_mxfp4",
    ]
    assert platforms["XPUPlatform"].methods == [
        "awq",
        "gptq",
        "moe_wna16",
        "auto_awq",
        "auto_gptq",
        "inc",
        "fp8",
        "deepseek_v4_fp8",
        "mxfp4",
        "mxfp8",
        "fp8_per_tensor",
        "fp8_per_block",
        "fp8_per_channel",
        "online",
        "gpt_oss_mxfp4",
        "modelopt",
        "compressed-tensors",
    ]
    xpu = platforms["XPUPlatform"].provenance
    assert xpu.permalink == "https://github.com/vllm-project/vllm/blob/v0.32.0/vllm/platforms/xpu.py#L113"
    assert platforms["RocmPlatform"].provenance.line == 614
    assert result.note is not None and "no restriction" in result.note


def test_a_malformed_platforms_query_fails_loudly_instead_of_finding_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # Stand-in for a corrupted platforms.scm shipped in the package: the real text with its last ")" cut.
    original = language.query_source
    text = original("platforms")
    cut = text.rindex(")")
    broken = text[:cut] + text[cut + 1 :]
    monkeypatch.setattr(language, "query_source", lambda n: broken if n == "platforms" else original(n))
    language.query.cache_clear()
    try:
        with pytest.raises(language.QueryLoadError, match=r"platforms\.scm does not compile"):
            extract_platforms(release_tree("0.32.0"))
    finally:
        language.query.cache_clear()
