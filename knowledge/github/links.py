"""What an issue's timeline and a PR's body say about which PRs fix what: pure functions over GitHub JSON.

GitHub's own "closing" link is not in the REST API; what it shows instead is a
cross-referenced event per PR that mentions the issue (with the PR's body) and a
`closed` event carrying the commit that closed it, if one did. A PR fixes the issue
when its body uses a closing keyword on it (`Fixes #N`, `closes owner/repo#N`,
`resolves https://github.com/owner/repo/issues/N`), as GitHub's own parser reads it.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

__all__ = ["LinkedPr", "body_excerpt", "closed_by_commit", "closing_references", "item_url", "labels", "linked_prs"]

EXCERPT_CHARS = 500
_KEYWORD = r"(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)"
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)


class LinkedPr(BaseModel):
    number: int
    title: str
    state: str
    merged: bool
    closes_this: bool
    url: str


def closing_references(body: str | None, repo: str) -> list[int]:
    """Issue numbers of `repo` that a PR body closes with a keyword, in order of first mention."""
    text = _COMMENT.sub("", body or "")
    owner_repo = re.escape(repo)
    target = rf"(?:https?://github\.com/{owner_repo}/(?:issues|pull)/|{owner_repo}#|#)(\d+)"
    pattern = re.compile(rf"\b{_KEYWORD}:?\s+{target}\b", re.IGNORECASE)
    return list(dict.fromkeys(int(m.group(1)) for m in pattern.finditer(text)))


def linked_prs(timeline: list[Any], number: int, repo: str) -> list[LinkedPr]:
    """PRs of `repo` that reference issue `number` in its timeline, each saying whether it closes the issue."""
    found: dict[int, LinkedPr] = {}
    for event in timeline:
        if not isinstance(event, dict) or event.get("event") != "cross-referenced":
            continue
        issue = (event.get("source") or {}).get("issue") or {}
        pull = issue.get("pull_request")
        if not isinstance(pull, dict) or not isinstance(issue.get("number"), int):
            continue
        if _repo_of(issue).lower() != repo.lower():
            continue
        found.setdefault(
            issue["number"],
            LinkedPr(
                number=issue["number"],
                title=str(issue.get("title") or ""),
                state=str(issue.get("state") or "unknown"),
                merged=pull.get("merged_at") is not None,
                closes_this=number in closing_references(issue.get("body"), repo),
                url=str(issue.get("html_url") or f"https://github.com/{repo}/pull/{issue['number']}"),
            ),
        )
    return sorted(found.values(), key=lambda pr: (not pr.closes_this, not pr.merged, pr.number))


def _repo_of(issue: dict[str, Any]) -> str:
    """`owner/name` of an issue's repository: its full_name, else what follows `/repos/` in its API repository_url
    (any API host, so GitHub Enterprise too)."""
    full_name = (issue.get("repository") or {}).get("full_name")
    if isinstance(full_name, str) and full_name:
        return full_name
    _, marker, name = str(issue.get("repository_url") or "").rpartition("/repos/")
    return name if marker else ""


def closed_by_commit(timeline: list[Any], repo: str) -> str | None:
    """The commit of `repo` whose push closed the issue (the last `closed` event naming one), if any.

    A commit pushed to a fork also closes an issue it names; its `commit_url` points into the fork, and
    its sha is in no release of `repo`, so it is not taken.
    """
    commits = [
        e["commit_id"]
        for e in timeline
        if isinstance(e, dict)
        and e.get("event") == "closed"
        and isinstance(e.get("commit_id"), str)
        and _commit_repo(str(e.get("commit_url") or "")).lower() == repo.lower()
    ]
    return commits[-1] if commits else None


def _commit_repo(url: str) -> str:
    """`owner/name` in an API commit URL (`.../repos/owner/name/commits/sha`, any API host)."""
    _, marker, rest = url.rpartition("/repos/")
    name, commits, _ = rest.partition("/commits/")
    return name if marker and commits else ""


def body_excerpt(body: str | None, limit: int = EXCERPT_CHARS) -> str:
    """The opening of a body with template comments dropped and whitespace collapsed, at most `limit` chars."""
    text = " ".join(_COMMENT.sub(" ", body or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def labels(data: dict[str, Any]) -> list[str]:
    """The label names of an issue or PR as the REST API returns it."""
    return [str(label.get("name")) for label in data.get("labels") or [] if isinstance(label, dict)]


def item_url(repo: str, n: int, is_pr: bool) -> str:
    return f"https://github.com/{repo}/{'pull' if is_pr else 'issues'}/{n}"
