"""Search and refresh against ripgrep and `curl` + `tar xzf` on the vLLM 0.32.0 sdist, side by side in one run.

Run: `python benchmarks/bench_grep.py [--repeat N]` (needs `rg`: `apt-get install ripgrep` or
`pip install ripgrep`; and `curl`). The sdist is served by a PEP 691 index on 127.0.0.1, so
both sides download the same bytes the same way. Each round, interleaved:

* anchor: `curl` the sdist and `tar xzf` it; ours: `vllm-quant-mcp refresh --tag v0.32.0 --source pypi`
  into a fresh cache (download, checks, unpack into the pack, derive the registry);
* right after, the first `vllm-quant-mcp grep` process on that fresh cache against an `rg` process
  over the unpacked tree, and the first grep call of a freshly started MCP server (stdio) on it.

Then, warm: every pattern as a CLI process and as a tool call inside a running server
(`grep_vllm_source`, the function the MCP tool runs), each against an `rg --no-ignore --hidden`
process over the same tree, with the full (path, line) match sets compared; find_symbol of a
missing name (first and warm call); and the cache's size per tag. The closing table is the
issue's, with the figures measured on main before this change beside the new ones.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from vllm_quant_mcp.knowledge.errors import NotFoundError
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.search.grep import search
from vllm_quant_mcp.knowledge.search.index import SearchIndex
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.knowledge.sources.pypi import PypiSource
from vllm_quant_mcp.knowledge.sources.tree import SourceTree
from vllm_quant_mcp.tools.find_symbol.models import SymbolQuery
from vllm_quant_mcp.tools.find_symbol.tool import find_in_tree
from vllm_quant_mcp.tools.grep_vllm_source.models import GrepQuery
from vllm_quant_mcp.tools.grep_vllm_source.tool import grep_tree

VERSION = "0.32.0"
TAG = f"v{VERSION}"
EXE = str(Path(sys.executable).with_name("vllm-quant-mcp"))
KNOWN_SDISTS = [
    Path.home() / ".cache" / "vllm-sdists" / f"vllm-{VERSION}.tar.gz",
    Path.home() / ".cache" / "vllm-quant-mcp-tests" / "sdists" / f"vllm-{VERSION}.tar.gz",
]
BENCH_CACHE = Path.home() / ".cache" / "vllm-quant-mcp-bench"

Options = dict[str, Any]
# (class, pattern, options): the 24 patterns of the earlier benchmark, then one or more per pattern class.
PATTERNS: list[tuple[str, str, Options]] = [
    ("bench", "QuantizationMethods", {}),
    ("bench", "kv_cache_dtype", {}),
    ("bench", "def get_min_capability", {}),
    ("bench", "VLLM_USE_[A-Z_]+", {}),
    ("bench", r"class \w+Config\(QuantizationConfig\)", {}),
    ("bench", "nvfp4", {"ignore_case": True}),
    ("bench", "get_quant_method", {}),
    ("bench", "fp8_e4m3", {}),
    ("bench", r"def apply\(self", {}),
    ("bench", r"compressed[-_]tensors", {}),
    ("bench", "QuantizationConfig", {"path_glob": "vllm/model_executor/**"}),
    ("bench", "kv_cache_dtype", {"path_glob": "vllm/model_executor/**"}),
    ("bench", r"def (get_name|get_supported_act_dtypes)", {"path_glob": "vllm/model_executor/**"}),
    ("bench", "marlin", {"ignore_case": True}),
    ("bench", r"is_device_capability\(\d+\)", {}),
    ("bench", "CacheDType", {}),
    ("bench", "register_quantization_config", {}),
    ("bench", r"envs\.VLLM_\w+", {}),
    ("bench", "moe_wna16", {}),
    ("bench", "modelopt", {"ignore_case": True, "path_glob": "vllm/**"}),
    ("bench", r"torch\.float8_e4m3fn(uz)?", {}),
    ("bench", "get_quant_method(layer, prefix", {"fixed_string": True}),
    ("bench", r"^class \w+Method\(", {}),
    ("bench", "bitsandbytes", {"ignore_case": True}),
    ("rare literal", "register_quantization_config", {}),
    ("common token", "return", {}),
    ("common token", "def ", {}),
    ("alternation", "fp8|int8|nvfp4", {}),
    ("case-insensitive", "nvfp4", {"ignore_case": True}),
    ("case-insensitive", "marlin", {"ignore_case": True}),
    ("anchored regex", r"^\s*def ", {}),
    ("path-glob", "QuantizationConfig", {"path_glob": "vllm/model_executor/**"}),
    ("path-glob", "kv_cache_dtype", {"path_glob": "*.cu"}),
]
# Measured on main before this change (issue #14), same machine kind: (ours, anchor, ratio) as printed.
BEFORE = {
    "warm MCP median": ("12 ms", "rg 50 ms", "0.24"),
    "warm MCP worst class": ("", "", "2.5 (6.6 loaded)"),
    "first CLI grep": ("3.6 s", "rg", "72"),
    "first MCP grep": ("(builds the index)", "rg", "~70"),
    "first call of a new server": ("", "", ""),
    "warm CLI grep": ("", "rg", "9.8"),
    "refresh --source pypi": ("11.4 s", "2.5 s", "4.4"),
    "find_symbol miss": ("2.75 s", "", ""),
    "cache per tag": ("~210 MB", "", ""),
}


def require_tools() -> None:
    missing = [t for t in ("rg", "curl", "tar") if shutil.which(t) is None]
    if missing:
        raise SystemExit(
            f"missing {', '.join(missing)}: this benchmark compares against them. "
            "Install ripgrep with `apt-get install ripgrep` (or `pip install ripgrep`), curl and tar with apt-get."
        )


def sdist() -> Path:
    found = next((p for p in KNOWN_SDISTS if p.is_file()), None)
    if found is not None:
        return found
    PypiSource("https://pypi.org/simple", BENCH_CACHE / "sdists", keep_sdist=True).sdist(TAG)
    return BENCH_CACHE / "sdists" / f"vllm-{VERSION}.tar.gz"


@contextmanager
def local_index(path: Path) -> Iterator[str]:
    """A PEP 691 simple index on 127.0.0.1 serving one sdist; yields the index URL."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.startswith("/simple/vllm"):
                files = [{"filename": path.name, "url": f"/files/{path.name}", "hashes": {"sha256": digest}}]
                body = json.dumps({"meta": {"api-version": "1.0"}, "name": "vllm", "files": files}).encode()
                kind = "application/vnd.pypi.simple.v1+json"
            elif self.path == f"/files/{path.name}":
                body, kind = data, "application/octet-stream"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple"
    finally:
        server.shutdown()


