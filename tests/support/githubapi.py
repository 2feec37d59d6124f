"""A GitHub-REST-shaped server on 127.0.0.1, in a thread: issues, pulls, timelines, releases and search.

Tests fill `issues`, `pulls`, `timelines`, `releases` and `search_items`, point the
client's api_url at `server.base_url`, and read `server.requests`. List endpoints
are paginated by `page_size` with Link headers (next/last), as GitHub does. Every
200 carries an ETag; a matching If-None-Match gets a 304. Faults:
`script(path, status, headers)` queues a response served before the real one
(403/429 rate limits with reset headers, 5xx, 401), and a path in `slow` is held
until the server shuts down (a response beyond any client timeout).

`tagged_repo` builds the upstream git history the fake API's merge commits point
into, and `fill_git_cache` puts it where the git source keeps its repository.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import git

from support.loopback import LoopbackServer, QuietHandler
from vllm_quant_mcp.knowledge.sources.git import GitSource

__all__ = ["GitHubApi", "Request", "TaggedRepo", "fill_git_cache", "issue_json", "pull_json", "tagged_repo"]


@dataclass(frozen=True)
class Request:
    path: str
    query: dict[str, str]
    headers: dict[str, str]


def issue_json(repo: str, number: int, **fields: Any) -> dict[str, Any]:
    """An issue as GET /repos/{repo}/issues/{n} returns it; `fields` override."""
    base: dict[str, Any] = {
        "number": number,
        "title": f"Issue {number}",
        "state": "open",
        "state_reason": None,
        "labels": [],
        "created_at": "2025-01-02T03:04:05Z",
        "closed_at": None,
        "author_association": "NONE",
        "body": "",
        "html_url": f"https://github.com/{repo}/issues/{number}",
        "repository_url": f"https://api.github.com/repos/{repo}",
    }
    return base | fields


def pull_json(repo: str, number: int, merge_commit_sha: str | None, **fields: Any) -> dict[str, Any]:
    """A PR as GET /repos/{repo}/pulls/{n} returns it (merged when given a merge commit)."""
    base: dict[str, Any] = {
        "number": number,
        "title": f"PR {number}",
        "state": "closed" if merge_commit_sha else "open",
        "merged": merge_commit_sha is not None,
        "merged_at": "2025-02-03T04:05:06Z" if merge_commit_sha else None,
        "merge_commit_sha": merge_commit_sha,
        "base": {"ref": "main"},
        "body": "",
        "html_url": f"https://github.com/{repo}/pull/{number}",
    }
    return base | fields


class GitHubApi(LoopbackServer):
    def __init__(self, page_size: int = 100) -> None:
        self.issues: dict[int, dict[str, Any]] = {}
        self.pulls: dict[int, dict[str, Any]] = {}
        self.timelines: dict[int, list[dict[str, Any]]] = {}
        self.releases: list[dict[str, Any]] = []
        self.search_items: list[dict[str, Any]] = []
        self.page_size = page_size
        self.slow: set[str] = set()
        self.requests: list[Request] = []
        self._scripted: dict[str, list[tuple[int, dict[str, str]]]] = {}
        self._lock = threading.Lock()
        super().__init__()

    def script(self, path: str, status: int, headers: dict[str, str] | None = None) -> None:
        """Answer the next request for `path` with `status` (and headers) instead of the data."""
        with self._lock:
            self._scripted.setdefault(path, []).append((status, headers or {}))

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def route(self, path: str, query: dict[str, str]) -> Any:
        """The JSON for a path, or None for a 404."""
        if path == "/search/issues":  # paged by per_page and page, as GitHub's search is
            size, page = int(query.get("per_page", "30")), int(query.get("page", "1"))
            items = self.search_items[(page - 1) * size : page * size]
            return {"total_count": len(self.search_items), "incomplete_results": False, "items": items}
        match = re.fullmatch(r"/repos/[^/]+/[^/]+/(issues|pulls)/(\d+)(/timeline)?", path)
        if match:
            kind, number, timeline = match.group(1), int(match.group(2)), match.group(3)
            if timeline:
                return self.timelines.get(number) if kind == "issues" else None
            return (self.issues if kind == "issues" else self.pulls).get(number)
        if re.fullmatch(r"/repos/[^/]+/[^/]+/releases", path):
            return self.releases
        return None

    def _handler(self) -> type[QuietHandler]:
        server = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                with server._lock:
                    server.requests.append(Request(parts.path, query, dict(self.headers.items())))
                    queued = server._scripted.get(parts.path)
                    scripted = queued.pop(0) if queued else None
                if parts.path in server.slow:
                    server.release.wait(30)
                    return
                if scripted is not None:
                    status, extra = scripted
                    self.reply(status, json.dumps({"message": f"scripted {status}"}).encode(), extra)
                    return
                data = server.route(parts.path, query)
                if data is None:
                    self.reply(404, b'{"message": "Not Found"}', {})
                    return
                headers: dict[str, str] = {}
                if isinstance(data, list):
                    data, headers = self._page(parts.path, query, data)
                body = json.dumps(data).encode()
                etag = f'W/"{hashlib.sha1(body).hexdigest()}"'
                if self.headers.get("If-None-Match") == etag:
                    self.reply(304, b"", {"ETag": etag})
                    return
                self.reply(200, body, headers | {"ETag": etag, "Content-Type": "application/json"})

            def _page(self, path: str, query: dict[str, str], items: list[Any]) -> tuple[list[Any], dict[str, str]]:
                size = min(int(query.get("per_page", "30")), server.page_size)
                page = int(query.get("page", "1"))
                last = max(1, -(-len(items) // size))
                links = []
                if page < last:
                    for rel, number in (("next", page + 1), ("last", last)):
                        url = f"{server.base_url}{path}?{urlencode(query | {'page': str(number)})}"
                        links.append(f'<{url}>; rel="{rel}"')
                return items[(page - 1) * size : page * size], ({"Link": ", ".join(links)} if links else {})

        return Handler


@dataclass(frozen=True)
class TaggedRepo:
    """A small upstream repository: label -> commit sha, tagged like vLLM releases."""

    path: Path
    commits: dict[str, str]


def tagged_repo(path: Path) -> TaggedRepo:
    """v0.1.0, then the fix commit, v0.2.0, v0.3.0, then a commit no release contains yet."""
    repo = git.Repo.init(path)
    with repo.config_writer() as config:
        config.set_value("user", "name", "test")
        config.set_value("user", "email", "test@example.invalid")
    commits = {}
    for label, tag in (
        ("initial", "v0.1.0"),
        ("fix", None),
        ("second", "v0.2.0"),
        ("third", "v0.3.0"),
        ("later", None),
    ):
        (path / "CHANGES").write_text(f"{label}\n", encoding="utf-8")
        repo.git.add("--all")
        commits[label] = repo.index.commit(f"{label} commit").hexsha
        if tag:
            repo.create_tag(tag, message=tag)
    return TaggedRepo(path, commits)


def fill_git_cache(upstream: TaggedRepo, cache_root: Path, unshallow: bool) -> Path:
    """The git source's own bare repository under `cache_root`, filled by GitSource.fetch of each tag.

    `unshallow` then fetches the whole history and the branches (`git fetch --unshallow`), as an operator could.
    """
    repo_dir = cache_root / "git" / "vllm.git"
    for tag in ("v0.1.0", "v0.2.0", "v0.3.0"):
        dest = cache_root / "trees" / tag
        dest.mkdir(parents=True)
        GitSource(str(upstream.path), repo_dir).fetch(tag, dest)
    if unshallow:
        refspecs = ("+refs/tags/*:refs/tags/*", "+refs/heads/*:refs/heads/*")
        git.Repo(repo_dir).git.fetch("--unshallow", "--", str(upstream.path), *refspecs)
    return repo_dir
