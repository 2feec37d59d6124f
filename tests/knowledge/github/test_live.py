"""What the live state settles before any release is looked for, from GitHub's JSON alone."""

from __future__ import annotations

from typing import Any

from vllm_quant_mcp.knowledge.github.fixes import FixPlacement
from vllm_quant_mcp.knowledge.github.live import Fix, MergedPr, fix_of_issue, fix_of_pr, settled_by_state

TEST_MERGE = "6caa3a586789ef4950681699eb770642a58355b1"
MERGED = "7d98953f3abebe75fe6dfef215bdd1800bba71be"


def pull(number: int, merged: bool, **fields: Any) -> MergedPr:
    data = {"merged": merged, "merged_at": "2026-01-04T00:00:00Z" if merged else None,
            "merge_commit_sha": MERGED if merged else TEST_MERGE, "base": {"ref": "main"}} | fields  # fmt: skip
    return MergedPr.of(number, data)


def test_an_open_prs_test_merge_is_never_the_fix_and_it_is_in_no_release() -> None:
    outcome = fix_of_pr(1009, "open", pull(1009, merged=False), None)
    assert isinstance(outcome, FixPlacement)
    assert (outcome.first.released, outcome.first.fix_commit, outcome.verdict("v0.22.0")) == ("no", None, "no")
    assert "test merge, never a fix" in outcome.first.detail
    closed = fix_of_pr(1012, "closed", pull(1012, merged=False), None)
    assert isinstance(closed, FixPlacement) and "was closed without merging" in closed.first.detail


def test_a_merged_pr_is_proven_by_its_merge_commit_and_its_base_branch() -> None:
    outcome = fix_of_pr(1007, "closed", pull(1007, merged=True, base={"ref": "releases/v0.19.0"}), None)
    assert outcome == Fix(MERGED, 1007, "releases/v0.19.0", "2026-01-04T00:00:00Z", "merge commit of PR #1007")


def test_a_merged_pr_github_could_not_detail_is_looked_for_by_its_number() -> None:
    assert fix_of_pr(1001, "closed", None, "2026-01-04T00:00:00Z") == Fix(
        None, 1001, None, "2026-01-04T00:00:00Z", "PR #1001 (merged; its merge commit unavailable)"
    )


def issue(state: str, reason: str | None = None) -> dict[str, Any]:
    return {"state": state, "state_reason": reason, "closed_at": "2026-01-05T00:00:00Z" if state == "closed" else None}


def test_an_open_issue_is_in_no_release_even_with_a_merged_pr_into_a_release_branch() -> None:
    merged = pull(1007, merged=True, base={"ref": "releases/v0.19.0"})
    outcome = fix_of_issue(2001, issue("open"), [merged], [], None)
    assert isinstance(outcome, FixPlacement) and outcome.verdict("v0.19.2") == "no"
    assert outcome.first.detail == (
        "issue #2001 is open: not fixed in any release; merged closing PRs #1007 (into releases/v0.19.0) "
        "did not close it"
    )


def test_closed_as_not_planned_is_not_fixed() -> None:
    outcome = fix_of_issue(2009, issue("closed", "not_planned"), [], [], MERGED)
    assert isinstance(outcome, FixPlacement)
    assert (outcome.first.released, outcome.first.detail) == ("no", "issue #2009 was closed as not planned: not fixed")


def test_closed_with_nothing_merged_that_closes_it_has_no_provable_release_and_says_why() -> None:
    outcome = fix_of_issue(2011, issue("closed", "completed"), [], [1011, 1012, 1013], None)
    assert isinstance(outcome, FixPlacement) and outcome.first.released == "unknown"
    assert outcome.first.detail == (
        "issue #2011 was closed (completed) but linked PRs #1011, #1012, #1013 not merged and no commit of this "
        "repository closed it: no release can be proven"
    )


def test_of_several_merged_closing_prs_the_last_merged_before_the_close_is_the_fix() -> None:
    early = pull(1001, merged=True, merged_at="2026-01-01T00:00:00Z")
    last = MergedPr(1002, True, "2026-01-04T00:00:00Z", "b" * 40, "main")
    after = MergedPr(1003, True, "2026-02-01T00:00:00Z", "c" * 40, "main")
    outcome = fix_of_issue(2002, issue("closed", "completed"), [early, after, last], [], None)
    assert isinstance(outcome, Fix) and (outcome.sha, outcome.pr) == ("b" * 40, 1002)
    assert outcome.why == "merge commit of closing PR #1002 (also merged: #1003, #1001)"


def test_a_closing_commit_is_the_fix_when_no_pr_closed_the_issue() -> None:
    outcome = fix_of_issue(2012, issue("closed", "completed"), [], [], MERGED.upper())
    assert outcome == Fix(MERGED, None, None, None, f"commit {MERGED[:12]} that closed issue #2012")


def test_a_search_row_is_settled_by_its_own_state_or_left_to_proof() -> None:
    open_pr = settled_by_state(7, {"state": "open", "pull_request": {"merged_at": None}})
    merged_pr = settled_by_state(8, {"state": "closed", "pull_request": {"merged_at": "2026-01-04T00:00:00Z"}})
    open_issue = settled_by_state(9, {"state": "open"})
    not_planned = settled_by_state(10, {"state": "closed", "state_reason": "not_planned"})
    completed = settled_by_state(11, {"state": "closed", "state_reason": "completed"})
    assert [f and f.first.released for f in (open_pr, merged_pr, open_issue, not_planned, completed)] == [
        "no", None, "no", "no", None,
    ]  # fmt: skip
