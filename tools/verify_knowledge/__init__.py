"""`verify_knowledge`: the knowledge base's machine-checkable claims run against every registry (CLI only)."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import VerifyQuery, VerifyReport

SPEC = ToolSpec(
    name="verify_knowledge",
    title="Verify the knowledge base",
    description="Every machine-checkable curated claim, checked against the registries of every known tag.",
    query=VerifyQuery,
    result=VerifyReport,
    cli="verify",
    cli_help="check the knowledge base's claims against the registries",
    mcp=False,
)
