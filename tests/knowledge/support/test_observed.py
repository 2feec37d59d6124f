"""The observed basis on real releases: a run of the real wheel decides at its tag, carried where the path is same."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.deployment import kv_for_deployment
from vllm_quant_mcp.knowledge.support.judgement import Judgement
from vllm_quant_mcp.knowledge.support.observed import observation_claims
from vllm_quant_mcp.knowledge.support.shape import AttentionShape, assumed_shape

PROVENANCE = (
    "observed on an NVIDIA H200 (SM 9.0; driver 580.159.04, CUDA 13.0, torch 2.11.0+cu130), vLLM 0.26.0 wheel, "
    "tiny random-weight BF16 dense Llama, head 128, GQA 8/2, enforce_eager=True, 2026-12-01"
)


@pytest.fixture(scope="module")
def registries(registries_at: Callable[..., dict[str, Registry]]) -> dict[str, Registry]:
    return registries_at("v0.24.0", "v0.26.0", "v0.32.0")


def judge(kb: KnowledgeBase, registries: dict[str, Registry], tag: str, kv: str, shape: AttentionShape) -> Judgement:
    judged = kv_for_deployment(kb, registries[tag], kv, kb.gpus_named("h200")[0], shape, registries.__getitem__)
    assert judged is not None
    return judged


def test_float16_kv_on_a_bf16_model_at_v0_26_0_is_observed_to_fail_on_the_default_flash_attn(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    judged = judge(kb, registries, "v0.26.0", "float16", assumed_shape("no model given"))
    assert (judged.verdict, judged.basis, judged.via) == ("no", "observed", None)
    assert "RuntimeError: query and key must have the same dtype" in judged.why
    assert "The source's selection alone: vLLM selects FLASH_ATTN" in judged.why
    assert PROVENANCE in judged.citations


def test_a_forced_backend_the_run_showed_working_is_yes_on_that_basis(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    triton = judge(kb, registries, "v0.26.0", "float16", assumed_shape("x", {"--attention-backend": "TRITON_ATTN"}))
    assert (triton.verdict, triton.basis) == ("yes", "observed")


def test_fp8_e5m2_kv_on_a_dense_model_fails_in_flashinfers_plan_at_v0_26_0(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    judged = judge(kb, registries, "v0.26.0", "fp8_e5m2", assumed_shape("no model given"))
    assert (judged.verdict, judged.basis) == ("no", "observed")
    assert "does not match the q_data_type torch.float8_e5m2 specified in plan function" in judged.why


def test_an_observation_is_carried_where_the_source_takes_the_same_path_and_shown_beside_where_not(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    carried = judge(kb, registries, "v0.32.0", "float16", assumed_shape("x"))
    assert carried.basis == "observed" and "carried to v0.32.0" in carried.why
    beside = judge(kb, registries, "v0.24.0", "fp8_e5m2", assumed_shape("x"))
    assert (beside.verdict, beside.basis) == ("yes", "source")
    assert "Beside it, not carried (the source at v0.26.0 takes another path)" in beside.why


def test_an_observation_applies_only_to_the_model_dtype_it_was_made_with(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    fp16_model = judge(kb, registries, "v0.26.0", "float16", assumed_shape("x", {"--dtype": "float16"}))
    assert fp16_model.basis == "source"


def test_verify_reports_each_observation_the_source_disagrees_with(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    claims = {c.fact_id: c for c in observation_claims(kb, registries)}
    dense = claims["observed-kv-float16-dense-bf16-sm90-v0.26.0"]
    assert dense.status == "contradicted" and "The source at v0.26.0 says yes via FLASH_ATTN" in dense.reason
    assert claims["observed-kv-fp8-e5m2-dense-bf16-sm90-v0.26.0"].status == "contradicted"
