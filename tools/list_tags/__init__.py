"""`list_tags`: which releases are known, and the default."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import ListTagsQuery, TagList

SPEC = ToolSpec(
    name="list_tags",
    title="List known vLLM tags",
    description=(
        "Known release tags, each marked bundled or refreshed, and the default; call first to pin a tag. "
        'E.g. list_tags() -> {"tags": ["v0.14.0", ...], "default_tag": ...}'
    ),
    query=ListTagsQuery,
    result=TagList,
    cli="tags",
    cli_help="list bundled and refreshed tags",
)
