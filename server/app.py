"""`build_server()`: the one place that turns the pure tools into an MCP server.

Heavy modules (the store, gitpython, tree-sitter, httpx) are imported on the
first tool call, never at start-up, and tools/list is answered from a listing
shipped with the package: an agent's client spawns this process on every
session and waits for tools/list.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from importlib import resources
from typing import Any, ParamSpec, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.types import CallToolResult, InputRequiredResult
from mcp.types import Tool as MCPTool

from vllm_quant_mcp.tools.context import ToolContext

from .schemas import compact_input_schema, shallow_output_schema

__all__ = ["TOOLS_LIST", "LazyContext", "VllmQuantServer", "build_server", "shipped_tools"]

TOOLS_LIST = "tools_list.json"

P = ParamSpec("P")
R = TypeVar("R")

INSTRUCTIONS = (
    "Answers vLLM quantization questions from the vLLM source at a pinned release tag. "
    "Pin the tag first (the user's installed vLLM or the one they name; `list_tags` shows what is known), "
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
    """

    def __init__(self, register_tools: Callable[[MCPServer], None], **settings: Any) -> None:
        super().__init__(**settings)
        self._register_tools = register_tools
        self._registered = False
        self._registering = threading.Lock()

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
                    "output_schema": shallow_output_schema(tool.output_schema),
                }
            )
            for tool in await super().list_tools()
        ]

    async def list_tools(self) -> list[MCPTool]:
        return shipped_tools()

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        self._ensure_tools()
        return await super().call_tool(name, arguments, context)

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        self._ensure_tools()  # the low-level server validates arguments against it before call_tool
        return super()._tool_input_schema(name)


@functools.cache
def shipped_tools() -> list[MCPTool]:
    listing = resources.files(__package__).joinpath(TOOLS_LIST).read_text(encoding="utf-8")
    return [MCPTool.model_validate(tool) for tool in json.loads(listing)]


def build_server(context: Callable[[], ToolContext]) -> VllmQuantServer:
    from . import mcp_prompts, mcp_resources

    lazy = LazyContext(context)

    def register_tools(server: MCPServer) -> None:
        from . import mcp_tools

        mcp_tools.register(server, lazy)

    server = VllmQuantServer(register_tools, name="vllm-quant-mcp", instructions=INSTRUCTIONS, version=_version())
    mcp_resources.register(server, lazy)
    mcp_prompts.register(server)
    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("vllm-quant-mcp")
    except PackageNotFoundError:
        return "0+unknown"
