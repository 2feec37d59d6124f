"""A round-robin HTTP proxy on 127.0.0.1: each request to the next backend in turn, as a plain load balancer does.

Bodies are streamed both ways (a streamable HTTP response may be an event stream), and
`served` records which backend took each request, so a test can show both did.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import uvicorn
from starlette.types import Receive, Scope, Send

__all__ = ["RoundRobinProxy", "round_robin"]

_HOP = {b"host", b"content-length", b"connection", b"transfer-encoding", b"keep-alive"}


class RoundRobinProxy:
    def __init__(self, backends: list[str]) -> None:
        self.backends = backends
        self.served: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        backend = self.backends[len(self.served) % len(self.backends)]
        self.served.append(backend)
        query = scope["query_string"].decode()
        url = backend + scope["path"] + (f"?{query}" if query else "")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _HOP]
        async with (
            httpx.AsyncClient(timeout=60) as client,
            client.stream(scope["method"], url, headers=headers, content=body) as answer,
        ):
            kept = [(k, v) for k, v in answer.headers.raw if k.lower() not in _HOP]
            await send({"type": "http.response.start", "status": answer.status_code, "headers": kept})
            async for chunk in answer.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})


@contextmanager
def round_robin(backends: list[str]) -> Iterator[tuple[str, RoundRobinProxy]]:
    """The proxy's base URL and the proxy, serving from a thread while the block runs."""
    proxy = RoundRobinProxy(backends)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(proxy, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:  # until it listens, never longer than the deadline
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the round-robin proxy did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", proxy
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
