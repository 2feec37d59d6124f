"""check_gates and audit_deployment judge the command's own model (real configs as local folders)."""

from __future__ import annotations

from pathlib import Path

from vllm_quant_mcp.tools.audit_deployment.models import AuditQuery
from vllm_quant_mcp.tools.audit_deployment.tool import audit_deployment
from vllm_quant_mcp.tools.check_gates.models import CheckGatesQuery
from vllm_quant_mcp.tools.check_gates.tool import check_gates
from vllm_quant_mcp.tools.context import ToolContext

MODELS = Path(__file__).parents[2] / "fixtures" / "models"


def test_fp8_kv_breaks_for_the_mla_model_on_a100_at_v0_16_0_and_not_for_the_dense_one(ctx: ToolContext) -> None:
    def breaks(model: str) -> list[str]:
        command = f"vllm serve {MODELS / model} --kv-cache-dtype fp8"
        result = check_gates(
            ctx, CheckGatesQuery(from_tag="v0.16.0", to_tag="v0.16.0", serve_command=command, gpu="a100")
        )
        return [f.problem for f in result.findings if f.severity == "breaks"]

    (mla,) = breaks("DeepSeek-V2-Lite")
    assert "an MLA model" in mla
    assert breaks("Llama-3.1-8B-Instruct") == []


def test_the_audit_names_the_model_each_invocation_was_judged_for(ctx: ToolContext) -> None:
    lite = MODELS / "DeepSeek-V2-Lite"
    script = f"vllm serve {lite} --kv-cache-dtype fp8\nvllm serve /nonexistent/model --kv-cache-dtype fp8\n"
    report = audit_deployment(ctx, AuditQuery(text=script, filename="serve.sh", tag="v0.16.0", gpu="a100"))
    first, second = report.invocations
    assert first.invalid and first.model_shape is not None and "MLA, head size 576" in first.model_shape
    assert second.model_shape is not None and second.model_shape.startswith("assumed: dense decoder, head size 128")


def test_without_a_gpu_no_model_is_read(ctx: ToolContext, tmp_path: Path) -> None:
    command = f"vllm serve {tmp_path} --kv-cache-dtype fp8"
    result = check_gates(ctx, CheckGatesQuery(from_tag="v0.16.0", to_tag="v0.16.0", serve_command=command))
    assert result.model_shape is None
