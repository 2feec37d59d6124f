"""The GitHub client against a real local server: TTLs, ETag revalidation, pagination, rate limits and faults."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.clock import START, Clock
from support.githubapi import REPOSITORY_ID, GitHubApi, issue_json

from vllm_quant_mcp.knowledge.github.client import GitHubClient, GitHubNotFoundError, GitHubUnavailableError
from vllm_quant_mcp.knowledge.github.deadline import Deadline
from vllm_quant_mcp.knowledge.github.settings import GitHubSettings, RepoNotAllowedError

REPO = "vllm-project/vllm"
ISSUE = f"/repos/{REPO}/issues/7"


@pytest.fixture
def server() -> Iterator[GitHubApi]:
    with GitHubApi() as api:
        api.issues[7] = issue_json(REPO, 7)
        api.issues[8] = issue_json(REPO, 8, state="closed", state_reason="completed")
        yield api


def make_client(server: GitHubApi, tmp_path: Path, clock: Clock, **env: str) -> GitHubClient:
    config = GitHubSettings.from_env({"VLLM_QUANT_MCP_GITHUB_API": server.base_url, **env}, tmp_path)
    return GitHubClient(config.model_copy(update={"timeout": 0.5}), clock=clock)


def test_an_answer_within_its_ttl_is_served_from_the_cache_without_a_request(server: GitHubApi, tmp_path: Path) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    first = client.get(ISSUE)
    clock.now += 599
    second = client.get(ISSUE)
    assert (first.freshness, second.freshness, second.age) == ("live", "cached", 599)
    assert second.data == server.issues[7]
    assert server.paths() == [ISSUE]


def test_a_stale_answer_is_revalidated_with_its_etag_and_a_304_keeps_it(server: GitHubApi, tmp_path: Path) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    client.get(ISSUE)
    clock.now += 601
    again = client.get(ISSUE)
    assert (again.freshness, again.data) == ("revalidated", server.issues[7])
    assert server.requests[1].headers["If-None-Match"].startswith('W/"')
    clock.now += 599
    assert client.get(ISSUE).freshness == "cached"
    assert len(server.requests) == 2


def test_a_changed_item_is_fetched_again_after_its_ttl(server: GitHubApi, tmp_path: Path) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    client.get(ISSUE)
    server.issues[7] = issue_json(REPO, 7, title="renamed")
    clock.now += 601
    again = client.get(ISSUE)
    assert (again.freshness, again.data["title"]) == ("live", "renamed")


def test_a_closed_item_is_kept_a_week_before_revalidation(server: GitHubApi, tmp_path: Path) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    path = f"/repos/{REPO}/issues/8"
    client.get(path)
    clock.now += 6 * 86400
    assert client.get(path).freshness == "cached"
    clock.now += 2 * 86400
    assert client.get(path).freshness == "revalidated"
    assert len(server.requests) == 2


def test_pages_are_followed_through_link_headers_that_name_the_repository_by_id(
    server: GitHubApi, tmp_path: Path
) -> None:
    server.page_size = 2
    server.releases = [{"tag_name": f"v0.{i}.0", "body": ""} for i in range(5)]
    fetched = make_client(server, tmp_path, Clock()).get_pages(f"/repos/{REPO}/releases", {"per_page": 100})
    assert [r["tag_name"] for r in fetched.data] == [f"v0.{i}.0" for i in range(5)]
    assert [r.query.get("page") for r in server.requests] == [None, "2", "3"]
    assert server.paths()[1:] == [f"/repositories/{REPOSITORY_ID}/releases"] * 2
    assert fetched.complete


def test_a_page_that_fails_after_the_first_ends_the_walk_with_what_came_and_says_so(
    server: GitHubApi, tmp_path: Path
) -> None:
    server.page_size = 2
    server.tags = [{"name": f"v0.{i}.0"} for i in range(5)]
    server.script(f"/repositories/{REPOSITORY_ID}/tags", 500)
    fetched = make_client(server, tmp_path, Clock()).get_pages(f"/repos/{REPO}/tags", {"per_page": 100})
    assert ([t["name"] for t in fetched.data], fetched.complete) == (["v0.0.0", "v0.1.0"], False)
    assert fetched.notes == (
        f"/repos/{REPO}/tags: stopped after 1 pages: GitHub answered /repositories/{REPOSITORY_ID}/tags with HTTP 500 "
        f"and no cached answer for /repositories/{REPOSITORY_ID}/tags.",
    )


def test_pagination_stops_at_the_page_limit_and_says_so(server: GitHubApi, tmp_path: Path) -> None:
    server.page_size = 1
    server.releases = [{"tag_name": f"v0.{i}.0"} for i in range(4)]
    fetched = make_client(server, tmp_path, Clock()).get_pages(f"/repos/{REPO}/releases", max_pages=2)
    assert len(fetched.data) == 2
    assert fetched.notes == (f"/repos/{REPO}/releases: stopped after 2 pages.",)


def test_a_short_retry_after_gets_exactly_one_retry(server: GitHubApi, tmp_path: Path) -> None:
    server.script(ISSUE, 429, {"Retry-After": "0"})
    assert make_client(server, tmp_path, Clock()).get(ISSUE).freshness == "live"
    assert server.paths() == [ISSUE, ISSUE]


def test_a_second_short_retry_after_is_not_retried_again(server: GitHubApi, tmp_path: Path) -> None:
    server.script(ISSUE, 429, {"Retry-After": "0"})
    server.script(ISSUE, 429, {"Retry-After": "0"})
    with pytest.raises(GitHubUnavailableError, match="rate limit"):
        make_client(server, tmp_path, Clock()).get(ISSUE)
    assert server.paths() == [ISSUE, ISSUE]


def test_a_rate_limit_until_the_reset_sends_nothing_more_before_it(server: GitHubApi, tmp_path: Path) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    reset = str(int(START) + 3600)
    server.script(ISSUE, 403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
    with pytest.raises(GitHubUnavailableError, match=r"rate limit \(HTTP 403, core\) until 23:13:20 UTC"):
        client.get(ISSUE)
    clock.now += 1800
    with pytest.raises(GitHubUnavailableError, match=r"rate limit \(core\): no requests until 23:13:20 UTC"):
        make_client(server, tmp_path, clock).get(f"/repos/{REPO}/issues/8")
    assert server.paths() == [ISSUE]
    clock.now += 1801
    assert client.get(ISSUE).freshness == "live"


def test_a_long_retry_after_is_honoured_without_retrying(server: GitHubApi, tmp_path: Path) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    client.get(ISSUE)
    clock.now += 700
    server.script(ISSUE, 429, {"Retry-After": "30"})
    fetched = client.get(ISSUE)
    assert (fetched.freshness, fetched.age, fetched.data) == ("cached", 700, server.issues[7])
    assert fetched.notes == (
        "GitHub rate limit (HTTP 429, core) until 22:25:30 UTC; answered from the cache (12 min old).",
    )
    assert len(server.requests) == 2


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_server_error_answers_from_a_stale_cache_with_a_note(server: GitHubApi, tmp_path: Path, status: int) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    client.get(ISSUE)
    clock.now += 4000
    server.script(ISSUE, status)
    fetched = client.get(ISSUE)
    assert fetched.freshness == "cached"
    assert fetched.notes == (f"GitHub answered {ISSUE} with HTTP {status}; answered from the cache (67 min old).",)


def test_a_response_slower_than_the_timeout_is_given_up(server: GitHubApi, tmp_path: Path) -> None:
    server.slow.add(ISSUE)
    with pytest.raises(GitHubUnavailableError, match=f"did not answer {ISSUE} within 0.5 s"):
        make_client(server, tmp_path, Clock()).get(ISSUE)


def test_an_unreachable_api_is_named_in_the_error(tmp_path: Path) -> None:
    with GitHubApi() as gone:
        pass
    with pytest.raises(GitHubUnavailableError, match=f"GitHub unreachable at {gone.base_url}"):
        make_client(gone, tmp_path, Clock()).get(ISSUE)


def test_a_missing_path_is_a_lookup_error(server: GitHubApi, tmp_path: Path) -> None:
    with pytest.raises(GitHubNotFoundError, match=r"/repos/vllm-project/vllm/issues/9 \(HTTP 404\)"):
        make_client(server, tmp_path, Clock()).get(f"/repos/{REPO}/issues/9")


def test_the_token_is_sent_as_a_bearer_header(server: GitHubApi, tmp_path: Path) -> None:
    make_client(server, tmp_path, Clock(), GH_TOKEN="ghp_sentinel").get(ISSUE)
    assert server.requests[0].headers["Authorization"] == "Bearer ghp_sentinel"


def test_a_token_with_a_newline_is_refused_without_echoing_it(server: GitHubApi, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="whitespace or control characters") as caught:
        make_client(server, tmp_path, Clock(), GITHUB_TOKEN="ghp_sentinel\nX-Evil: 1")
    assert "ghp_sentinel" not in str(caught.value)


def test_repositories_are_the_default_plus_the_configured_list(tmp_path: Path) -> None:
    config = GitHubSettings.from_env({"VLLM_QUANT_MCP_GITHUB_REPOS": " vllm-project/llm-compressor ,"}, tmp_path)
    assert config.repos == ("vllm-project/vllm", "vllm-project/llm-compressor")
    assert config.check_repo(None) == "vllm-project/vllm"
    assert config.check_repo("https://github.com/VLLM-project/LLM-Compressor") == "vllm-project/llm-compressor"
    allowed = r"'octo/vllm' is not allowed here; allowed: vllm-project/vllm, vllm-project/llm-compressor\."
    with pytest.raises(RepoNotAllowedError, match=allowed):
        config.check_repo("octo/vllm")
    with pytest.raises(RepoNotAllowedError, match=r"'--upload-pack', which is not owner/name"):
        GitHubSettings.from_env({"VLLM_QUANT_MCP_GITHUB_REPOS": "--upload-pack"}, tmp_path)


def test_cache_and_history_live_under_the_store_cache_root_and_the_remote_is_the_git_sources(tmp_path: Path) -> None:
    config = GitHubSettings.from_env({}, tmp_path)
    assert (config.cache_dir, config.history_dir) == (tmp_path / "github", tmp_path / "git" / "history")
    assert (config.api_url, config.remote) == ("https://api.github.com", "https://github.com/vllm-project/vllm.git")
    mirror = GitHubSettings.from_env({"VLLM_QUANT_MCP_REMOTE": "file:///srv/vllm.git"}, tmp_path)
    assert mirror.remote == "file:///srv/vllm.git"


def test_two_api_endpoints_sharing_a_cache_folder_never_answer_for_each_other(
    server: GitHubApi, tmp_path: Path
) -> None:
    clock = Clock()
    make_client(server, tmp_path, clock).get(ISSUE)
    with GitHubApi() as other:
        other.issues[7] = issue_json(REPO, 7, title="the other server's issue 7")
        fetched = make_client(other, tmp_path, clock).get(ISSUE)
        assert (fetched.freshness, fetched.data["title"]) == ("live", "the other server's issue 7")
        assert other.paths() == [ISSUE]


def test_two_tokens_keep_their_own_answers_and_the_cache_names_neither(server: GitHubApi, tmp_path: Path) -> None:
    clock = Clock()
    make_client(server, tmp_path, clock, GITHUB_TOKEN="ghp_first").get(ISSUE)
    make_client(server, tmp_path, clock, GITHUB_TOKEN="ghp_second").get(ISSUE)
    make_client(server, tmp_path, clock).get(ISSUE)
    assert len(server.requests) == 3
    assert make_client(server, tmp_path, clock, GITHUB_TOKEN="ghp_first").get(ISSUE).freshness == "cached"
    stored = b"".join(p.read_bytes() for p in (tmp_path / "github").rglob("*") if p.is_file())
    assert b"ghp_first" not in stored and b"ghp_second" not in stored


def test_a_spent_search_quota_pauses_search_only(server: GitHubApi, tmp_path: Path) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    limit = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(START) + 60), "X-RateLimit-Resource": "search"}
    server.script("/search/issues", 403, limit)
    with pytest.raises(GitHubUnavailableError, match=r"\(HTTP 403, search\)"):
        client.get("/search/issues", {"q": "fp8"})
    assert client.get(ISSUE).freshness == "live"
    with pytest.raises(GitHubUnavailableError, match=r"rate limit \(search\): no requests until"):
        client.get("/search/issues", {"q": "fp8 kv"})
    assert server.paths() == ["/search/issues", ISSUE]


def test_a_rate_limit_of_one_endpoint_does_not_pause_another(server: GitHubApi, tmp_path: Path) -> None:
    clock = Clock()
    server.script(ISSUE, 403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(START) + 3600)})
    with pytest.raises(GitHubUnavailableError):
        make_client(server, tmp_path, clock).get(ISSUE)
    with GitHubApi() as other:
        other.issues[7] = issue_json(REPO, 7)
        assert make_client(other, tmp_path, clock).get(ISSUE).freshness == "live"


def test_after_the_first_timeout_a_deadline_answers_every_later_call_from_the_cache_at_once(
    server: GitHubApi, tmp_path: Path
) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    client.get(f"/repos/{REPO}/issues/8")
    clock.now += 8 * 86400
    server.slow.add(ISSUE)
    deadline = Deadline(60)
    with pytest.raises(GitHubUnavailableError, match=f"did not answer {ISSUE} within 0.5 s"):
        client.get(ISSUE, deadline=deadline)
    later = client.get(f"/repos/{REPO}/issues/8", deadline=deadline)
    assert (later.freshness, later.age) == ("cached", 8 * 86400)
    assert later.notes == (
        f"lookup deadline: GitHub did not answer {ISSUE} within 0.5 s, so no further network waits; "
        "answered from the cache (8.0 days old).",
    )
    with pytest.raises(GitHubUnavailableError, match="no further network waits and no cached answer"):
        client.get(f"/repos/{REPO}/issues/9", deadline=deadline)
    assert server.paths() == [f"/repos/{REPO}/issues/8", ISSUE]


def test_a_spent_deadline_sends_nothing(server: GitHubApi, tmp_path: Path) -> None:
    with pytest.raises(GitHubUnavailableError, match=r"lookup deadline: 0 s spent"):
        make_client(server, tmp_path, Clock()).get(ISSUE, deadline=Deadline(0))
    assert server.requests == []


def test_a_retry_after_longer_than_what_is_left_of_the_deadline_is_not_waited_for(
    server: GitHubApi, tmp_path: Path
) -> None:
    slept: list[float] = []
    config = GitHubSettings.from_env({"VLLM_QUANT_MCP_GITHUB_API": server.base_url}, tmp_path)
    client = GitHubClient(config, clock=Clock(), sleep=slept.append)
    server.script(ISSUE, 429, {"Retry-After": "2"})
    with pytest.raises(GitHubUnavailableError, match=r"rate limit \(HTTP 429, core\)"):
        client.get(ISSUE, deadline=Deadline(1.5))
    assert (slept, server.paths()) == ([], [ISSUE])


def test_an_html_error_page_from_a_gateway_is_a_refusal_answered_from_the_cache(
    server: GitHubApi, tmp_path: Path
) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    client.get(ISSUE)
    clock.now += 700
    server.script(ISSUE, 502, {"Content-Type": "text/html"}, b"<html><body>Bad gateway</body></html>")
    fetched = client.get(ISSUE)
    assert (fetched.freshness, fetched.data) == ("cached", server.issues[7])
    assert fetched.notes == (f"GitHub answered {ISSUE} with HTTP 502; answered from the cache (12 min old).",)


def test_an_answer_given_a_ttl_is_served_from_the_cache_for_that_long(server: GitHubApi, tmp_path: Path) -> None:
    clock = Clock()
    client = make_client(server, tmp_path, clock)
    client.get(ISSUE, ttl=365 * 86400.0)
    clock.now += 300 * 86400
    assert client.get(ISSUE).freshness == "cached"
