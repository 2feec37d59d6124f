"""Long work told to the MCP client while a tool runs: progress notifications and a log message per stage.

The first call that needs a tree or an index fetches, extracts and indexes for half a
minute or more, longer than some clients wait for a silent request. knowledge/ reports
each step (knowledge/progress.py); around each tool call the server listens with a
ClientSink, which runs in the tool's worker thread and hands each notification to the
event loop (`anyio.from_thread.run`):

- `notifications/progress`, when the request carried a progress token (the SDK drops them
  otherwise). Stages follow one another on one scale: the n-th stage runs from n-1 to n,
  so the value only grows, as the spec requires; the message carries the real figures.
- `notifications/message` at info when a stage or a task within it starts (the git fetch, the
  download of an sdist, building the index) and debug for its steps, filtered
  by the level the client chose with `logging/setLevel` (default info). The level is kept
  per connection; stateless HTTP has none to keep, so there it is always the default. A
  2026-07-28 client asks per request instead (`_meta` `io.modelcontextprotocol/logLevel`): that
  level wins for the call, and without it the SDK sends nothing, as that revision says.

Each step is also a point where a cancelled request stops the work (`check_cancelled`).
"""

from __future__ import annotations

import logging
import threading
import time
import warnings
from typing import Any

import anyio
import anyio.from_thread
from mcp.server import MCPServer, ServerRequestContext
from mcp.server.mcpserver.context import Context
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import LOG_LEVEL_META_KEY, EmptyResult, LoggingLevel, SetLevelRequestParams

from vllm_quant_mcp.knowledge.progress import Step

__all__ = ["LEVELS", "ClientSink", "register_logging"]

LEVELS: tuple[LoggingLevel, ...] = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
LOGGER = "vllm-quant-mcp"
DEFAULT_LEVEL: LoggingLevel = "info"
_LEVEL_KEY = "vllm_quant_mcp.log_level"
_EVERY = 0.25  # seconds between two notifications of one stage, at most four a second

log = logging.getLogger("vllm_quant_mcp")


def _state(request: ServerRequestContext[Any]) -> dict[str, Any]:
    state: dict[str, Any] = request.session._connection.state  # the SDK's per-connection scratch dict
    return state


async def _set_level(ctx: ServerRequestContext[Any], params: SetLevelRequestParams) -> EmptyResult:
    _state(ctx)[_LEVEL_KEY] = params.level
    return EmptyResult()


def register_logging(server: MCPServer) -> None:
    """Answer `logging/setLevel` (initialize then advertises the logging capability).

    The spec marks logging deprecated (SEP-2577) and the SDK warns on each message sent; clients
    still read it, and a warning per message on the server's stderr helps nobody.
    """
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    server._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, _set_level)


class ClientSink:
    """A knowledge.progress Sink that tells the client of one tool call, made in and called from its worker thread.

    Steps reported from another thread (a pool the work might start, with the listener's context
    copied) are not forwarded: only the call's own worker thread can reach the event loop.
    """

    @classmethod
    def of(cls, ctx: Context[Any, Any]) -> ClientSink | None:
        """The sink of a call made over a session; None when the tool was called without one (in-process)."""
        try:
            state = _state(ctx.request_context)
        except ValueError:
            return None
        return cls(ctx, state)

    def __init__(self, ctx: Context[Any, Any], state: dict[str, Any]) -> None:
        self._ctx = ctx
        self._thread = threading.get_ident()
        requested = (ctx.request_context.meta or {}).get(LOG_LEVEL_META_KEY)
        level = requested if requested in LEVELS else state.get(_LEVEL_KEY, DEFAULT_LEVEL)
        self._floor = LEVELS.index(level)
        self._stage: str | None = None
        self._message: str | None = None
        self._stages = 0
        self._steps = 0
        self._sent = -1.0
        self._at = 0.0
        self._open = True

    def __call__(self, step: Step) -> None:
        if threading.get_ident() != self._thread:
            return
        anyio.from_thread.check_cancelled()
        new_stage = step.stage != self._stage
        new_task = new_stage or step.message != self._message
        if new_stage:
            self._stage, self._stages, self._steps = step.stage, self._stages + 1, 0
        self._steps += 1
        figures = f" ({step.done:,} of {step.total:,})" if step.total else f" ({step.done:,})" if step.done else ""
        text = f"{step.stage}: {step.message}{figures}"
        if new_task:
            self._message = step.message
            self._log("info", text)
        # Within a stage: done/total when the total is known, else a value that grows with each step.
        part = min(step.done / step.total, 1.0) if step.total else 1 - 1 / (self._steps + 1)
        value = self._stages - 1 + part
        now = time.monotonic()
        if value <= self._sent or (now - self._at < _EVERY and not new_task and part < 1.0):
            return
        self._sent, self._at = value, now
        self._send(self._ctx.report_progress, value, None, text)
        if not new_task:
            self._log("debug", text)

    def _log(self, level: LoggingLevel, text: str) -> None:
        if LEVELS.index(level) >= self._floor:
            self._send(self._ctx.log, level, text, logger_name=LOGGER)

    def _send(self, notify: Any, *args: Any, **kwargs: Any) -> None:
        """One notification through the event loop; a client that went away ends them, never the work."""
        if not self._open:
            return
        try:
            anyio.from_thread.run(lambda: notify(*args, **kwargs))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            self._open = False
            log.info("progress notifications stopped: %r", exc)
