"""`list_tags`: which releases are known, and the default."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import ListTagsQuery, TagList

SPEC = ToolSpec(
    name="list_tags",
    title="List known vLLM tags",
    description=(
        "Release tags this server answers for, each marked bundled or refreshed, and its default; call first to "
        "pin a tag."
    ),
    query=ListTagsQuery,
    result=TagList,
    cli="tags",
    cli_help="list bundled and refreshed tags",
)
