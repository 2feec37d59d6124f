"""First release containing a fix: git against the git source's own repository, release notes, the knowledge base."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.githubapi import TaggedRepo, fill_git_cache, tagged_repo

from vllm_quant_mcp.knowledge.facts.knowledge_base import load_knowledge
from vllm_quant_mcp.knowledge.github.fixes import (
    FirstRelease,
    check_sha,
    first_release_from_git,
    first_release_from_knowledge,
    first_release_from_notes,
    fixed_in_release,
)

REPO = "vllm-project/vllm"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> TaggedRepo:
    return tagged_repo(tmp_path_factory.mktemp("upstream"))


@pytest.fixture(scope="module")
def full_cache(upstream: TaggedRepo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fill_git_cache(upstream, tmp_path_factory.mktemp("full"), unshallow=True)


@pytest.fixture(scope="module")
def shallow_cache(upstream: TaggedRepo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fill_git_cache(upstream, tmp_path_factory.mktemp("shallow"), unshallow=False)


def test_git_finds_the_earliest_release_tag_containing_the_merge_commit(upstream: TaggedRepo, full_cache: Path) -> None:
    found = first_release_from_git(full_cache, [upstream.commits["fix"]])
    assert (found.tag, found.method, found.certain) == ("v0.2.0", "git_tag_contains", True)
    assert (found.containing, found.checked) == (["v0.2.0", "v0.3.0"], ["v0.1.0", "v0.2.0", "v0.3.0"])


def test_git_says_no_release_contains_a_commit_after_the_last_tag(upstream: TaggedRepo, full_cache: Path) -> None:
    found = first_release_from_git(full_cache, [upstream.commits["later"]])
    assert (found.tag, found.method) == (None, "none")
    assert found.detail == f"no local release tag contains {upstream.commits['later'][:12]} (tags held: 3)"


def test_a_shallow_repository_lacks_merge_commits_between_tags(upstream: TaggedRepo, shallow_cache: Path) -> None:
    found = first_release_from_git(shallow_cache, [upstream.commits["fix"]])
    assert found.tag is None
    assert found.detail == (
        f"commit {upstream.commits['fix'][:12]} is not in the local repository "
        "(shallow, holding only fetched release tags)"
    )


def test_in_a_shallow_repository_a_tagged_commit_is_found_but_not_as_certain(
    upstream: TaggedRepo, shallow_cache: Path
) -> None:
    found = first_release_from_git(shallow_cache, [upstream.commits["second"]])
    assert (found.tag, found.certain, found.containing) == ("v0.2.0", False, ["v0.2.0"])
    assert fixed_in_release("v0.3.0", found) == "yes"
    assert fixed_in_release("v0.1.0", found) == "unknown"


def test_without_a_local_repository_git_says_to_refresh(tmp_path: Path) -> None:
    found = first_release_from_git(tmp_path / "git" / "vllm.git", ["a" * 40])
    assert found.detail == f"no local git repository at {tmp_path / 'git' / 'vllm.git'} (run refresh)"
    assert not (tmp_path / "git").exists()


@pytest.mark.parametrize("sha", ["--output=/tmp/x", "HEAD", "v0.2.0", "abc", "a" * 40 + " --all", "g" * 40])
def test_anything_but_a_hex_sha_is_refused_before_git_sees_it(sha: str, full_cache: Path) -> None:
    with pytest.raises(ValueError, match="is not a commit sha"):
        first_release_from_git(full_cache, [sha])
    with pytest.raises(ValueError, match="7-64 hex digits"):
        check_sha(sha)


RELEASES = [
    {"tag_name": "v0.3.0", "body": "* Bigger change #120 by @b", "draft": False, "prerelease": False},
    {"tag_name": "v0.2.1", "body": "* Fix in https://github.com/vllm-project/vllm/pull/12", "prerelease": False},
    {"tag_name": "v0.2.0rc1", "body": "* Fix (#12)", "draft": False, "prerelease": True},
    {"tag_name": "v0.9.0", "body": "* Draft mentions #12", "draft": True, "prerelease": False},
    {"tag_name": "nightly", "body": "#12", "draft": False, "prerelease": False},
    {"tag_name": "v0.2.2", "body": "Backport of #12", "draft": False, "prerelease": False},
]


def test_release_notes_give_the_earliest_published_release_naming_the_pr() -> None:
    found = first_release_from_notes(RELEASES, [12], REPO)
    assert (found.tag, found.method, found.detail) == ("v0.2.1", "release_notes", "the v0.2.1 release notes name #12")
    assert first_release_from_notes(RELEASES, [1], REPO).tag is None
    assert first_release_from_notes(RELEASES, [120], REPO).tag == "v0.3.0"


def test_the_knowledge_base_gives_a_pain_points_fixed_in() -> None:
    found = first_release_from_knowledge(load_knowledge(), REPO, [38652])
    assert (found.tag, found.method) == ("v0.19.0", "knowledge_base")
    assert found.detail == "pain point pain-fp8-kv-mla-multiturn says fixed in v0.19.0"
    assert first_release_from_knowledge(load_knowledge(), "octo/vllm", [38652]).tag is None


@pytest.mark.parametrize(
    ("tag", "certain", "verdict"),
    [("v0.19.0", True, "yes"), ("v0.20.1", True, "yes"), ("v0.18.2", True, "no"), ("v0.18.2", False, "unknown")],
)
def test_a_release_has_the_fix_from_the_first_release_on(tag: str, certain: bool, verdict: str) -> None:
    first = FirstRelease(tag="v0.19.0", method="release_notes", detail="", certain=certain)
    assert fixed_in_release(tag, first) == verdict


def test_with_no_first_release_the_verdict_is_unknown() -> None:
    assert fixed_in_release("v0.19.0", FirstRelease(tag=None, method="none", detail="", certain=False)) == "unknown"


def test_a_corrupt_local_repository_makes_git_give_no_answer_with_the_reason_instead_of_raising(
    tmp_path: Path,
) -> None:
    upstream = tagged_repo(tmp_path / "repo")
    tagged = upstream.commits["second"]  # v0.2.0: `tag --contains fix` must read it
    loose = upstream.path / ".git" / "objects" / tagged[:2] / tagged[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"not a zlib stream")
    found = first_release_from_git(upstream.path, [upstream.commits["fix"]])
    assert (found.tag, found.method, found.certain) == (None, "none", False)
    assert found.detail.startswith(f"git failed in {upstream.path}: ") and "corrupt" in found.detail
