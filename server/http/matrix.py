"""`GET /matrix/<tag>` and `GET /matrix/<old>...<new>`: the support-matrix page, beside `/mcp` on the HTTP server.

It wraps the MCP app inside the bearer-token gate, so the page asks for what `/mcp` asks for.
`?format=markdown` gives the Markdown form. A tag's page never changes (its registry is fixed by
the tag and the extractor version), so pages are kept once rendered (a few, least recently used)
and sent with a long public `Cache-Control`; the rendering runs off the event loop.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from urllib.parse import parse_qs

import anyio.to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from vllm_quant_mcp.knowledge.errors import InvalidInputError, NotFoundError
from vllm_quant_mcp.server.matrix import Format, matrix_document
from vllm_quant_mcp.tools.context import ToolContext

__all__ = ["PREFIX", "MatrixPages"]

PREFIX = "/matrix/"
KEPT = 16  # rendered pages kept in memory (about 250 kB each)
MAX_PATH = 100  # two tags and the separator fit in far less
TYPES = {"html": b"text/html; charset=utf-8", "markdown": b"text/markdown; charset=utf-8"}


class MatrixPages:
    def __init__(self, app: ASGIApp, context: Callable[[], ToolContext]) -> None:
        self.app = app
        self._context = context
        self._render = functools.lru_cache(maxsize=KEPT)(self._document)

    def _document(self, tags: tuple[str, ...], fmt: Format) -> str:
        return matrix_document(self._context(), tags, fmt)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith(PREFIX):
            await self.app(scope, receive, send)
            return
        if scope["method"] not in {"GET", "HEAD"}:
            await _reply(send, 405, b"text/plain; charset=utf-8", b"the matrix page answers GET only\n")
            return
        spec = path.removeprefix(PREFIX)
        tags = tuple(spec.split("...")) if "..." in spec else (spec,)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        fmt = query.get("format", ["html"])[-1]
        if len(path) > MAX_PATH or len(tags) > 2 or not all(tags) or fmt not in TYPES:
            message = "use /matrix/<tag> or /matrix/<old>...<new>, optionally ?format=markdown (e.g. /matrix/v0.32.0)"
            await _reply(send, 400, b"text/plain; charset=utf-8", message.encode() + b"\n")
            return
        try:
            text = await anyio.to_thread.run_sync(self._render, tags, fmt)
        except NotFoundError as exc:
            await _reply(send, 404, b"text/plain; charset=utf-8", str(exc).encode() + b"\n")
            return
        except InvalidInputError as exc:
            await _reply(send, 400, b"text/plain; charset=utf-8", str(exc).encode() + b"\n")
            return
        body = text.encode() if scope["method"] == "GET" else b""
        await _reply(send, 200, TYPES[fmt], body, cache=True, length=len(text.encode()))


async def _reply(send: Send, status: int, kind: bytes, body: bytes, cache: bool = False, length: int = -1) -> None:
    headers = [(b"content-type", kind), (b"content-length", str(length if length >= 0 else len(body)).encode())]
    if cache:
        headers.append((b"cache-control", b"public, max-age=86400"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
