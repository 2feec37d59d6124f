"""`lookup_issue`: a vLLM issue or PR as GitHub shows it now, the release that provably holds its fix.

An agent asked "is #38652 fixed in the version I run?" needs three things GitHub's
page does not give at a glance: which PR fixed it, the first release containing
that PR, and whether "closed" meant fixed. The live state decides first (an open
issue or unmerged PR is in no release, whatever a curated fact says), then the fix
commit is proven against every release tag (knowledge/github/prover.py), and only
then may the knowledge base speak, marked curated and unverified. The whole lookup
runs under one deadline. The answer is kept short (a body excerpt, never the
thread) and says how current it is: `live`, `revalidated` (ETag 304), `cached`
(with its age, when GitHub could not be asked) or `knowledge_only`.
"""

from __future__ import annotations

from typing import Any

from vllm_quant_mcp.knowledge.github.answers import Verdict
from vllm_quant_mcp.knowledge.github.client import Fetched, GitHubNotFoundError, GitHubUnavailableError
from vllm_quant_mcp.knowledge.github.deadline import Deadline
from vllm_quant_mcp.knowledge.github.fixes import FixPlacement, no_release
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
from vllm_quant_mcp.knowledge.github.live import Fix, MergedPr, fix_of_issue, fix_of_pr
from vllm_quant_mcp.knowledge.github.prover import Prover
from vllm_quant_mcp.tools.context import ToolContext

from .models import IssueLookup, LookupIssueQuery, PullInfo

__all__ = ["lookup_issue"]

MAX_CLOSING_PRS = 3


def lookup_issue(ctx: ToolContext, query: LookupIssueQuery) -> IssueLookup:
    n = query.number
    deps = ctx.github
    repo = deps.settings.check_repo(query.repo)
    release = ctx.tag(query.tag) if query.tag else None
    facts = facts_about(deps.knowledge, repo, n)
    deadline = Deadline(deps.settings.deadline)
    prover = Prover(deps, repo, deadline, ctx.store.known_tags())
    try:
        issue = deps.client.get(f"/repos/{repo}/issues/{n}", deadline=deadline)
    except GitHubNotFoundError:
        raise GitHubNotFoundError(
            f"{repo} has no issue or PR #{n} (GitHub answered 404); check the number and the repository."
        ) from None
    except GitHubUnavailableError as exc:
        if not facts:
            raise GitHubUnavailableError(f"{exc} The knowledge base cites nothing as #{n} either.") from None
        return _knowledge_only(prover, n, release, facts, str(exc))
    return _Lookup(prover, n, issue).answer(release, facts)


