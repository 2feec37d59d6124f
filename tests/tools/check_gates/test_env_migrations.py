"""Deprecated and removed env vars name their replacement as the deprecating release's own message does."""

from __future__ import annotations

from vllm_quant_mcp.tools.audit_deployment.models import AuditQuery
from vllm_quant_mcp.tools.audit_deployment.tool import audit_deployment
from vllm_quant_mcp.tools.check_gates.models import CheckGatesQuery
from vllm_quant_mcp.tools.check_gates.tool import gates_report
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.diff_tags.models import DiffTagsQuery
from vllm_quant_mcp.tools.diff_tags.tool import diff_tags

VAR = "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8"
WAY = "Use --moe-backend flashinfer_trtllm with --quantization_config.moe.activation mxfp8."


def test_check_gates_to_v0_22_0_reports_the_variable_deprecated_with_vllms_replacement_cited(ctx: ToolContext) -> None:
    report = gates_report(ctx, CheckGatesQuery(from_tag="v0.20.0", to_tag="v0.22.0", env={VAR: "1"}))
    (finding,) = [f for f in report.findings if f.subject == VAR]
    assert finding.severity == "deprecated" and finding.basis == "source"
    assert finding.action == f"vLLM's deprecation at v0.22.0 says: {WAY}"
    assert {e.path for e in finding.evidence} == {"vllm/envs.py"} and len(finding.evidence) == 2


def test_diff_tags_v0_23_0_to_v0_24_0_names_the_replacement_of_each_removed_variable(ctx: ToolContext) -> None:
    page = diff_tags(ctx, DiffTagsQuery(from_tag="v0.23.0", to_tag="v0.24.0", kind="env_vars"))
    (removed,) = [e for k in page.kinds for e in k.removed if e.name == VAR]
    assert removed.replaced_by == WAY
    assert removed.provenance.permalink.startswith("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/envs.py#L")


def test_audit_at_v0_32_0_of_a_script_setting_the_removed_variable_says_how_to_replace_it(ctx: ToolContext) -> None:
    report = audit_deployment(ctx, AuditQuery(text=f"{VAR}=1 vllm serve m\n", tag="v0.32.0", filename="run.sh"))
    (finding,) = [f for f in report.invocations[0].findings if f.subject == VAR]
    assert finding.action == f"Unset {VAR}; v0.23.0's deprecation names the way: {WAY}"
