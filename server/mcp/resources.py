"""Registries as MCP resources: `vllm-registry://{tag}/{kind}`, one per bundled tag and kind.

Listing reads only the names of the bundled files; a registry is loaded when read, and
resources/list answers a page at a time (server/mcp/app.py). A resource is a whole registry
kind as one JSON document, for a client that attaches it; agents page through the same
entries with get_registry.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.resources.types import FunctionResource

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError, NotFoundError, UnavailableError
from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.registry.bundle import bundled_tags
from vllm_quant_mcp.knowledge.registry.kinds import KIND_NAMES
from vllm_quant_mcp.server.mcp.errors import mcp_text
from vllm_quant_mcp.tools.context import ToolContext

__all__ = ["TEMPLATE", "register", "resource_uri"]

TEMPLATE = "vllm-registry://{tag}/{kind}"


def resource_uri(tag: str, kind: str) -> str:
    return f"vllm-registry://{tag}/{kind}"


def _read(ctx: Callable[[], ToolContext], tag: str, kind: str) -> str:
    if kind not in KIND_NAMES:
        guess = nearest(kind, KIND_NAMES, cutoff=0.4)
        raise ResourceNotFoundError(
            f"unknown registry kind {clip(kind)}"
            + (f" (nearest: {guess[0]})" if guess else "")
            + f"; choose one of: {', '.join(KIND_NAMES)}"
        )
    from vllm_quant_mcp.tools.get_registry.tool import kind_view

    try:
        registry = ctx().registry(tag)
    except (InvalidInputError, NotFoundError) as exc:
        raise ResourceNotFoundError(mcp_text(exc)) from exc
    except UnavailableError as exc:
        raise ResourceError(mcp_text(exc)) from exc
    whole = kind_view(registry, kind)
    return whole.model_dump_json()


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
        TEMPLATE,
        name="registry",
        description="Any known tag's registry of one kind (tags that were refreshed into the cache too).",
        mime_type="application/json",
    )
    def registry_resource(tag: str, kind: str) -> str:
        return _read(ctx, tag, kind)
