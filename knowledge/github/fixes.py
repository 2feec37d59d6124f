"""The first vLLM release that contains a fix, and how we know: git, then release notes, then the knowledge base.

1. git: `git tag --contains <merge commit>` in the git source's bare repository
   (<cache>/git/vllm.git, opened the way GitSource opens it). That repository is
   filled by shallow fetches of single tags, so it usually lacks a merge commit
   that is not itself a tag; and while it is shallow, a tag whose history was not
   fetched cannot be seen to contain anything, so an earlier release may be missed
   (`certain` is False then).
2. release notes: the earliest non-draft, non-prerelease GitHub release whose
   notes name the PR (`#N` or its URL), which is how vLLM's notes list changes.
3. knowledge base: a curated fact citing the number (a pain point's `fixed_in`,
   the version of a gate).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vllm_quant_mcp.knowledge.facts.kinds import PainPoint, VersionGate
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase

from ..errors import InvalidInputError, SourceError
from ..sources.git import GitSource
from ..tags import InvalidTagError, normalize_tag, tag_key
from .answers import FirstRelease, FixMethod, Verdict

if TYPE_CHECKING:
    import git

__all__ = [
    "FirstRelease",
    "FixMethod",
    "Verdict",
    "check_sha",
    "first_found",
    "first_release_from_git",
    "first_release_from_knowledge",
    "first_release_from_notes",
    "fixed_in_release",
]

_SHA = re.compile(r"^[0-9a-f]{7,64}$")
GIT_TIMEOUT = 60.0  # seconds per local git call: `tag --contains` on a full history takes a few


def check_sha(sha: str) -> str:
    """A commit id safe to hand to git (hex only, so never an option), lower-cased."""
    value = sha.strip().lower()
    if not _SHA.match(value):
        raise InvalidInputError(f"{sha!r} is not a commit sha (7-64 hex digits); refusing to pass it to git.")
    return value


def _release_tags(names: Iterable[str]) -> list[str]:
    tags = []
    for name in names:
        try:
            tags.append(normalize_tag(name.strip()))
        except InvalidTagError:
            continue
    return sorted(set(tags), key=tag_key)


def first_release_from_git(repo_dir: Path, shas: list[str]) -> FirstRelease:
    """The earliest local release tag containing any of `shas`; tag None (with why) when git cannot say."""
    if not shas:
        return FirstRelease(tag=None, method="none", detail="no merge commit to look for", certain=False)
    if not repo_dir.is_dir():
        return FirstRelease(
            tag=None, method="none", detail=f"no local git repository at {repo_dir} (run refresh)", certain=False
        )
    import git

    wanted = [check_sha(sha) for sha in shas]
    try:
        return _tags_containing(GitSource._repo(repo_dir), repo_dir, wanted)
    except (git.GitCommandError, SourceError) as exc:  # a damaged repository, a git killed at its timeout
        reason = str(exc.stderr).strip() if isinstance(exc, git.GitCommandError) else str(exc)
        return FirstRelease(tag=None, method="none", detail=f"git failed in {repo_dir}: {reason or exc}", certain=False)


def _tags_containing(repo: git.Repo, repo_dir: Path, shas: list[str]) -> FirstRelease:
    import git

    checked = _release_tags(str(repo.git.tag("--list", kill_after_timeout=GIT_TIMEOUT)).splitlines())
    shallow = str(repo.git.rev_parse("--is-shallow-repository", kill_after_timeout=GIT_TIMEOUT)).strip() == "true"
    containing: set[str] = set()
    present = []
    for sha in shas:
        try:
            repo.git.cat_file("-e", f"{sha}^{{commit}}", kill_after_timeout=GIT_TIMEOUT)
        except git.GitCommandError:
            continue
        present.append(sha)
        listing = repo.git.tag("--contains", sha, kill_after_timeout=GIT_TIMEOUT)
        containing.update(_release_tags(str(listing).splitlines()))
    if not present:
        depth = "shallow, holding only fetched release tags" if shallow else "full"
        return FirstRelease(
            tag=None,
            method="none",
            detail=f"commit {', '.join(s[:12] for s in shas)} is not in the local repository ({depth})",
            certain=False,
            checked=checked,
        )
    ordered = sorted(containing, key=tag_key)
    if not ordered:
        return FirstRelease(
            tag=None,
            method="none",
            detail=f"no local release tag contains {', '.join(s[:12] for s in present)} (tags held: {len(checked)})",
            certain=False,
            checked=checked,
        )
    caveat = "; the repository is shallow, so an earlier release may be missed" if shallow else ""
    return FirstRelease(
        tag=ordered[0],
        method="git_tag_contains",
        detail=f"git tag --contains {present[0][:12]} in {repo_dir}{caveat}",
        certain=not shallow,
        containing=ordered,
        checked=checked,
    )


def first_release_from_notes(releases: list[Any], numbers: list[int], repo: str) -> FirstRelease:
    """The earliest published release whose notes name one of `numbers` as #N or as its GitHub URL."""
    if not numbers:
        return FirstRelease(tag=None, method="none", detail="no PR number to look for", certain=False)
    alternatives = "|".join(str(n) for n in numbers)
    url = rf"github\.com/{re.escape(repo)}/(?:pull|issues)/"
    pattern = re.compile(rf"(?:(?<![\w/])#|{url})({alternatives})(?!\d)", re.IGNORECASE)
    hits: dict[str, int] = {}
    for release in releases:
        if not isinstance(release, dict) or release.get("draft") or release.get("prerelease"):
            continue
        match = pattern.search(str(release.get("body") or ""))
        for tag in _release_tags([str(release.get("tag_name") or "")]):
            if match:
                hits[tag] = int(match.group(1))
    if not hits:
        wanted = ", ".join(f"#{n}" for n in numbers)
        return FirstRelease(tag=None, method="none", detail=f"no release notes name {wanted}", certain=False)
    first = min(hits, key=tag_key)
    return FirstRelease(
        tag=first, method="release_notes", detail=f"the {first} release notes name #{hits[first]}", certain=True
    )


