"""`check_gates`: what an upgrade or downgrade does, hop by hop and flag by flag."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import CheckGatesQuery, CheckGatesResult

SPEC = ToolSpec(
    name="check_gates",
    title="Check upgrade gates",
    description=(
        "What moving from from_tag to to_tag does to a deployment: per release crossed, curated gates and registry "
        "changes; with the serve command (and env), what breaks flag by flag, with action, citations and evidence."
    ),
    query=CheckGatesQuery,
    result=CheckGatesResult,
    cli="gates",
    cli_help="what upgrading (or downgrading) between two tags does to a deployment",
    cost="compute",
)
