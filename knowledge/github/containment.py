"""Which release tags contain a fix, decided tag by tag from commits alone: ancestry, cherry-picks, reverts.

For fix commit F (a merged PR's merge commit, or the commit that closed an issue) of PR N:

    ancestor(T) := F is an ancestor of T
    picked(T)   := a commit reachable from T but not from F names "(#N)" in its subject (vLLM keeps the
                   subject when it cherry-picks into a release branch) or says "cherry picked from commit F"
    reverted(T) := a commit reachable from T but not from F is 'Revert "... (#N) ..."', not re-applied after
    contains(T) := (ancestor(T) or picked(T)) and not reverted(T)

Containment is not monotone in version order: a fix picked into v0.19.1 is not in v0.19.0, and one
picked into v0.20.1 is not in v0.19.2 even when that was published later. So every tag is decided on
its own, and the "first" release is only the lowest version that contains the fix: never read as
"every later release has it". Pure logic over a `git` callable (the history repository's, with lazy
fetching off); the callable raises when git fails, and so does this.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from ..tags import InvalidTagError, normalize_tag, tag_key
from .answers import Verdict

__all__ = ["Containment", "ProofMethod", "prove_with_git", "release_tags"]

ProofMethod = Literal["git", "github_compare"]
GitRun = Callable[..., str]
_REVERT = 'Revert "'


def release_tags(names: Iterable[str]) -> dict[str, str]:
    """Release-shaped names, normalized (v0.19.0) -> as the repository spells them, in version order."""
    found: dict[str, str] = {}
    for name in names:
        try:
            found.setdefault(normalize_tag(name.strip()), name.strip())
        except InvalidTagError:
            continue
    return {tag: found[tag] for tag in sorted(found, key=tag_key)}


def is_final(tag: str) -> bool:
    return "rc" not in tag


@dataclass(frozen=True)
class Containment:
    """The per-tag answer: which tags hold the fix and how, which were decided, which had it reverted."""

    method: ProofMethod
    sha: str | None
    tags: tuple[str, ...]  # every release tag known, in version order
    decided: frozenset[str]
    containing: Mapping[str, str]  # tag -> "ancestry" | "cherry-pick <sha12>"
    reverted: Mapping[str, str]  # tag -> the revert commit
    complete: bool  # reverts checked and every tag of `tags` decided

    @property
    def settled(self) -> bool:
        """Every known tag decided: a "no release holds it" is then proven, reverts or not."""
        return self.complete or set(self.tags) <= self.decided

    def holds(self) -> dict[str, str]:
        return {t: how for t, how in self.containing.items() if t not in self.reverted}

    def first(self) -> str | None:
        finals = [t for t in self.holds() if is_final(t)]
        return min(finals, key=tag_key) if finals else None

    def verdict(self, tag: str) -> Verdict:
        if tag in self.holds():
            return "yes"
        if tag in self.reverted or (tag in self.decided and tag in self.tags):
            return "no"
        return "unknown"

    def later_without(self) -> list[str]:
        """Final releases after the first that do not contain the fix: why "first" is no promise for later tags."""
        first = self.first()
        if first is None:
            return []
        return [t for t in self.tags if is_final(t) and tag_key(t) > tag_key(first) and self.verdict(t) == "no"]


def prove_with_git(git: GitRun, sha: str | None, pr: int | None, present: bool) -> Containment:
    """Every release tag of a complete history decided for fix commit `sha` of PR `pr` (either may be None).

    `present`: the history holds `sha`. When it does not, no tag has it as an ancestor (the history holds
    every commit of every tag), and only picks that name the PR or the sha can put it in a release.
    """
    tags = release_tags(git("for-each-ref", "--format=%(refname:strip=2)", "refs/tags/").split())
    wanted = set(tags)
    present = present and sha is not None
    containing: dict[str, str] = {}
    if present and sha is not None:
        containing = dict.fromkeys(_tags_containing(git, sha, wanted), "ancestry")
    reverts: dict[str, list[str]] = {}
    picks: dict[str, list[str]] = {}
    for commit, revert in _mentions(git, sha, pr, [tags[t] for t in tags], present):
        for tag in _tags_containing(git, commit, wanted):
            (reverts if revert else picks).setdefault(tag, []).append(commit)
            if not revert:
                containing.setdefault(tag, f"cherry-pick {commit[:12]}")
    reverted = {}
    for tag, found in reverts.items():
        standing = [r for r in found if not any(_is_ancestor(git, r, p) for p in picks.get(tag, []))]
        if standing:
            reverted[tag] = standing[0]
    return Containment(
        method="git",
        sha=sha,
        tags=tuple(tags),
        decided=frozenset(tags),
        containing=containing,
        reverted=reverted,
        complete=True,
    )


def _tags_containing(git: GitRun, commit: str, wanted: set[str]) -> list[str]:
    out = git("for-each-ref", "--contains", commit, "--format=%(refname:strip=2)", "refs/tags/")
    return [tag for tag in release_tags(out.split()) if tag in wanted]


def _mentions(git: GitRun, sha: str | None, pr: int | None, refs: list[str], present: bool) -> list[tuple[str, bool]]:
    """Commits on the tags' side naming the PR or the fix: (commit, is a revert), newest first."""
    greps = [rf"--grep=\(#{pr}\)"] if pr is not None else []
    greps += [f"--grep=cherry picked from commit {sha}"] if sha else []
    if not greps or not refs:
        return []
    exclude = ["--not", sha] if present and sha else []
    log = git("log", "--format=%H%x1f%s%x1f%b%x1e", "-E", *greps, *[f"refs/tags/{r}" for r in refs], *exclude)
    found = []
    for record in filter(None, (r.strip("\n") for r in log.split("\x1e"))):
        commit, subject, body = ([*record.split("\x1f"), "", ""])[:3]
        names_pr = pr is not None and f"(#{pr})" in subject
        picked = sha is not None and f"cherry picked from commit {sha}" in body
        if not (names_pr or picked):
            continue
        depth = 0
        while subject.startswith(_REVERT, len(_REVERT) * depth):
            depth += 1
        found.append((commit, depth % 2 == 1))
    return found


def _is_ancestor(git: GitRun, older: str, newer: str) -> bool:
    return git("rev-list", "--count", older, "--not", newer).strip() == "0"
