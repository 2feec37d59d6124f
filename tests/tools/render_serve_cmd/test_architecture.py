"""render_serve_cmd checks the architecture a model folder's config.json names against the tag's model registry."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from support.hubserver import HubServer, llama_70b_config

from vllm_quant_mcp.knowledge.hub.client import HubClient
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.render_serve_cmd.models import RenderQuery
from vllm_quant_mcp.tools.render_serve_cmd.text import render
from vllm_quant_mcp.tools.render_serve_cmd.tool import render_serve_cmd
from vllm_quant_mcp.tools.render_serve_cmd.validate import InvalidServeArgsError


def folder(tmp_path: Path, architectures: list[str] | None) -> str:
    config: dict[str, object] = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32}
    if architectures is not None:
        config["architectures"] = architectures
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return str(tmp_path)


def test_an_unknown_architecture_renders_with_the_transformers_fallback_as_a_warning(
    ctx: ToolContext, tmp_path: Path
) -> None:
    result = render_serve_cmd(ctx, RenderQuery(model=folder(tmp_path, ["LlamaForCasualLM"]), tag="v0.33.0"))
    (judged,) = result.judgements
    assert (judged.verdict, judged.via) == ("conditional", "Transformers backend")
    assert any("Nearest names vLLM knows at v0.33.0: Llama4ForCausalLM, LlamaForCausalLM" in w for w in result.warnings)
    assert "# architectures LlamaForCasualLM: conditional via Transformers backend [source]" in render(result)


def test_the_same_folder_under_model_impl_vllm_is_refused_in_vllms_words(ctx: ToolContext, tmp_path: Path) -> None:
    query = RenderQuery(
        model=folder(tmp_path, ["LlamaForCasualLM"]), tag="v0.33.0", extra_args=["--model-impl", "vllm"]
    )
    with pytest.raises(InvalidServeArgsError, match=r"Model architectures \['LlamaForCasualLM'\] are not supported"):
        render_serve_cmd(ctx, query)


def test_a_removed_architecture_is_refused_with_the_release_that_last_had_it(ctx: ToolContext, tmp_path: Path) -> None:
    with pytest.raises(InvalidServeArgsError, match=r"supported in vLLM until v0\.23\.0.*serve it with vLLM v0\.23\.0"):
        render_serve_cmd(ctx, RenderQuery(model=folder(tmp_path, ["QWenLMHeadModel"]), tag="v0.33.0"))


def test_a_listed_architecture_renders_with_its_class_and_line(ctx: ToolContext, tmp_path: Path) -> None:
    result = render_serve_cmd(ctx, RenderQuery(model=folder(tmp_path, ["QWenLMHeadModel"]), tag="v0.22.0"))
    (judged,) = result.judgements
    assert judged.verdict == "yes" and judged.evidence[0].permalink.endswith(
        "/v0.22.0/" + judged.evidence[0].path + "#L200"
    )
    assert result.warnings == []


def test_a_config_without_architectures_says_so_in_a_warning(ctx: ToolContext, tmp_path: Path) -> None:
    result = render_serve_cmd(ctx, RenderQuery(model=folder(tmp_path, None), tag="v0.33.0"))
    assert any("names no `architectures`" in w for w in result.warnings)


def test_a_repo_id_without_gpu_is_not_read_so_render_stays_offline(ctx: ToolContext) -> None:
    result = render_serve_cmd(ctx, RenderQuery(model="org/NotRead", tag="v0.33.0"))
    assert result.judgements == [] and result.warnings == []


def test_with_a_gpu_a_repo_id_is_read_through_the_hub_and_a_removed_architecture_refused(
    ctx: ToolContext, tmp_path: Path
) -> None:
    config = {**llama_70b_config(), "architectures": ["QWenLMHeadModel"]}
    with HubServer({"org/old-qwen": {"config.json": config}}) as server:
        hub = HubClient(endpoint=server.endpoint, cache_dir=tmp_path / "hub", hf_cache=tmp_path / "hf")
        query = RenderQuery(model="org/old-qwen", tag="v0.33.0", gpu="h100", kv_cache_dtype="fp8")
        with pytest.raises(InvalidServeArgsError, match=r"until v0\.23\.0.* Judged for org/old-qwen \(hub\)"):
            render_serve_cmd(replace(ctx, make_hub=lambda: hub), query)
