"""`vllm-quant-mcp serve`: stdio for a local agent, streamable HTTP for a team-shared server.

Over HTTP the clients are not the machine's owner: model directories on the host are read
only with `--allow-local-models`. `--stateless` keeps nothing between requests (the SDK's
stateless streamable HTTP), so any process behind a load balancer answers any request of a
session; they share one cache, prepared by `refresh` beforehand (README: a team server).
"""

from __future__ import annotations

import argparse
import os
import sys

from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.tags import InvalidTagError
from vllm_quant_mcp.server.mcp.app import LazyContext, build_server
from vllm_quant_mcp.server.runtime import make_context, pinned_tag

__all__ = ["allowed_hosts_and_origins", "run"]

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def allowed_hosts_and_origins(
    host: str, port: int, extra_hosts: list[str], extra_origins: list[str]
) -> tuple[list[str], list[str]]:
    """Host/Origin values accepted under DNS-rebinding protection: the bind address, loopback names, and
    the names the operator says clients use (--allow-host) for a server bound to a wildcard or LAN address."""
    names = {host} | (LOOPBACK if host in LOOPBACK or host in {"0.0.0.0", "::"} else set())
    given = {f"{h}:{port}" for h in extra_hosts if ":" not in h} | set(extra_hosts)  # NAME or NAME:PORT
    hosts = sorted({f"{n}:{port}" if ":" not in n else f"[{n}]:{port}" for n in names} | names | given)
    origins = sorted({f"http://{h}" for h in hosts if ":" in h} | set(extra_origins))
    return hosts, origins


def run(args: argparse.Namespace) -> int:
    try:
        pinned_tag(args.tag)  # a malformed pin fails here, not on every tool call after start-up
    except InvalidTagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    local_models = args.transport == "stdio" or args.allow_local_models
    context = LazyContext(lambda: make_context(args.tag, local_models=local_models))
    toolsets = [t.strip() for t in args.toolsets.split(",") if t.strip()] if args.toolsets else None
    try:
        server = build_server(context, toolsets=toolsets)
    except InvalidInputError as exc:
        print(f"error: --toolsets: {exc}", file=sys.stderr)
        return 2
    if args.transport == "stdio":
        server.run("stdio")
        return 0

    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.types import ASGIApp

    from vllm_quant_mcp.server.http.auth import BearerTokenMiddleware
    from vllm_quant_mcp.server.http.matrix import MatrixPages
    from vllm_quant_mcp.server.http.run import serve_http

    hosts, origins = allowed_hosts_and_origins(args.host, args.port, args.allow_host, args.allow_origin)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )
    app: ASGIApp = server.streamable_http_app(
        transport_security=security, host=args.host, stateless_http=args.stateless
    )
    app = MatrixPages(app, context)  # /matrix/<tag>, inside the token gate
    token = args.token or os.environ.get("VLLM_QUANT_MCP_TOKEN")
    if token:
        app = BearerTokenMiddleware(app, token)
    elif args.host not in LOOPBACK:
        print(f"warning: serving on {args.host} without a token; pass --token to require one", file=sys.stderr)
    if args.host not in LOOPBACK and not args.allow_host:
        print(
            f"note: only Host headers {', '.join(hosts)} are accepted; add --allow-host NAME for the name "
            "other machines use to reach this server",
            file=sys.stderr,
        )
    mode = " (stateless)" if args.stateless else ""
    print(f"vllm-quant-mcp: streamable HTTP{mode} on http://{args.host}:{args.port}/mcp", file=sys.stderr)
    serve_http(app, args.host, args.port)
    return 0
