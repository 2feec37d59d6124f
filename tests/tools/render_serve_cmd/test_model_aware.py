"""render_serve_cmd judges the KV dtype for the model it renders: real configs (a folder, the hub on 127.0.0.1)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from support.hubserver import HubServer

from vllm_quant_mcp.knowledge.hub.client import HubClient, ModelNotFoundError
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.render_serve_cmd.models import RenderQuery
from vllm_quant_mcp.tools.render_serve_cmd.text import render
from vllm_quant_mcp.tools.render_serve_cmd.tool import render_serve_cmd
from vllm_quant_mcp.tools.render_serve_cmd.validate import InvalidServeArgsError

MODELS = Path(__file__).parents[2] / "fixtures" / "models"
V2_LITE = "deepseek-ai/DeepSeek-V2-Lite"


def config(name: str) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((MODELS / name / "config.json").read_text(encoding="utf-8"))
    return loaded


def test_fp8_kv_for_a_deepseek_v2_lite_folder_on_a100_at_v0_16_0_is_refused_for_mla(ctx: ToolContext) -> None:
    query = RenderQuery(model=str(MODELS / "DeepSeek-V2-Lite"), tag="v0.16.0", gpu="a100", kv_cache_dtype="fp8")
    with pytest.raises(InvalidServeArgsError, match=r"No attention backend accepts fp8 KV on a100 \(SM 8.0, an MLA"):
        render_serve_cmd(ctx, query)


def test_a_dense_folder_renders_and_the_shell_output_shows_the_model_and_the_judgement(ctx: ToolContext) -> None:
    query = RenderQuery(model=str(MODELS / "Llama-3.1-8B-Instruct"), tag="v0.16.0", gpu="a100", kv_cache_dtype="fp8")
    result = render_serve_cmd(ctx, query)
    architecture, judged = result.judgements  # the folder's config names its class too
    assert architecture.verdict == "yes" and architecture.via == "llama.LlamaForCausalLM"
    assert judged.model is not None and judged.model.endswith("(dense decoder, head size 128, BF16)")
    text = render(result)
    assert "# model: " in text and "# --kv-cache-dtype fp8 on a100: yes via FLASHINFER [source]" in text


def test_a_repo_id_is_read_through_the_hub_and_judged_as_mla(ctx: ToolContext, tmp_path: Path) -> None:
    with HubServer({V2_LITE: {"config.json": config("DeepSeek-V2-Lite")}}) as server:
        hub = HubClient(endpoint=server.endpoint, cache_dir=tmp_path / "hub", hf_cache=tmp_path / "hf")
        with pytest.raises(
            InvalidServeArgsError, match=r"Judged for deepseek-ai/DeepSeek-V2-Lite \(MLA, head size 576"
        ):
            render_serve_cmd(
                replace(ctx, make_hub=lambda: hub),
                RenderQuery(model=V2_LITE, tag="v0.16.0", gpu="a100", kv_cache_dtype="fp8"),
            )


def test_an_unreachable_hub_gives_a_verdict_that_says_what_it_assumed_and_why(ctx: ToolContext, tmp_path: Path) -> None:
    with HubServer({}) as server:
        endpoint = server.endpoint
    hub = HubClient(endpoint=endpoint, cache_dir=tmp_path / "hub", hf_cache=tmp_path / "hf")
    query = RenderQuery(model=V2_LITE, tag="v0.16.0", gpu="a100", kv_cache_dtype="fp8")
    result = render_serve_cmd(replace(ctx, make_hub=lambda: hub), query)
    (judged,) = result.judgements
    assert judged.model is not None
    assert judged.model.startswith("assumed: dense decoder, head size 128, BF16 (deepseek-ai/DeepSeek-V2-Lite")
    assert "did not answer" in judged.model


def test_a_folder_without_config_json_is_an_error_that_says_what_to_give(ctx: ToolContext, tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"folder without config\.json"):
        render_serve_cmd(ctx, RenderQuery(model=str(tmp_path), gpu="h200", kv_cache_dtype="fp8"))


def test_no_model_is_read_when_no_gpu_verdict_needs_it(ctx: ToolContext, tmp_path: Path) -> None:
    result = render_serve_cmd(ctx, RenderQuery(model=str(tmp_path), kv_cache_dtype="fp8"))
    assert result.judgements == []
