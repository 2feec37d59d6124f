"""`render_serve_cmd`: the exact `vllm serve` line at a tag, validated against its registry."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import RenderQuery, RenderResult

SPEC = ToolSpec(
    name="render_serve_cmd",
    title="Render the vllm serve command",
    description=(
        "The exact `vllm serve` command at a tag as shell, argv, docker, k8s or Python LLM(...), every flag and "
        "value checked against the tag's registry with its permalink; names the tag lacks are errors that say "
        'where they exist. Example: render_serve_cmd(model="meta-llama/Llama-3.1-70B-Instruct", tag="v0.32.0", '
        'quantization="fp8", kv_cache_dtype="fp8_e4m3", tensor_parallel_size=2)'
    ),
    query=RenderQuery,
    result=RenderResult,
    cli="render",
    cli_help="the exact vllm serve command, checked against the tag's registry",
)
