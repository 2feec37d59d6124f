"""lookup_issue and search_issues against a local GitHub-shaped server and the real KB, with no git remote reachable.

Without git, a merged fix is placed by the release notes at most; the proofs from a real
git history are in test_scenarios.py.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.clock import START, Clock
from support.githubapi import GitHubApi, issue_json, pull_json
from support.issue_world import cross_ref
from support.kb_citing import citing

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase, load_knowledge
from vllm_quant_mcp.knowledge.github.client import GitHubClient, GitHubNotFoundError, GitHubUnavailableError
from vllm_quant_mcp.knowledge.github.service import GitHubDeps
from vllm_quant_mcp.knowledge.github.settings import GitHubSettings, RepoNotAllowedError
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.lookup_issue.models import IssueLookup, LookupIssueQuery
from vllm_quant_mcp.tools.lookup_issue.tool import lookup_issue as run_lookup
from vllm_quant_mcp.tools.search_issues.models import IssueSearch, SearchIssuesQuery
from vllm_quant_mcp.tools.search_issues.tool import search_issues as run_search

REPO = "vllm-project/vllm"
TOKEN = "ghp_SENTINEL0123456789abcdefSENTINEL"
FIX = "7d98953f3abebe75fe6dfef215bdd1800bba71be"


def lookup_issue(ctx: ToolContext, number: Any, github: GitHubDeps, **options: Any) -> IssueLookup:
    return run_lookup(replace(ctx, make_github=lambda _kb: github), LookupIssueQuery(number=number, **options))


def search_issues(ctx: ToolContext, query: str, github: GitHubDeps, **options: Any) -> IssueSearch:
    return run_search(replace(ctx, make_github=lambda _kb: github), SearchIssuesQuery(query=query, **options))


def serve_world(api: GitHubApi) -> None:
    """Issue 10, fixed by merged PR 12 (whose notes name it in v0.2.0), mentioned by open PR 13; tags v0.1-v0.3."""
    api.issues[10] = issue_json(
        REPO,
        10,
        title="FP8 scales wrong",
        state="closed",
        state_reason="completed",
        closed_at="2025-02-03T05:00:00Z",
        labels=[{"name": "bug"}, {"name": "quantization"}],
        author_association="CONTRIBUTOR",
        body="<!-- template -->\n### Describe the bug\n" + "garbage tokens " * 60,
    )
    api.timelines[10] = [
        {"event": "labeled", "label": {"name": "bug"}},
        cross_ref(13, "Related: #10", None, "open"),
        cross_ref(12, "Fixes #10", "2025-02-03T04:05:06Z", "closed"),
        {"event": "closed", "commit_id": None},
    ]
    api.issues[12] = issue_json(REPO, 12, title="Fix FP8 scales", state="closed", body="Fixes #10 and closes #11")
    api.issues[12]["pull_request"] = {"merged_at": "2025-02-03T04:05:06Z"}
    api.pulls[12] = pull_json(REPO, 12, FIX, body="Fixes #10 and closes #11")
    api.releases = [
        {"tag_name": "v0.3.0", "body": "* Other change in https://github.com/vllm-project/vllm/pull/120"},
        {"tag_name": "v0.2.0", "body": "* Fix FP8 scales by @a in https://github.com/vllm-project/vllm/pull/12"},
        {"tag_name": "v0.1.0", "body": "First release"},
    ]
    api.tags = [{"name": t, "commit": {"sha": "0" * 40}} for t in ("v0.3.0", "v0.2.0", "v0.1.0", "nightly")]


@pytest.fixture
def api() -> Iterator[GitHubApi]:
    with GitHubApi(page_size=2) as server:
        serve_world(server)
        yield server


def make_deps(
    api_url: str, cache_root: Path, clock: Clock | None = None, knowledge: KnowledgeBase | None = None, **env: str
) -> GitHubDeps:
    """The lookup's dependencies with no git history (the remote unreachable): compare and notes only."""
    config = GitHubSettings.from_env({"VLLM_QUANT_MCP_GITHUB_API": api_url, **env}, cache_root)
    client = GitHubClient(config.model_copy(update={"timeout": 0.5}), clock=clock or Clock())
    return GitHubDeps(client, knowledge or load_knowledge(), None)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(Store(tmp_path / "store"), "v0.3.0")


