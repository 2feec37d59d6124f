"""A GitHub-REST-shaped server on 127.0.0.1, in a thread: issues, pulls, timelines, releases, tags, compare, search.

Tests fill `issues`, `pulls`, `timelines`, `releases`, `tags` and `search_items`, point
the client's api_url at `server.base_url`, and read `server.requests`. `/compare/{base}
...{head}` is computed by git on `remote` (the repository the served SHAs come from),
so the API and git agree by construction. List endpoints are paginated by
`page_size` with Link headers (next/last) that point at `/repositories/{id}/...`, as
GitHub's do. Every 200 carries an ETag; a matching If-None-Match gets a 304. Faults:
`script(path, status, headers, body)` queues a response served before the real one
(403/429 rate limits with reset and resource headers, 5xx with JSON or HTML, 401),
and a path starting with an entry of `slow` is held until the server shuts down (a
response beyond any client timeout).
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

from support.loopback import LoopbackServer, QuietHandler
from support.vllm_remote import git_compare

__all__ = ["REPOSITORY_ID", "GitHubApi", "Request", "issue_json", "pull_json"]

REPOSITORY_ID = 599547518  # what GitHub's Link headers name instead of owner/name


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
    def __init__(self, page_size: int = 100, remote: Path | None = None) -> None:
        self.issues: dict[int, dict[str, Any]] = {}
        self.pulls: dict[int, dict[str, Any]] = {}
        self.timelines: dict[int, list[dict[str, Any]]] = {}
        self.releases: list[dict[str, Any]] = []
        self.tags: list[dict[str, Any]] = []
        self.search_items: list[dict[str, Any]] = []
        self.page_size = page_size
        self.remote = remote
        self.slow: set[str] = set()
        self.requests: list[Request] = []
        self._scripted: dict[str, list[tuple[int, dict[str, str], bytes | None]]] = {}
        self._lock = threading.Lock()
        super().__init__()

    def script(self, path: str, status: int, headers: dict[str, str] | None = None, body: bytes | None = None) -> None:
        """Answer the next request for `path` with `status` (headers, body) instead of the data."""
        with self._lock:
            self._scripted.setdefault(path, []).append((status, headers or {}, body))

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def route(self, path: str, query: dict[str, str]) -> Any:
        """The JSON for a path, or None for a 404."""
        path = re.sub(rf"^/repositories/{REPOSITORY_ID}/", "/repos/vllm-project/vllm/", path)
        if path == "/search/issues":  # paged by per_page and page, as GitHub's search is
            size, page = int(query.get("per_page", "30")), int(query.get("page", "1"))
            items = self.search_items[(page - 1) * size : page * size]
            return {"total_count": len(self.search_items), "incomplete_results": False, "items": items}
        compare = re.fullmatch(r"/repos/[^/]+/[^/]+/compare/([^/.]+(?:\.[^/.]+)*)\.\.\.([^/]+)", path)
        if compare:
            return git_compare(self.remote, compare.group(1), compare.group(2)) if self.remote else None
        if re.fullmatch(r"/repos/[^/]+/[^/]+/tags", path):
            return self.tags
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
                if any(parts.path.startswith(prefix) for prefix in server.slow):
                    server.release.wait(30)
                    return
                if scripted is not None:
                    status, extra, body = scripted
                    self.reply(status, body or json.dumps({"message": f"scripted {status}"}).encode(), extra)
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
                linked = re.sub(r"^/repos/vllm-project/vllm/", f"/repositories/{REPOSITORY_ID}/", path)
                if page < last:
                    for rel, number in (("next", page + 1), ("last", last)):
                        url = f"{server.base_url}{linked}?{urlencode(query | {'page': str(number)})}"
                        links.append(f'<{url}>; rel="{rel}"')
                return items[(page - 1) * size : page * size], ({"Link": ", ".join(links)} if links else {})

        return Handler
