"""`check_gates`: what an upgrade or downgrade does, hop by hop and flag by flag."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import CheckGatesQuery, CheckGatesResult

SPEC = ToolSpec(
    name="check_gates",
    title="Check upgrade gates",
    description=(
        "What moving vLLM from from_tag to to_tag does to a deployment: for each release crossed, the curated "
        "version gates that apply and what the source registries removed, deprecated or changed; given the serve "
        "command (and env), flag by flag what breaks or changes meaning, with action, citations and source "
        'evidence. Example: check_gates(from_tag="v0.27.1", to_tag="v0.32.0", '
        'serve_command="vllm serve m --quantization bitsandbytes --calculate-kv-scales")'
    ),
    query=CheckGatesQuery,
    result=CheckGatesResult,
    cli="gates",
    cli_help="what upgrading (or downgrading) between two tags does to a deployment",
)