class _Lookup:
    """One live lookup: the item, the fetches it makes (through the prover, which keeps their notes)."""

    def __init__(self, prover: Prover, number: int, issue: Fetched) -> None:
        self.prover, self.number, self.issue = prover, number, issue
        self.repo, self.client, self.deadline = prover.repo, prover.deps.client, prover.deadline
        self.data: dict[str, Any] = issue.data if isinstance(issue.data, dict) else {}
        prover.notes.extend(issue.notes)

    def get(self, path: str, about: str) -> dict[str, Any] | None:
        got = self.prover.fetch(lambda: self.client.get(path, deadline=self.deadline), about)
        return got.data if got is not None and isinstance(got.data, dict) else None

    def answer(self, release: str | None, facts: list[KbFact]) -> IssueLookup:
        is_pr = isinstance(self.data.get("pull_request"), dict)
        pull: PullInfo | None = None
        linked: list[LinkedPr] = []
        if is_pr:
            self.prover.notes.insert(0, f"#{self.number} is a pull request, not an issue; answered as a PR.")
            pull, outcome = self._pull()
            fix_prs = [self.number] if pull.merged else []
        else:
            linked, outcome, fix_prs = self._issue()
        finding = self.prover.prove(outcome) if isinstance(outcome, Fix) else outcome
        finding = self._curated_last(finding, fix_prs)
        live = LiveState(
            number=self.number,
            is_pr=is_pr,
            state=str(self.data.get("state") or "unknown"),
            state_reason=self.data.get("state_reason"),
            merged=pull.merged if pull else None,
            fix_prs=fix_prs,
        )
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
            first_release=finding.first,
            tag=release,
            fixed_in_your_release=None if release is None else _verdict(self.prover, finding, release),
            knowledge=facts,
            disagreements=disagreements(live, facts, finding.first),
            freshness=self.issue.freshness,
            age_seconds=round(self.issue.age) if self.issue.freshness == "cached" else None,
            notes=list(dict.fromkeys(self.prover.notes)),
        )

    def _curated_last(self, finding: FixPlacement, fix_prs: list[int]) -> FixPlacement:
        """The knowledge base, only where neither the live state nor a proof settled it."""
        if finding.first.tag is not None or finding.first.released == "no":
            return finding
        curated = self.prover.curated([self.number, *fix_prs])
        if curated is None:
            return finding
        detail = f"{curated.first.detail}; not proven: {finding.first.detail}"
        return FixPlacement(curated.first.model_copy(update={"detail": detail}))

    def _pull(self) -> tuple[PullInfo, Fix | FixPlacement]:
        data = self.get(f"/repos/{self.repo}/pulls/{self.number}", "PR details")
        summary = self.data.get("pull_request") or {}
        merged = None if data is None else MergedPr.of(self.number, data)
        outcome = fix_of_pr(self.number, str(self.data.get("state")), merged, summary.get("merged_at"))
        pull = PullInfo(
            merged=merged.merged if merged is not None else None,
            merged_at=merged.merged_at if merged is not None else summary.get("merged_at"),
            merge_commit_sha=merged.sha if merged is not None else None,
            base_branch=merged.branch if merged is not None else None,
            closes=closing_references((data or {}).get("body", self.data.get("body")), self.repo),
        )
        return pull, outcome

    def _issue(self) -> tuple[list[LinkedPr], Fix | FixPlacement, list[int]]:
        path = f"/repos/{self.repo}/issues/{self.number}/timeline"
        fetched = self.prover.fetch(
            lambda: self.client.get_pages(path, {"per_page": 100}, max_pages=5, deadline=self.deadline), "timeline"
        )
        timeline = fetched.data if fetched is not None else []
        linked = linked_prs(timeline, self.number, self.repo)
        closing = [p for p in linked if p.closes_this]
        confirmed = [self._confirm(p) for p in [p for p in closing if p.merged][:MAX_CLOSING_PRS]]
        unmerged = [p.number for p in closing if not p.merged]
        unmerged += [m.number for m in confirmed if not m.merged]
        fix_prs = [m.number for m in confirmed if m.merged]
        if fetched is None and self.data.get("state") == "closed":
            return linked, no_release(f"issue #{self.number} is closed; its timeline could not be read", "unknown"), []
        closer = closed_by_commit(timeline, self.repo)
        return linked, fix_of_issue(self.number, self.data, confirmed, unmerged, closer), fix_prs

    def _confirm(self, pr: LinkedPr) -> MergedPr:
        """A closing PR the timeline calls merged, as /pulls/N has it (the timeline's summary is not enough)."""
        data = self.get(f"/repos/{self.repo}/pulls/{pr.number}", f"PR #{pr.number}")
        if data is None:
            return MergedPr(number=pr.number, merged=True, merged_at=None, sha=None, branch=None)
        return MergedPr.of(pr.number, data)


def _verdict(prover: Prover, finding: FixPlacement, release: str) -> Verdict:
    """The evidence's verdict for `release`; a release that is not a tag of the repository gets none."""
    verdict = finding.verdict(release)
    if verdict != "no" and release not in prover.known_tags():
        prover.notes.append(f"{release} is not a known tag of {prover.repo}; whether it has the fix is unknown.")
        return "unknown"
    return verdict


def _knowledge_only(prover: Prover, n: int, release: str | None, facts: list[KbFact], why: str) -> IssueLookup:
    repo = prover.repo
    finding = prover.curated([n]) or no_release(
        "GitHub could not be asked and no curated fact gives a release", "unknown"
    )
    is_pr = all(f.cited_as == "pr" for f in facts)
    verdict = None if release is None else _verdict(prover, finding, release)
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
        first_release=finding.first,
        tag=release,
        fixed_in_your_release=verdict,
        knowledge=facts,
        disagreements=[],
        freshness="knowledge_only",
        age_seconds=None,
        notes=[f"{why} Answered from the knowledge base only; GitHub's live state is unknown.", *prover.notes],
    )
