"""Release notes and curated facts as evidence for a first release, and the verdict each allows for a tag."""

from __future__ import annotations

import pytest
from support.kb_citing import citing

from vllm_quant_mcp.knowledge.facts.knowledge_base import load_knowledge
from vllm_quant_mcp.knowledge.github.containment import Containment
from vllm_quant_mcp.knowledge.github.fixes import (
    check_sha,
    from_containment,
    from_knowledge,
    from_notes,
    no_release,
)

REPO = "vllm-project/vllm"
KNOWN = {"v0.2.0", "v0.2.1", "v0.2.2", "v0.3.0", "v0.19.0", "v0.20.0", "v0.32.0"}
RELEASES = [
    {"tag_name": "v0.3.0", "body": "* Bigger change #120 by @b", "draft": False, "prerelease": False},
    {"tag_name": "v0.2.1", "body": "* Fix in https://github.com/vllm-project/vllm/pull/12", "prerelease": False},
    {"tag_name": "v0.2.0rc1", "body": "* Fix (#12)", "draft": False, "prerelease": True},
    {"tag_name": "v0.9.0", "body": "* Draft mentions #12", "draft": True, "prerelease": False},
    {"tag_name": "v0.1.5", "body": "* A release whose tag is gone names #12", "draft": False, "prerelease": False},
    {"tag_name": "nightly", "body": "#12", "draft": False, "prerelease": False},
    {"tag_name": "v0.2.2", "body": "Backport of #12", "draft": False, "prerelease": False},
]


def test_release_notes_give_the_earliest_published_release_naming_the_pr_among_tags_that_exist() -> None:
    found = from_notes(RELEASES, [12], REPO, KNOWN)
    assert found is not None
    first = found.first
    assert (first.tag, first.method, first.basis, first.certain) == ("v0.2.1", "release_notes", "release_notes", False)
    assert first.detail == "the v0.2.1 release notes name #12 (not proven from commits)"
    assert from_notes(RELEASES, [1], REPO, KNOWN) is None
    assert from_notes(RELEASES, [120], REPO, KNOWN) is not None


def test_release_notes_say_yes_only_for_the_releases_they_name() -> None:
    found = from_notes(RELEASES, [12], REPO, KNOWN)
    assert found is not None
    verdicts = {t: found.verdict(t) for t in ("v0.2.0", "v0.2.1", "v0.2.2", "v0.3.0")}
    assert verdicts == {"v0.2.0": "unknown", "v0.2.1": "yes", "v0.2.2": "yes", "v0.3.0": "unknown"}


def test_the_knowledge_base_is_curated_and_unverified_and_names_only_a_known_tag() -> None:
    found, notes = from_knowledge(load_knowledge(), REPO, [38652], KNOWN)
    assert found is not None and notes == []
    first = found.first
    assert (first.tag, first.method, first.basis, first.certain) == (
        "v0.19.0",
        "knowledge_base",
        "curated_unverified",
        False,
    )
    assert first.detail == "curated, unverified: pain point pain-fp8-kv-mla-multiturn says fixed in v0.19.0"
    assert [found.verdict(t) for t in ("v0.18.0", "v0.19.0", "v0.20.0")] == ["no", "yes", "yes"]
    assert from_knowledge(load_knowledge(), "octo/vllm", [38652], KNOWN) == (None, [])


def test_a_curated_release_that_is_not_a_known_tag_is_dropped_with_a_note() -> None:
    kb = citing(load_knowledge(), 59042, "gate-v0.32.0-cutlass-fp4-moe-ep", "pain-cutlass-fp4-moe-ep")
    found, notes = from_knowledge(kb, REPO, [59042], {"v0.19.0", "v0.22.0"})
    assert found is None
    assert notes == [
        "knowledge base: version gate gate-v0.32.0-cutlass-fp4-moe-ep places the change in v0.32.0, "
        "but v0.32.0 is not a known tag; not used.",
        "knowledge base: pain point pain-cutlass-fp4-moe-ep says fixed in v0.32.0, but v0.32.0 is not a known tag; "
        "not used.",
    ]


def test_a_pain_point_recorded_as_open_is_a_curated_no() -> None:
    found, _ = from_knowledge(load_knowledge(), REPO, [39662], KNOWN)
    assert found is not None
    assert (found.first.tag, found.first.released, found.first.basis) == (None, "no", "curated_unverified")
    assert found.verdict("v0.32.0") == "no"


def test_no_release_from_the_live_state_is_a_no_for_every_tag_and_an_unknown_stays_unknown() -> None:
    assert no_release("issue #1 is open", "no", certain=True).verdict("v0.19.0") == "no"
    assert no_release("nothing links a fix", "unknown").verdict("v0.19.0") == "unknown"


def test_a_proof_names_the_tags_after_the_first_that_lack_the_fix_and_answers_by_membership() -> None:
    proof = Containment(
        method="git",
        sha="a" * 40,
        tags=("v0.19.0", "v0.19.1", "v0.19.2", "v0.20.0", "v0.20.1", "v0.22.0"),
        decided=frozenset({"v0.19.0", "v0.19.1", "v0.19.2", "v0.20.0", "v0.20.1", "v0.22.0"}),
        containing={"v0.19.1": "cherry-pick bbbb", "v0.20.0": "ancestry", "v0.22.0": "ancestry"},
        reverted={"v0.22.0": "c" * 40},
        complete=True,
    )
    found = from_containment(proof, "test")
    first = found.first
    assert (first.tag, first.method, first.basis, first.certain) == ("v0.19.1", "git_cherry_pick", "proven", True)
    assert (first.later_without, first.reverted_in, first.newest_checked) == (
        ["v0.19.2", "v0.20.1", "v0.22.0"],
        ["v0.22.0"],
        "v0.22.0",
    )
    verdicts = [found.verdict(t) for t in proof.tags] + [found.verdict("v0.23.0")]
    assert verdicts == ["no", "yes", "no", "yes", "no", "no", "unknown"]


@pytest.mark.parametrize("sha", ["--output=/tmp/x", "HEAD", "v0.2.0", "abc", "a" * 40 + " --all", "g" * 40])
def test_anything_but_a_hex_sha_is_refused_before_git_sees_it(sha: str) -> None:
    with pytest.raises(ValueError, match="7-64 hex digits"):
        check_sha(sha)
