"""A shared HTTP server under load: cheap calls' latency with 0 and with K expensive calls in flight, and SIGTERM.

Run: `python benchmarks/bench_load.py [--server NAME=EXE ...] [--flood grep|audit|gates|pick ...] [--sessions N]
[--expensive K] [--calls C] [--idle-connections M] [--initializes S]`.

Each server named (default: this checkout's `vllm-quant-mcp`; pass another install's
executable, e.g. main's, to compare) is started with `serve --transport http` on one
temporary cache holding the v0.32.0 tree, and warmed (one grep, one registry read). Then:

1. idle: N client sessions, each making C cheap calls in turn (get_registry, list_tags);
2. loaded, per flood: K expensive calls sent over 3 more sessions (grep: a back-referencing
   regex only the `regex` engine runs, over every file; audit: a script of a thousand unknown
   flags, each looked up at every release; gates: every gate from v0.19.0 to v0.33.0 for a
   serve command; pick: a ranking for the largest model the figures allow); once the server
   has spent a second of CPU on them (its workers' included) or answered them all, the same
   cheap workload as in 1;
3. SIGTERM with the expensive calls still in flight: seconds until the process and every
   child it had (compute workers) are gone (killed after 60 s, reported as such);
4. a fresh server, 200 first greps of the tag at once (10 sessions of 20): its peak RSS
   (VmHWM), which single-flight loading (knowledge/search/loading.py) keeps at one copy;
5. a fresh server under the 1,024-file limit a systemd service gets: M idle TCP connections
   that never send a request, then a cheap call: does it answer, is the server alive;
6. a fresh server: one client's S `initialize` requests (never closed), then another
   client's session: does it open, and the server's RSS after.

Printed side by side per server: p50/p99/max of cheap calls (seconds, the call alone, after
its session's initialize), cheap errors, the expensive calls' outcomes, SIGTERM-to-exit.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import anyio
import anyio.to_thread
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.http_server import until_working, wait_for_port
from support.loopback import closed_port
from support.proctree import alive, descendants, status_kb
from support.releases import install_release_tree

TAG = "v0.32.0"
HEAVY = {"pattern": r"(\w+)\s+\1\b", "tag": TAG, "max_results": 1}
FLOODS: dict[str, tuple[str, dict[str, object]]] = {
    "grep": ("grep_vllm_source", HEAVY),
    "audit": (
        "audit_deployment",
        {"text": "#!/bin/sh\nvllm serve m " + " ".join(f"--x{i}" for i in range(1000)) + "\n", "tag": TAG},
    ),
    "gates": (
        "check_gates",
        {"from_tag": "v0.19.0", "to_tag": "v0.33.0", "serve_command": "vllm serve m --quantization fp8"},
    ),
    "pick": (
        "pick_format",
        {"gpu": "h200", "tag": TAG, "model_figures": {"params_b": 70, "layers": 1024, "kv_heads": 8, "head_dim": 128}},
    ),
}
CHEAP = [("get_registry", {"kind": "kv_cache_dtypes", "tag": TAG}), ("list_tags", {})]
EXPENSIVE_SESSIONS = 3
STOP_LIMIT = 60.0


class Session:
    def __init__(self, url: str) -> None:
        self.url = url

    async def __aenter__(self) -> ClientSession:
        self._http = httpx2.AsyncClient(timeout=120)
        self._stream = streamable_http_client(self.url, http_client=self._http)
        read, write = await self._stream.__aenter__()
        self._session = ClientSession(read, write)
        session = await self._session.__aenter__()
        await session.initialize()
        return session

    async def __aexit__(self, *exc: object) -> None:
        for closing in (self._session, self._stream):
            with contextlib.suppress(Exception):  # the server may be gone (SIGTERM phase)
                await closing.__aexit__(None, None, None)
        await self._http.aclose()


async def cheap_workload(url: str, sessions: int, calls: int) -> tuple[list[float], int]:
    latencies: list[float] = []
    errors = 0

    async def one_session() -> None:
        nonlocal errors
        async with Session(url) as session:
            for i in range(calls):
                name, arguments = CHEAP[i % len(CHEAP)]
                start = time.perf_counter()
                try:
                    result = await session.call_tool(name, arguments)
                    errors += bool(result.is_error)
                except Exception:
                    errors += 1
                latencies.append(time.perf_counter() - start)

    async with anyio.create_task_group() as tg:
        for _ in range(sessions):
            tg.start_soon(one_session)
    return latencies, errors


async def expensive_flood(url: str, flood: str, total: int, outcomes: Counter[str]) -> None:
    name, arguments = FLOODS[flood]

    async def one(session: ClientSession) -> None:
        try:
            result = await session.call_tool(name, arguments)
        except Exception as exc:
            outcomes[f"failed ({type(exc).__name__}: {exc})"[:90]] += 1
            return
        text = result.content[0].text if result.is_error and result.content else ""  # type: ignore[union-attr]
        outcomes["busy" if text.startswith("busy") else "time limit" if "time limit" in text else "answered"] += 1

    async def one_session(count: int) -> None:
        async with Session(url) as session, anyio.create_task_group() as tg:
            for _ in range(count):
                tg.start_soon(one, session)

    async with anyio.create_task_group() as tg:
        for i in range(EXPENSIVE_SESSIONS):
            tg.start_soon(one_session, total // EXPENSIVE_SESSIONS + (i < total % EXPENSIVE_SESSIONS))


def start(exe: str, cache: Path, file_limit: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    port = closed_port()  # free now; the server binds it next
    env = {**os.environ, "VLLM_QUANT_MCP_CACHE_DIR": str(cache)}
    limit = (file_limit, file_limit) if file_limit else None
    proc = subprocess.Popen(
        [exe, "serve", "--transport", "http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, limit)) if limit else None,
    )
    try:
        wait_for_port(proc, port, 60)
    except RuntimeError:
        raise SystemExit(f"{exe} did not start an HTTP server") from None
    return proc, f"http://127.0.0.1:{port}/mcp"


async def measure(exe: str, cache: Path, flood: str, sessions: int, expensive: int, calls: int) -> dict[str, str]:
    proc, url = start(exe, cache)
    row: dict[str, str] = {}
    try:
        async with Session(url) as warm:
            await warm.call_tool("grep_vllm_source", {"pattern": "QuantizationMethods", "tag": TAG})
            await warm.call_tool(*CHEAP[0])
        idle, idle_errors = await cheap_workload(url, sessions, calls)
        outcomes: Counter[str] = Counter()
        async with anyio.create_task_group() as tg:
            tg.start_soon(expensive_flood, url, flood, expensive, outcomes)
            await until_working(proc.pid, done=lambda: sum(outcomes.values()) >= expensive)  # pick may be over
            loaded, loaded_errors = await cheap_workload(url, sessions, calls)
            before_signal = dict(outcomes)
            in_flight = expensive - sum(before_signal.values())
            children = descendants(proc.pid)
            began = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            try:
                await anyio.to_thread.run_sync(lambda: proc.wait(timeout=STOP_LIMIT))
                while any(alive(child) for child in children) and time.monotonic() - began < STOP_LIMIT:
                    await anyio.sleep(0.05)
                left = sum(alive(child) for child in children)
                stopped = f"{time.monotonic() - began:.1f} s" + (f", {left} children left" if left else "")
            except subprocess.TimeoutExpired:
                stopped = f"> {STOP_LIMIT:.0f} s (killed)"
            tg.cancel_scope.cancel()
        for label, values, errors in (
            ("0 expensive", idle, idle_errors),
            (f"{expensive} {flood}", loaded, loaded_errors),
        ):
            q = statistics.quantiles(values, n=100, method="inclusive")
            row[f"cheap p50 / p99 / max, {label}"] = f"{q[49]:.3f} / {q[98]:.3f} / {max(values):.3f} s"
            row[f"cheap errors, {label}"] = f"{errors} of {len(values)}"
        row[f"{flood} calls done before SIGTERM"] = (
            ", ".join(f"{n} {k}" for k, n in sorted(before_signal.items())) or "none"
        )
        row[f"SIGTERM -> exit, {flood}"] = f"{stopped} ({in_flight} in flight, {len(children)} children)"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return row


def peak_rss_mb(pid: int) -> float:
    """The peak RSS of the server plus its workers' (each process's own peak, summed)."""
    return status_kb(pid, "VmHWM") / 1024


async def first_greps(exe: str, cache: Path, total: int) -> str:
    proc, url = start(exe, cache)
    outcomes: Counter[str] = Counter()

    async def one_session(count: int) -> None:
        async with Session(url) as session, anyio.create_task_group() as tg:
            for _ in range(count):
                tg.start_soon(one, session)

    async def one(session: ClientSession) -> None:
        result = await session.call_tool("grep_vllm_source", {"pattern": "QuantizationMethods", "tag": TAG})
        outcomes["error" if result.is_error else "answered"] += 1

    try:
        async with anyio.create_task_group() as tg:
            for _ in range(10):
                tg.start_soon(one_session, total // 10)
        return f"{peak_rss_mb(proc.pid):.0f} MB ({', '.join(f'{n} {k}' for k, n in sorted(outcomes.items()))})"
    finally:
        proc.kill()
        proc.wait()


async def idle_connections(exe: str, cache: Path, count: int) -> str:
    """`count` TCP connections that never send a byte, to a server under a 1,024-file limit; then a cheap call."""
    proc, url = start(exe, cache, file_limit=1024)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    held: list[socket.socket] = []
    try:
        for _ in range(count):
            with contextlib.suppress(OSError):
                held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        await anyio.sleep(1)  # the server accepts them
        try:
            with anyio.fail_after(30):
                async with Session(url) as session:
                    result = await session.call_tool(*CHEAP[1])
            answer = "error" if result.is_error else "answered"
        except Exception as exc:
            answer = f"failed ({type(exc).__name__})"
        alive = "alive" if proc.poll() is None else f"exited ({proc.returncode})"
        return f"cheap call {answer}, server {alive}"
    finally:
        for sock in held:
            sock.close()
        proc.kill()
        proc.wait()


async def session_flood(exe: str, cache: Path, count: int) -> str:
    """One client's `count` initialize requests, never closed; then another client's session."""
    proc, url = start(exe, cache)
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "flood", "version": "1"},
        },
    }
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    statuses: Counter[int] = Counter()
    try:
        async with httpx2.AsyncClient(timeout=30) as http:
            for _ in range(count):
                statuses[(await http.post(url, json=init, headers=headers)).status_code] += 1
        try:
            with anyio.fail_after(30):
                async with Session(url) as session:
                    result = await session.call_tool(*CHEAP[1])
            other = "error" if result.is_error else "answered"
        except Exception as exc:
            other = f"failed ({type(exc).__name__})"
        rss = status_kb(proc.pid, "VmRSS")  # workers included
        codes = ", ".join(f"{n}x {code}" for code, n in sorted(statuses.items()))
        return f"{codes}; another client {other}; RSS {rss / 1024:.0f} MB"
    finally:
        proc.kill()
        proc.wait()


def main() -> None:
    logging.disable(logging.WARNING)  # the SDK logs each session it cannot close once the server is stopped
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = str(Path(sys.executable).with_name("vllm-quant-mcp"))
    parser.add_argument("--server", action="append", metavar="NAME=EXE", help=f"default: this={here}")
    parser.add_argument("--sessions", type=int, default=5, help="cheap client sessions (default 5)")
    parser.add_argument("--expensive", type=int, default=45, help="expensive calls in flight (default 45)")
    parser.add_argument("--calls", type=int, default=20, help="cheap calls per session (default 20)")
    parser.add_argument("--first-greps", type=int, default=200, help="first greps at once on a fresh server")
    parser.add_argument("--flood", action="append", choices=sorted(FLOODS), help="default: all of them")
    parser.add_argument("--idle-connections", type=int, default=1030, help="idle TCP connections (default 1030)")
    parser.add_argument("--initializes", type=int, default=2000, help="one client's initialize requests")
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this client holds the idle connections
    floods = args.flood or list(FLOODS)
    servers = dict(s.split("=", 1) for s in (args.server or [f"this={here}"]))
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        cache = Path(tmp) / "cache"
        install_release_tree(cache, TAG.removeprefix("v"))
        rows: dict[str, dict[str, str]] = {name: {} for name in servers}
        for flood in floods:
            for name, exe in servers.items():
                rows[name] |= anyio.run(measure, exe, cache, flood, args.sessions, args.expensive, args.calls)
        for name, exe in servers.items():
            rows[name][f"{args.idle_connections} idle connections, file limit 1024"] = anyio.run(
                idle_connections, exe, cache, args.idle_connections
            )
            rows[name][f"{args.initializes} initializes by one client"] = anyio.run(
                session_flood, exe, cache, args.initializes
            )
            rows[name][f"peak RSS, {args.first_greps} first greps at once"] = anyio.run(
                first_greps, exe, cache, args.first_greps
            )
    names = list(rows)
    width = max(len(k) for k in rows[names[0]])
    print(f"{'':<{width}}  " + "  ".join(f"{n:<34}" for n in names))
    for key in rows[names[0]]:
        print(f"{key:<{width}}  " + "  ".join(f"{rows[n][key]:<34}" for n in names), flush=True)


if __name__ == "__main__":
    main()
