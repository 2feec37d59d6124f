"""Server cold start against a minimal MCPServer, then the warm server's memory and grep latency.

Run: `python benchmarks/bench_server.py [--rounds N] [--skip-rss]`.

Cold start is spawn -> initialize -> tools/list answered, timed by the SDK's own stdio
client for (a) `vllm-quant-mcp serve` and (b) a one-tool MCPServer script, with the same
Python, interleaved round by round (the order flips each round) so machine load hits
both alike; the medians and their ratio are printed. Then one server is started on a
temporary cache holding the v0.32.0 tree (installed from the sdist through the store,
as `refresh --source DIR` would), grep_vllm_source is called once (that call builds the
index and saves it in the cache) and again warm, and the process's VmRSS / VmHWM are read
from /proc. A second server is then started on the same cache: its first grep reads the
saved index instead of building one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.sources.directory import DirectorySource

TAG = "v0.32.0"
SDISTS = [
    Path.home() / ".cache" / "vllm-quant-mcp" / "sdists" / "vllm-0.32.0.tar.gz",
    Path.home() / ".cache" / "vllm-sdists" / "vllm-0.32.0.tar.gz",
]
SERVER_EXE = str(Path(sys.executable).with_name("vllm-quant-mcp"))
MINIMAL_SERVER = '''\
from mcp.server import MCPServer

server = MCPServer(name="minimal")


@server.tool()
def ping() -> str:
    """Answers pong."""
    return "pong"


server.run("stdio")
'''
WARM_PATTERNS: list[dict[str, Any]] = [
    {"pattern": "QuantizationMethods"},
    {"pattern": r"class \w+Config\(QuantizationConfig\)"},
    {"pattern": "nvfp4", "ignore_case": True},
    {"pattern": "kv_cache_dtype", "path_glob": "vllm/model_executor/**"},
    {"pattern": r"envs\.VLLM_\w+"},
]


def server_env(cache: Path) -> dict[str, str]:
    """The server's environment: our own cache, and no way to reach the network if a tool tried."""
    return {
        **os.environ,
        "VLLM_QUANT_MCP_CACHE_DIR": str(cache),
        "VLLM_QUANT_MCP_INDEX_URL": "http://127.0.0.1:9/simple",
        "VLLM_QUANT_MCP_REMOTE": str(cache / "no-remote"),
    }


async def cold_start(params: StdioServerParameters) -> tuple[float, int]:
    """Seconds from spawn to the tools/list answer, and how many tools it listed."""
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        started = time.perf_counter()
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            elapsed = time.perf_counter() - started
    return elapsed, len(tools.tools)


def child_pids() -> set[int]:
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        pids |= {int(p) for p in (task / "children").read_text(encoding="utf-8").split()}
    return pids


def memory_mb(pid: int) -> dict[str, float]:
    fields = {}
    for row in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        name, _, value = row.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) / 1024
    return fields


async def warm_server(cache: Path, repeat: int, label: str) -> None:
    params = StdioServerParameters(command=SERVER_EXE, args=["serve", "--tag", TAG], env=server_env(cache))
    before = child_pids()
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            (pid,) = child_pids() - before
            idle = memory_mb(pid)
            started = time.perf_counter()
            first = await session.call_tool("grep_vllm_source", {"pattern": "QuantizationMethods", "tag": TAG})
            first_s = time.perf_counter() - started
            if first.is_error or not first.structured_content:
                raise SystemExit(f"grep_vllm_source failed: {first.content}")
            warm: list[float] = []
            for _ in range(repeat):
                for args in WARM_PATTERNS:
                    started = time.perf_counter()
                    result = await session.call_tool("grep_vllm_source", {**args, "tag": TAG})
                    warm.append(time.perf_counter() - started)
                    if result.is_error:
                        raise SystemExit(f"grep_vllm_source {args} failed: {result.content}")
            held = memory_mb(pid)
    matches = first.structured_content.get("total_matches", "?")
    print(f"\n{label} on {TAG} (pid {pid})")
    print(f"  RSS after initialize        {idle['VmRSS']:7.0f} MB")
    print(f"  first grep                  {first_s * 1000:7.0f} ms   ({matches} matches of QuantizationMethods)")
    print(f"  warm grep, median of {len(warm):<3}    {statistics.median(warm) * 1000:7.1f} ms   (MCP round trip)")
    print(f"  RSS holding the index       {held['VmRSS']:7.0f} MB   (peak VmHWM {held['VmHWM']:.0f} MB; limit 400 MB)")


def install_tree(cache: Path, scratch: Path) -> None:
    """The v0.32.0 tree in the store, from the sdist's vllm/ package (all the dir source copies)."""
    sdist = next((p for p in SDISTS if p.is_file()), None)
    if sdist is None:
        raise SystemExit(f"no vLLM 0.32.0 sdist in any of: {', '.join(map(str, SDISTS))}")
    with tarfile.open(sdist) as tar:
        members = [m for m in tar.getmembers() if m.name.split("/")[1:2] == ["vllm"]]
        tar.extractall(scratch, members=members, filter="data")
    store = Store(cache)
    with store.lock(TAG):
        store.install_tree(TAG, DirectorySource(scratch / "vllm-0.32.0"))


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="cold starts of each server; medians reported")
    parser.add_argument("--repeat", type=int, default=4, help="warm grep rounds over the patterns")
    parser.add_argument("--skip-rss", action="store_true", help="cold start only")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-server-") as tmp:
        root = Path(tmp)
        cache = root / "cache"
        minimal = root / "minimal_server.py"
        minimal.write_text(MINIMAL_SERVER, encoding="utf-8")
        servers = {
            "vllm-quant-mcp serve": StdioServerParameters(
                command=SERVER_EXE, args=["serve", "--tag", TAG], env=server_env(cache)
            ),
            "minimal MCPServer": StdioServerParameters(
                command=sys.executable, args=[str(minimal)], env=dict(os.environ)
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in servers}
        counts: dict[str, int] = {}
        await cold_start(servers["minimal MCPServer"])  # warm the OS file cache for both: the first spawn pays disk
        await cold_start(servers["vllm-quant-mcp serve"])
        for round_ in range(args.rounds):
            order = list(servers) if round_ % 2 == 0 else list(reversed(servers))
            for name in order:
                elapsed, counts[name] = await cold_start(servers[name])
                times[name].append(elapsed)

        print(f"cold start: spawn -> initialize -> tools/list, {args.rounds} interleaved rounds, {sys.executable}")
        print(f"{'server':<22} {'tools':>5} {'median ms':>10} {'min ms':>8} {'max ms':>8}")
        for name, samples in times.items():
            print(
                f"{name:<22} {counts[name]:>5} {statistics.median(samples) * 1000:>10.0f}"
                f" {min(samples) * 1000:>8.0f} {max(samples) * 1000:>8.0f}"
            )
        ratio = statistics.median(times["vllm-quant-mcp serve"]) / statistics.median(times["minimal MCPServer"])
        print(f"ratio (ours / minimal, medians): {ratio:.2f}  (target <= 1.25)")

        if not args.skip_rss:
            scratch = root / "sdist"
            scratch.mkdir()
            install_tree(cache, scratch)
            await warm_server(cache, args.repeat, "first server (builds the index, saves it)")
            saved = sorted((cache / "index").glob("*.sqlite"))
            print(f"  saved index: {', '.join(f'{p.name} {p.stat().st_size / 2**20:.0f} MB' for p in saved) or 'none'}")
            await warm_server(cache, args.repeat, "second server (reads the saved index)")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
