"""Curated KV limits against the derived matrix: a stale 'fp8_e5m2 is ROCm only' is caught, the fixed entry holds."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.claims import kv_limit_claims


@pytest.fixture(scope="module")
def registries(registries_at: Callable[..., dict[str, Registry]]) -> dict[str, Registry]:
    return registries_at("v0.31.0", "v0.32.0")


def _with_kv_limit(kb: KnowledgeBase, fact_id: str, **limits: object) -> KnowledgeBase:
    facts = [f.model_copy(update=limits) if f.id == fact_id else f for f in kb.kv_cache_dtypes]
    return kb.model_copy(update={"kv_cache_dtypes": facts})


def test_a_rocm_only_claim_for_fp8_e5m2_is_contradicted_on_every_cuda_gpu_with_the_backend_that_takes_it(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    stale = _with_kv_limit(kb, "kv-fp8-e5m2", platforms=["rocm"])
    results = [r for r in kv_limit_claims(stale, registries) if r.fact_id == "kv-fp8-e5m2"]
    against = {r.claim.split("gpu=")[1].split(",")[0] for r in results if r.status == "contradicted"}
    assert {"h100", "h200", "a100", "b200"} <= against
    h100 = next(r for r in results if "gpu=h100" in r.claim)
    assert h100.evidence[0].tag == "v0.32.0" and h100.evidence[0].observed == "yes via FLASHINFER"
    assert h100.evidence[0].permalink and "/blob/v0.32.0/" in h100.evidence[0].permalink


def test_the_shipped_fp8_e5m2_entry_agrees_with_the_source(kb: KnowledgeBase, registries: dict[str, Registry]) -> None:
    results = [r for r in kv_limit_claims(kb, registries) if r.fact_id == "kv-fp8-e5m2"]
    assert results and {r.status for r in results} == {"confirmed"}


def test_a_claim_that_a_gpu_runs_what_no_backend_takes_is_contradicted_too(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    generous = _with_kv_limit(kb, "kv-nvfp4", only_sm=[], min_sm=80, until=None)
    (h200,) = [r for r in kv_limit_claims(generous, registries) if r.fact_id == "kv-nvfp4" and "gpu=h200" in r.claim]
    assert h200.status == "contradicted" and "v0.31.0" in h200.reason and "fails to start" in h200.reason


def test_nvfp4_off_sm100_agrees_where_the_builder_raises_and_shows_both_sides_where_only_flashinfer_fails(
    kb: KnowledgeBase, registries_at: Callable[..., dict[str, Registry]]
) -> None:
    registries = registries_at("v0.21.0", "v0.22.0", "v0.23.0", "v0.24.0")
    results = {
        r.claim.split("gpu=")[1].split(",")[0]: r for r in kv_limit_claims(kb, registries) if r.fact_id == "kv-nvfp4"
    }
    assert results["b200"].status == "confirmed"
    h100 = results["h100"]
    assert h100.status == "contradicted" and "The source says yes at v0.21.0..v0.22.0" in h100.reason
    assert "No raise in FLASHINFER's metadata builder or impl constructor is reached" in h100.reason
    assert "TRTLLM-gen kernels exist only on SM100/103" in h100.reason  # the curated note for those tags
    assert "https://github.com/vllm-project/vllm/issues/32220" in h100.reason
    later = {t: registries[t] for t in ("v0.23.0", "v0.24.0")}
    (confirmed,) = [r for r in kv_limit_claims(kb, later) if r.fact_id == "kv-nvfp4" and "gpu=h100" in r.claim]
    assert confirmed.status == "confirmed" and confirmed.evidence[0].observed == "no"
