"""Memory estimates against figures worked out by hand (1 GB = 10^9 bytes, gpu_memory_utilization 0.9)."""

from __future__ import annotations

from support.hubserver import MODELS

from vllm_quant_mcp.knowledge.hub.client import ModelFiles
from vllm_quant_mcp.knowledge.hub.memory import estimate, kv_bytes_per_token, weight_bytes
from vllm_quant_mcp.knowledge.hub.model_facts import ExplicitModel, ModelFacts, facts_from_files


def _facts(repo: str, with_index: bool = True) -> ModelFacts:
    files = MODELS[repo]
    index = files.get("model.safetensors.index.json") if with_index else None
    return facts_from_files(ModelFiles(ref=repo, origin="directory", config=files["config.json"], index=index))


LLAMA = "meta-llama/Llama-3.1-70B-Instruct"


def test_fp8_weights_keep_embeddings_in_16_bit() -> None:
    # body (70,553,706,496 - 2,101,346,304) = 68,452,360,192 params x 1 byte
    # + embeddings 2,101,346,304 x 2 bytes = 4,202,692,608 -> 72,655,052,800 bytes
    assert weight_bytes(_facts(LLAMA), "fp8") == (72_655_052_800, False)


def test_int4_weights_count_one_fp16_scale_per_group_of_128() -> None:
    # 68,452,360,192 x (4 + 16/128 = 4.125) / 8 = 35,295,747,224 (+ 4,202,692,608 embeddings) = 39,498,440,832
    assert weight_bytes(_facts(LLAMA), "int4") == (39_498_440_832, False)


def test_bf16_and_the_checkpoints_own_format_use_the_index_size() -> None:
    assert weight_bytes(_facts(LLAMA), "bf16") == (141_107_412_992, True)
    nvfp4 = _facts("nvidia/Llama-3.3-70B-Instruct-FP4")
    assert weight_bytes(nvfp4, "nvfp4") == (42_682_353_664, True)


def test_kv_per_token_splits_heads_across_tensor_parallel_ranks() -> None:
    facts = _facts(LLAMA)
    assert kv_bytes_per_token(facts, "auto") == 80 * 2 * 8 * 128 * 2  # 327,680: bf16, all heads on one GPU
    assert kv_bytes_per_token(facts, "fp8_e4m3", tensor_parallel=2) == 80 * 2 * 4 * 128 * 1  # 81,920
    assert kv_bytes_per_token(facts, "fp8_e4m3", tensor_parallel=16) == 80 * 2 * 1 * 128 * 1  # a head per GPU at least
    assert kv_bytes_per_token(facts, "nvfp4") == 80 * 2 * 8 * 128 * (0.5 + 1 / 16)  # 92,160: FP8 scale per 16


def test_mla_caches_the_latent_and_rope_part_on_every_rank() -> None:
    facts = _facts("deepseek-ai/DeepSeek-V3")
    assert kv_bytes_per_token(facts, "fp8_e4m3", tensor_parallel=8) == 61 * (512 + 64) * 1  # 35,136
    assert kv_bytes_per_token(facts, "auto") == 61 * (512 + 64) * 2  # 70,272


def test_hybrid_model_pays_kv_only_for_its_full_attention_layers() -> None:
    facts = _facts("Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert kv_bytes_per_token(facts, "auto") == 12 * 2 * 2 * 256 * 2  # 24,576, not 48 layers' worth
    assert kv_bytes_per_token(facts, "auto", tensor_parallel=2) == 12 * 2 * 1 * 256 * 2


def test_kv_layout_not_modelled_gives_no_figure() -> None:
    assert kv_bytes_per_token(_facts(LLAMA), "turboquant_k8v4") is None


def test_tokens_that_fit_on_two_h200_at_fp8() -> None:
    # weights per GPU 72,655,052,800 / 2 = 36,327,526,400; budget 141e9 x 0.9 - that = 90,572,473,600
    # KV per token per GPU 81,920 -> 90,572,473,600 / 81,920 = 1,105,621.02 -> 1,105,621 tokens
    # 8 sequences of 131,072 need 1,048,576 tokens: they fit; 1,105,621 // 131,072 = 8 at once
    est = estimate(_facts(LLAMA), "fp8", "fp8_e4m3", 141, num_gpus=2, context_len=131072, concurrency=8)
    assert (est.weights_gb_per_gpu, est.kv_budget_gb_per_gpu) == (36.33, 90.57)
    assert (est.kv_bytes_per_token, est.tokens_fit, est.tokens_needed) == (81_920, 1_105_621, 1_048_576)
    assert (est.fits, est.max_concurrency) == (True, 8)


def test_weights_larger_than_the_budget_leave_no_tokens() -> None:
    # bf16 on one 80 GB GPU: 141.11 GB of weights against 72 GB usable
    est = estimate(_facts(LLAMA), "bf16", "auto", 80, num_gpus=1, context_len=8192)
    assert (est.weights_gb_per_gpu, est.tokens_fit, est.fits) == (141.11, 0, False)


def test_explicit_figures_estimate_without_embeddings_split() -> None:
    facts = ExplicitModel(params_b=8.0, layers=32, kv_heads=8, head_dim=128).to_facts()
    # 8e9 x 4.5 bits / 8 = 4.5e9 bytes; KV fp8: 32 x 2 x 8 x 128 = 65,536 bytes per token
    est = estimate(facts, "nvfp4", "fp8_e4m3", 32)
    assert (est.weights_gb_per_gpu, est.kv_bytes_per_token) == (4.5, 65_536)
    # (32e9 x 0.9 - 4.5e9) / 65,536 = 24.3e9 / 65,536 = 370,788.57 -> 370,788
    assert est.tokens_fit == 370_788
