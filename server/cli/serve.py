"""`vllm-quant-mcp serve`: stdio for a local agent, streamable HTTP for a team-shared server.

Over HTTP the clients are not the machine's owner: model directories on the host are read
only with `--allow-local-models`, and no answer shows a path on the host. The disk is the
operator's: with `--no-fetch` (or a cache it cannot write) a tree not on disk is refused with an
error naming the setting; otherwise a server fetches at most FETCH_QUOTA trees for its clients.
`--stateless` keeps nothing between requests (the SDK's
stateless streamable HTTP), so any process behind a load balancer answers any request of a
session; they share one cache, prepared by `refresh` beforehand (README: a team server).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.tags import InvalidTagError
from vllm_quant_mcp.server.mcp.app import LazyContext, build_server
from vllm_quant_mcp.server.runtime import make_context, pinned_tag, serve_fetches

if TYPE_CHECKING:
    from mcp.server import MCPServer
    from starlette.types import ASGIApp

    from vllm_quant_mcp.server.mcp.pool import WorkerPool

__all__ = ["allowed_hosts_and_origins", "http_app", "run"]

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def allowed_hosts_and_origins(
    host: str, port: int, extra_hosts: list[str], extra_origins: list[str]
) -> tuple[list[str], list[str]]:
    """Host/Origin values accepted under DNS-rebinding protection: the bind address, loopback names, and
    the names the operator says clients use (--allow-host) for a server bound to a wildcard or LAN address."""
    host, extra_hosts = host.lower(), [h.lower() for h in extra_hosts]  # Host names are case-insensitive
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
    from vllm_quant_mcp.knowledge.settings import settings

    fetches = serve_fetches(args.no_fetch, settings().cache_dir)
    if fetches.why_not is None:  # what a fetch killed with an earlier server left (no finally ran) goes now
        from vllm_quant_mcp.knowledge.registry.store import default_store

        default_store().sweep_interrupted()
    local_paths = args.transport == "stdio"
    context = LazyContext(
        lambda: make_context(args.tag, local_models=local_models, fetches=fetches, local_paths=local_paths)
    )
    toolsets = [t.strip() for t in args.toolsets.split(",") if t.strip()] if args.toolsets else None
    pool = _worker_pool(args, local_models, local_paths)
    try:
        server = build_server(context, toolsets=toolsets, pool=pool)
        if args.transport == "stdio":
            server.run("stdio")
            return 0
        return _serve_http(server, context, args, pool)
    except InvalidInputError as exc:
        print(f"error: --toolsets: {exc}", file=sys.stderr)
        return 2
    finally:
        if pool is not None:  # before the interpreter joins the threads still relaying to a worker
            pool.stop()


def _worker_pool(args: argparse.Namespace, local_models: bool, local_paths: bool) -> WorkerPool | None:
    """The compute workers (mcp/pool.py), started now: by default over HTTP, not over stdio.

    A shared server is where one client's audits meet another's cheap calls: there the workers
    keep the GIL free for the event loop (benchmarks/bench_load.py, 45 audits in flight: cheap
    calls' p99 2.1 s in threads, 0.25 s with workers). Over stdio the one client is the agent
    that spawned the server for its session and mostly waits on one call at a time; there two
    more interpreters would cost each session ~1 s of CPU apiece to boot (imports, knowledge
    base) and 86 MB apiece, and slow its first seconds of cheap calls (p99 0.17 s, 0.10 s
    without), for a gain it seldom sees.
    """
    wanted = args.worker_pool if args.worker_pool is not None else args.transport == "http"
    if not wanted:
        return None
    from functools import partial

    from vllm_quant_mcp.server.mcp.pool import WorkerPool
    from vllm_quant_mcp.server.runtime import worker_context

    pool = WorkerPool(partial(worker_context, args.tag, local_models, local_paths))
    pool.start()
    return pool


def _serve_http(server: MCPServer, context: LazyContext, args: argparse.Namespace, pool: WorkerPool | None) -> int:
    from vllm_quant_mcp.server.http.run import bind, serve_http

    token = args.token if args.token is not None else os.environ.get("VLLM_QUANT_MCP_TOKEN")
    if token is not None and not token.strip():
        print(
            "error: --token (or VLLM_QUANT_MCP_TOKEN) is empty, which would let anyone in; give a token",
            file=sys.stderr,
        )
        return 2
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    app = http_app(server, context, args, token)
    mode = " (stateless)" if args.stateless else ""
    serve_http(app, sock, f"vllm-quant-mcp: streamable HTTP{mode} on http://{args.host}:{args.port}/mcp", pool)
    return 0


def http_app(server: MCPServer, context: LazyContext, args: argparse.Namespace, token: str | None) -> ASGIApp:
    """The ASGI app: the SDK's streamable HTTP app behind the Host check and the session cap, the matrix pages
    beside it, then the bearer token over both if one is set."""
    from mcp.server.transport_security import TransportSecuritySettings

    from vllm_quant_mcp.server.http.auth import BearerTokenMiddleware
    from vllm_quant_mcp.server.http.hosts import LowercaseHostMiddleware
    from vllm_quant_mcp.server.http.matrix import MatrixPages
    from vllm_quant_mcp.server.http.sessions import IDLE, TOTAL, SessionCap, StatelessGetRefused

    hosts, origins = allowed_hosts_and_origins(args.host, args.port, args.allow_host, args.allow_origin)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )
    sdk = server.streamable_http_app(
        transport_security=security,
        host=args.host,
        stateless_http=args.stateless,
        session_idle_timeout=IDLE,
        max_sessions=TOTAL,
    )
    mcp_app = StatelessGetRefused(sdk) if args.stateless else SessionCap(sdk)
    app: ASGIApp = LowercaseHostMiddleware(MatrixPages(mcp_app, context))  # /matrix/<tag>, inside the token gate
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
    return app
