"""`audit_deployment`: a script, manifest or compose file checked at a tag.

Declared dependency: it runs check_gates on each invocation and answers in its findings.
"""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import AuditQuery, AuditReport

DEPENDS_ON = ("check_gates",)

SPEC = ToolSpec(
    name="audit_deployment",
    title="Audit a deployment file",
    description=(
        "Each `vllm serve` invocation and env var in a shell script, Kubernetes manifest or compose file, checked "
        "at a tag (as an upgrade from the release the file pins): what is invalid or risky, with actions."
    ),
    query=AuditQuery,
    result=AuditReport,
    cli="audit",
    cli_help="check a deploy script, Kubernetes manifest or compose file at a tag (exit 1 if invalid)",
    cost="compute",
)
