"""Which PRs close an issue, read from PR bodies and issue timelines as GitHub shapes them."""

from __future__ import annotations

from typing import Any

from vllm_quant_mcp.knowledge.github.links import body_excerpt, closed_by_commit, closing_references, linked_prs

REPO = "vllm-project/vllm"


def test_closing_keywords_in_every_form_github_reads_are_found_in_order() -> None:
    body = (
        "Fixes #10. Also closes vllm-project/vllm#11, resolves: https://github.com/vllm-project/vllm/issues/12 "
        "and FIXED #10 again."
    )
    assert closing_references(body, REPO) == [10, 11, 12]


def test_mentions_without_a_keyword_other_repositories_and_template_comments_do_not_close() -> None:
    body = (
        "Related to #20. <!-- Fixes #21 (template example) --> fixes octo/other#22, see prefixes #23, "
        "fixes https://github.com/octo/other/issues/24, fix#25"
    )
    assert closing_references(body, REPO) == []


def cross_ref(number: int, body: str, merged: bool, repo: str = REPO) -> dict[str, Any]:
    pull = {"merged_at": "2025-02-03T04:05:06Z" if merged else None}
    issue = {
        "number": number,
        "title": f"PR {number}",
        "state": "closed" if merged else "open",
        "body": body,
        "pull_request": pull,
        "html_url": f"https://github.com/{repo}/pull/{number}",
        "repository": {"full_name": repo},
    }
    return {"event": "cross-referenced", "source": {"type": "issue", "issue": issue}}


def test_linked_prs_put_merged_closing_prs_first_and_skip_issues_and_other_repositories() -> None:
    timeline = [
        {"event": "labeled", "label": {"name": "bug"}},
        cross_ref(31, "see #5", merged=False),
        cross_ref(30, "Fixes #5", merged=True),
        cross_ref(32, "Closes #5", merged=False),
        cross_ref(33, "Fixes #5", merged=True, repo="octo/fork"),
        {"event": "cross-referenced", "source": {"type": "issue", "issue": {"number": 34, "title": "an issue"}}},
        cross_ref(30, "Fixes #5", merged=True),
    ]
    rows = [(p.number, p.merged, p.closes_this) for p in linked_prs(timeline, 5, REPO)]
    assert rows == [(30, True, True), (32, False, True), (31, False, False)]


def closed(sha: str | None, repo: str = REPO) -> dict[str, Any]:
    url = f"https://api.github.com/repos/{repo}/commits/{sha}" if sha else None
    return {"event": "closed", "commit_id": sha, "commit_url": url}


def test_the_commit_that_closed_an_issue_is_the_last_closed_event_naming_one() -> None:
    timeline = [
        closed("a" * 40),
        {"event": "reopened"},
        {"event": "referenced", "commit_id": "c" * 40, "commit_url": f"https://api.github.com/repos/{REPO}/commits/c"},
        closed("b" * 40),
    ]
    assert closed_by_commit(timeline, REPO) == "b" * 40
    assert closed_by_commit([closed(None)], REPO) is None


def test_a_commit_pushed_to_a_fork_that_closed_the_issue_is_not_the_repositorys_fix() -> None:
    assert closed_by_commit([closed("a" * 40), closed("b" * 40, repo="someone/vllm")], REPO) == "a" * 40
    assert closed_by_commit([closed("b" * 40, repo="someone/vllm")], REPO) is None
    assert closed_by_commit([{"event": "closed", "commit_id": "d" * 40, "commit_url": None}], REPO) is None


def test_a_body_excerpt_drops_template_comments_collapses_space_and_stops_at_500_chars() -> None:
    body = "<!-- Thanks for filing -->\n### Your current environment\n\n" + "word " * 200
    excerpt = body_excerpt(body)
    assert excerpt.startswith("### Your current environment word word")
    assert len(excerpt) <= 500 and excerpt.endswith("word…")
    assert body_excerpt(None) == ""


def test_a_repository_whose_name_merely_ends_with_the_wanted_one_is_not_linked() -> None:
    lookalike = cross_ref(40, "Fixes #5", merged=True, repo="xvllm-project/vllm")
    by_api_url = cross_ref(41, "Fixes #5", merged=True)
    del by_api_url["source"]["issue"]["repository"]
    by_api_url["source"]["issue"]["repository_url"] = f"https://api.github.com/repos/{REPO}"
    lookalike_url = cross_ref(42, "Fixes #5", merged=True)
    del lookalike_url["source"]["issue"]["repository"]
    lookalike_url["source"]["issue"]["repository_url"] = "https://api.github.com/repos/xvllm-project/vllm"
    assert [p.number for p in linked_prs([lookalike, by_api_url, lookalike_url], 5, REPO)] == [41]
