"""lookup_issue before and after proof by containment: what the history fetch costs, what the answers say.

Run: `python benchmarks/bench_lookup_issue.py [--before-python PATH] [--remote PATH] [--timeout S]`.

1. Fetch. On remotes built from the real 0.19.0-0.22.0 release trees (the quantization
   subtree the tests use, and whole `vllm/` trees), and on `--remote` if given (e.g. a
   vLLM-sized history), the bytes and seconds of the treeless history fetch lookup_issue
   makes, side by side with what a user would reach for instead: a full clone, a blobless
   clone, and `refresh`'s one shallow snapshot per tag (what the old git method read).
2. Answers. The threads of tests/support/issue_world.py served by a local GitHub API, each
   looked up by this checkout and, with `--before-python` (an interpreter with the old
   package installed, e.g. /work/main/.venv/bin/python), by the old code after `refresh`
   of four tags, in one run; printed side by side.
3. Slow API. Each version looks a thread up once, then again with its cache 8 days old and
   every API path held: seconds and requests of that second lookup.
4. Shared cache folder. With GitHub's search quota spent, is an issue lookup still served?
   And a second API endpoint (renamed issue) on the same cache folder: whose answer comes back?
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.githubapi import GitHubApi
from support.issue_world import THREADS, serve_threads
from support.releases import release_tree
from support.vllm_remote import RELEASES, VllmRemote, build_vllm_remote

from vllm_quant_mcp.knowledge.tags import tag_key

TAG = "v0.20.0"  # the release each lookup asks about
SLOW_THREAD = 2002
SHARED_THREAD = 2000


def pack_bytes(repo: Path) -> int:
    """What a fetch brought, about what crossed the wire: packs and loose objects (no indexes, no commit-graph)."""
    objects = repo / "objects"
    files = [*objects.glob("pack/*.pack"), *objects.glob("[0-9a-f][0-9a-f]/*")]
    return sum(p.stat().st_size for p in files)


def timed(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - started


def fetch_costs(remote: Path, scratch: Path) -> dict[str, tuple[int, float]]:
    """Bytes and seconds of each way of getting enough history to answer, into fresh repositories."""
    from vllm_quant_mcp.knowledge.github.deadline import Deadline
    from vllm_quant_mcp.knowledge.github.history import HistoryRepo
    from vllm_quant_mcp.knowledge.sources.git import GitSource

    url = remote.resolve().as_uri()
    costs: dict[str, tuple[int, float]] = {}
    repo = HistoryRepo(url, scratch / "history")
    started = time.perf_counter()
    history, notes = repo.ensure(Deadline(600), None, None)
    assert history is not None, notes
    costs["treeless history (lookup_issue)"] = (pack_bytes(repo.path), time.perf_counter() - started)
    started = time.perf_counter()
    HistoryRepo(url, scratch / "history").ensure(Deadline(600), "0" * 40, None)
    costs["  nothing new, a minute later"] = (0, time.perf_counter() - started)
    for name, extra in (("blobless clone", ["--filter=blob:none"]), ("full clone", [])):
        target = scratch / name.replace(" ", "-")
        seconds = timed(["git", "clone", "-q", "--bare", "--no-local", *extra, url, str(target)])
        costs[name] = (pack_bytes(target), seconds)
    listing = subprocess.run(["git", "-C", str(remote), "tag"], capture_output=True, text=True, check=True).stdout
    tags = sorted(listing.split(), key=tag_key)[-4:]  # the issue's user had refreshed four tags
    shallow = scratch / "shallow" / "vllm.git"
    started = time.perf_counter()
    for tag in tags:
        dest = scratch / "trees" / tag
        dest.mkdir(parents=True)
        GitSource(url, shallow).fetch(tag, dest)
    costs[f"refresh of the newest {len(tags)} tags (depth 1 each)"] = (
        pack_bytes(shallow),
        time.perf_counter() - started,
    )
    return costs


WORKER = r"""
import json, sys, time
from pathlib import Path
api_url, remote, cache, timeout, refresh = sys.argv[1], sys.argv[2], Path(sys.argv[3]), float(sys.argv[4]), sys.argv[5:]
import os
os.environ.update(VLLM_QUANT_MCP_GITHUB_API=api_url, VLLM_QUANT_MCP_REMOTE=remote, VLLM_QUANT_MCP_CACHE_DIR=str(cache))
from vllm_quant_mcp.knowledge.facts.knowledge_base import load_knowledge
from vllm_quant_mcp.knowledge.github import service
from vllm_quant_mcp.knowledge.github.client import GitHubClient
from vllm_quant_mcp.knowledge.github.settings import github_settings
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.sources.git import GitSource
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.lookup_issue.models import LookupIssueQuery
from vllm_quant_mcp.tools.lookup_issue.tool import lookup_issue
from vllm_quant_mcp.tools.search_issues.models import SearchIssuesQuery
from vllm_quant_mcp.tools.search_issues.tool import search_issues
for tag in refresh:  # what `refresh --tag` leaves for the old git method
    (cache / "trees" / tag).mkdir(parents=True, exist_ok=True)
    GitSource(remote, cache / "git" / "vllm.git").fetch(tag, cache / "trees" / tag)
