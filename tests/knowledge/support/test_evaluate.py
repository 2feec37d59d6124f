"""The one evaluator, on the bundled registries of real releases: yes / no / conditional, basis, deciding lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.bundled_json import raw

from vllm_quant_mcp.knowledge.extract.attention.select import CUDA_GRID, ROCM_GRID
from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.support.curated import kv_judgement
from vllm_quant_mcp.knowledge.support.evaluate import capability_of, kv_support, load_refusals, method_support


@pytest.fixture(scope="module")
def registries(registries_at: Callable[..., dict[str, Registry]]) -> dict[str, Registry]:
    return registries_at("v0.14.0", "v0.29.0", "v0.30.0", "v0.31.0", "v0.32.0")


def gpu(kb: KnowledgeBase, name: str) -> Gpu:
    return kb.gpus_named(name)[0]


def test_capability_is_what_torch_reports_for_the_gpu(kb: KnowledgeBase) -> None:
    assert capability_of(gpu(kb, "h100")) == ("cuda", "9.0")
    assert capability_of(gpu(kb, "b300")) == ("cuda", "10.3")
    assert capability_of(gpu(kb, "mi300x")) == ("rocm", "9.4")
    assert capability_of(gpu(kb, "mi355x")) == ("rocm", "9.5")
    assert capability_of(gpu(kb, "cpu")) is None


def test_fp8_e5m2_kv_runs_on_hopper_and_ampere_through_flashinfer_after_flash_attention_rejects_it(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    for name in ("h100", "a100"):
        judged = kv_support(registries["v0.32.0"], "fp8_e5m2", gpu(kb, name))
        assert judged is not None
        assert (judged.verdict, judged.basis, judged.via) == ("yes", "source", "FLASHINFER")
        rejects = [e for e in judged.evidence if "FlashAttentionBackend" in e.why]
        assert rejects and rejects[0].path == "vllm/v1/attention/backends/flash_attn.py"
        assert rejects[0].permalink.startswith("https://github.com/vllm-project/vllm/blob/v0.32.0/")


def test_nvfp4_kv_on_sm90_is_refused_at_v0_31_and_taken_by_flashinfer_at_v0_32(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    h200 = gpu(kb, "h200")
    before = kv_support(registries["v0.31.0"], "nvfp4", h200)
    after = kv_support(registries["v0.32.0"], "nvfp4", h200)
    assert before is not None and after is not None
    assert (before.verdict, before.via) == ("no", None) and "fails to start" in before.why
    assert (after.verdict, after.via) == ("yes", "FLASHINFER")
    accepts = [e for e in after.evidence if e.why == "FlashInferBackend.supports_kv_cache_dtype accepts it"]
    assert accepts and accepts[0].path == "vllm/v1/attention/backends/flashinfer.py"


def test_a_dtype_the_tag_lacks_is_a_source_no_and_an_undervived_gpu_falls_back_to_curated(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    assert "nvfp4" not in {k["name"] for k in raw("v0.14.0")["kv_cache_dtypes"]}
    lacking = kv_support(registries["v0.14.0"], "nvfp4", gpu(kb, "b200"))
    assert lacking is not None and (lacking.verdict, lacking.basis) == ("no", "source")
    assert raw("v0.14.0")["attention"]["rocm"] == []
    assert kv_support(registries["v0.14.0"], "fp8", gpu(kb, "mi300x")) is None
    fallback = kv_judgement(kb, registries["v0.14.0"], "fp8", gpu(kb, "mi300x"))
    assert fallback is not None and fallback.basis == "curated" and fallback.citations


def test_min_capability_refuses_from_the_return_line_and_passes_above_it(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    entry = next(m for m in raw("v0.32.0")["quantization_methods"] if m["name"] == "fp_quant")
    floor = entry["min_capability"]
    refused = method_support(registries["v0.32.0"], "fp_quant", gpu(kb, "a100"))
    assert floor > 80 and (refused.verdict, refused.basis) == ("no", "source")
    where = entry["min_capability_provenance"]
    assert (refused.evidence[0].path, refused.evidence[0].line) == (where["path"], where["line"])
    assert method_support(registries["v0.32.0"], "fp_quant", gpu(kb, "b200")).verdict == "yes"


def test_rocm_refuses_what_its_platform_does_not_list(kb: KnowledgeBase, registries: dict[str, Registry]) -> None:
    rocm = next(p for p in raw("v0.32.0")["platforms"] if p["name"] == "RocmPlatform")
    unlisted = next(m["name"] for m in raw("v0.32.0")["quantization_methods"] if m["name"] not in rocm["methods"])
    judged = method_support(registries["v0.32.0"], unlisted, gpu(kb, "mi300x"))
    assert judged.verdict == "no" and judged.evidence[0].permalink == rocm["provenance"]["permalink"]
    assert method_support(registries["v0.32.0"], rocm["methods"][0], gpu(kb, "mi300x")).verdict == "yes"


def test_an_online_moe_refusal_is_no_for_an_moe_model_and_conditional_when_the_model_is_unknown(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    h100, b200 = gpu(kb, "h100"), gpu(kb, "b200")
    assert method_support(registries["v0.32.0"], "nvfp4_per_token", h100, moe=True).verdict == "no"
    assert method_support(registries["v0.32.0"], "nvfp4_per_token", h100).verdict == "conditional"
    assert method_support(registries["v0.32.0"], "nvfp4_per_token", b200, moe=True).verdict == "yes"


def test_gptq_desc_act_is_refused_at_load_from_v0_30_and_not_before(registries: dict[str, Registry]) -> None:
    assert load_refusals(registries["v0.29.0"], "gptq_marlin") == []
    (first, *_) = load_refusals(registries["v0.30.0"], "gptq_marlin")
    assert first.property == "desc_act" and "no longer supported" in first.message
    # fp8's own raise is not reached for a BF16 checkpoint: the loader redirects first, so it is no refusal.
    assert load_refusals(registries["v0.32.0"], "fp8") == []


def test_every_gpu_of_the_table_has_its_capability_in_the_derived_grid(kb: KnowledgeBase) -> None:
    grids = {"cuda": {str(c) for c in CUDA_GRID}, "rocm": {str(c) for c in ROCM_GRID}}
    for g in kb.gpus:
        where = capability_of(g)
        assert where is None or where[1] in grids[where[0]], g.id


def test_nvfp4_kv_on_h100_at_v0_24_is_no_citing_the_flashinfer_builder_raise_and_yes_on_b200(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    registry = Store(tmp_path).load_registry("v0.24.0")
    h100 = kv_support(registry, "nvfp4", gpu(kb, "h100"))
    assert h100 is not None and (h100.verdict, h100.basis) == ("no", "source")
    assert "vLLM selects FLASHINFER" in h100.why and "FlashInferMetadataBuilder.__init__ raises ValueError" in h100.why
    raised = h100.evidence[-1]
    assert raised.path == "vllm/v1/attention/backends/flashinfer.py" and raised.permalink.endswith(f"#L{raised.line}")
    b200 = kv_support(registry, "nvfp4", gpu(kb, "b200"))
    assert b200 is not None and (b200.verdict, b200.via) == ("yes", "FLASHINFER")
