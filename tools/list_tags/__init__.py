"""`list_tags`: which releases are known, and the default."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import ListTagsQuery, TagList

SPEC = ToolSpec(
    name="list_tags",
    title="List known vLLM tags",
    description=(
        "vLLM release tags this server can answer for (bundled or refreshed), and the default tag. "
        "Call first to pin a tag."
    ),
    query=ListTagsQuery,
    result=TagList,
    cli="tags",
    cli_help="list bundled and refreshed tags",
)
