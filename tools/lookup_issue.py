"""`lookup_issue` and `search_issues`: vLLM issues and PRs as GitHub shows them now, checked against the knowledge base.

An agent asked "is #38652 fixed in the version I run?" needs three things GitHub's
page does not give at a glance: which PR fixed it, the first release containing
that PR, and whether "closed" meant fixed. The answer is kept short (a body excerpt,
never the thread) and says how current it is: `live`, `revalidated` (ETag 304),
`cached` (with its age, when GitHub could not be asked) or `knowledge_only`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import cache, partial
from typing import Any, Literal

from vllm_quant_mcp.knowledge.facts import KnowledgeBase, load_knowledge
from vllm_quant_mcp.knowledge.github.client import (
    Fetched,
    GitHubClient,
    GitHubNotFoundError,
    GitHubUnavailableError,
)
from vllm_quant_mcp.knowledge.github.fixes import (
    FirstRelease,
    Verdict,
    check_sha,
    first_found,
    first_release_from_git,
    first_release_from_knowledge,
    first_release_from_notes,
    fixed_in_release,
)
from vllm_quant_mcp.knowledge.github.kb import KbFact, LiveState, disagreements, facts_about
from vllm_quant_mcp.knowledge.github.links import (
    LinkedPr,
    body_excerpt,
    closed_by_commit,
    closing_references,
    linked_prs,
)
from vllm_quant_mcp.knowledge.github.settings import GitHubSettings, github_settings

from .context import ToolContext
from .issue_models import Freshness, IssueLookup, IssueRow, IssueSearch, PullInfo

__all__ = [
    "Freshness",
    "GitHubDeps",
    "IssueLookup",
    "IssueRow",
    "IssueSearch",
    "PullInfo",
    "default_github",
    "lookup_issue",
    "parse_number",
    "search_issues",
]

MAX_NUMBER = 10_000_000
MAX_CLOSING_PRS = 3
_UNFIXED = {"open", "wont_fix", "closed_unfixed", "rfc"}
_QUALIFIER = re.compile(r"(?:^|\s)-?(?:repo|org|user|owner):", re.IGNORECASE)


@dataclass(frozen=True)
class GitHubDeps:
    """The GitHub client (with its cache and settings) and the knowledge base a lookup reads."""

    client: GitHubClient
    knowledge: KnowledgeBase

    @property
    def settings(self) -> GitHubSettings:
        return self.client.config


@cache
def default_github() -> GitHubDeps:
    """The process-wide dependencies, built from the environment on first use."""
    return GitHubDeps(GitHubClient(github_settings()), load_knowledge())


def parse_number(number: int | str) -> int:
    """An issue/PR number from 38652, "38652" or "#38652"; anything else is refused with the expected form."""
    if isinstance(number, bool) or not isinstance(number, int | str):
        raise ValueError(f"Issue number {number!r} must be a positive integer such as 38652.")
    text = str(number).strip().removeprefix("#")
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_NUMBER:
        raise ValueError(f"Issue number {number!r} must be a positive integer such as 38652 (or '#38652').")
    return int(text)


def lookup_issue(
    ctx: ToolContext,
    number: int | str,
    repo: str | None = None,
    tag: str | None = None,
    github: GitHubDeps | None = None,
) -> IssueLookup:
    deps = github or default_github()
    n = parse_number(number)
    repo_name = deps.settings.check_repo(repo)
    release = ctx.tag(tag) if tag else None
    facts = facts_about(deps.knowledge, repo_name, n)
    try:
        issue = deps.client.get(f"/repos/{repo_name}/issues/{n}")
    except GitHubNotFoundError:
        raise GitHubNotFoundError(
            f"{repo_name} has no issue or PR #{n} (GitHub answered 404); check the number and the repository."
        ) from None
    except GitHubUnavailableError as exc:
        if not facts:
            raise GitHubUnavailableError(f"{exc} The knowledge base cites nothing as #{n} either.") from None
        return _knowledge_only(deps, repo_name, n, release, facts, str(exc))
    return _Lookup(deps, repo_name, n, issue).answer(release, facts)


class _Lookup:
    """One live lookup: collects the fetches it makes and the notes they leave."""

    def __init__(self, deps: GitHubDeps, repo: str, number: int, issue: Fetched) -> None:
        self.deps, self.repo, self.number, self.issue = deps, repo, number, issue
        self.data: dict[str, Any] = issue.data if isinstance(issue.data, dict) else {}
        self.notes: list[str] = list(issue.notes)

    def fetch(self, what: Callable[[], Fetched], about: str) -> Fetched | None:
        try:
            fetched = what()
        except (GitHubUnavailableError, GitHubNotFoundError) as exc:
            self.notes.append(f"{about}: {exc}")
            return None
        self.notes.extend(n for n in fetched.notes if n not in self.notes)
        return fetched

    def answer(self, release: str | None, facts: list[KbFact]) -> IssueLookup:
        is_pr = isinstance(self.data.get("pull_request"), dict)
        pull: PullInfo | None = None
        linked: list[LinkedPr] = []
        if is_pr:
            self.notes.insert(0, f"#{self.number} is a pull request, not an issue; answered as a PR.")
            pull, shas = self._pull()
            fix_prs = [self.number] if pull.merged else []
        else:
            linked, shas = self._links()
            fix_prs = [pr.number for pr in linked if pr.closes_this and pr.merged]
        first, misses = self._first_release(shas, fix_prs)
        if first.method != "git_tag_contains" and shas:
            self.notes.extend(f"first release: {m}" for m in misses)
        live = LiveState(
            number=self.number,
            is_pr=is_pr,
            state=str(self.data.get("state") or "unknown"),
            state_reason=self.data.get("state_reason"),
            merged=pull.merged if pull else None,
            fix_prs=fix_prs,
        )
        verdict = None if release is None else _verdict(release, first, live, facts)
        return IssueLookup(
            repo=self.repo,
            number=self.number,
            kind="pr" if is_pr else "issue",
            url=str(self.data.get("html_url") or _url(self.repo, self.number, is_pr)),
            title=self.data.get("title"),
            state=live.state,
            state_reason=live.state_reason,
            labels=_labels(self.data),
            created_at=self.data.get("created_at"),
            closed_at=self.data.get("closed_at"),
            author_association=self.data.get("author_association"),
            body_excerpt=body_excerpt(self.data.get("body")),
            pull=pull,
            linked_prs=linked,
            first_release=first,
            tag=release,
            fixed_in_your_release=verdict,
            knowledge=facts,
            disagreements=disagreements(live, facts, first),
            freshness=self.issue.freshness,
            age_seconds=round(self.issue.age) if self.issue.freshness == "cached" else None,
            notes=self.notes,
        )

    def _pull(self) -> tuple[PullInfo, list[str]]:
        fetched = self.fetch(lambda: self.deps.client.get(f"/repos/{self.repo}/pulls/{self.number}"), "PR details")
        data = fetched.data if fetched is not None and isinstance(fetched.data, dict) else {}
        summary = self.data.get("pull_request") or {}
        merged_at = data.get("merged_at") or summary.get("merged_at")
        merged: bool | None = None
        if "merged" in data:
            merged = bool(data["merged"])
        elif "merged_at" in summary:
            merged = merged_at is not None
        sha = data.get("merge_commit_sha") if merged else None
        pull = PullInfo(
            merged=merged,
            merged_at=merged_at,
            merge_commit_sha=sha,
            base_branch=(data.get("base") or {}).get("ref"),
            closes=closing_references(data.get("body", self.data.get("body")), self.repo),
        )
        return pull, [check_sha(sha)] if isinstance(sha, str) else []

    def _links(self) -> tuple[list[LinkedPr], list[str]]:
        path = f"/repos/{self.repo}/issues/{self.number}/timeline"
        fetched = self.fetch(lambda: self.deps.client.get_pages(path, {"per_page": 100}, max_pages=5), "timeline")
        timeline = fetched.data if fetched is not None else []
        linked = linked_prs(timeline, self.number, self.repo)
        shas = []
        for pr in [p for p in linked if p.closes_this and p.merged][:MAX_CLOSING_PRS]:
            path = f"/repos/{self.repo}/pulls/{pr.number}"
            got = self.fetch(partial(self.deps.client.get, path), f"PR #{pr.number}")
            sha = got.data.get("merge_commit_sha") if got is not None and isinstance(got.data, dict) else None
            if isinstance(sha, str):
                shas.append(check_sha(sha))
        closer = closed_by_commit(timeline)
        if closer is not None and self.data.get("state_reason") != "not_planned":
            shas.append(check_sha(closer))
        return linked, list(dict.fromkeys(shas))

    def _first_release(self, shas: list[str], fix_prs: list[int]) -> tuple[FirstRelease, list[str]]:
        def from_notes() -> FirstRelease:
            path = f"/repos/{self.repo}/releases"
            got = self.fetch(lambda: self.deps.client.get_pages(path, {"per_page": 100}), "release notes")
            if got is None:
                return FirstRelease(tag=None, method="none", detail="release notes unavailable", certain=False)
            return first_release_from_notes(got.data, fix_prs, self.repo)

        attempts: list[Callable[[], FirstRelease]] = []
        if shas:
            attempts.append(lambda: first_release_from_git(self.deps.settings.git_repo_dir, shas))
        if fix_prs:
            attempts.append(from_notes)
        numbers = [self.number, *fix_prs]
        attempts.append(lambda: first_release_from_knowledge(self.deps.knowledge, self.repo, numbers))
        return first_found(attempts)


def _knowledge_only(
    deps: GitHubDeps, repo: str, n: int, release: str | None, facts: list[KbFact], why: str
) -> IssueLookup:
    first = first_release_from_knowledge(deps.knowledge, repo, [n])
    is_pr = all(f.cited_as == "pr" for f in facts)
    verdict = None
    if release is not None:
        verdict = fixed_in_release(release, first)
        if first.tag is None and facts and all(f.status in _UNFIXED for f in facts if f.status):
            verdict = "no" if any(f.status for f in facts) else "unknown"
    return IssueLookup(
        repo=repo,
        number=n,
        kind="pr" if is_pr else "issue",
        url=_url(repo, n, is_pr),
        title=None,
        state=None,
        state_reason=None,
        labels=[],
        created_at=None,
        closed_at=None,
        author_association=None,
        body_excerpt=None,
        pull=None,
        linked_prs=[],
        first_release=first,
        tag=release,
        fixed_in_your_release=verdict,
        knowledge=facts,
        disagreements=[],
        freshness="knowledge_only",
        age_seconds=None,
        notes=[f"{why} Answered from the knowledge base only; GitHub's live state is unknown."],
    )


def _verdict(release: str, first: FirstRelease, live: LiveState, facts: list[KbFact]) -> Verdict:
    if live.is_pr and live.merged is False:
        return "no"
    verdict = fixed_in_release(release, first)
    statuses = [f.status for f in facts if f.status]
    if verdict == "unknown" and not live.fix_prs and statuses and all(s in _UNFIXED for s in statuses):
        return "no"
    return verdict


def _labels(data: dict[str, Any]) -> list[str]:
    return [str(label.get("name")) for label in data.get("labels") or [] if isinstance(label, dict)]


def _url(repo: str, n: int, is_pr: bool) -> str:
    return f"https://github.com/{repo}/{'pull' if is_pr else 'issues'}/{n}"


def search_issues(
    ctx: ToolContext,
    query: str,
    state: Literal["open", "closed"] | None = None,
    label: str | None = None,
    since: str | None = None,
    repo: str | None = None,
    limit: int = 20,
    github: GitHubDeps | None = None,
) -> IssueSearch:
    """GitHub's issue search in one allowed repository; `since` (YYYY-MM-DD) filters on creation date."""
    deps = github or default_github()
    repo_name = deps.settings.check_repo(repo)
    q = f"repo:{repo_name} {_search_terms(query)}"
    if state is not None:
        if state not in ("open", "closed"):
            raise ValueError(f"state {state!r} must be 'open' or 'closed' (or omitted for both).")
        q += f" state:{state}"
    if label is not None:
        if not label.strip() or len(label) > 100 or any(c in label for c in '"\\') or not label.isprintable():
            raise ValueError(f"label {label!r} must be a plain label name such as 'quantization'.")
        q += f' label:"{label.strip()}"'
    if since is not None:
        try:
            day = date.fromisoformat(since.strip())
        except ValueError:
            raise ValueError(f"since {since!r} must be a date such as 2025-06-01.") from None
        q += f" created:>={day.isoformat()}"
    if not 1 <= limit <= 100:
        raise ValueError(f"limit {limit} must be between 1 and 100.")
    fetched = deps.client.get("/search/issues", {"q": q, "per_page": limit})
    data = fetched.data if isinstance(fetched.data, dict) else {}
    notes = list(fetched.notes)
    if data.get("incomplete_results"):
        notes.append("GitHub's search timed out on its side; the results may be incomplete.")
    rows = [_row(deps.knowledge, repo_name, item) for item in data.get("items") or [] if isinstance(item, dict)]
    return IssueSearch(
        repo=repo_name,
        query=q,
        total_count=int(data.get("total_count") or 0),
        rows=rows,
        freshness=fetched.freshness,
        age_seconds=round(fetched.age) if fetched.freshness == "cached" else None,
        notes=notes,
    )


def _search_terms(query: str) -> str:
    text = " ".join(query.split())
    if not text or len(text) > 256 or not text.isprintable():
        raise ValueError(f"query {query!r} must be 1-256 printable characters, e.g. 'fp8 kv cache mla'.")
    if _QUALIFIER.search(text):
        raise ValueError(
            f"query {query!r} names a repo:/org:/user: qualifier; pass repo=... instead (allowed repositories only)."
        )
    return text


def _row(knowledge: KnowledgeBase, repo: str, item: dict[str, Any]) -> IssueRow:
    number = int(item.get("number") or 0)
    is_pr = isinstance(item.get("pull_request"), dict)
    return IssueRow(
        number=number,
        kind="pr" if is_pr else "issue",
        title=str(item.get("title") or ""),
        state=str(item.get("state") or "unknown"),
        state_reason=item.get("state_reason"),
        labels=_labels(item),
        created_at=item.get("created_at"),
        closed_at=item.get("closed_at"),
        url=str(item.get("html_url") or _url(repo, number, is_pr)),
        knowledge=[f.id for f in facts_about(knowledge, repo, number)],
    )
