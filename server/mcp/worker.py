"""A compute worker's side of mcp/pool.py: build the context once, then answer calls off a pipe, one at a time.

Messages to the server, each a tuple: `("step", Step)` as the call reports progress,
then one of `("answer", Answer)`, `("refused", text)` (a tool error the model can act on)
or `("crashed", text)` (a bug, whose traceback goes to this process's stderr). The worker
outlives a failed call; the server kills it to stop one (mcp/pool.py).

The worker must never outlive the server: the server kills it when it stops, and a worker
whose parent is gone anyway (the server killed with SIGKILL) notices within `WATCH` seconds
and exits, even in the middle of a call.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from vllm_quant_mcp.knowledge.progress import Step
from vllm_quant_mcp.server.mcp.answer import answer
from vllm_quant_mcp.server.toolsets import mcp_specs
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.spec import Cost, ToolSpec

__all__ = ["NICE", "WATCH", "serve_calls"]

WATCH = 0.2  # seconds between two looks at whether the server is still this worker's parent
# Niceness added to a worker: where the cores are fewer than the workers plus the event loop (2 cores, a worker
# booting or auditing on each), the kernel gives the loop's cheap answers the CPU first.
NICE = 10


def serve_calls(conn: Connection, context: Callable[[], ToolContext], kind: Cost) -> None:
    """The worker process's main: the tools of cost `kind` on the context `context()` builds, until the pipe closes."""
    os.dup2(2, 1)  # over stdio the server's stdout is the protocol: nothing a tool prints may reach it
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the whole group; the server stops its workers
    os.nice(NICE)
    _exit_when_orphaned(os.getppid())
    ctx = context()
    specs = {spec.name: spec for spec in mcp_specs() if spec.cost == kind}
    for spec in specs.values():  # loaded once, before the first call rather than during it
        spec.function()
        spec.renderer()
    ctx.knowledge  # noqa: B018 -- the knowledge base most of these tools read, parsed once here
    while True:
        try:
            name, arguments = conn.recv()
        except EOFError:  # the server closed the pipe: it is stopping
            return
        conn.send(_outcome(specs[name], ctx, arguments, conn))


def _outcome(
    spec: ToolSpec[Any, Any], ctx: ToolContext, arguments: dict[str, Any], conn: Connection
) -> tuple[str, Any]:
    def tell(step: Step) -> None:
        conn.send(("step", step))

    try:
        return ("answer", answer(spec, ctx, arguments, tell))
    except ToolError as exc:
        return ("refused", str(exc))
    except Exception as exc:
        traceback.print_exc(file=sys.stderr)
        return ("crashed", f"{type(exc).__name__}: {exc}")


def _exit_when_orphaned(parent: int) -> None:
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH)
        os._exit(1)

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()
