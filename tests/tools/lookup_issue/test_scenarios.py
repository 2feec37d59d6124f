"""lookup_issue on the threads a user asks about, against a git remote built from real release trees and a local API.

Each thread's expected answer is what the remote was built to hold (tests/support/vllm_remote.py):
which tags carry which fix, by ancestry, by a pick, or not at all. Every first release an
answer names must be proven (and say how), be null with a reason, or be marked curated.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.clock import START, Clock
from support.githttp import GitHttpServer
from support.githubapi import REPOSITORY_ID, GitHubApi
from support.issue_world import REPO, THREADS, serve_threads
from support.kb_citing import citing
from support.loopback import closed_port
from support.mcp_session import stdio_session
from support.releases import release_tree
from support.vllm_remote import AFTER_NEWEST_PR, OPEN_PR, RELEASES, VllmRemote, build_vllm_remote

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase, load_knowledge
from vllm_quant_mcp.knowledge.github.answers import FirstRelease
from vllm_quant_mcp.knowledge.github.client import GitHubClient
from vllm_quant_mcp.knowledge.github.history import HistoryRepo
from vllm_quant_mcp.knowledge.github.service import GitHubDeps
from vllm_quant_mcp.knowledge.github.settings import GitHubSettings
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.lookup_issue.models import IssueLookup, LookupIssueQuery
from vllm_quant_mcp.tools.lookup_issue.tool import lookup_issue

TAGS = ("v0.19.0", "v0.19.1", "v0.19.2", "v0.20.0", "v0.20.1", "v0.22.0")
NONE = dict.fromkeys(TAGS, "no")
UNKNOWN = dict.fromkeys(TAGS, "unknown")


def holds(*tags: str) -> dict[str, str]:
    return {t: "yes" if t in tags else "no" for t in TAGS}


# number -> (first release, any release holds it, method, verdict per tag)
EXPECTED: dict[int, tuple[str | None, str, str, dict[str, str]]] = {
    38652: (None, "no", "none", NONE),
    OPEN_PR: (None, "no", "none", NONE),
    AFTER_NEWEST_PR: (None, "no", "none", NONE),
    2003: (None, "no", "none", NONE),
    2002: ("v0.19.1", "yes", "git_cherry_pick", holds(*TAGS[1:])),
    1008: ("v0.19.0", "yes", "git_cherry_pick", holds(*TAGS)),
    1007: ("v0.19.2", "yes", "git_ancestry", holds("v0.19.2")),
    1002: ("v0.20.1", "yes", "git_cherry_pick", holds("v0.20.1", "v0.22.0")),
    1005: (None, "no", "none", NONE),
    2000: ("v0.19.0", "yes", "git_ancestry", holds(*TAGS)),
    39407: (None, "no", "none", NONE),
    2010: (None, "unknown", "none", UNKNOWN),
    2011: (None, "unknown", "none", UNKNOWN),
    2012: ("v0.20.1", "yes", "git_cherry_pick", holds("v0.20.1", "v0.22.0")),
    2013: (None, "unknown", "none", UNKNOWN),
}


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> VllmRemote:
    return build_vllm_remote(tmp_path_factory.mktemp("up") / "vllm.git", {v: release_tree(v).root for v in RELEASES})


@pytest.fixture
def api(remote: VllmRemote) -> Iterator[GitHubApi]:
    with GitHubApi(page_size=2) as server:
        serve_threads(server, remote)
        yield server


def make_deps(
    api: GitHubApi,
    remote_url: str,
    cache: Path,
    clock: Clock | None = None,
    knowledge: KnowledgeBase | None = None,
    **fields: Any,
) -> GitHubDeps:
    env = {"VLLM_QUANT_MCP_GITHUB_API": api.base_url, "VLLM_QUANT_MCP_REMOTE": remote_url}
    config = GitHubSettings.from_env(env, cache).model_copy(update={"timeout": 0.5, **fields})
    client = GitHubClient(config, clock=clock or Clock())
    return GitHubDeps(client, knowledge or load_knowledge(), HistoryRepo(config.remote, config.history_dir))


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(Store(tmp_path / "store"), "v0.22.0")


def ask(ctx: ToolContext, deps: GitHubDeps, number: int, tag: str | None = None) -> IssueLookup:
    return lookup_issue(replace(ctx, make_github=lambda _kb: deps), LookupIssueQuery(number=number, tag=tag))


def assert_accounted_for(first: FirstRelease, known: set[str]) -> None:
    """The rule every answer keeps: a named release is proven (and how), from notes, or curated; else why not."""
    assert first.detail.strip()
    if first.tag is None:
        return
    assert first.tag in known
    assert (first.basis, first.method) in {
        ("proven", "git_ancestry"),
        ("proven", "git_cherry_pick"),
        ("proven", "github_compare"),
        ("release_notes", "release_notes"),
        ("curated_unverified", "knowledge_base"),
    }


@pytest.mark.parametrize("number", sorted(THREADS))
def test_each_thread_gets_the_release_its_fix_is_in_and_a_verdict_for_every_release(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path, number: int
) -> None:
    deps = make_deps(api, remote.url, tmp_path)
    tag, released, method, verdicts = EXPECTED[number]
    answers = {t: ask(ctx, deps, number, t) for t in TAGS}
    first = answers[TAGS[0]].first_release
    assert (first.tag, first.released, first.method) == (tag, released, method), first.detail
    assert {t: a.fixed_in_your_release for t, a in answers.items()} == verdicts
    assert_accounted_for(first, set(TAGS))
    if first.basis == "proven":
        assert first.certain and first.newest_checked == "v0.22.0"


def test_an_open_issue_the_knowledge_base_calls_fixed_is_in_no_release_and_the_disagreement_is_shown(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    answer = ask(ctx, make_deps(api, remote.url, tmp_path), 38652, "v0.20.0")
    assert answer.first_release.detail == (
        "issue #38652 is open: not fixed in any release; merged closing PRs #1007 (into releases/v0.19.0) "
        "did not close it"
    )
    assert answer.disagreements == ["pain-fp8-kv-mla-multiturn says fixed in v0.19.0, but #38652 is still open."]


def test_an_open_prs_test_merge_is_never_fetched_compared_or_named(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    # The data once cited the open PR #53585 in the fp8 gate; a knowledge base that still does shows the disagreement.
    kb = citing(load_knowledge(), OPEN_PR, "gate-v0.31.0-fp8-not-online")
    answer = ask(ctx, make_deps(api, remote.url, tmp_path, knowledge=kb), OPEN_PR, "v0.22.0")
    test_merge = remote.commits["open_testmerge"]
    assert answer.pull is not None and answer.pull.merge_commit_sha is None
    assert not [r for r in api.requests if test_merge in r.path]
    assert test_merge not in answer.model_dump_json()
    assert answer.disagreements == [
        "gate-v0.31.0-fp8-not-online places it in v0.31.0, but PR #53585 was not merged; the change came from "
        "another PR, if at all."
    ]
    assert not (tmp_path / "git").exists()  # nothing to prove: no history fetched


def test_a_fix_merged_after_the_newest_tag_is_in_no_release_and_the_curated_future_release_is_not_named(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    kb = citing(load_knowledge(), AFTER_NEWEST_PR, "gate-v0.32.0-cutlass-fp4-moe-ep", "pain-cutlass-fp4-moe-ep")
    answer = ask(ctx, make_deps(api, remote.url, tmp_path, knowledge=kb), AFTER_NEWEST_PR, "v0.22.0")
    first = answer.first_release
    assert (first.tag, first.released, first.basis, first.fix_commit) == (None, "no", "proven", remote.commits["fixC"])
    assert first.detail.startswith(f"no release up to the newest, v0.22.0, holds {remote.commits['fixC'][:12]} (git")
    assert answer.disagreements == [
        f"{fact} gives v0.32.0, but the commits prove no release up to v0.22.0 holds it."
        for fact in ("gate-v0.32.0-cutlass-fp4-moe-ep", "pain-cutlass-fp4-moe-ep")
    ]


def test_a_reverted_fix_names_the_release_it_was_reverted_in(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    first = ask(ctx, make_deps(api, remote.url, tmp_path), 1005).first_release
    assert (first.tag, first.reverted_in) == (None, ["v0.22.0"])
    assert first.detail.startswith(f"{remote.commits['fixE'][:12]} reached v0.22.0 but was reverted there")


def test_a_backport_lists_the_later_releases_without_it(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    first = ask(ctx, make_deps(api, remote.url, tmp_path), 1007).first_release
    assert first.later_without == ["v0.20.0", "v0.20.1", "v0.22.0"]


def test_several_linked_prs_none_merged_are_named_and_nothing_is_proven(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    answer = ask(ctx, make_deps(api, remote.url, tmp_path), 2011, "v0.22.0")
    assert [(p.number, p.merged, p.closes_this) for p in answer.linked_prs] == [
        (1011, False, True),
        (1012, False, True),
        (1013, False, True),
    ]
    assert "linked PRs #1011, #1012, #1013 not merged" in answer.first_release.detail
    assert not (tmp_path / "git").exists()
    assert [r.path for r in api.requests if "/pulls/" in r.path or "/compare/" in r.path] == []


def test_a_release_the_remote_does_not_have_gets_no_verdict(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    answer = ask(ctx, make_deps(api, remote.url, tmp_path), 2002, "v0.23.0")
    assert answer.fixed_in_your_release == "unknown"
    assert "v0.23.0 is not a known tag of vllm-project/vllm; whether it has the fix is unknown." in answer.notes


def unreachable() -> str:
    return f"http://127.0.0.1:{closed_port()}/vllm.git"


@pytest.mark.parametrize("number", [2002, 1008, 1007, 1002, 2000, 2012, AFTER_NEWEST_PR])
def test_without_git_the_compare_endpoint_places_each_fix_where_git_does(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path, number: int
) -> None:
    answer = ask(ctx, make_deps(api, unreachable(), tmp_path), number, "v0.22.0")
    first = answer.first_release
    tag, _, _, verdicts = EXPECTED[number]
    assert (first.tag, first.certain) == (tag, tag is None)  # "in no release" needs no revert check
    assert first.method == ("github_compare" if tag else "none")
    assert answer.fixed_in_your_release in (verdicts["v0.22.0"], "unknown")
    assert [n for n in answer.notes if n.startswith("git: history of http://127.0.0.1")] != []


def test_paginated_tags_releases_and_timelines_are_read_to_their_last_page(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    api.script(f"/repos/{REPO}/compare/v0.20.0...{remote.commits['fixA']}", 500)
    answer = ask(ctx, make_deps(api, unreachable(), tmp_path), 2002, "v0.19.1")
    first = answer.first_release
    assert (first.tag, first.method, answer.fixed_in_your_release) == ("v0.19.1", "release_notes", "yes")
    pages = [r.query.get("page") for r in api.requests if r.path == f"/repositories/{REPOSITORY_ID}/releases"]
    assert pages == ["2", "3", "4"]  # 7 releases, 2 a page
    assert [r.query.get("page") for r in api.requests if r.path == f"/repositories/{REPOSITORY_ID}/tags"] == ["2", "3"]
    assert f"/repos/{REPO}/issues/2002/timeline" in api.paths()


def test_a_server_error_on_compare_falls_to_the_release_notes_and_says_so(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    path = f"/repos/{REPO}/compare/v0.20.0...{remote.commits['fixA']}"
    api.script(path, 500)
    answer = ask(ctx, make_deps(api, unreachable(), tmp_path), 2002, "v0.19.0")
    first = answer.first_release
    assert (first.tag, first.basis, first.certain) == ("v0.19.1", "release_notes", False)
    assert answer.fixed_in_your_release == "unknown"  # notes name the releases that have it, not those that lack it
    assert (
        f"compare v0.20.0...{remote.commits['fixA'][:12]}: GitHub answered {path} with HTTP 500 and no cached "
        f"answer for {path}." in answer.notes
    )


def test_with_compare_and_release_notes_failing_a_cached_proof_answers_with_its_age(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    clock = Clock()
    deps = make_deps(api, unreachable(), tmp_path, clock)
    fresh = ask(ctx, deps, 1002, "v0.22.0")
    clock.now += 8 * 86400
    for request in {r.path for r in api.requests}:
        api.script(request, 502, {"Content-Type": "text/html"}, b"<html>Bad gateway</html>")
    again = ask(ctx, deps, 1002, "v0.22.0")
    assert again.first_release == fresh.first_release
    assert again.freshness == "cached" and again.age_seconds == 8 * 86400


def test_a_short_retry_after_is_retried_once_and_the_proof_goes_on(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    api.script(f"/repos/{REPO}/pulls/1001", 429, {"Retry-After": "0"})
    first = ask(ctx, make_deps(api, remote.url, tmp_path), 2002, "v0.19.1").first_release
    assert (first.tag, first.method) == ("v0.19.1", "git_cherry_pick")
    assert api.paths().count(f"/repos/{REPO}/pulls/1001") == 2


def test_a_rate_limited_api_answers_from_the_cache_and_asks_nothing_until_the_reset(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    clock = Clock()
    deps = make_deps(api, remote.url, tmp_path, clock)
    ask(ctx, deps, 2002, "v0.19.1")
    clock.now += 8 * 86400
    reset = {
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": str(int(START) + 9 * 86400),
        "X-RateLimit-Resource": "core",
    }
    api.script(f"/repos/{REPO}/issues/2002", 403, reset)
    sent = len(api.requests)
    answer = ask(ctx, deps, 2002, "v0.19.1")
    assert (answer.freshness, answer.first_release.tag, answer.fixed_in_your_release) == ("cached", "v0.19.1", "yes")
    assert len(api.requests) == sent + 1


def test_a_slow_api_costs_one_timeout_then_the_cache_answers_at_once(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    clock = Clock()
    deps = make_deps(api, remote.url, tmp_path, clock)
    ask(ctx, deps, 2002, "v0.19.1")
    clock.now += 8 * 86400
    api.slow.add("/repos/")
    sent = len(api.requests)
    answer = ask(ctx, deps, 2002, "v0.19.1")
    assert len(api.requests) == sent + 1  # the issue: it timed out, and nothing else was asked
    assert (answer.freshness, answer.first_release.tag, answer.fixed_in_your_release) == ("cached", "v0.19.1", "yes")
    deadline = f"lookup deadline: GitHub did not answer /repos/{REPO}/issues/2002 within 0.5 s, so no further network"
    assert [n for n in answer.notes if n.startswith(deadline)] != []


def test_a_stalled_git_remote_ends_at_the_deadline_and_the_lookup_still_answers(
    api: GitHubApi, remote: VllmRemote, ctx: ToolContext, tmp_path: Path
) -> None:
    served = tmp_path / "served"
    subprocess.run(["git", "clone", "-q", "--mirror", str(remote.path), str(served / "vllm.git")], check=True)
    subprocess.run(["git", "-C", str(served / "vllm.git"), "config", "uploadpack.allowFilter", "true"], check=True)
    with GitHttpServer(served) as git_server:
        git_server.stall = True
        url = f"{git_server.base_url}/vllm.git"
        answer = ask(ctx, make_deps(api, url, tmp_path, deadline=1.5), 2002, "v0.19.1")
        lingering = [p for p in Path("/proc").glob("[0-9]*/cmdline") if url.encode() in _read(p)]
    assert lingering == [] and list((tmp_path / "git" / "history").glob("*.git")) == []
    assert f"git: history not fetched: git fetch of {url} used up the lookup deadline (1.5 s)." in answer.notes
    first = answer.first_release
    assert (first.tag, first.released, answer.fixed_in_your_release) == (None, "unknown", "unknown")
    assert first.detail == "merge commit of closing PR #1001: neither git, compare nor release notes could place it"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


@pytest.mark.anyio
async def test_over_mcp_the_answer_says_how_the_release_was_proven(
    api: GitHubApi, remote: VllmRemote, tmp_path: Path
) -> None:
    env = {"VLLM_QUANT_MCP_GITHUB_API": api.base_url, "VLLM_QUANT_MCP_REMOTE": remote.url}
    async with stdio_session(tmp_path / "cache", env=env) as session:
        result = await session.call_tool("lookup_issue", {"number": 2002, "tag": "v0.19.0"})
        rows = await session.call_tool("search_issues", {"query": "fp8"})
    data = result.structured_content
    assert not result.is_error and data is not None
    first = data["first_release"]
    assert (first["tag"], first["method"], first["basis"], data["fixed_in_your_release"]) == (
        "v0.19.1",
        "git_cherry_pick",
        "proven",
        "no",
    )
    assert first["detail"].startswith(f"v0.19.1 holds {remote.commits['fixA'][:12]} by cherry-pick")
    assert rows.structured_content is not None and rows.structured_content["rows"] == []
