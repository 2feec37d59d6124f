"""MCP wiring of the registry tools: list_tags, get_registry, diff_tags."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from mcp.server import MCPServer
from pydantic import Field

from vllm_quant_mcp.knowledge.diff import RegistryDiff
from vllm_quant_mcp.tools import registry_view
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.registry_view import RegistryKind, RegistryView, TagList

from .app import READ_ONLY, anticipated

TagArg = Annotated[
    str | None,
    Field(description="Release tag, e.g. v0.32.0; default: the pinned tag."),
]


def register(server: MCPServer, ctx: Callable[[], ToolContext]) -> None:
    @server.tool(annotations=READ_ONLY("List known vLLM tags"))
    @anticipated
    def list_tags() -> TagList:
        """vLLM release tags this server can answer for (bundled or refreshed), and the default tag.

        Call first to pin a tag. Example: list_tags() -> {"tags": ["v0.14.0", ..., "v0.33.0"], "default_tag": ...}
        """
        return registry_view.list_tags(ctx())

    @server.tool(annotations=READ_ONLY("Registry of a tag"))
    @anticipated
    def get_registry(
        tag: TagArg = None,
        kind: Annotated[RegistryKind | None, Field(description="One kind's entries; default: counts per kind.")] = None,
        contains: Annotated[str | None, Field(max_length=100, description="With kind: names containing this.")] = None,
    ) -> RegistryView:
        """What a release accepts, read from its source: counts per kind (quantization methods, KV-cache dtypes,
        online quantization, backends, CLI flags, env vars, platforms), or one kind's entries with path, line
        and permalink. Example: get_registry(tag="v0.32.0", kind="kv_cache_dtypes")
        """
        return registry_view.get_registry(ctx(), tag, kind, contains)

    @server.tool(annotations=READ_ONLY("Diff two tags"))
    @anticipated
    def diff_tags(
        from_tag: Annotated[str, Field(description="Older (or current) tag, e.g. v0.28.0.")],
        to_tag: Annotated[str, Field(description="Target tag, e.g. v0.32.0; older than from_tag is a downgrade.")],
        kind: Annotated[RegistryKind | None, Field(description="Limit to one kind; default all.")] = None,
    ) -> RegistryDiff:
        """What was added, removed or changed between two tags per registry kind (methods, KV dtypes, flags,
        env vars...). Example: diff_tags(from_tag="v0.27.1", to_tag="v0.32.0", kind="quantization_methods")
        """
        return registry_view.diff_tags(ctx(), from_tag, to_tag, kind)
