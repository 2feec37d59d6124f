"""Connections a client cannot hoard: a header deadline, a cap below the file limit, and that limit raised at start.

uvicorn times a connection out only after it has answered a request on it (keep-alive), and
any byte received restarts that timer; a connection that never sends a request line is
kept forever. Under the 1,024-file limit a systemd service gets, 1,030 idle TCP connections
made `accept` fail with EMFILE and then the process itself (a logging import needs a file).

Here each connection must finish a request's headers within `HEADER_TIMEOUT` seconds of
opening, or of its previous response completing, however slowly it trickles bytes. At the
cap, a new connection closes the oldest one that is between requests (or still sending its
headers), so a flood of idle connections yields to a client that talks; only when every
connection is busy with a request is the new one closed. The cap leaves `RESERVED`
descriptors for what the server itself opens (packs, registries, the cache database, logs),
and the soft file limit is raised to the hard one first, so the cap is as high as the
operator allows. asyncio accepts up to `backlog` connections in one go before any of them
is seen here, so the listen backlog is `BACKLOG`, well inside the reserve.
"""

from __future__ import annotations

import asyncio
import resource

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["BACKLOG", "HEADER_TIMEOUT", "RESERVED", "BoundedH11Protocol", "connection_cap", "raise_file_limit"]

HEADER_TIMEOUT = 10.0  # seconds to send a request's headers: a client on any real network takes milliseconds
RESERVED = 256  # descriptors kept for the server's own files
BACKLOG = 64  # connections accepted in one go (asyncio's accept loop), before the cap sees them


def raise_file_limit() -> int:
    """Raise the soft RLIMIT_NOFILE to the hard one (what an unprivileged process may); the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):  # a sandbox may refuse; the cap below still follows the limit in force
            pass
    return soft


def connection_cap(file_limit: int) -> int:
    """Open connections at most: the file limit less what the server keeps for itself, never under 16."""
    return max(16, file_limit - RESERVED)


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and a connection cap (`cap`, set by serve_http)."""

    cap = 1024 - RESERVED

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.opened = self.loop.time()
        if len(self.connections) > self.cap:
            idle = [c for c in self.connections if isinstance(c, BoundedH11Protocol) and c is not self and c.idle]
            if not idle:
                self.logger.warning("closing a new connection: %d open and busy, the cap is %d", self.cap, self.cap)
                transport.close()
                return
            min(idle, key=lambda c: c.opened).timeout_keep_alive_handler()
        self._await_headers()

    @property
    def idle(self) -> bool:
        """Between requests, or still sending a request's headers: nothing of ours is running for it."""
        return not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_headers()

    def _await_headers(self) -> None:
        cycle = self.cycle
        self.loop.call_later(HEADER_TIMEOUT, self._headers_due, cycle)

    def _headers_due(self, cycle: object) -> None:
        """Close the connection if no request's headers arrived since the timer started (the cycle is unchanged)."""
        if self.cycle is cycle and not self.transport.is_closing():
            self.timeout_keep_alive_handler()
