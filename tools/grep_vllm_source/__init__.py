"""`grep_vllm_source`: indexed regex search over the vLLM tree at a tag."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import GrepQuery, GrepResult

SPEC = ToolSpec(
    name="grep_vllm_source",
    title="Grep vLLM source at a tag",
    description=(
        "Search the vLLM source tree at a tag; each match has path, line, text and a permalink. Use it to confirm "
        'where a flag, dtype or env var is handled. Example: grep_vllm_source(pattern="def get_min_capability", '
        'tag="v0.32.0", path_glob="vllm/model_executor/layers/quantization/**")'
    ),
    query=GrepQuery,
    result=GrepResult,
    cli="grep",
    cli_help="regex search over the vLLM tree at a tag",
)
