"""KV verdicts for a deployment: the model's shape (read from real configs) picks the matrix cell, on real releases."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.hub.client import read_local
from vllm_quant_mcp.knowledge.hub.model_facts import facts_from_files
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.deployment import kv_for_deployment
from vllm_quant_mcp.knowledge.support.shape import AttentionShape, assumed_shape, shape_of

MODELS = Path(__file__).parents[2] / "fixtures" / "models"


@pytest.fixture(scope="module")
def registries(registries_at: Callable[..., dict[str, Registry]]) -> dict[str, Registry]:
    return registries_at("v0.16.0", "v0.26.0", "v0.32.0")


def at(registries: dict[str, Registry]) -> Callable[[str], Registry]:
    return registries.__getitem__


def shape(name: str, flags: dict[str, str] | None = None) -> AttentionShape:
    return shape_of(facts_from_files(read_local(MODELS / name)), flags)


def test_the_shape_of_real_configs_is_what_vllms_selector_reads() -> None:
    llama, v3, lite = shape("Llama-3.1-8B-Instruct"), shape("DeepSeek-V3"), shape("DeepSeek-V2-Lite")
    assert (llama.mode, llama.head_size, llama.moe) == ("dense", 128, False)
    assert (v3.mode, v3.head_size, v3.moe) == ("mla", 576, True)  # kv_lora_rank 512 + qk_rope_head_dim 64
    assert (lite.mode, lite.head_size) == ("mla", 576)
    assert v3.describe().endswith("DeepSeek-V3 (MLA, head size 576, BF16, MoE)")


def test_a_verdict_without_a_model_says_what_it_assumed_and_why() -> None:
    assert assumed_shape("no model given").describe() == "assumed: dense decoder, head size 128, BF16 (no model given)"
    assert assumed_shape("x", {"--dtype": "half"}).dtype == "float16"


def test_fp8_kv_for_deepseek_v2_lite_on_a100_at_v0_16_0_is_refused_where_a_dense_model_runs_it(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    a100, registry = kb.gpus_named("a100")[0], registries["v0.16.0"]
    mla = kv_for_deployment(kb, registry, "fp8", a100, shape("DeepSeek-V2-Lite"), at(registries))
    dense = kv_for_deployment(kb, registry, "fp8", a100, shape("Llama-3.1-8B-Instruct"), at(registries))
    assert mla is not None and dense is not None
    assert (mla.verdict, mla.basis, mla.via) == ("no", "source", None)
    assert "an MLA model" in mla.why and mla.model is not None and "MLA, head size 576" in mla.model
    assert (dense.verdict, dense.via) == ("yes", "FLASHINFER")


def test_deepseek_v3_kv_cells_at_v0_26_0_are_the_mla_cells_not_the_dense_ones(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    h200, registry = kb.gpus_named("h200")[0], registries["v0.26.0"]
    mla = kv_for_deployment(kb, registry, "fp8_e5m2", h200, shape("DeepSeek-V3"), at(registries))
    dense = kv_for_deployment(kb, registry, "fp8_e5m2", h200, assumed_shape("no model given"), at(registries))
    assert mla is not None and dense is not None
    assert (mla.verdict, mla.basis) == ("no", "source")
    assert (dense.verdict, dense.basis) == ("no", "observed")  # the source's FLASHINFER fails in its plan on the H200
    assert dense.model is not None and dense.model.startswith("assumed: dense decoder, head size 128, BF16")


def test_a_head_size_the_selected_backend_does_not_list_turns_yes_into_conditional(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    registry, a100 = registries["v0.16.0"], kb.gpus_named("a100")[0]
    flashinfer = next(b for b in registry.attention.backends if b.name == "FLASHINFER")
    assert flashinfer.head_sizes is not None and 80 not in flashinfer.head_sizes
    odd = assumed_shape("figures").model_copy(update={"head_size": 80, "read": True, "model": "a head-80 model"})
    judged = kv_for_deployment(kb, registry, "fp8", a100, odd, at(registries))
    assert judged is not None and judged.verdict == "conditional"
    assert "supports only 64, 128, 256" in judged.why


def test_a_forced_attention_backend_whose_kv_list_excludes_the_dtype_is_refused_at_selection(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    registry, h200 = registries["v0.32.0"], kb.gpus_named("h200")[0]
    triton = next(b for b in registry.attention.backends if b.name == "TRITON_MLA")
    assert triton.kv_cache_dtypes is not None and "fp8_e5m2" not in triton.kv_cache_dtypes
    forced = shape("DeepSeek-V3", {"--attention-backend": "TRITON_MLA"})
    judged = kv_for_deployment(kb, registry, "fp8_e5m2", h200, forced, at(registries))
    assert judged is not None and judged.verdict == "no" and "forces the backend" in judged.why
    unknown = kv_for_deployment(
        kb, registry, "auto", h200, shape("DeepSeek-V3", {"--attention-backend": "NOPE"}), at(registries)
    )
    assert unknown is not None and unknown.verdict == "no" and "not an AttentionBackendEnum member" in unknown.why


def test_flags_that_reach_the_selector_are_named_as_what_the_verdict_did_not_read(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    registry, h200 = registries["v0.32.0"], kb.gpus_named("h200")[0]
    judged = kv_for_deployment(
        kb, registry, "auto", h200, shape("Llama-3.1-8B-Instruct", {"--block-size": "32"}), at(registries)
    )
    assert judged is not None and any("--block-size 32 reaches the selector" in a for a in judged.assumptions)