def first_release_from_knowledge(knowledge: KnowledgeBase, repo: str, numbers: list[int]) -> FirstRelease:
    """The earliest release a curated fact citing one of `numbers` gives: a pain point's fixed_in, a gate's version."""
    found: list[tuple[str, str]] = []
    for _kind, fact in knowledge.facts():
        if not any(_cites(c, repo, numbers) for c in fact.citations):
            continue
        if isinstance(fact, PainPoint) and fact.fixed_in:
            found.append((fact.fixed_in, f"pain point {fact.id} says fixed in {fact.fixed_in}"))
        elif isinstance(fact, VersionGate):
            found.append((fact.version, f"version gate {fact.id} places the change in {fact.version}"))
    if not found:
        return FirstRelease(tag=None, method="none", detail="no knowledge-base fact gives a release", certain=False)
    tag, detail = min(found, key=lambda f: tag_key(f[0]))
    return FirstRelease(tag=tag, method="knowledge_base", detail=detail, certain=True)


def _cites(citation: Any, repo: str, numbers: list[int]) -> bool:
    return getattr(citation, "number", None) in numbers and str(getattr(citation, "repo", "")).lower() == repo.lower()


def first_found(attempts: Iterable[Callable[[], FirstRelease]]) -> tuple[FirstRelease, list[str]]:
    """The first attempt that names a release, and why each earlier one could not."""
    misses: list[str] = []
    for attempt in attempts:
        result = attempt()
        if result.tag is not None:
            return result, misses
        misses.append(result.detail)
    return FirstRelease(tag=None, method="none", detail="; ".join(misses), certain=False), misses


def fixed_in_release(tag: str, first: FirstRelease) -> Verdict:
    """Whether release `tag` has the fix: git answers for the tags it holds, else release order against `first`."""
    if first.method == "git_tag_contains" and tag in first.containing:
        return "yes"
    if first.method == "git_tag_contains" and first.certain and tag in first.checked:
        return "no"
    if first.tag is None:
        return "unknown"
    if tag_key(tag) >= tag_key(first.tag):
        return "yes"
    return "no" if first.certain else "unknown"
