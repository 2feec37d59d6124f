"""Model facts come from config.json (and the hub's exact figures), fetched through the hub client and its cache."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.hubserver import MODELS, HubServer, llama_70b_config
from support.loopback import closed_port

from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.hub.client import (
    MAX_MODEL_FILE_BYTES,
    HubClient,
    HubUnavailableError,
    InvalidModelRefError,
    ModelFiles,
    ModelNotFoundError,
    read_local,
)
from vllm_quant_mcp.knowledge.hub.model_facts import ExplicitModel, facts_from_files


@pytest.fixture(scope="module")
def hub() -> Iterator[HubServer]:
    with HubServer() as server:
        yield server


def _client(hub: HubServer, tmp_path: Path, **kw: object) -> HubClient:
    return HubClient(endpoint=hub.endpoint, cache_dir=tmp_path / "hub", hf_cache=tmp_path / "hf", **kw)  # type: ignore[arg-type]


def _config_only(repo: str) -> ModelFiles:
    return ModelFiles(ref=repo, origin="directory", config=MODELS[repo]["config.json"])


def test_dense_llama_takes_exact_parameters_and_bytes_from_the_hub(hub: HubServer, tmp_path: Path) -> None:
    facts = facts_from_files(_client(hub, tmp_path).model_files("meta-llama/Llama-3.1-70B-Instruct"))
    assert (facts.params, facts.params_exact) == (70_553_706_496, True)
    assert facts.weight_bytes == 141_107_412_992
    assert (facts.layers, facts.kv_heads, facts.head_dim, facts.hidden_size, facts.heads) == (80, 8, 128, 8192, 64)
    assert facts.moe is None and facts.mla is None and facts.quantization is None
    assert facts.full_attention_layers == 80 and not facts.hybrid
    asked = [r for r in hub.requests if "Llama-3.1-70B-Instruct" in r and not r.startswith("HEAD ")]
    assert asked[-3:] == [
        "/api/models/meta-llama/Llama-3.1-70B-Instruct",
        "/meta-llama/Llama-3.1-70B-Instruct/resolve/main/config.json",
        "/meta-llama/Llama-3.1-70B-Instruct/resolve/main/model.safetensors.index.json",
    ]


def test_dense_parameter_estimate_from_the_config_matches_the_hand_count() -> None:
    # per layer: q 8192*8192 + o 8192*8192 = 134,217,728; k+v 2*8192*(8*128) = 16,777,216
    #            mlp 3*8192*28672 = 704,643,072; two norms 2*8192 = 16,384      -> 855,654,400
    # 80 layers = 68,452,352,000; embeddings 128256*8192 = 1,050,673,152, untied x2 = 2,101,346,304
    # final norm 8,192 -> 70,553,706,496 (the published Llama-3.1-70B count)
    facts = facts_from_files(_config_only("meta-llama/Llama-3.1-70B-Instruct"))
    assert (facts.params, facts.params_exact, facts.embedding_params) == (70_553_706_496, False, 2_101_346_304)


def test_moe_model_reports_experts_and_active_parameters() -> None:
    facts = facts_from_files(_config_only("Qwen/Qwen3-30B-A3B"))
    assert facts.moe is not None
    assert (facts.moe.num_experts, facts.moe.active_experts, facts.moe.expert_intermediate_size) == (128, 8, 768)
    # active per layer: attention 2*2048*32*128 + 2*2048*4*128 = 18,874,368; 8 experts 8*3*2048*768 = 37,748,736;
    # router 2048*128 = 262,144; norms 4,096 -> 56,889,344 x 48 = 2,730,688,512
    # + embeddings 2*151936*2048 = 622,329,856 + final norm 2,048 -> 3,353,020,416
    assert facts.active_params == 3_353_020_416
    # total swaps 8 for 128 experts: + 48 * 120*3*2048*768 = 27,179,089,920 -> 30,532,110,336
    assert facts.params == 30_532_110_336


def test_deepseek_style_model_is_mla_and_moe_and_already_fp8() -> None:
    facts = facts_from_files(_config_only("deepseek-ai/DeepSeek-V3"))
    assert facts.mla is not None and (facts.mla.kv_lora_rank, facts.mla.qk_rope_head_dim) == (512, 64)
    assert facts.moe is not None and (facts.moe.num_experts, facts.moe.active_experts, facts.moe.shared_experts) == (
        256,
        8,
        1,
    )
    assert facts.quantization is not None
    assert (facts.quantization.quant_method, facts.quantization.format) == ("fp8", "fp8")
    assert 670e9 < facts.params < 672e9 and 37e9 < (facts.active_params or 0) < 38e9


def test_hybrid_model_counts_only_full_attention_layers_for_the_kv_cache() -> None:
    facts = facts_from_files(_config_only("Qwen/Qwen3-Next-80B-A3B-Instruct"))
    assert facts.hybrid
    assert facts.full_attention_layers == 12
    assert facts.layer_types.count("linear_attention") == 36
    assert facts.family == "qwen3-next"


def test_sliding_window_layers_do_not_count_as_full_attention() -> None:
    facts = facts_from_files(_config_only("openai/gpt-oss-120b"))
    assert facts.full_attention_layers == 18 and not facts.hybrid
    assert facts.layer_types[:2] == ["sliding_attention", "full_attention"]


def test_prequantized_checkpoints_report_their_method_and_format() -> None:
    nvfp4 = facts_from_files(_config_only("nvidia/Llama-3.3-70B-Instruct-FP4")).quantization
    awq = facts_from_files(_config_only("hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4")).quantization
    assert nvfp4 is not None and (nvfp4.quant_method, nvfp4.format) == ("modelopt", "nvfp4")
    assert awq is not None and (awq.quant_method, awq.format, awq.bits) == ("awq", "int4", 4)


def test_a_nested_text_config_describes_the_language_model() -> None:
    nested = {"architectures": ["LlavaForConditionalGeneration"], "text_config": llama_70b_config()}
    facts = facts_from_files(ModelFiles(ref="x/vlm", origin="directory", config=nested))
    assert (facts.params, facts.layers, facts.kv_heads) == (70_553_706_496, 80, 8)
    assert facts.architectures == ["LlavaForConditionalGeneration"]


def test_a_config_without_layer_count_names_the_key_and_the_fix() -> None:
    with pytest.raises(ValueError, match=r"num_hidden_layers.*explicit figures"):
        facts_from_files(ModelFiles(ref="x/y", origin="directory", config={"hidden_size": 1, "num_attention_heads": 1}))


def test_explicit_figures_make_facts_without_any_file() -> None:
    facts = ExplicitModel(params_b=70.6, layers=80, kv_heads=8, head_dim=128, full_attention_layers=20).to_facts()
    assert (facts.params, facts.full_attention_layers, facts.hybrid) == (70_600_000_000, 20, True)


def test_local_directory_is_read_like_the_hub(tmp_path: Path) -> None:
    files = MODELS["nvidia/Llama-3.3-70B-Instruct-FP4"]
    (tmp_path / "config.json").write_text(json.dumps(files["config.json"]), encoding="utf-8")
    (tmp_path / "model.safetensors.index.json").write_text(
        json.dumps(files["model.safetensors.index.json"]), encoding="utf-8"
    )
    facts = facts_from_files(read_local(tmp_path))
    assert facts.weight_bytes == 42_682_353_664 and facts.source == str(tmp_path)


def test_unreachable_hub_without_a_cached_copy_asks_for_explicit_figures(tmp_path: Path) -> None:
    dead = HubClient(endpoint=f"http://127.0.0.1:{closed_port()}", cache_dir=tmp_path / "hub", hf_cache=tmp_path / "hf")
    with pytest.raises(HubUnavailableError, match=r"did not answer.*explicit figures"):
        dead.model_files("Qwen/Qwen3-30B-A3B")


def test_stale_cache_answers_when_the_hub_goes_away(tmp_path: Path) -> None:
    with HubServer() as server:
        HubClient(endpoint=server.endpoint, cache_dir=tmp_path / "hub", hf_cache=tmp_path / "hf").model_files(
            "Qwen/Qwen3-30B-A3B"
        )
        endpoint = server.endpoint
    files = HubClient(endpoint=endpoint, cache_dir=tmp_path / "hub", hf_cache=tmp_path / "hf").model_files(
        "Qwen/Qwen3-30B-A3B"
    )
    assert files.origin == "cache"
    assert any("did not answer" in n and "from the local Hugging Face cache" in n for n in files.notes)
    assert facts_from_files(files).moe is not None


def test_offline_mode_reads_only_the_cache(hub: HubServer, tmp_path: Path) -> None:
    before = len(hub.requests)
    with pytest.raises(HubUnavailableError, match="HF_HUB_OFFLINE"):
        _client(hub, tmp_path, offline=True).model_files("Qwen/Qwen3-30B-A3B")
    assert len(hub.requests) == before


def test_unknown_repo_is_a_lookup_error_that_suggests_the_fix(hub: HubServer, tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"No model 'nobody/nothing'.*HF_TOKEN"):
        _client(hub, tmp_path).model_files("nobody/nothing")


def test_repo_ids_that_could_escape_the_url_path_are_refused(hub: HubServer, tmp_path: Path) -> None:
    for bad in ["../etc/passwd", "a/../b", "http://evil/x", "-rf/x", "just-a-name"]:
        with pytest.raises(InvalidModelRefError):
            _client(hub, tmp_path).model_files(bad)


def test_gated_repo_needs_the_token_which_is_sent_but_never_shown(hub: HubServer, tmp_path: Path) -> None:
    hub.gated["meta-llama/Llama-3.1-70B-Instruct"] = "hf_secret123"
    try:
        with pytest.raises(ModelNotFoundError, match="HF_TOKEN") as refused:
            HubClient(endpoint=hub.endpoint, cache_dir=tmp_path / "a", hf_cache=tmp_path / "hf").model_files(
                "meta-llama/Llama-3.1-70B-Instruct"
            )
        assert "hf_secret123" not in str(refused.value)
        client = HubClient.from_env(
            {"HF_ENDPOINT": hub.endpoint, "HF_TOKEN": "hf_secret123"},
            cache_dir=tmp_path / "b",
            hf_cache=tmp_path / "hf",
        )
        files = client.model_files("meta-llama/Llama-3.1-70B-Instruct")
        assert files.config["num_hidden_layers"] == 80
        assert hub.auth_headers[-1] == "Bearer hf_secret123"
        assert "hf_secret123" not in repr(client) and "hf_secret123" not in files.model_dump_json()
    finally:
        del hub.gated["meta-llama/Llama-3.1-70B-Instruct"]


@pytest.mark.timeout(10)
def test_a_local_model_folder_whose_config_is_a_fifo_is_refused_instead_of_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "config.json")
    with pytest.raises(InvalidInputError, match=r"config\.json is not a regular file"):
        read_local(tmp_path)


@pytest.mark.timeout(30)
def test_a_local_model_index_past_the_cap_is_refused_after_reading_the_cap(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with (tmp_path / "model.safetensors.index.json").open("wb") as out:
        out.truncate(2**40)
    with pytest.raises(InvalidInputError, match=f"larger than {MAX_MODEL_FILE_BYTES // 1_000_000} MB"):
        read_local(tmp_path)
