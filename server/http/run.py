"""The HTTP server's process: uvicorn, and a stop within seconds of SIGTERM whatever the tool calls are doing.

A tool call runs on an anyio worker thread, and anyio's threads are not daemons: the
interpreter joins them at exit, so one scan in flight (or stuck) kept a stopped server
alive for as long as it ran, and a pod past its grace period is killed mid-write. Here
uvicorn gets `GRACE` seconds to let open requests finish, and a daemon timer started by
the signal ends the process `DEADLINE` seconds after it, whatever is left, compute worker
processes (mcp/pool.py) first: every tool only reads, and the store's writes are atomic
renames under a lock the OS releases, so nothing abandoned needs cleaning up.

The socket is bound here before uvicorn starts, so a port in use is one line of ours (and
exit status 1), not a traceback among the SDK's log lines, and the line that says the
server is serving is printed only once uvicorn has started on that socket. Connections are
bounded by http/connections.py.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
from types import FrameType
from typing import TYPE_CHECKING

import uvicorn
from starlette.types import ASGIApp

from .connections import BACKLOG, BoundedH11Protocol, connection_cap, raise_file_limit

if TYPE_CHECKING:
    from vllm_quant_mcp.server.mcp.pool import WorkerPool

__all__ = ["DEADLINE", "GRACE", "IDLE_TIMEOUT", "bind", "serve_http"]

IDLE_TIMEOUT = 15  # seconds a kept-alive connection may sit between requests
GRACE = 2  # seconds open requests get to finish after SIGTERM before uvicorn cancels them
DEADLINE = 3.0  # seconds after SIGTERM when the process ends, worker threads or not (Kubernetes waits 30)


class _Server(uvicorn.Server):
    banner = ""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(self.banner, file=sys.stderr, flush=True)

    workers: WorkerPool | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if not self.should_exit:
            timer = threading.Timer(DEADLINE, _end, args=(sig, self.workers))
            timer.daemon = True
            timer.start()
            if self.workers is not None:
                self.workers.close()  # no new workers; the busy ones get the grace, then die with the process
        super().handle_exit(sig, frame)


def _end(sig: int, workers: WorkerPool | None) -> None:
    if workers is not None:
        workers.stop()  # os._exit runs no exit handlers: the workers go first, or they would outlive the server
    print(f"vllm-quant-mcp: stopped {DEADLINE:g} s after signal {sig}; running calls abandoned", file=sys.stderr)
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(0)


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (not yet listening); OSError says why not (in use, no such address)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def serve_http(app: ASGIApp, sock: socket.socket, banner: str, workers: WorkerPool | None = None) -> None:
    """Serve `app` on the bound `sock`; `banner` goes to stderr once uvicorn is accepting connections; `workers`
    (the compute pool, mcp/pool.py) are closed at the signal and stopped at the deadline."""
    BoundedH11Protocol.cap = connection_cap(raise_file_limit())
    config = uvicorn.Config(
        app,
        http=BoundedH11Protocol,
        log_level="warning",
        timeout_graceful_shutdown=GRACE,
        timeout_keep_alive=IDLE_TIMEOUT,
        backlog=BACKLOG,
    )
    server = _Server(config)
    server.banner = banner
    server.workers = workers
    # uvicorn re-raises a captured SIGTERM once it has shut down, under the handler it found: the default one
    # would end a stop that went as asked with status -15. The one set here makes it the clean exit it is.
    signal.signal(signal.SIGTERM, _stopped)
    server.run(sockets=[sock])


def _stopped(sig: int, frame: FrameType | None) -> None:
    raise SystemExit(0)
