"""Every tool's MCP face, generated from its spec: the signature (so the input schema) comes from the query model.

The SDK reads a tool's parameters from its signature; here that signature is built from
the query model's fields (type, bounds, description, default), so nothing is written
twice. The call validates the arguments into the query model, runs the tool on a worker
thread of its kind's lane (mcp/lanes.py: a slow kind never holds a thread a cheap one needs),
or for the compute lane in a worker process when the server has a pool (mcp/pool.py), while
telling the client of long work (mcp/progress.py), and translates our errors once
(mcp/errors.py, in mcp/answer.py).

The result goes out twice, as MCP intends: the structured content carries the data (and
is checked against the output schema), and the text content is the tool's own rendering
for people (tools/<name>/text.py), a fraction of the JSON's size, which is what most
clients put in front of the model. Both are made where the call ran, off the event loop.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from vllm_quant_mcp.server.mcp.answer import answer
from vllm_quant_mcp.server.mcp.lanes import Lanes
from vllm_quant_mcp.server.mcp.pool import KIND as POOLED
from vllm_quant_mcp.server.mcp.pool import WorkerPool
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
    spec: ToolSpec[Any, Any], tool_context: Callable[[], ToolContext], lanes: Lanes, pool: WorkerPool | None
) -> Callable[..., Awaitable[CallToolResult]]:
    async def call(ctx: Context[Any, Any], **arguments: Any) -> CallToolResult:
        def sink() -> ClientSink | None:
            return ClientSink.of(ctx)  # made in the thread that runs or relays the call, which it reports from

        if pool is not None and spec.cost == POOLED:
            done = await lanes.admit(spec.cost, lambda: pool.run(spec.name, arguments, sink))
        else:
            done = await lanes.run(spec.cost, lambda: answer(spec, tool_context(), arguments, sink()))
        return CallToolResult(content=[TextContent(type="text", text=done.text)], structured_content=done.structured)

    signature = signature_of(spec.query, spec.result)
    call.__signature__ = signature  # type: ignore[attr-defined]
    call.__annotations__ = {"ctx": Context, "return": signature.return_annotation}
    call.__name__ = spec.name
    call.__doc__ = spec.description
    return call


def register(server: MCPServer, tool_context: Callable[[], ToolContext], lanes: Lanes, pool: WorkerPool | None) -> None:
    """Every offered tool; with a `pool`, the compute lane's calls run in its worker processes (mcp/pool.py)."""
    for spec in mcp_specs():
        server.add_tool(
            _tool(spec, tool_context, lanes, pool),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=annotations_of(spec),
        )
