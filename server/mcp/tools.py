"""Every tool's MCP face, generated from its spec: the signature (so the input schema) comes from the query model.

The SDK reads a tool's parameters from its signature; here that signature is built from
the query model's fields (type, bounds, description, default), so nothing is written
twice. The call validates the arguments into the query model, runs the tool on a worker
thread of its kind's lane (mcp/lanes.py: a slow kind never holds a thread a cheap one needs)
while telling the client of long work (mcp/progress.py), and translates our errors once
(mcp/errors.py).

The result goes out twice, as MCP intends: the structured content carries the data (and
is checked against the output schema), and the text content is the tool's own rendering
for people (tools/<name>/text.py), a fraction of the JSON's size, which is what most
clients put in front of the model.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.progress import listening
from vllm_quant_mcp.server.mcp.errors import as_tool_errors
from vllm_quant_mcp.server.mcp.lanes import Lanes
from vllm_quant_mcp.server.mcp.progress import ClientSink
from vllm_quant_mcp.server.toolsets import mcp_specs
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.spec import Cli, ToolSpec

__all__ = ["annotations_of", "register", "signature_of"]


def signature_of(query: type[BaseModel], result: type[BaseModel]) -> inspect.Signature:
    """The client context, then keyword parameters mirroring the query model's fields; returns the result model."""
    params = [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)]
    for name, field in query.model_fields.items():
        metadata = [m for m in field.metadata if not isinstance(m, Cli)]
        described = Field(description=field.description) if field.description else Field()
        annotation: Any = Annotated.__class_getitem__((field.annotation, *metadata, described))  # type: ignore[attr-defined]
        default = inspect.Parameter.empty if field.is_required() else field.default
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
    return inspect.Signature(params, return_annotation=Annotated[CallToolResult, result])


def annotations_of(spec: ToolSpec[Any, Any]) -> ToolAnnotations:
    """Hints that hold: every tool only reads; only some reach the network (spec.open_world, default true in MCP).

    Left out, because every session pays for each token of tools/list: `idempotentHint` and
    `destructiveHint`, which the spec gives meaning only when readOnlyHint is false (a read is
    idempotent and destroys nothing), and `annotations.title`, which repeats the top-level `title`
    that clients show first (only clients older than the 2025-06-18 spec read the annotation).
    """
    return ToolAnnotations(read_only_hint=True, open_world_hint=spec.open_world)


def _tool(
    spec: ToolSpec[Any, Any], tool_context: Callable[[], ToolContext], lanes: Lanes
) -> Callable[..., Awaitable[CallToolResult]]:
    fields = spec.query.model_fields

    async def call(ctx: Context[Any, Any], **arguments: Any) -> CallToolResult:
        def work() -> BaseModel:
            sink = ClientSink.of(ctx)  # made in the worker thread, which it reports from
            with listening(sink) if sink else nullcontext(), as_tool_errors(spec.name, fields):
                done: BaseModel = spec.run(tool_context(), arguments)
            return done

        result = await lanes.run(spec.cost, work)
        return CallToolResult(
            content=[TextContent(type="text", text=spec.renderer()(result))],
            structured_content=result.model_dump(mode="json", by_alias=True),
        )

    signature = signature_of(spec.query, spec.result)
    call.__signature__ = signature  # type: ignore[attr-defined]
    call.__annotations__ = {"ctx": Context, "return": signature.return_annotation}
    call.__name__ = spec.name
    call.__doc__ = spec.description
    return call


def register(server: MCPServer, tool_context: Callable[[], ToolContext], lanes: Lanes) -> None:
    for spec in mcp_specs():
        server.add_tool(
            _tool(spec, tool_context, lanes),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=annotations_of(spec),
        )
