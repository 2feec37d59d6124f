"""The lifecycle the fake servers share: a threaded HTTP server on 127.0.0.1, alive while its `with` block runs.

A subclass supplies its request handler class through `_handler()`, built in `__init__`
before any request arrives. The port is free-picked, so parallel tests never collide;
`release` is set at exit so a handler holding a response back (a stalled download, a
slow path) lets go before shutdown waits for it.
"""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self

__all__ = ["LoopbackServer", "QuietHandler", "closed_port"]

# How often serve_forever checks for shutdown: short, so leaving a `with` block costs no visible time.
_POLL_SECONDS = 0.02


class QuietHandler(BaseHTTPRequestHandler):
    """A handler that keeps pytest's output clean (no access log on stderr) and writes whole responses."""

    def log_message(self, format: str, *args: object) -> None:
        return

    def reply(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        """Send `body` with its length; a client that hung up first (a timeout test) is no error of the server."""
        try:
            self.begin_reply(status, headers, len(body))
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            return

    def begin_reply(self, status: int, headers: dict[str, str], length: int) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(length))
        self.end_headers()


class LoopbackServer:
    def __init__(self) -> None:
        self.release = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(_POLL_SECONDS,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[QuietHandler]:
        raise NotImplementedError(f"{type(self).__name__} must define _handler() returning its request handler class")


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go): where a server that is down would be."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
