"""The HTTP server's process: uvicorn, and a stop within seconds of SIGTERM whatever the tool calls are doing.

A tool call runs on an anyio worker thread, and anyio's threads are not daemons: the
interpreter joins them at exit, so one scan in flight (or stuck) kept a stopped server
alive for as long as it ran, and a pod past its grace period is killed mid-write. Here
uvicorn gets `GRACE` seconds to let open requests finish, and a daemon timer started by
the signal ends the process `DEADLINE` seconds after it, whatever is left: every tool
only reads, and the store's writes are atomic renames under a lock the OS releases, so
nothing abandoned needs cleaning up.
"""

from __future__ import annotations

import os
import sys
import threading
from types import FrameType

import uvicorn
from starlette.types import ASGIApp

__all__ = ["DEADLINE", "GRACE", "serve_http"]

GRACE = 2  # seconds open requests get to finish after SIGTERM before uvicorn cancels them
DEADLINE = 3.0  # seconds after SIGTERM when the process ends, worker threads or not (Kubernetes waits 30)


class _Server(uvicorn.Server):
    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if not self.should_exit:
            timer = threading.Timer(DEADLINE, _end, args=(sig,))
            timer.daemon = True
            timer.start()
        super().handle_exit(sig, frame)


def _end(sig: int) -> None:
    print(f"vllm-quant-mcp: stopped {DEADLINE:g} s after signal {sig}; running calls abandoned", file=sys.stderr)
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(0)


def serve_http(app: ASGIApp, host: str, port: int) -> None:
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=GRACE)
    _Server(config).run()
