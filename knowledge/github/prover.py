"""The evidence chain for one fix, under one deadline: git, then GitHub's compare, then release notes, then curated.

1. git: the history repository (history.py), fetched when stale, proves every tag (containment.py).
   Only for the repository the configured remote holds (vLLM's).
2. compare: when git has no answer, GitHub's compare endpoint decides the tags it can (compare.py),
   with release dates from /releases to skip what cannot hold a pick.
3. release notes, when neither named a release, for tags that exist.
4. the knowledge base, last, curated and unverified, never against a proof that no release holds it.

Known tags (what "exists" means for 3 and 4) come from the history repository when there is one,
else from GitHub's /tags, else from the releases this server has registries for.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from .client import Fetched, GitHubNotFoundError, GitHubUnavailableError
from .compare import prove_with_compare
from .containment import Containment, prove_with_git, release_tags
from .deadline import Deadline
from .fixes import FixPlacement, from_containment, from_knowledge, from_notes, no_release
from .history import History, HistoryError
from .live import Fix
from .service import GitHubDeps
from .settings import DEFAULT_REPO

__all__ = ["Prover"]

IMMUTABLE = 10 * 365 * 86400.0  # a compare of a tag and a sha never changes: keep it


class Prover:
    """Evidence for one lookup; `notes` collects what each step could not do."""

    def __init__(self, deps: GitHubDeps, repo: str, deadline: Deadline, fallback_tags: Collection[str]) -> None:
        self.deps, self.repo, self.deadline = deps, repo, deadline
        self.notes: list[str] = []
        self._fallback_tags = fallback_tags
        self._history: History | None = None
        self._known: frozenset[str] | None = None
        self._releases: list[Any] | None = None

    def fetch(self, what: Callable[[], Fetched], about: str) -> Fetched | None:
        """One GitHub answer, or None with a note saying why not."""
        try:
            fetched = what()
        except (GitHubUnavailableError, GitHubNotFoundError) as exc:
            self.notes.append(f"{about}: {exc}")
            return None
        self.notes.extend(n for n in fetched.notes if n not in self.notes)
        return fetched

    def prove(self, fix: Fix) -> FixPlacement:
        """The first release holding `fix`, by the most trusted evidence that can tell."""
        proof = self._git(fix)
        if proof is None and fix.sha is not None:
            proof = self._compare(fix)
        found = None if proof is None else from_containment(proof, self._where(proof, fix))
        if found is not None and (found.first.tag is not None or found.first.released == "no"):
            return found
        noted = self._notes_finding([fix.pr] if fix.pr is not None else [])
        if noted is not None:
            return noted
        return found or no_release(f"{fix.why}: neither git, compare nor release notes could place it", "unknown")

    def curated(self, numbers: list[int]) -> FixPlacement | None:
        """The knowledge base's release for `numbers`, if it is a known tag (notes say what was dropped)."""
        found, notes = from_knowledge(self.deps.knowledge, self.repo, numbers, self.known_tags())
        self.notes.extend(notes)
        return found

    def known_tags(self) -> frozenset[str]:
        if self._known is None:
            self._known = self._tags()
        return self._known

    def _tags(self) -> frozenset[str]:
        if self._history is None and self.repo == DEFAULT_REPO and self.deps.history is not None:
            self._history = self.deps.history.current()
        if self._history is not None:
            try:
                names = self._history.git("for-each-ref", "--format=%(refname:strip=2)", "refs/tags/").split()
                return frozenset(release_tags(names))
            except HistoryError as exc:
                self.notes.append(str(exc))
        path = f"/repos/{self.repo}/tags"
        got = self.fetch(
            lambda: self.deps.client.get_pages(path, {"per_page": 100}, deadline=self.deadline), "known tags"
        )
        if got is not None and got.complete:
            return frozenset(release_tags(str(t.get("name") or "") for t in got.data if isinstance(t, dict)))
        self.notes.append("known tags: taken from the releases this server has registries for.")
        return frozenset(self._fallback_tags)

    def _git(self, fix: Fix) -> Containment | None:
        if self.repo != DEFAULT_REPO or self.deps.history is None:
            return None
        history, notes = self.deps.history.ensure(self.deadline, fix.sha, fix.branch)
        self.notes.extend(f"git: {n}" for n in notes)
        if history is None:
            return None
        self._history = history
        present = fix.sha is not None and history.has_commit(fix.sha)
        if fix.sha is not None and not present and notes:
            return None  # the fetch that might have brought it failed: absence proves nothing
        try:
            return prove_with_git(history.git, fix.sha, fix.pr, present)
        except HistoryError as exc:
            self.notes.append(f"git: {exc}")
            return None

    def _where(self, proof: Containment, fix: Fix) -> str:
        if proof.method == "github_compare" or self._history is None:
            return f"GitHub compare API, {fix.why}; reverts not checked"
        return f"git history of {self._history.remote} as of {_age(self._history.age)} ago, {fix.why}"

    def _compare(self, fix: Fix) -> Containment | None:
        names = self._tag_names()
        if not names or fix.sha is None:
            return None
        sha = fix.sha
        published = {
            tag: str(r.get("published_at"))
            for r in self._release_list() or []
            if isinstance(r, dict) and r.get("published_at")
            for tag in release_tags([str(r.get("tag_name") or "")])
        }

        def compare(base: str, head: str) -> dict[str, Any] | None:
            path = f"/repos/{self.repo}/compare/{base}...{head}"
            got = self.fetch(
                lambda: self.deps.client.get(path, {"per_page": 100}, deadline=self.deadline, ttl=IMMUTABLE),
                f"compare {base}...{head[:12]}",
            )
            return got.data if got is not None and isinstance(got.data, dict) else None

        return prove_with_compare(compare, names, sha, fix.pr, fix.branch, published, fix.merged_at)

    def _tag_names(self) -> dict[str, str]:
        """Release tags as GitHub spells them, for compare URLs."""
        path = f"/repos/{self.repo}/tags"
        got = self.fetch(
            lambda: self.deps.client.get_pages(path, {"per_page": 100}, deadline=self.deadline), "known tags"
        )
        if got is None:
            return {}
        return release_tags(str(t.get("name") or "") for t in got.data if isinstance(t, dict))

    def _release_list(self) -> list[Any] | None:
        if self._releases is None:
            path = f"/repos/{self.repo}/releases"
            got = self.fetch(
                lambda: self.deps.client.get_pages(path, {"per_page": 100}, deadline=self.deadline), "release notes"
            )
            self._releases = list(got.data) if got is not None else []
        return self._releases

    def _notes_finding(self, numbers: list[int]) -> FixPlacement | None:
        if not numbers:
            return None
        return from_notes(self._release_list() or [], numbers, self.repo, self.known_tags())


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
