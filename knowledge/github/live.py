"""What GitHub's live state allows, before any release is looked for: the fix to prove, or why there is none.

Live state comes first and can end the question: an open issue or an unmerged PR is in no
release whatever a curated fact says; an issue closed as not planned was not fixed; an
issue closed as completed with no merged PR closing it and no closing commit has nothing
to prove. An open PR's `merge_commit_sha` is GitHub's test merge (refs/pull/N/merge), and
a closed unmerged PR keeps a stale one: neither is ever looked for. Pure functions over
GitHub's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .fixes import FixPlacement, check_sha, no_release

__all__ = ["Fix", "MergedPr", "fix_of_issue", "fix_of_pr", "settled_by_state"]

_NOT_FIXED = {"not_planned": "closed as not planned", "duplicate": "closed as a duplicate"}


@dataclass(frozen=True)
class Fix:
    """The commit that must be in a release for the fix to be, and the PR whose number marks its picks."""

    sha: str | None
    pr: int | None
    branch: str | None
    merged_at: str | None
    why: str  # where the commit came from, for the answer's detail


@dataclass(frozen=True)
class MergedPr:
    """A PR as GET /pulls/N confirms it (`merged` from that endpoint, not the timeline's summary)."""

    number: int
    merged: bool
    merged_at: str | None
    sha: str | None
    branch: str | None

    @staticmethod
    def of(number: int, data: dict[str, Any]) -> MergedPr:
        merged = data.get("merged") is True
        sha = data.get("merge_commit_sha") if merged else None
        return MergedPr(
            number=number,
            merged=merged,
            merged_at=data.get("merged_at") if merged else None,
            sha=check_sha(sha) if isinstance(sha, str) else None,
            branch=(data.get("base") or {}).get("ref"),
        )


def fix_of_pr(number: int, state: str, pull: MergedPr | None, merged_at_summary: str | None) -> Fix | FixPlacement:
    """A PR: merged → its merge commit; open or closed unmerged → in no release."""
    if pull is not None and pull.merged:
        return Fix(pull.sha, number, pull.branch, pull.merged_at, f"merge commit of PR #{number}")
    if pull is None and merged_at_summary is not None:
        return Fix(None, number, None, merged_at_summary, f"PR #{number} (merged; its merge commit unavailable)")
    if pull is None:
        return no_release(f"PR #{number}: GitHub could not say whether it was merged", "unknown")
    how = "is open" if state == "open" else "was closed without merging"
    return no_release(
        f"PR #{number} {how}: no release holds it (its merge_commit_sha is GitHub's test merge, never a fix)",
        "no",
        certain=True,
    )


def fix_of_issue(
    number: int,
    data: dict[str, Any],
    closing: list[MergedPr],
    unmerged: list[int],
    closer: str | None,
) -> Fix | FixPlacement:
    """An issue: open or not planned → in no release; closed → the last merged closing PR or the closing commit.

    `closing`: PRs whose body closes the issue, as /pulls confirmed them; `unmerged`: closing PRs not
    merged; `closer`: a same-repository commit whose push closed the issue.
    """
    state, reason = str(data.get("state") or "unknown"), data.get("state_reason")
    merged = [p for p in closing if p.merged]
    if state == "open":
        also = ""
        if merged:
            also = (
                "; merged closing PRs "
                + ", ".join(f"#{p.number} (into {p.branch})" for p in merged)
                + " did not close it"
            )
        return no_release(f"issue #{number} is open: not fixed in any release{also}", "no", certain=True)
    if reason in _NOT_FIXED:
        return no_release(f"issue #{number} was {_NOT_FIXED[str(reason)]}: not fixed", "no", certain=True)
    when = str(data.get("closed_at") or "")
    merged.sort(key=lambda p: (not when or (p.merged_at or "") <= when, p.merged_at or ""))
    if merged:
        last = merged[-1]
        others = [f"#{p.number}" for p in merged[:-1]]
        extra = f" (also merged: {', '.join(others)})" if others else ""
        return Fix(
            last.sha, last.number, last.branch, last.merged_at, f"merge commit of closing PR #{last.number}{extra}"
        )
    if closer is not None:
        sha = check_sha(closer)
        return Fix(sha, None, None, None, f"commit {sha[:12]} that closed issue #{number}")
    linked = ", ".join(f"#{n}" for n in unmerged)
    why = f"linked PRs {linked} not merged" if linked else "no PR closes it"
    return no_release(
        f"issue #{number} was closed ({reason or 'no reason given'}) but {why} and no commit of this repository "
        "closed it: no release can be proven",
        "unknown",
    )


def settled_by_state(number: int, data: dict[str, Any]) -> FixPlacement | None:
    """What an issue or PR's own JSON (a search row) settles: open, unmerged or not planned is in no release."""
    state, reason = str(data.get("state") or "unknown"), data.get("state_reason")
    pull = data.get("pull_request")
    if isinstance(pull, dict):
        if pull.get("merged_at") is not None:
            return None
        how = "is open" if state == "open" else "was closed without merging"
        return no_release(f"PR #{number} {how}: no release holds it", "no", certain=True)
    if state == "open":
        return no_release(f"issue #{number} is open: not fixed in any release", "no", certain=True)
    if reason in _NOT_FIXED:
        return no_release(f"issue #{number} was {_NOT_FIXED[str(reason)]}: not fixed", "no", certain=True)
    return None
