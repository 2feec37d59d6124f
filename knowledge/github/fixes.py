"""A first release and the verdict for any tag, from one piece of evidence, in the order it is trusted.

1. proof from commits (containment.py over the history repository; compare.py over GitHub's compare
   endpoint when git cannot reach the remote): `basis: proven`;
2. release notes: the releases whose published notes name the PR, only for tags that exist;
   `basis: release_notes`, `certain: false`;
3. the knowledge base: a curated fact's release, only when it is a known tag and only when the live
   state does not contradict it (the caller decides that); `basis: curated_unverified`, `certain: false`.

A verdict for a tag follows the evidence that named the release: membership for a proof (never "every
later tag has it": containment is not monotone), the named tags for release notes, release order for a
curated claim (marked as such by its basis).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.facts.kinds import PainPoint, VersionGate
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase

from ..errors import InvalidInputError
from ..tags import tag_key
from .answers import FirstRelease, FixMethod, Verdict
from .containment import Containment, is_final, release_tags

__all__ = ["FixPlacement", "check_sha", "from_containment", "from_knowledge", "from_notes", "no_release"]

_SHA = re.compile(r"^[0-9a-f]{7,64}$")
UNFIXED = frozenset({"open", "wont_fix", "closed_unfixed", "rfc"})  # pain-point statuses that mean "not fixed"


def check_sha(sha: str) -> str:
    """A commit id safe to hand to git (hex only, so never an option), lower-cased."""
    value = sha.strip().lower()
    if not _SHA.match(value):
        raise InvalidInputError(f"{clip(sha)} is not a commit sha (7-64 hex digits); refusing to pass it to git.")
    return value


@dataclass(frozen=True)
class FixPlacement:
    """A first release and what it rests on, so the verdict for any tag follows the same evidence."""

    first: FirstRelease
    containment: Containment | None = None
    named: frozenset[str] = frozenset()

    def verdict(self, tag: str) -> Verdict:
        if self.containment is not None:
            return self.containment.verdict(tag)
        if self.first.released == "no":
            return "no"
        if self.first.basis == "release_notes":
            return "yes" if tag in self.named else "unknown"
        if self.first.basis == "curated_unverified" and self.first.tag is not None:
            return "yes" if tag_key(tag) >= tag_key(self.first.tag) else "no"
        return "unknown"


def no_release(detail: str, released: Verdict, *, certain: bool = False, fix_commit: str | None = None) -> FixPlacement:
    """No release to name, and why: the live state says none can hold it, or nothing could prove one."""
    first = FirstRelease(
        tag=None, released=released, method="none", basis="none", certain=certain, detail=detail, fix_commit=fix_commit
    )
    return FixPlacement(first)


def from_containment(proof: Containment, where: str) -> FixPlacement:
    """The first release a per-tag proof found, or none with the newest tag it checked."""
    first = proof.first()
    finals = [t for t in proof.tags if is_final(t)]
    newest = finals[-1] if finals else None
    short = proof.sha[:12] if proof.sha else "the commits naming the PR"
    git = proof.method == "git"
    if first is None:
        reverted = sorted(proof.reverted, key=tag_key)
        if reverted:
            detail = f"{short} reached {', '.join(reverted)} but was reverted there; no release holds it"
        elif proof.settled:
            detail = f"no release up to the newest, {newest}, holds {short}"
        else:
            detail = f"no release asked holds {short}; releases not asked are unknown"
        released: Verdict = "no" if proof.settled else "unknown"
        answer = FirstRelease(
            tag=None,
            released=released,
            method="none",
            basis="proven" if proof.settled else "none",
            certain=proof.settled,
            detail=f"{detail} ({where})",
            fix_commit=proof.sha,
            reverted_in=reverted,
            newest_checked=newest,
        )
        return FixPlacement(answer, proof)
    how = proof.holds()[first]
    method: FixMethod = "github_compare" if not git else "git_ancestry" if how == "ancestry" else "git_cherry_pick"
    answer = FirstRelease(
        tag=first,
        released="yes",
        method=method,
        basis="proven",
        certain=proof.complete,
        detail=f"{first} holds {short} by {how} ({where})",
        fix_commit=proof.sha,
        later_without=proof.later_without(),
        reverted_in=sorted(proof.reverted, key=tag_key),
        newest_checked=newest,
    )
    return FixPlacement(answer, proof)


def from_notes(releases: list[Any], numbers: list[int], repo: str, known: Collection[str]) -> FixPlacement | None:
    """The earliest published release whose notes name one of `numbers`, among tags that exist (`known`)."""
    alternatives = "|".join(str(n) for n in numbers)
    if not alternatives:
        return None
    url = rf"github\.com/{re.escape(repo)}/(?:pull|issues)/"
    pattern = re.compile(rf"(?:(?<![\w/])#|{url})({alternatives})(?!\d)", re.IGNORECASE)
    hits: dict[str, int] = {}
    for release in releases:
        if not isinstance(release, dict) or release.get("draft") or release.get("prerelease"):
            continue
        match = pattern.search(str(release.get("body") or ""))
        for tag in release_tags([str(release.get("tag_name") or "")]):
            if match and tag in known:
                hits[tag] = int(match.group(1))
    if not hits:
        return None
    first = min(hits, key=tag_key)
    answer = FirstRelease(
        tag=first,
        released="yes",
        method="release_notes",
        basis="release_notes",
        certain=False,
        detail=f"the {first} release notes name #{hits[first]} (not proven from commits)",
    )
    return FixPlacement(answer, named=frozenset(hits))


def from_knowledge(
    knowledge: KnowledgeBase, repo: str, numbers: list[int], known: Collection[str]
) -> tuple[FixPlacement | None, list[str]]:
    """A curated fact's release for one of `numbers`, only if it is a known tag; notes name what was dropped.

    With no release but a pain point recording the problem as open (wont_fix, rfc, ...): a curated "no".
    """
    found: list[tuple[str, str]] = []
    unfixed: list[str] = []
    for _kind, fact in knowledge.facts():
        if not any(_cites(c, repo, numbers) for c in fact.citations):
            continue
        if isinstance(fact, PainPoint) and fact.status in UNFIXED:
            unfixed.append(f"pain point {fact.id} records it {fact.status}")
        if isinstance(fact, PainPoint) and fact.fixed_in:
            found.append((fact.fixed_in, f"pain point {fact.id} says fixed in {fact.fixed_in}"))
        elif isinstance(fact, VersionGate):
            found.append((fact.version, f"version gate {fact.id} places the change in {fact.version}"))
    notes = [
        f"knowledge base: {what}, but {tag} is not a known tag; not used." for tag, what in found if tag not in known
    ]
    found = [(tag, what) for tag, what in found if tag in known]
    if not found and unfixed:
        detail = f"curated, unverified: {'; '.join(unfixed)}"
        answer = FirstRelease(
            tag=None, released="no", method="knowledge_base", basis="curated_unverified", certain=False, detail=detail
        )
        return FixPlacement(answer), notes
    if not found:
        return None, notes
    tag, detail = min(found, key=lambda f: tag_key(f[0]))
    answer = FirstRelease(
        tag=tag,
        released="yes",
        method="knowledge_base",
        basis="curated_unverified",
        certain=False,
        detail=f"curated, unverified: {detail}",
    )
    return FixPlacement(answer), notes


def _cites(citation: Any, repo: str, numbers: Collection[int]) -> bool:
    return getattr(citation, "number", None) in numbers and str(getattr(citation, "repo", "")).lower() == repo.lower()
