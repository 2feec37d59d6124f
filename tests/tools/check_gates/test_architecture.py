"""check_gates reports what the walk does to the architecture the command's model folder names."""

from __future__ import annotations

import json
from pathlib import Path

from vllm_quant_mcp.tools.check_gates.models import CheckGatesQuery, Finding
from vllm_quant_mcp.tools.check_gates.tool import check_gates
from vllm_quant_mcp.tools.context import ToolContext

LLAMA = Path(__file__).parents[2] / "fixtures" / "models" / "Llama-3.1-8B-Instruct" / "config.json"


def _folder(tmp_path: Path, architectures: list[str]) -> Path:
    config = json.loads(LLAMA.read_text(encoding="utf-8"))
    config["architectures"] = architectures
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return tmp_path


def _architecture(ctx: ToolContext, folder: Path, start: str, end: str, flags: str = "") -> list[Finding]:
    command = f"vllm serve {folder} {flags}".strip()
    result = check_gates(ctx, CheckGatesQuery(from_tag=start, to_tag=end, serve_command=command))
    return [f for f in result.findings if f.subject.startswith("architectures")]


def test_upgrading_past_the_removal_of_qwen_lm_head_model_breaks_with_vllms_message(
    ctx: ToolContext, tmp_path: Path
) -> None:
    (found,) = _architecture(ctx, _folder(tmp_path, ["QWenLMHeadModel"]), "v0.22.0", "v0.24.0")
    assert found.severity == "breaks" and found.basis == "source"
    assert "loads at v0.22.0" in found.problem and "supported in vLLM until v0.23.0" in found.problem
    assert [(s.tag, s.verdict) for s in found.support] == [("v0.22.0", "yes"), ("v0.24.0", "no")]


def test_a_listed_architecture_on_both_ends_is_no_finding(ctx: ToolContext, tmp_path: Path) -> None:
    assert _architecture(ctx, _folder(tmp_path, ["LlamaForCausalLM"]), "v0.14.0", "v0.33.0") == []


def test_an_unknown_architecture_under_model_impl_vllm_breaks_at_one_tag(ctx: ToolContext, tmp_path: Path) -> None:
    folder = _folder(tmp_path, ["LlamaForCasualLM"])
    (found,) = _architecture(ctx, folder, "v0.33.0", "v0.33.0", "--model-impl vllm")
    assert found.severity == "breaks" and "Nearest names vLLM knows at v0.33.0" in found.problem
    (fallback,) = _architecture(ctx, folder, "v0.33.0", "v0.33.0")
    assert fallback.severity == "info" and "Transformers backend" in fallback.problem
