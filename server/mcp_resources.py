"""Registries as MCP resources: `vllm-registry://{tag}/{kind}`, one per bundled tag and kind.

Listing reads only the names of the bundled files; a registry is loaded when read.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.resources.types import FunctionResource

from vllm_quant_mcp.knowledge.errors import InvalidInputError, NotFoundError, UnavailableError
from vllm_quant_mcp.knowledge.registry.bundle import bundled_tags
from vllm_quant_mcp.knowledge.registry.kinds import KIND_NAMES
from vllm_quant_mcp.tools.context import ToolContext

__all__ = ["register", "resource_uri"]


def resource_uri(tag: str, kind: str) -> str:
    return f"vllm-registry://{tag}/{kind}"


def _read(ctx: Callable[[], ToolContext], tag: str, kind: str) -> str:
    if kind not in KIND_NAMES:
        raise ResourceError(f"unknown registry kind {kind!r}; choose one of: {', '.join(KIND_NAMES)}")
    from vllm_quant_mcp.tools.get_registry.models import GetRegistryQuery
    from vllm_quant_mcp.tools.get_registry.tool import get_registry

    try:
        view = get_registry(ctx(), GetRegistryQuery(tag=tag, kind=kind))
    except (InvalidInputError, NotFoundError, UnavailableError) as exc:
        raise ResourceError(str(exc)) from exc
    return view.model_dump_json()


def register(server: MCPServer, ctx: Callable[[], ToolContext]) -> None:
    for tag in bundled_tags():
        for kind in KIND_NAMES:
            server.add_resource(
                FunctionResource(
                    uri=resource_uri(tag, kind),
                    name=f"{tag} {kind}",
                    description=f"vLLM {tag} {kind} registry, each entry with path, line and permalink.",
                    mime_type="application/json",
                    fn=partial(_read, ctx, tag, kind),
                )
            )

    @server.resource(
        "vllm-registry://{tag}/{kind}",
        name="registry",
        description="Any known tag's registry of one kind (tags that were refreshed into the cache too).",
        mime_type="application/json",
    )
    def registry_resource(tag: str, kind: str) -> str:
        return _read(ctx, tag, kind)
