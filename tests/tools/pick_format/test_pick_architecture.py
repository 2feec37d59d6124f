"""pick_format answers whether the tag's model registry builds the architectures of the model it ranks for."""

from __future__ import annotations

import json
from pathlib import Path

from vllm_quant_mcp.knowledge.hub.model_facts import ExplicitModel
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.pick_format.models import PickFormatQuery
from vllm_quant_mcp.tools.pick_format.text import render
from vllm_quant_mcp.tools.pick_format.tool import pick_format

LLAMA = Path(__file__).parents[2] / "fixtures" / "models" / "Llama-3.1-8B-Instruct" / "config.json"


def _folder(tmp_path: Path, architectures: list[str]) -> str:
    config = json.loads(LLAMA.read_text(encoding="utf-8"))
    config["architectures"] = architectures
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return str(tmp_path)


def test_a_listed_architecture_is_yes_with_its_class(ctx: ToolContext, tmp_path: Path) -> None:
    result = pick_format(ctx, PickFormatQuery(gpu="h100", model=_folder(tmp_path, ["LlamaForCausalLM"]), tag="v0.33.0"))
    assert result.architecture is not None and result.architecture.via == "llama.LlamaForCausalLM"
    assert "  architecture: llama.LlamaForCausalLM [source]" in render(result)


def test_a_removed_architecture_is_no_beside_the_options(ctx: ToolContext, tmp_path: Path) -> None:
    result = pick_format(ctx, PickFormatQuery(gpu="h100", model=_folder(tmp_path, ["QWenLMHeadModel"]), tag="v0.33.0"))
    assert result.architecture is not None and result.architecture.verdict == "no"
    assert "architecture: no [source] QWenLMHeadModel was supported in vLLM until v0.23.0" in render(result)


def test_figures_name_no_config_so_no_architecture_is_judged(ctx: ToolContext) -> None:
    figures = ExplicitModel(params_b=8, layers=32, kv_heads=8, head_dim=128)
    result = pick_format(ctx, PickFormatQuery(gpu="h100", model_figures=figures, tag="v0.33.0"))
    assert result.architecture is None
