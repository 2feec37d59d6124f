"""Host names compared as DNS compares them: without regard to case (RFC 4343), so `LOCALHOST:8765` is localhost.

The SDK's DNS-rebinding check compares the Host header with the allowed list exactly; here
the header is lower-cased before it looks, and the allowed list is lower-case (serve.py).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["LowercaseHostMiddleware"]


class LowercaseHostMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = [(k, v.lower() if k == b"host" else v) for k, v in scope.get("headers", [])]
            scope = {**scope, "headers": headers}
        await self.app(scope, receive, send)
