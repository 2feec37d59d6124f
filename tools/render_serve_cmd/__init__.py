"""`render_serve_cmd`: the exact `vllm serve` line at a tag, validated against its registry."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import RenderQuery, RenderResult

SPEC = ToolSpec(
    name="render_serve_cmd",
    title="Render the vllm serve command",
    description=(
        "The exact `vllm serve` line at a tag (shell, argv, docker, k8s, Python), each flag and value checked against "
        "its registry with permalinks (with gpu: for the model); misses say where they exist."
    ),
    query=RenderQuery,
    result=RenderResult,
    cli="render",
    cli_help="the exact vllm serve command, checked against the tag's registry",
    cost="compute",
)
