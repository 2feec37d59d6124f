"""`build_server()`: the one place that turns the pure tools into an MCP server.

Heavy modules (the store, gitpython, tree-sitter, httpx) are imported on the
first tool call, never at start-up, and tools/list is answered from a listing
shipped with the package: an agent's client spawns this process on every
session and waits for tools/list.

Beyond what MCPServer does by itself, the server pages resources/list, answers
logging/setLevel (mcp/progress.py) and completion/complete (mcp/completions.py), and
rewrites argument errors the SDK raises into the one-line form of mcp/errors.py.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import anyio
import anyio.to_thread
from mcp.server import MCPServer, ServerRequestContext
from mcp.server.caching import CacheHint
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    InputRequiredResult,
    ListResourcesResult,
    PaginatedRequestParams,
)
from mcp.types import Tool as MCPTool
from pydantic import ValidationError

from vllm_quant_mcp.knowledge.echo import clip, redact
from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.redacted_logs import redact_logging
from vllm_quant_mcp.server.mcp.lanes import LANES, Lane, Lanes
from vllm_quant_mcp.server.mcp.schemas import compact_input_schema, described_output_schema
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.spec import Cost, ToolSpec

if TYPE_CHECKING:
    from vllm_quant_mcp.server.mcp.pool import WorkerPool

__all__ = [
    "CACHE_HINTS",
    "TOOLS_LIST",
    "LazyContext",
    "VllmQuantServer",
    "build_server",
    "offered_tools",
    "shipped_tools",
]

TOOLS_LIST = "tools_list.json"
RESOURCES_PAGE = 50

# Cache hints for 2026-07-28 clients and gateways. A registry resource is fixed by its tag (and this
# package's version, which also fixes the listings): a day, shared by anyone. The resource list grows
# when `refresh` adds a tag, so it stays fresh for minutes only. Tool results carry no hint: the spec
# makes only these methods cacheable, and the live lookups (lookup_issue, search_issues, pick's hub
# reads) must not be cached anyway.
DAY_MS = 86_400_000
CACHE_HINTS: dict[Any, CacheHint] = {
    "resources/read": CacheHint(ttl_ms=DAY_MS, scope="public"),
    "resources/templates/list": CacheHint(ttl_ms=DAY_MS, scope="public"),
    "tools/list": CacheHint(ttl_ms=DAY_MS, scope="public"),
    "prompts/list": CacheHint(ttl_ms=DAY_MS, scope="public"),
    "resources/list": CacheHint(ttl_ms=300_000, scope="public"),
}

P = ParamSpec("P")
R = TypeVar("R")

INSTRUCTIONS = (
    "Answers vLLM quantization questions from the vLLM source at a pinned release tag. "
    "Pin the tag first (the user's installed vLLM or the one they name; `list_tags` shows what is known); "
    "a tool called without `tag` answers for the server's pinned default. "
    "then quote every flag, dtype, env var or capability with the tag and permalink the tool returned."
)


class LazyContext:
    """Builds the ToolContext on first use, so start-up imports nothing heavy."""

    def __init__(self, factory: Callable[[], ToolContext]) -> None:
        self._factory = factory
        self._context: ToolContext | None = None

    def __call__(self) -> ToolContext:
        if self._context is None:
            self._context = self._factory()
        return self._context


class VllmQuantServer(MCPServer):
    """Answers tools/list from the listing shipped with the package; registers the tools on first use.

    The SDK builds every tool's JSON schemas when the tool is registered: for these result
    models that is a third of a second, paid by each agent session that only lists tools.
    The shipped listing (tools_list.json) is what registration produces, trimmed (see
    schemas.py); tests/server/test_tool_list.py regenerates and checks it, so it cannot drift.
    Registration starts on a thread once the listing is sent (a client lists, then calls), so
    the first call finds it done or under way rather than paying all of it on its own clock.
    """

    def __init__(
        self, register_tools: Callable[[MCPServer], None], offered: frozenset[str] | None = None, **settings: Any
    ) -> None:
        super().__init__(**settings)
        self._offered = offered  # `serve --toolsets`: the tool names listed and callable; None for all
        self._register_tools = register_tools
        self._registered = False
        self._registering = threading.Lock()

    @property
    def tools_registered(self) -> bool:
        return self._registered

    def _ensure_tools(self) -> None:
        with self._registering:
            if not self._registered:
                self._register_tools(self)
                self._registered = True

    async def live_tools(self) -> list[MCPTool]:
        """The listing as registration produces it, trimmed: what tools_list.json must hold."""
        self._ensure_tools()
        return [
            tool.model_copy(
                update={
                    "description": " ".join((tool.description or "").split()),
                    "input_schema": compact_input_schema(tool.input_schema),
                    "output_schema": described_output_schema(tool.output_schema),
                }
            )
            for tool in await super().list_tools()
        ]

    async def list_tools(self) -> list[MCPTool]:
        """The shipped listing at once; registration starts behind it, since a call usually follows a listing."""
        if not self._registered and not self._registering.locked():
            threading.Thread(target=self._ensure_tools, name="register-tools", daemon=True).start()
        return [t for t in shipped_tools() if self._offered is None or t.name in self._offered]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if not self._registered:  # off the event loop: other sessions' requests go on meanwhile
            await anyio.to_thread.run_sync(self._ensure_tools)
        try:
            if self._offered is not None and name not in self._offered:
                raise ToolError(
                    f"tool {clip(name)} is not offered by this server (serve --toolsets); tools/list names them"
                )
            _refuse_unknown_arguments(name, arguments)
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            raise ToolError(redact(_error_text(name, exc))) from exc.__cause__

    async def _handle_list_resources(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        """RESOURCES_PAGE resources at a time (MCPServer itself ignores the cursor); the cursor is an offset."""
        everything = await self.list_resources()
        cursor = params.cursor if params else None
        if cursor is not None and not (cursor.isdigit() and int(cursor) < len(everything)):
            raise MCPError(code=INVALID_PARAMS, message=f"cursor {clip(cursor)} is not one resources/list gave")
        start = int(cursor or 0)
        end = start + RESOURCES_PAGE
        return ListResourcesResult(
            resources=everything[start:end], next_cursor=str(end) if end < len(everything) else None
        )

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        self._ensure_tools()  # read to check Mcp-Param-* headers of 2026-07-28 streamable HTTP requests
        return super()._tool_input_schema(name)


def _spec(name: str) -> ToolSpec[Any, Any] | None:
    from vllm_quant_mcp.server.toolsets import mcp_specs

    return next((s for s in mcp_specs() if s.name == name), None)


def _refuse_unknown_arguments(name: str, arguments: dict[str, Any]) -> None:
    from vllm_quant_mcp.server.mcp.errors import unknown_arguments_text

    spec = _spec(name)
    text = unknown_arguments_text(arguments, spec.query.model_fields) if spec is not None else None
    if text is not None:
        raise ToolError(text)


def _error_text(name: str, exc: ToolError) -> str:
    """The SDK's "Error executing tool X: ..." as one line the model can act on."""
    from vllm_quant_mcp.server.mcp.errors import arguments_text
    from vllm_quant_mcp.server.toolsets import mcp_specs

    spec, cause = _spec(name), exc.__cause__
    if isinstance(cause, ValidationError) and spec is not None:
        return arguments_text(cause, spec.query.model_fields)
    if isinstance(cause, ToolError):
        return str(cause)
    if spec is None:
        guess = nearest(name, [s.name for s in mcp_specs()], cutoff=0.5)
        return (
            f"unknown tool {clip(name)}" + (f"; did you mean {guess[0]}?" if guess else "") + "; tools/list names all."
        )
    return str(exc)


