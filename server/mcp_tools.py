"""Every tool's MCP face, generated from its spec: the signature (so the input schema) comes from the query model.

The SDK reads a tool's parameters from its signature; here that signature is built from
the query model's fields (type, bounds, description, default), so nothing is written
twice. The call validates the arguments into the query model, runs the tool on a worker
thread (the SDK does that for sync functions) and translates our errors once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.spec import Cli, ToolSpec

from .errors import as_tool_errors
from .toolsets import mcp_specs

__all__ = ["register", "signature_of"]


def signature_of(query: type[BaseModel], result: type[BaseModel]) -> inspect.Signature:
    """Keyword parameters mirroring the query model's fields, returning the result model."""
    params = []
    for name, field in query.model_fields.items():
        metadata = [m for m in field.metadata if not isinstance(m, Cli)]
        described = Field(description=field.description) if field.description else Field()
        annotation: Any = Annotated.__class_getitem__((field.annotation, *metadata, described))  # type: ignore[attr-defined]
        default = inspect.Parameter.empty if field.is_required() else field.default
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
    return inspect.Signature(params, return_annotation=result)


def _tool(spec: ToolSpec[Any, Any], ctx: Callable[[], ToolContext]) -> Callable[..., BaseModel]:
    def call(**arguments: Any) -> BaseModel:
        with as_tool_errors(spec.name):
            result: BaseModel = spec.run(ctx(), arguments)
        return result

    call.__signature__ = signature_of(spec.query, spec.result)  # type: ignore[attr-defined]
    call.__name__ = spec.name
    call.__doc__ = spec.description
    return call


def register(server: MCPServer, ctx: Callable[[], ToolContext]) -> None:
    for spec in mcp_specs():
        server.add_tool(
            _tool(spec, ctx),
            name=spec.name,
            description=spec.description,
            annotations=ToolAnnotations(title=spec.title, read_only_hint=True),
        )
