"""The compare-endpoint proof, for when git cannot reach the remote, held against git's answer on the same remote."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support.githubapi import GitHubApi
from support.issue_world import serve_threads
from support.releases import release_tree
from support.vllm_remote import RELEASES, VllmRemote, build_vllm_remote, git_compare

from vllm_quant_mcp.knowledge.github.compare import MAX_CALLS, prove_with_compare
from vllm_quant_mcp.knowledge.github.containment import Containment, prove_with_git, release_tags
from vllm_quant_mcp.knowledge.github.history import History

FIXES = {"fix0": 1000, "fixR": 1008, "fixA": 1001, "fixB": 1002, "fixC": None, "fix1007": 1007}


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> VllmRemote:
    return build_vllm_remote(tmp_path_factory.mktemp("up") / "vllm.git", {v: release_tree(v).root for v in RELEASES})


@pytest.fixture(scope="module")
def api(remote: VllmRemote) -> Iterator[GitHubApi]:
    """The threads' JSON: release dates, merge dates and base branches as GitHub gives them."""
    with GitHubApi() as world:
        serve_threads(world, remote)
        yield world


class Counting:
    def __init__(self, remote: VllmRemote, answer_first: int | None = None) -> None:
        self.remote, self.answer_first = remote, answer_first
        self.calls: list[tuple[str, str]] = []

    def __call__(self, base: str, head: str) -> dict[str, Any] | None:
        self.calls.append((base, head))
        if self.answer_first is not None and len(self.calls) > self.answer_first:
            return None
        return git_compare(self.remote.path, base, head)


def by_compare(api: GitHubApi, remote: VllmRemote, label: str, compare: Counting) -> Containment:
    pr = FIXES[label] or 59042
    pull = api.pulls[pr]
    published = {r["tag_name"]: r["published_at"] for r in api.releases if r.get("published_at")}
    names = release_tags(t["name"] for t in api.tags)
    sha = remote.commits[label]
    return prove_with_compare(compare, names, sha, FIXES[label], pull["base"]["ref"], published, pull["merged_at"])


def by_git(remote: VllmRemote, label: str) -> Containment:
    history = History(remote.path, remote.url, 0.0)
    return prove_with_git(history.git, remote.commits[label], FIXES[label], True)


@pytest.mark.parametrize("label", sorted(FIXES))
def test_every_tag_the_compare_proof_decides_agrees_with_git(api: GitHubApi, remote: VllmRemote, label: str) -> None:
    compare = Counting(remote)
    proof = by_compare(api, remote, label, compare)
    truth = by_git(remote, label)
    assert proof.decided
    assert {t: proof.verdict(t) for t in proof.decided} == {t: truth.verdict(t) for t in proof.decided}
    assert (proof.first(), proof.complete) == (truth.first(), False)
    assert len(compare.calls) <= 6


def test_on_main_only_the_series_heads_are_bisected_and_later_series_follow_by_ancestry(
    api: GitHubApi, remote: VllmRemote
) -> None:
    compare = Counting(remote)
    proof = by_compare(api, remote, "fix0", compare)
    sha = remote.commits["fix0"]
    assert compare.calls == [("v0.20.0", sha), ("v0.19.0", sha)]
    assert sorted(proof.decided) == ["v0.19.0", "v0.19.1", "v0.19.2", "v0.20.0", "v0.20.1", "v0.22.0"]


def test_a_release_published_before_the_merge_is_decided_without_a_request(api: GitHubApi, remote: VllmRemote) -> None:
    compare = Counting(remote)
    proof = by_compare(api, remote, "fixC", compare)
    assert [c[0] for c in compare.calls] == ["v0.20.0", "v0.22.0"]  # bisection only: every tag predates the merge
    assert (proof.first(), proof.settled) == (None, True)


def test_when_github_stops_answering_what_was_not_asked_stays_unknown(api: GitHubApi, remote: VllmRemote) -> None:
    proof = by_compare(api, remote, "fixA", Counting(remote, answer_first=1))
    assert proof.first() is None and not proof.settled
    assert {t: proof.verdict(t) for t in ("v0.19.0", "v0.19.1", "v0.22.0")} == dict.fromkeys(
        ("v0.19.0", "v0.19.1", "v0.22.0"), "unknown"
    )


def test_without_release_dates_the_number_of_compare_requests_is_capped() -> None:
    calls: list[tuple[str, str]] = []

    def ahead(base: str, head: str) -> dict[str, Any]:
        calls.append((base, head))
        return {"status": "ahead", "ahead_by": 1, "behind_by": 0, "commits": []}

    names = {f"v0.{minor}.{patch}": f"v0.{minor}.{patch}" for minor in range(1, 40) for patch in range(3)}
    proof = prove_with_compare(ahead, names, "c" * 40, 7, "main", {}, None)
    assert len(calls) == MAX_CALLS and not proof.settled