@functools.cache
def shipped_tools() -> list[MCPTool]:
    listing = resources.files(__package__).joinpath(TOOLS_LIST).read_text(encoding="utf-8")
    return [MCPTool.model_validate(tool) for tool in json.loads(listing)]


def build_server(
    context: Callable[[], ToolContext],
    lanes: Mapping[Cost, Lane] = LANES,
    toolsets: Sequence[str] | None = None,
    pool: WorkerPool | None = None,
) -> VllmQuantServer:
    """The server; `lanes` sizes its tool calls' concurrency per kind of cost (mcp/lanes.py); `toolsets`
    (names in server/toolsets.py) limits the tools offered, None for all; `pool` runs the compute lane's
    calls in worker processes (mcp/pool.py), None for threads of this process."""
    from vllm_quant_mcp.server.mcp import completions, progress, prompts
    from vllm_quant_mcp.server.mcp import resources as registry_resources

    lazy = LazyContext(context)
    limiters = Lanes(lanes)

    def register_tools(server: MCPServer) -> None:
        from vllm_quant_mcp.server.mcp import tools

        tools.register(server, lazy, limiters, pool)

    server = VllmQuantServer(
        register_tools,
        offered=offered_tools(toolsets),
        name="vllm-quant-mcp",
        instructions=INSTRUCTIONS,
        version=_version(),
        cache_hints=CACHE_HINTS,
    )
    registry_resources.register(server, lazy)
    prompts.register(server)
    completions.register(server, lazy)
    progress.register_logging(server)
    redact_logging()  # MCPServer has just put its handlers on the root logger
    return server


def offered_tools(toolsets: Sequence[str] | None) -> frozenset[str] | None:
    """The tool names of these toolsets; an unknown name is an error naming the valid ones."""
    if toolsets is None:
        return None
    from vllm_quant_mcp.knowledge.errors import InvalidInputError
    from vllm_quant_mcp.server.toolsets import TOOLSETS

    unknown = [t for t in toolsets if t not in TOOLSETS]
    if unknown:
        raise InvalidInputError(f"unknown toolset {clip(unknown[0])}; choose from {', '.join(TOOLSETS)}")
    return frozenset(name for t in toolsets for name in TOOLSETS[t])


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("vllm-quant-mcp")
    except PackageNotFoundError:
        return "0+unknown"
