"""`read_vllm_source`: a file or line range of the vLLM tree at a tag, paged."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import ReadQuery, ReadResult

SPEC = ToolSpec(
    name="read_vllm_source",
    title="Read vLLM source at a tag",
    description=(
        "A file or line range of the vLLM tree at a tag, with a permalink; 400 lines a page (follow next_start_line)."
    ),
    query=ReadQuery,
    result=ReadResult,
    cli="read",
    cli_help="print a file or a line range of the vLLM tree at a tag",
    # A tag whose tree is not cached yet is fetched (git, then PyPI) on first use: the network.
    open_world=True,
    cost="source",
)
