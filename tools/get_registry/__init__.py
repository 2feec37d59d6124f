"""`get_registry`: counts per kind at a tag, or one kind's entries with path, line and permalink."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import GetRegistryQuery, RegistryView

SPEC = ToolSpec(
    name="get_registry",
    title="Registry of a tag",
    description=(
        "What a release accepts, from its source: counts per kind, or a page of one kind's entries (names "
        "containing `contains`) with path, line and permalink."
    ),
    query=GetRegistryQuery,
    result=RegistryView,
    cli="registry",
    cli_help="print the registry of a tag (all kinds, or one)",
)