offset = [0.0]
def deps():
    config = github_settings().model_copy(update={"timeout": timeout})
    client = GitHubClient(config, clock=lambda: time.time() + offset[0])
    extra = []
    if "history" in service.GitHubDeps.__dataclass_fields__:
        from vllm_quant_mcp.knowledge.github.history import HistoryRepo
        extra = [HistoryRepo(config.remote, config.history_dir)]
    return service.GitHubDeps(client, load_knowledge(), *extra)
github = deps()
ctx = ToolContext(Store(cache / "store"), "v0.22.0")
via = {"github": github}
if "make_github" in ToolContext.__dataclass_fields__:  # the context carries the dependency; older code took it apart
    ctx, via = ToolContext(Store(cache / "store"), "v0.22.0", make_github=lambda _kb: github), {}
for line in sys.stdin:
    job = json.loads(line)
    if job.get("age"):
        offset[0] = job["age"]
    started = time.perf_counter()
    try:
        if job.get("search"):
            found = search_issues(ctx, SearchIssuesQuery(query=job["search"]), **via)
            out = {"rows": len(found.rows)}
        else:
            answer = lookup_issue(ctx, LookupIssueQuery(number=job["number"], tag=job["tag"]), **via)
            out = {"first": answer.first_release.model_dump(), "verdict": answer.fixed_in_your_release,
                   "freshness": answer.freshness, "title": answer.title}
    except Exception as exc:
        out = {"error": f"{type(exc).__name__}: {exc}"[:160]}
    out["seconds"] = time.perf_counter() - started
    print(json.dumps(out), flush=True)