@pytest.mark.parametrize(
    ("tag", "verdict"), [("v0.1.0", "unknown"), ("v0.2.0", "yes"), ("0.3.0", "unknown"), (None, None)]
)
def test_without_git_a_merged_fix_is_placed_by_the_release_notes_which_answer_only_for_the_releases_they_name(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path, tag: str | None, verdict: str | None
) -> None:
    answer = lookup_issue(ctx, 10, tag=tag, github=make_deps(api.base_url, tmp_path))
    assert (answer.kind, answer.title, answer.state, answer.state_reason) == (
        "issue",
        "FP8 scales wrong",
        "closed",
        "completed",
    )
    assert (answer.labels, answer.author_association) == (["bug", "quantization"], "CONTRIBUTOR")
    assert answer.body_excerpt is not None and answer.body_excerpt.startswith("### Describe the bug garbage tokens")
    assert len(answer.body_excerpt) <= 500
    assert [(p.number, p.merged, p.closes_this) for p in answer.linked_prs] == [(12, True, True), (13, False, False)]
    first = answer.first_release
    assert (first.tag, first.method, first.basis, first.certain) == ("v0.2.0", "release_notes", "release_notes", False)
    assert (answer.tag, answer.fixed_in_your_release) == (tag if tag is None else "v" + tag.lstrip("v"), verdict)
    assert (answer.freshness, answer.knowledge, answer.disagreements) == ("live", [], [])
    assert answer.notes[0] == (
        f"compare v0.2.0...{FIX[:12]}: GitHub has nothing at /repos/{REPO}/compare/v0.2.0...{FIX} (HTTP 404)."
    )


def test_a_pr_number_asked_as_an_issue_is_answered_as_a_pr(api: GitHubApi, ctx: ToolContext, tmp_path: Path) -> None:
    answer = lookup_issue(ctx, 12, tag="v0.2.0", github=make_deps(api.base_url, tmp_path))
    assert answer.kind == "pr"
    assert answer.notes[0] == "#12 is a pull request, not an issue; answered as a PR."
    assert answer.pull is not None
    assert (answer.pull.merged, answer.pull.base_branch, answer.pull.closes) == (True, "main", [10, 11])
    assert answer.pull.merge_commit_sha == FIX
    assert (answer.first_release.tag, answer.first_release.method, answer.fixed_in_your_release) == (
        "v0.2.0",
        "release_notes",
        "yes",
    )


def test_an_unmerged_pr_is_in_no_release_and_its_stale_test_merge_is_never_looked_for(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path
) -> None:
    api.issues[14] = issue_json(REPO, 14, state="closed", pull_request={"merged_at": None})
    api.pulls[14] = pull_json(REPO, 14, None, state="closed") | {"merge_commit_sha": "6caa3a58" * 5}
    answer = lookup_issue(ctx, 14, tag="v0.3.0", github=make_deps(api.base_url, tmp_path))
    assert (answer.pull and answer.pull.merged, answer.pull and answer.pull.merge_commit_sha) == (False, None)
    first = answer.first_release
    assert (first.tag, first.released, first.certain, answer.fixed_in_your_release) == (None, "no", True, "no")
    assert first.detail == (
        "PR #14 was closed without merging: no release holds it (its merge_commit_sha is GitHub's test merge, "
        "never a fix)"
    )
    assert api.paths() == [f"/repos/{REPO}/issues/14", f"/repos/{REPO}/pulls/14"]


def test_a_stale_closed_issue_the_knowledge_base_calls_unfixed_is_flagged_closed_is_not_fixed(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path
) -> None:
    api.issues[39407] = issue_json(REPO, 39407, state="closed", state_reason="not_planned")
    api.timelines[39407] = [{"event": "closed", "commit_id": None}]
    answer = lookup_issue(ctx, 39407, tag="v0.3.0", github=make_deps(api.base_url, tmp_path))
    assert [(f.id, f.status) for f in answer.knowledge] == [("pain-gemma4-fp8-block", "closed_unfixed")]
    assert answer.disagreements == [
        "GitHub shows #39407 closed (not_planned) but pain-gemma4-fp8-block records it closed_unfixed: "
        "closed is not fixed."
    ]
    assert (answer.first_release.detail, answer.fixed_in_your_release) == (
        "issue #39407 was closed as not planned: not fixed",
        "no",
    )