def timed(command: list[str], **kwargs: Any) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False, **kwargs)
    return time.perf_counter() - started, done


def env_for(cache: Path, index_url: str) -> dict[str, str]:
    return {**os.environ, "VLLM_QUANT_MCP_CACHE_DIR": str(cache), "VLLM_QUANT_MCP_INDEX_URL": index_url}


def rg_command(pattern: str, options: Options) -> list[str]:
    args = ["rg", "--no-ignore", "--hidden", "--no-heading", "--line-number", "--null", "--color", "never"]
    args += ["--fixed-strings"] if options.get("fixed_string") else []
    args += ["--ignore-case"] if options.get("ignore_case") else []
    args += ["--glob", str(options["path_glob"])] if "path_glob" in options else []
    return [*args, "--regexp", pattern, "."]


def rg_matches(out: bytes) -> set[tuple[str, int]]:
    found = set()
    for row in out.split(b"\n"):
        if row:
            path, rest = row.split(b"\0", 1)
            found.add((path.decode().removeprefix("./"), int(rest.split(b":", 1)[0])))
    return found


def cli_command(pattern: str, options: Options) -> list[str]:
    args = [EXE, "grep", pattern, "--tag", TAG]
    args += ["-F"] if options.get("fixed_string") else []
    args += ["-i"] if options.get("ignore_case") else []
    args += ["--path-glob", str(options["path_glob"])] if "path_glob" in options else []
    return args


