"""Bearer-token gate for the HTTP transport: a shared team server should not answer strangers.

The scheme name is case-insensitive (RFC 7235 §2.1: `bearer`, `BEARER` and `Bearer` are one
scheme); the token itself is compared exactly, in constant time.
"""

from __future__ import annotations

import hmac

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["BearerTokenMiddleware", "bearer_token"]


def bearer_token(header: bytes) -> bytes | None:
    """The token of an `Authorization: Bearer <token>` header, whatever the scheme's case; None for another scheme."""
    scheme, _, token = header.strip().partition(b" ")
    if scheme.lower() != b"bearer":
        return None
    return token.strip(b" ")


class BearerTokenMiddleware:
    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("an empty bearer token would let anyone in; pass a non-empty --token")
        self.app = app
        self._expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            supplied = bearer_token(dict(scope.get("headers", [])).get(b"authorization", b""))
            if supplied is None or not hmac.compare_digest(supplied, self._expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": b"missing or wrong bearer token\n"})
                return
        await self.app(scope, receive, send)
