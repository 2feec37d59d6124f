"""`diff_tags`: what was added, removed or changed between two tags."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import DiffPage, DiffTagsQuery

SPEC = ToolSpec(
    name="diff_tags",
    title="Diff two tags",
    description=("Registry entries added, removed or changed between two tags, kind by kind, a page at a time."),
    query=DiffTagsQuery,
    result=DiffPage,
    cli="diff",
    cli_help="what changed between two tags, kind by kind",
    cost="compute",
)