async def first_mcp_grep(cache: Path, index_url: str, running: bool) -> float:
    """The first grep of the freshly refreshed tag over stdio: on a server that has already answered another call
    (`running`: the issue's "already-running server"), or as the new process's first call of any tool (which also
    pays the tools' one-time registration)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=EXE, args=["serve", "--tag", TAG], env=env_for(cache, index_url))
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()  # what every client does before it calls a tool
            if running:
                await session.call_tool("list_tags", {})
            started = time.perf_counter()
            result = await session.call_tool("grep_vllm_source", {"pattern": "QuantizationMethods", "tag": TAG})
            elapsed = time.perf_counter() - started
    if result.is_error:
        raise SystemExit(f"grep_vllm_source failed: {result.content}")
    return elapsed


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def fresh_rounds(repeat: int, index_url: str, work: Path) -> dict[str, Any]:
    """Refresh vs curl+tar, then the first CLI and MCP greps on the fresh cache vs rg, round by round."""
    kinds = ("curl_tar", "refresh", "cli_first", "rg_first", "mcp_first", "mcp_new")
    times: dict[str, list[float]] = {k: [] for k in kinds}
    url = index_url.removesuffix("/simple") + f"/files/vllm-{VERSION}.tar.gz"
    for round_ in range(repeat):
        unpacked = work / f"tar-{round_}"
        unpacked.mkdir()
        script = f"curl -sf -o {unpacked}/s.tgz {url} && tar xzf {unpacked}/s.tgz -C {unpacked}"
        elapsed, done = timed(["bash", "-c", script])
        if done.returncode:
            raise SystemExit(f"curl + tar failed: {done.stderr.decode()[-300:]}")
        times["curl_tar"].append(elapsed)
        cache = work / f"cache-{round_}"
        elapsed, done = timed([EXE, "refresh", "--tag", TAG, "--source", "pypi"], env=env_for(cache, index_url))
        if done.returncode:
            raise SystemExit(f"refresh failed: {done.stderr.decode()[-500:]}")
        times["refresh"].append(elapsed)
        tree = unpacked / f"vllm-{VERSION}"
        elapsed, _ = timed(cli_command("QuantizationMethods", {}), env=env_for(cache, index_url))
        times["cli_first"].append(elapsed)
        elapsed, _ = timed(rg_command("QuantizationMethods", {}), cwd=tree)
        times["rg_first"].append(elapsed)
        times["mcp_new"].append(asyncio.run(first_mcp_grep(cache, index_url, running=False)))
        times["mcp_first"].append(asyncio.run(first_mcp_grep(cache, index_url, running=True)))
        if round_ < repeat - 1:
            shutil.rmtree(cache)
            shutil.rmtree(unpacked)
    return {
        "times": times,
        "cache": work / f"cache-{repeat - 1}",
        "tree": work / f"tar-{repeat - 1}" / f"vllm-{VERSION}",
    }


def tool_call(tree: SourceTree, index: SearchIndex, pattern: str, options: Options) -> float:
    query = GrepQuery(pattern=pattern, **options)
    started = time.perf_counter()
    grep_tree(tree, index, query)
    return time.perf_counter() - started


def our_matches(index: SearchIndex, pattern: str, options: Options) -> set[tuple[str, int]]:
    found = search(index, pattern, keep=10**9, **options)
    return {(index.paths[h.file_id], h.line) for h in found.hits}


def symbol_miss(tree: SourceTree, index: SearchIndex, name: str) -> float:
    started = time.perf_counter()
    with suppress(NotFoundError):
        find_in_tree(tree, index, SymbolQuery(name=name))
    return time.perf_counter() - started


def row(label: str, ours: str, anchor: str, ratio: str, target: str) -> None:
    before = BEFORE.get(label, ("", "", ""))
    print(f"| {label} | {ours} | {anchor} | {ratio} | {target} | {' / '.join(b for b in before if b)} |")


def warm_rows(repeat: int, cache: Path, rg_tree: Path, index_url: str) -> dict[str, Any]:
    store = Store(cache)
    tree = store.source_tree(TAG)
    index = index_for(tree)
    env = env_for(cache, index_url)
    header = (
        f"{'class':<17} {'pattern':<44} {'tool ms':>8} {'cli ms':>7} {'rg ms':>7} {'tool/rg':>7} {'cli/rg':>6} equal"
    )
    print(header)
    print("-" * len(header))
    results = []
    for cls, pattern, options in PATTERNS:
        tool_call(tree, index, pattern, options)  # compile once, as a running server has
        tool, cli, rg = [], [], []
        expected: set[tuple[str, int]] = set()
        for _ in range(repeat):
            tool.append(tool_call(tree, index, pattern, options))
            cli.append(timed(cli_command(pattern, options), env=env)[0])
            elapsed, done = timed(rg_command(pattern, options), cwd=rg_tree)
            rg.append(elapsed)
            expected = rg_matches(done.stdout)
        equal = our_matches(index, pattern, options) == expected
        t, c, r = median_ms(tool), median_ms(cli), median_ms(rg)
        results.append({"cls": cls, "tool": t / r, "cli": c / r, "equal": equal})
        label = (pattern + (" " + ",".join(f"{k}={v}" for k, v in options.items()) if options else ""))[:44]
        print(f"{cls:<17} {label:<44} {t:8.1f} {c:7.1f} {r:7.1f} {t / r:7.2f} {c / r:6.2f} {equal}", flush=True)
    miss_first = symbol_miss(tree, index, "QuantizationMethodz")
    miss_warm = [symbol_miss(tree, index, name) for name in ("Fp8LinearMethodd", "get_min_capabilty", "nope_not_here")]
    return {"rows": results, "miss_first": miss_first, "miss_warm": statistics.median(miss_warm)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds of each measurement; medians reported")
    args = parser.parse_args()
    require_tools()
    path = sdist()
    with tempfile.TemporaryDirectory(prefix="bench-grep-") as tmp, local_index(path) as index_url:
        work = Path(tmp)
        print(f"sdist {path} ({path.stat().st_size / 2**20:.0f} MB), served at {index_url}; {args.repeat} rounds\n")
        fresh = fresh_rounds(args.repeat, index_url, work)
        warm = warm_rows(args.repeat, fresh["cache"], fresh["tree"], index_url)
        t = fresh["times"]
        size = du(fresh["cache"] / "trees" / TAG) + du(fresh["cache"] / "registries") + du(fresh["cache"] / "sdists")
        rows = warm["rows"]
        bench = [r for r in rows if r["cls"] == "bench"]
        worst_class = max((r for r in rows if r["cls"] != "bench"), key=lambda r: r["tool"])
        worst_cli = max(rows, key=lambda r: r["cli"])
        rg_first = median_ms(t["rg_first"])
        print("\n| operation | ours | anchor | ratio | target | before (main) |")
        print("|---|---|---|---|---|---|")
        row(
            "warm MCP median",
            f"{statistics.median(r['tool'] for r in bench) * rg_first:.1f} ms",
            "rg",
            f"{statistics.median(r['tool'] for r in bench):.2f}",
            "<= 0.3",
        )
        row("warm MCP worst class", worst_class["cls"], "rg", f"{worst_class['tool']:.2f}", "<= 1.5 each")
        row(
            "first CLI grep",
            f"{median_ms(t['cli_first']):.0f} ms",
            f"rg {rg_first:.0f} ms",
            f"{median_ms(t['cli_first']) / rg_first:.1f}",
            "<= 5",
        )
        row(
            "first MCP grep",
            f"{median_ms(t['mcp_first']):.0f} ms",
            f"rg {rg_first:.0f} ms",
            f"{median_ms(t['mcp_first']) / rg_first:.2f}",
            "<= 2",
        )
        row(
            "first call of a new server",
            f"{median_ms(t['mcp_new']):.0f} ms",
            f"rg {rg_first:.0f} ms",
            f"{median_ms(t['mcp_new']) / rg_first:.2f}",
            "",
        )
        row(
            "warm CLI grep",
            f"median {statistics.median(r['cli'] for r in bench):.2f}x, worst {worst_cli['cls']}",
            "rg",
            f"{statistics.median(r['cli'] for r in bench):.2f} (worst {worst_cli['cli']:.2f})",
            "<= 3",
        )
        row(
            "refresh --source pypi",
            f"{statistics.median(t['refresh']):.2f} s",
            f"curl + tar xzf {statistics.median(t['curl_tar']):.2f} s",
            f"{statistics.median(t['refresh']) / statistics.median(t['curl_tar']):.2f}",
            "<= 1.5",
        )
        row(
            "find_symbol miss",
            f"first {warm['miss_first']:.2f} s, warm {warm['miss_warm']:.3f} s",
            "",
            "",
            "<= 0.3 s warm",
        )
        row("cache per tag", f"{size / 1e6:.0f} MB", "", "", "<= 150 MB")
        all_equal = all(r["equal"] for r in rows)
        print(f"\nmatch sets identical to rg for every pattern: {all_equal}")
    return 0 if all_equal else 1


if __name__ == "__main__":
    sys.exit(main())