def test_an_open_issue_the_knowledge_base_calls_fixed_is_in_no_release_and_the_disagreement_is_shown(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path
) -> None:
    api.issues[38652] = issue_json(REPO, 38652, state="open")
    api.timelines[38652] = []
    answer = lookup_issue(ctx, 38652, tag="v0.20.0", github=make_deps(api.base_url, tmp_path))
    first = answer.first_release
    assert (first.tag, first.released, first.method, first.certain) == (None, "no", "none", True)
    assert first.detail == "issue #38652 is open: not fixed in any release"
    assert answer.fixed_in_your_release == "no"
    assert answer.knowledge[0].workaround is not None and answer.knowledge[0].workaround.startswith("On v0.19.0")
    assert answer.disagreements == ["pain-fp8-kv-mla-multiturn says fixed in v0.19.0, but #38652 is still open."]
    assert f"/repos/{REPO}/releases" not in api.paths()


def test_a_closed_issue_nothing_links_to_a_fix_falls_to_the_knowledge_base_marked_curated_and_unverified(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path
) -> None:
    api.issues[38652] = issue_json(REPO, 38652, state="closed", state_reason="completed")
    api.timelines[38652] = [{"event": "closed", "commit_id": None}]
    api.tags += [{"name": t, "commit": {"sha": "0" * 40}} for t in ("v0.19.0", "v0.20.0")]
    answer = lookup_issue(ctx, 38652, tag="v0.20.0", github=make_deps(api.base_url, tmp_path))
    first = answer.first_release
    assert (first.tag, first.method, first.basis, first.certain) == (
        "v0.19.0",
        "knowledge_base",
        "curated_unverified",
        False,
    )
    assert first.detail == (
        "curated, unverified: pain point pain-fp8-kv-mla-multiturn says fixed in v0.19.0; not proven: issue #38652 "
        "was closed (completed) but no PR closes it and no commit of this repository closed it: no release can be "
        "proven"
    )
    assert answer.fixed_in_your_release == "yes"


def test_a_curated_release_that_is_not_a_tag_of_the_repository_is_never_named(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path
) -> None:
    api.issues[38652] = issue_json(REPO, 38652, state="closed", state_reason="completed")
    api.timelines[38652] = []
    answer = lookup_issue(ctx, 38652, tag="v0.3.0", github=make_deps(api.base_url, tmp_path))
    assert (answer.first_release.tag, answer.first_release.released, answer.fixed_in_your_release) == (
        None,
        "unknown",
        "unknown",
    )
    assert (
        "knowledge base: pain point pain-fp8-kv-mla-multiturn says fixed in v0.19.0, but v0.19.0 is not a known tag; "
        "not used." in answer.notes
    )


def test_offline_a_number_the_knowledge_base_cites_is_answered_knowledge_only(ctx: ToolContext, tmp_path: Path) -> None:
    with GitHubApi() as gone:
        pass
    answer = lookup_issue(ctx, 38652, tag="v0.19.0", github=make_deps(gone.base_url, tmp_path))
    assert (answer.freshness, answer.state, answer.title) == ("knowledge_only", None, None)
    first = answer.first_release
    assert (first.tag, first.basis, first.certain, answer.fixed_in_your_release) == (
        "v0.19.0",
        "curated_unverified",
        False,
        "yes",
    )
    assert answer.notes == [
        f"GitHub unreachable at {gone.base_url} (ConnectError) and no cached answer for "
        f"/repos/{REPO}/issues/38652. Answered from the knowledge base only; GitHub's live state is unknown.",
        f"known tags: GitHub unreachable at {gone.base_url} (ConnectError) and no cached answer for "
        f"/repos/{REPO}/tags.",
        "known tags: taken from the releases this server has registries for.",
    ]


def test_offline_with_neither_cache_nor_knowledge_the_error_says_both(ctx: ToolContext, tmp_path: Path) -> None:
    with GitHubApi() as gone:
        pass
    with pytest.raises(GitHubUnavailableError, match="The knowledge base cites nothing as #10 either"):
        lookup_issue(ctx, 10, github=make_deps(gone.base_url, tmp_path))