"""


class Worker:
    """One version of the package answering lookups, in its own process and cache."""

    def __init__(self, python: str, api: GitHubApi, remote: VllmRemote, cache: Path, timeout: float, old: bool) -> None:
        refresh = ["v0.19.0", "v0.19.1", "v0.20.0", "v0.22.0"] if old else []
        args = [python, "-c", WORKER, api.base_url, remote.url, str(cache), str(timeout), *refresh]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, number: int, tag: str, age: float = 0.0, search: str | None = None) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"number": number, "tag": tag, "age": age, "search": search}) + "\n")
        self.proc.stdin.flush()
        result: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return result

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def summary(answer: dict[str, Any]) -> str:
    if "error" in answer:
        return answer["error"]
    first = answer["first"]
    how = first.get("basis") or ("certain" if first["certain"] else "uncertain")
    return f"{first['tag'] or '-'} {first['method']} [{how}] -> {answer['verdict']}"


def answers(api: GitHubApi, remote: VllmRemote, scratch: Path, pythons: dict[str, str], timeout: float) -> None:
    workers = {
        name: Worker(python, api, remote, scratch / f"cache-{name}", timeout, old=name == "before")
        for name, python in pythons.items()
    }
    print(f"\n## Answers (tag {TAG}); after = this checkout")
    print("| # | thread | " + " | ".join(workers) + " |")
    print("|---|---|" + "---|" * len(workers))
    for number, what in THREADS.items():
        row = [summary(w.ask(number, TAG)) for w in workers.values()]
        print(f"| {number} | {what} | " + " | ".join(row) + " |")
    print("\n## Slow API: a second lookup with the cache 8 days old and every API path held")
    for name, worker in workers.items():
        worker.ask(SLOW_THREAD, TAG)
        api.slow.add("/repos/")
        sent = len(api.requests)
        answer = worker.ask(SLOW_THREAD, TAG, age=8 * 86400)
        api.slow.clear()
        api.release.set()
        api.release.clear()
        print(f"- {name}: {answer['seconds']:.2f} s, {len(api.requests) - sent} requests, {summary(answer)}")
    print("\n## Shared cache folder")
    for name, worker in workers.items():
        limit = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 8 * 86400 + 3600)}
        api.script("/search/issues", 403, limit | {"X-RateLimit-Resource": "search"})
        searched = worker.ask(0, TAG, search="fp8")
        after_limit = worker.ask(SHARED_THREAD, TAG, age=8 * 86400)
        print(f"- {name}: search {searched.get('error', 'served')[:60]}; then #{SHARED_THREAD}: "
              f"{after_limit.get('freshness', after_limit.get('error', ''))[:90]}")  # fmt: skip
        worker.close()
    with GitHubApi(page_size=2) as other:
        serve_threads(other, remote)
        other.issues[SLOW_THREAD] = other.issues[SLOW_THREAD] | {"title": "the other endpoint's title"}
        for name, python in pythons.items():
            twin = Worker(python, other, remote, scratch / f"cache-{name}", timeout, old=False)
            answer = twin.ask(SLOW_THREAD, TAG)
            print(f"- {name}, same cache, another API: title {answer.get('title')!r} ({answer.get('freshness')})")
            twin.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before-python", help="interpreter with the old package installed")
    parser.add_argument(
        "--remote", type=Path, help="another bare remote to measure the fetch on (vLLM-sized; uploadpack.allowFilter)"
    )
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds per request for both versions")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-lookup-"))
    try:
        trees = {v: release_tree(v).root for v in RELEASES}
        remotes = {
            "quantization subtree (tests)": build_vllm_remote(scratch / "sub.git", trees),
            "whole vllm/ trees": build_vllm_remote(scratch / "full.git", trees, prefix="vllm"),
        }
        measured = {name: r.path for name, r in remotes.items()}
        if args.remote:
            measured[str(args.remote)] = args.remote
        for name, path in measured.items():
            count = subprocess.run(["git", "-C", str(path), "rev-list", "--all", "--count"], capture_output=True,
                                   text=True, check=True).stdout.strip()  # fmt: skip
            print(f"\n## Fetch: {name} ({count} commits)")
            print("| way | bytes | seconds | bytes vs treeless |\n|---|---:|---:|---:|")
            costs = fetch_costs(path, scratch / f"fetch-{len(name)}-{time.monotonic_ns()}")
            base = costs["treeless history (lookup_issue)"][0]
            for way, (size, seconds) in costs.items():
                ratio = f"{size / base:.1f}x" if size else "-"
                print(f"| {way} | {size:,} | {seconds:.3f} | {ratio} |")
        pythons = {"after": sys.executable}
        if args.before_python:
            pythons = {"before": args.before_python, **pythons}
        with GitHubApi(page_size=2) as api:
            serve_threads(api, remotes["quantization subtree (tests)"])
            answers(api, remotes["quantization subtree (tests)"], scratch, pythons, args.timeout)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
