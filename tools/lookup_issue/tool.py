"""`lookup_issue` and `search_issues`: vLLM issues and PRs as GitHub shows them now, checked against the knowledge base.

An agent asked "is #38652 fixed in the version I run?" needs three things GitHub's
page does not give at a glance: which PR fixed it, the first release containing
that PR, and whether "closed" meant fixed. The answer is kept short (a body excerpt,
never the thread) and says how current it is: `live`, `revalidated` (ETag 304),
`cached` (with its age, when GitHub could not be asked) or `knowledge_only`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from vllm_quant_mcp.knowledge.github.client import (
    Fetched,
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
    item_url,
    labels,
    linked_prs,
)
from vllm_quant_mcp.knowledge.github.service import GitHubDeps, default_github
from vllm_quant_mcp.tools.context import ToolContext

from .models import IssueLookup, LookupIssueQuery, PullInfo

__all__ = ["lookup_issue"]

MAX_CLOSING_PRS = 3
_UNFIXED = {"open", "wont_fix", "closed_unfixed", "rfc"}


def lookup_issue(ctx: ToolContext, query: LookupIssueQuery, github: GitHubDeps | None = None) -> IssueLookup:
    number, repo, tag = query.number, query.repo, query.tag
    deps = github or default_github()
    n = number
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
            url=str(self.data.get("html_url") or item_url(self.repo, self.number, is_pr)),
            title=self.data.get("title"),
            state=live.state,
            state_reason=live.state_reason,
            labels=labels(self.data),
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
        url=item_url(repo, n, is_pr),
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