def test_rate_limited_the_cached_answer_comes_back_with_its_age_and_no_request_is_sent_before_the_reset(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path
) -> None:
    clock = Clock()
    deps = make_deps(api.base_url, tmp_path, clock)
    lookup_issue(ctx, 10, github=deps)
    sent = len(api.requests)
    clock.now += 8 * 86400
    reset = str(int(clock.now) + 3600)
    api.script(f"/repos/{REPO}/issues/10", 403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
    first = lookup_issue(ctx, 10, github=deps)
    again = lookup_issue(ctx, 10, github=deps)
    assert (first.freshness, first.age_seconds, first.title) == ("cached", 8 * 86400, "FP8 scales wrong")
    assert first.notes[0] == (
        "GitHub rate limit (HTTP 403, core) until 23:13:20 UTC; answered from the cache (8.0 days old)."
    )
    assert "timeline: " not in " ".join(first.notes)
    assert (
        first.notes[1]
        == "GitHub rate limit (core): no requests until 23:13:20 UTC; answered from the cache (8.0 days old)."
    )
    assert (first.first_release.tag, first.linked_prs[0].number) == ("v0.2.0", 12)
    assert again.model_dump(exclude={"notes"}) == first.model_dump(exclude={"notes"})
    assert again.notes[0] == first.notes[1]
    assert len(api.requests) == sent + 1


@pytest.mark.parametrize("number", ["abc", "-5", -5, 0, "12a", "1e3", True, 3.0, "٣"])
def test_a_number_that_is_not_a_positive_integer_is_refused(
    number: Any, api: GitHubApi, ctx: ToolContext, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="must be a positive integer such as 38652"):
        lookup_issue(ctx, number, github=make_deps(api.base_url, tmp_path))
    assert api.requests == []


def test_a_repository_outside_the_allow_list_is_refused_and_a_configured_one_is_served(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path
) -> None:
    with pytest.raises(RepoNotAllowedError, match=r"'octo/evil' is not allowed here; allowed: vllm-project/vllm\."):
        lookup_issue(ctx, 10, repo="octo/evil", github=make_deps(api.base_url, tmp_path))
    api.issues[3] = issue_json("vllm-project/llm-compressor", 3, title="compressor issue")
    api.timelines[3] = []
    deps = make_deps(api.base_url, tmp_path, VLLM_QUANT_MCP_GITHUB_REPOS="vllm-project/llm-compressor")
    answer = lookup_issue(ctx, 3, repo="vllm-project/llm-compressor", github=deps)
    assert (answer.repo, answer.title) == ("vllm-project/llm-compressor", "compressor issue")
    assert api.paths()[0] == "/repos/vllm-project/llm-compressor/issues/3"


def test_a_number_github_does_not_know_is_a_lookup_error(api: GitHubApi, ctx: ToolContext, tmp_path: Path) -> None:
    with pytest.raises(GitHubNotFoundError, match=r"vllm-project/vllm has no issue or PR #99 .*check the number"):
        lookup_issue(ctx, 99, github=make_deps(api.base_url, tmp_path))


def test_a_malformed_tag_is_refused_before_any_request(api: GitHubApi, ctx: ToolContext, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a vLLM release tag"):
        lookup_issue(ctx, 10, tag="--upload-pack=x", github=make_deps(api.base_url, tmp_path))
    assert api.requests == []


def test_a_token_never_appears_in_output_errors_logs_or_cache(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    clock = Clock()
    deps = make_deps(api.base_url, tmp_path, clock, GITHUB_TOKEN=TOKEN)
    seen: list[str] = [repr(deps.client), repr(deps.settings), str(deps.settings.model_dump())]
    seen.append(lookup_issue(ctx, 10, github=deps).model_dump_json())
    seen.append(lookup_issue(ctx, 12, github=deps).model_dump_json())
    seen.append(search_issues(ctx, "fp8", github=deps).model_dump_json())
    for status, headers in ((401, {}), (502, {}), (429, {"Retry-After": "60"})):
        clock.now += 8 * 86400
        api.script(f"/repos/{REPO}/issues/10", status, headers)
        seen.append(lookup_issue(ctx, 10, github=deps).model_dump_json())
    api.slow.add(f"/repos/{REPO}/issues/77")
    for number in (77, 99):
        with pytest.raises((GitHubUnavailableError, GitHubNotFoundError)) as caught:
            lookup_issue(ctx, number, github=deps)
        seen.append(repr(caught.value) + str(caught.value.__cause__) + str(caught.value.__context__))
    assert all(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in api.requests)
    seen.append(caplog.text)
    assert caplog.records
    assert not [text for text in seen if TOKEN in text]
    cached = [p for p in (tmp_path / "github").rglob("*") if p.is_file()]
    assert cached
    assert not [p for p in cached if TOKEN.encode() in p.read_bytes()]


def test_search_sends_one_repository_query_with_its_qualifiers_and_marks_rows_the_kb_cites(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path
) -> None:
    api.search_items = [
        issue_json(REPO, 39407, title="Gemma 4 FP8 block", state="closed", state_reason="not_planned"),
        issue_json(REPO, 12, title="Fix FP8 scales", pull_request={"merged_at": None}),
    ]
    result = search_issues(
        ctx,
        "  fp8   block ",
        state="closed",
        label="quantization",
        since="2025-06-01",
        github=make_deps(api.base_url, tmp_path),
    )
    assert result.query == 'repo:vllm-project/vllm fp8 block state:closed label:"quantization" created:>=2025-06-01'
    assert api.requests[0].query == {"q": result.query, "per_page": "20"}
    assert [(r.number, r.kind, r.state_reason, r.knowledge) for r in result.rows] == [
        (39407, "issue", "not_planned", ["pain-gemma4-fp8-block"]),
        (12, "pr", None, []),
    ]
    assert (result.total_count, result.freshness) == (2, "live")


def test_search_rows_name_a_release_only_under_the_lookup_rules(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path
) -> None:
    merged = {"merged_at": "2026-01-04T00:00:00Z"}
    api.search_items = [
        issue_json(REPO, 38652, state="open"),
        issue_json(REPO, 53585, pull_request={"merged_at": None}),
        issue_json(REPO, 59042, state="closed", pull_request=merged),
        issue_json(REPO, 39663, state="closed", state_reason="completed"),
        issue_json(REPO, 10, state="closed", state_reason="completed"),
    ]
    api.tags.append({"name": "v0.21.0", "commit": {"sha": "0" * 40}})
    # PR #59042's state is not on record, so the data cites it nowhere; a fact citing it exercises the note.
    kb = citing(load_knowledge(), 59042, "pain-cutlass-fp4-moe-ep")
    result = search_issues(ctx, "fp8", github=make_deps(api.base_url, tmp_path, knowledge=kb))
    rows = [(r.number, r.first_release.tag, r.first_release.released, r.first_release.basis) for r in result.rows]
    assert rows == [
        (38652, None, "no", "none"),
        (53585, None, "no", "none"),
        (59042, None, "unknown", "none"),
        (39663, "v0.21.0", "yes", "curated_unverified"),
        (10, None, "unknown", "none"),
    ]
    assert [r.first_release.detail for r in result.rows] == [
        "issue #38652 is open: not fixed in any release",
        "PR #53585 is open: no release holds it",
        "not proven here: lookup_issue(number=59042) proves its first release",
        "curated, unverified: version gate gate-v0.21.0-online-bias places the change in v0.21.0; "
        "lookup_issue proves it",
        "not proven here: lookup_issue(number=10) proves its first release",
    ]
    assert (
        "knowledge base: pain point pain-cutlass-fp4-moe-ep says fixed in v0.32.0, but v0.32.0 is not a known tag; "
        "not used." in result.notes
    )


def test_a_spent_search_quota_leaves_issue_lookups_served(api: GitHubApi, ctx: ToolContext, tmp_path: Path) -> None:
    deps = make_deps(api.base_url, tmp_path)
    reset = str(int(START) + 3600)
    limit = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset, "X-RateLimit-Resource": "search"}
    api.script("/search/issues", 403, limit)
    with pytest.raises(GitHubUnavailableError, match=r"GitHub rate limit \(HTTP 403, search\)"):
        search_issues(ctx, "fp8", github=deps)
    assert lookup_issue(ctx, 10, github=deps).freshness == "live"
    with pytest.raises(GitHubUnavailableError, match=r"rate limit \(search\): no requests until"):
        search_issues(ctx, "fp8 kv", github=deps)
    assert api.paths().count("/search/issues") == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": "fp8 repo:octo/evil"}, "pass repo=... instead"),
        ({"query": "fp8 org:octo"}, "pass repo=... instead"),
        ({"query": "   "}, "must be 1-256 printable characters"),
        ({"query": "fp8", "since": "last week"}, "must be a date such as 2025-06-01"),
        ({"query": "fp8", "label": 'x" repo:octo/evil'}, "must be a plain label name"),
        ({"query": "fp8", "state": "merged"}, "should be 'open' or 'closed'"),
    ],
)
def test_search_refuses_input_that_would_leave_the_allowed_repository_or_is_malformed(
    api: GitHubApi, ctx: ToolContext, tmp_path: Path, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        search_issues(ctx, github=make_deps(api.base_url, tmp_path), **kwargs)
    assert api.requests == []
