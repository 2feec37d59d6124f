"""Which releases hold a fix, proven from a treeless history of a remote built from real release trees."""

from __future__ import annotations

import pytest
from support.releases import release_tree
from support.vllm_remote import AFTER_NEWEST_PR, RELEASES, VllmRemote, build_vllm_remote

from vllm_quant_mcp.knowledge.github.containment import Containment, prove_with_git
from vllm_quant_mcp.knowledge.github.deadline import Deadline
from vllm_quant_mcp.knowledge.github.history import History, HistoryRepo

TAGS = ["v0.19.0", "v0.19.1", "v0.19.2", "v0.20.0", "v0.20.1", "v0.22.0"]


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> VllmRemote:
    return build_vllm_remote(tmp_path_factory.mktemp("up") / "vllm.git", {v: release_tree(v).root for v in RELEASES})


@pytest.fixture(scope="module")
def history(remote: VllmRemote, tmp_path_factory: pytest.TempPathFactory) -> History:
    found, notes = HistoryRepo(remote.url, tmp_path_factory.mktemp("cache")).ensure(Deadline(60), None, None)
    assert notes == [] and found is not None
    return found


def prove(history: History, sha: str | None, pr: int | None) -> Containment:
    return prove_with_git(history.git, sha, pr, sha is not None and history.has_commit(sha))


def holding(proof: Containment) -> list[str]:
    return [t for t in TAGS if proof.verdict(t) == "yes"]


@pytest.mark.parametrize(
    ("label", "pr", "first", "holds", "how"),
    [
        ("fix0", 1000, "v0.19.0", TAGS, "ancestry"),
        ("fixR", 1008, "v0.19.0", TAGS, "cherry-pick"),
        ("fixA", 1001, "v0.19.1", ["v0.19.1", "v0.19.2", "v0.20.0", "v0.20.1", "v0.22.0"], "cherry-pick"),
        ("fixB", 1002, "v0.20.1", ["v0.20.1", "v0.22.0"], "cherry-pick"),
        ("fix1007", 1007, "v0.19.2", ["v0.19.2"], "ancestry"),
    ],
)
def test_each_release_is_decided_on_its_own_and_the_first_is_the_lowest_holding_one(
    history: History, remote: VllmRemote, label: str, pr: int, first: str, holds: list[str], how: str
) -> None:
    proof = prove(history, remote.commits[label], pr)
    assert (proof.first(), holding(proof), proof.complete) == (first, holds, True)
    assert proof.holds()[first].startswith(how)
    assert [t for t in TAGS if proof.verdict(t) == "no"] == [t for t in TAGS if t not in holds]


def test_a_patch_release_of_an_older_series_published_later_is_listed_as_lacking_the_fix(
    history: History, remote: VllmRemote
) -> None:
    fix_b = prove(history, remote.commits["fixB"], 1002)
    assert fix_b.later_without() == []  # v0.19.2 is older by version, though published after v0.20.1
    backport = prove(history, remote.commits["fix1007"], 1007)
    assert backport.later_without() == ["v0.20.0", "v0.20.1", "v0.22.0"]


def test_a_pick_recorded_only_by_cherry_pick_x_is_found_without_a_pr_number(
    history: History, remote: VllmRemote
) -> None:
    proof = prove(history, remote.commits["fixB"], None)
    assert (proof.first(), proof.holds()["v0.20.1"]) == ("v0.20.1", f"cherry-pick {remote.commits['pickB'][:12]}")


def test_a_fix_reverted_before_a_release_is_not_in_it(history: History, remote: VllmRemote) -> None:
    proof = prove(history, remote.commits["fixE"], 1005)
    assert proof.containing == {"v0.22.0": "ancestry"}
    assert proof.reverted == {"v0.22.0": remote.commits["revertE"]}
    assert (proof.first(), proof.verdict("v0.22.0")) == (None, "no")


def test_a_fix_merged_after_the_newest_tag_is_in_no_release_and_every_release_says_no(
    history: History, remote: VllmRemote
) -> None:
    proof = prove(history, remote.commits["fixC"], AFTER_NEWEST_PR)
    assert (proof.first(), holding(proof), proof.settled) == (None, [], True)
    assert proof.verdict("v0.23.0") == "unknown"  # a release the history does not know of


def test_a_commit_the_history_lacks_is_in_no_tag_and_its_pr_number_still_finds_its_picks(
    history: History, remote: VllmRemote
) -> None:
    absent = "0" * 40
    assert not history.has_commit(absent)
    assert holding(prove(history, absent, None)) == []
    by_number = prove(history, None, 1001)  # the merge commit unknown: the squash subject "(#1001)" is enough
    assert (by_number.first(), holding(by_number)[0]) == ("v0.19.1", "v0.19.1")


def test_an_open_prs_test_merge_is_in_no_release(history: History, remote: VllmRemote) -> None:
    assert not history.has_commit(remote.commits["open_testmerge"])  # refs/pull/* are never fetched
