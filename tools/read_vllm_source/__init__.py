"""`read_vllm_source`: a file or line range of the vLLM tree at a tag, paged."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import ReadQuery, ReadResult

SPEC = ToolSpec(
    name="read_vllm_source",
    title="Read vLLM source at a tag",
    description=(
        "A file or line range of the vLLM tree at a tag, with a permalink; long files come in pages of 400 "
        'lines (follow next_start_line). Example: read_vllm_source(path="vllm/config/cache.py", tag="v0.32.0", '
        "start_line=30, end_line=70)"
    ),
    query=ReadQuery,
    result=ReadResult,
    cli="read",
    cli_help="print a file or a line range of the vLLM tree at a tag",
)
