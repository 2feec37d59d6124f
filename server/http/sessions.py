"""Sessions one client cannot use up: capped per client and in all, the oldest idle one closed to make room.

The SDK refuses a new session with 503 once 10,000 are open and reaps one only after 30
idle minutes, so one client's 10,000 `initialize` requests (about 93 s) locked every other
client out for half an hour and grew the process by 380 MB. Here a client (its address)
holds at most `PER_CLIENT` sessions and the server `TOTAL`; a new session past either cap
first closes the one that has been idle longest (no request in flight: a session with an
open stream or a running call is never closed), of that client when it is the client's
cap, of anyone's when it is the total. Only when none is idle is the new one refused. A
session is closed the way a client closes it, a DELETE with its id, so the SDK tears down
its task and transport as it always does. Sessions the SDK reaps after `IDLE` seconds are
forgotten here at the same age. A request whose JSON-RPC id is already in flight in its session
is answered 409 with a JSON-RPC error: the SDK keys response streams by id, so the first stream
would hang.

Stateless servers keep no sessions, and their GET streams (server-to-client messages,
which a stateless server never sends) stayed open forever: `StatelessGetRefused` answers
them 405.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["IDLE", "MCP_PATH", "PER_CLIENT", "TOTAL", "SessionCap", "StatelessGetRefused"]

MCP_PATH = "/mcp"  # the SDK's endpoint; other routes (pages) pass through untouched

TOTAL = 1_000  # about 40 MB of session state in all
PER_CLIENT = 100  # an agent keeps one or a few; a team behind one proxy address shares this
IDLE = 600.0  # seconds without a request before the SDK closes a session (its default is 30 minutes)
_SESSION_HEADER = b"mcp-session-id"


@dataclass
class _Session:
    client: str
    last_active: float
    in_flight: int = 0
    ids: set[str] = field(default_factory=set)  # JSON-RPC ids of the requests this session has in flight


class SessionCap:
    """ASGI middleware in front of the SDK's streamable HTTP app (stateful mode)."""

    def __init__(
        self,
        app: ASGIApp,
        total: int = TOTAL,
        per_client: int = PER_CLIENT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.total = total
        self.per_client = per_client
        self.clock = clock
        self.sessions: dict[str, _Session] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") != MCP_PATH:
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers", [])).get(_SESSION_HEADER)
        session = self.sessions.get(given.decode("latin-1")) if given else None
        if session is not None:
            await self._within(session, scope, receive, send)
        elif given is None and scope.get("method") == "POST":
            await self._opening(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _within(self, session: _Session, scope: Scope, receive: Receive, send: Send) -> None:
        session.in_flight += 1
        ids: set[str] = set()
        try:
            if scope.get("method") == "POST":
                body, receive = await _buffered(receive)
                ids = _request_ids(body)
                taken = ids & session.ids
                if taken:
                    await _duplicate(send, sorted(taken)[0])
                    return
                session.ids |= ids
            await self.app(scope, receive, send)
        finally:
            session.ids -= ids
            session.in_flight -= 1
            session.last_active = self.clock()

    async def _opening(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = (scope.get("client") or ("?", 0))[0]
        self._forget_reaped()
        if not await self._make_room(client, scope):
            await _refuse(send, 503, b"too many open sessions, none idle; retry in a few seconds\n")
            return
        opened: list[_Session] = []

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start":
                sid = dict(message.get("headers", [])).get(_SESSION_HEADER)
                if sid:
                    session = _Session(client, self.clock(), in_flight=1)
                    self.sessions[sid.decode("latin-1")] = session
                    opened.append(session)
            await send(message)

        try:
            await self.app(scope, receive, noting)
        finally:
            for session in opened:
                session.in_flight -= 1
                session.last_active = self.clock()

    async def _make_room(self, client: str, scope: Scope) -> bool:
        """Close the longest-idle session of `client` at its cap, or of anyone at the total; False if none is idle."""
        mine = [sid for sid, s in self.sessions.items() if s.client == client]
        if len(mine) >= self.per_client:
            return await self._close_oldest_idle(mine, scope)
        if len(self.sessions) >= self.total:
            return await self._close_oldest_idle(list(self.sessions), scope)
        return True

    async def _close_oldest_idle(self, candidates: list[str], scope: Scope) -> bool:
        idle = [sid for sid in candidates if self.sessions[sid].in_flight == 0]
        if not idle:
            return False
        oldest = min(idle, key=lambda sid: self.sessions[sid].last_active)
        del self.sessions[oldest]
        await self._delete(oldest, scope)
        return True

    async def _delete(self, sid: str, opening: Scope) -> None:
        """A DELETE of session `sid` to the SDK's app, with the Host and Origin of the request that needs the room."""
        kept = [(k, v) for k, v in opening.get("headers", []) if k in (b"host", b"origin", b"authorization")]
        scope = {**opening, "method": "DELETE", "headers": [*kept, (_SESSION_HEADER, sid.encode("latin-1"))]}

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            return

        await self.app(scope, receive, discard)

    def _forget_reaped(self) -> None:
        cutoff = self.clock() - IDLE
        for sid in [sid for sid, s in self.sessions.items() if s.in_flight == 0 and s.last_active < cutoff]:
            del self.sessions[sid]


class StatelessGetRefused:
    """405 for GET on a stateless server: there is no session to stream to, and the stream never ended."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "GET" and scope.get("path") == MCP_PATH:
            await _refuse(send, 405, b"a stateless server opens no GET stream; send requests with POST\n", b"POST")
            return
        await self.app(scope, receive, send)


MAX_BODY = 4 << 20  # bytes of a POST read to find its ids; a larger body passes on unread (no tool takes one)


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The request's body (up to MAX_BODY) and a receive that replays it to the app, then reads on."""
    messages: list[Message] = []
    size, more = 0, True
    while more and size <= MAX_BODY:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        size += len(message.get("body", b""))
        more = bool(message.get("more_body"))
    body = b"".join(m.get("body", b"") for m in messages) if not more else b""

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return body, replay


def _request_ids(body: bytes) -> set[str]:
    """The ids of the requests (not notifications or responses) in a JSON-RPC message or batch, as JSON text."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return set()
    items = parsed if isinstance(parsed, list) else [parsed]
    return {json.dumps(m["id"]) for m in items if isinstance(m, dict) and "method" in m and m.get("id") is not None}


async def _duplicate(send: Send, taken: str) -> None:
    """A JSON-RPC error for a request whose id is still in flight: the SDK would route both answers to the second
    stream, and the first would wait for ever."""
    error = {"code": -32600, "message": f"request id {taken} is already in flight in this session; use a new id"}
    body = json.dumps({"jsonrpc": "2.0", "id": json.loads(taken), "error": error}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 409, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _refuse(send: Send, status: int, body: bytes, allow: bytes | None = None) -> None:
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
    headers += [(b"allow", allow)] if allow else []
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
