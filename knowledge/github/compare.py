"""The same per-tag question asked of GitHub's compare endpoint, for when git cannot reach the remote.

`compare(base, head)` is GitHub's `/compare/{base}...{head}`: status `behind` or
`identical` for compare(tag, F) means F is in the tag's history. Asking every tag
would cost a request per tag (60 an hour without a token), so this uses what vLLM's
release process guarantees: each series (v0.19.x) is cut from main in version order,
so a main-line commit's ancestry IS monotone over the first release of each series,
and a bisection over those finds the first series holding it (~log2(series) calls).
Every later tag of that series and every later series hold it by ancestry. Below
it, only picks can put the fix in: a series head published after the merge may
carry an rc pick (compare(F, head) lists the release branch's own commits), and a
patch tag published after the merge may carry a pick (compare(previous tag, tag)
lists exactly what it added). A PR merged into a release branch is looked for in
that series only.

Blind spot: a revert on main is not seen without listing thousands of commits, so
the result is never `complete`, and a tag that was not asked about stays undecided.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import pairwise
from typing import Any

from ..errors import InternalError
from ..tags import tag_key
from .containment import Containment, is_final

__all__ = ["Compare", "prove_with_compare"]

Compare = Callable[[str, str], dict[str, Any] | None]  # None: GitHub could not answer (the proof stops there)
_INSIDE = ("behind", "identical")


MAX_CALLS = 16  # compare requests one proof may make; a tag left unasked stays undecided


class _Stopped(InternalError):
    """compare() could not answer, or the call budget is spent: keep what was decided so far."""


def prove_with_compare(
    compare: Compare,
    names: Mapping[str, str],
    sha: str,
    pr: int | None,
    branch: str | None,
    published: Mapping[str, str],
    merged_at: str | None,
) -> Containment:
    """Tags of `names` (normalized -> GitHub's spelling) decided for fix `sha` with as few compare calls as may be."""
    walk = _Walk(compare, names, sha, pr, published, merged_at)
    try:
        if branch in (None, "main"):
            walk.main_line()
        else:
            walk.release_branch(str(branch))
    except _Stopped:
        pass
    return Containment(
        method="github_compare",
        sha=sha,
        tags=tuple(names),
        decided=frozenset(walk.decided),
        containing=walk.containing,
        reverted={},
        complete=False,
    )


def _series(tag: str) -> tuple[int, ...]:
    return tag_key(tag)[:2]


class _Walk:
    def __init__(
        self,
        compare: Compare,
        names: Mapping[str, str],
        sha: str,
        pr: int | None,
        published: Mapping[str, str],
        merged_at: str | None,
    ) -> None:
        self.compare, self.names, self.sha, self.pr = compare, names, sha, pr
        self.published, self.merged_at = published, merged_at
        self.finals = [t for t in names if is_final(t)]
        self.decided: set[str] = set()
        self.containing: dict[str, str] = {}
        self.calls = 0

    def _ask(self, base: str, head: str) -> dict[str, Any]:
        self.calls += 1
        answer = self.compare(base, head) if self.calls <= MAX_CALLS else None
        if answer is None:
            raise _Stopped(f"compare {base}...{head} not answered")
        return answer

    def _holds(self, tag: str) -> bool:
        return str(self._ask(self.names[tag], self.sha).get("status")) in _INSIDE

    def _mark(self, tags: list[str], how: str) -> None:
        for tag in tags:
            self.containing.setdefault(tag, how)
            self.decided.add(tag)

    def _after_merge(self, tag: str) -> bool:
        """Whether `tag` may carry the fix by a pick: published after the merge (or dates unknown)."""
        when = self.published.get(tag)
        return when is None or self.merged_at is None or when >= self.merged_at

    def _picks(self, answer: dict[str, Any]) -> bool:
        for commit in answer.get("commits") or []:
            message = str(((commit or {}).get("commit") or {}).get("message") or "")
            subject = message.split("\n", 1)[0]
            names_pr = self.pr is not None and f"(#{self.pr})" in subject and not subject.startswith('Revert "')
            if names_pr or f"cherry picked from commit {self.sha}" in message:
                return True
        return False

    def main_line(self) -> None:
        heads: dict[tuple[int, ...], str] = {}
        for tag in self.finals:
            heads.setdefault(_series(tag), tag)
        ordered = list(heads.values())
        low, high, found = 0, len(ordered) - 1, None
        while low <= high:
            mid = (low + high) // 2
            if self._holds(ordered[mid]):
                found, high = ordered[mid], mid - 1
            else:
                low = mid + 1
        if found is not None:
            later = [t for t in self.finals if _series(t) >= _series(found)]
            self._mark(later, f"ancestry (compare {found}...{self.sha[:12]})")
        below = [s for s in heads if found is None or s < _series(found)]
        for series in reversed(below):
            self._series_picks([t for t in self.finals if _series(t) == series])

    def release_branch(self, branch: str) -> None:
        series = next((_series(t) for t in self.finals if branch.endswith(t) or branch.endswith(t.lstrip("v"))), None)
        if series is None:
            return
        tags = [t for t in self.finals if _series(t) == series]
        for i, tag in enumerate(tags):
            if self._holds(tag):
                self._mark(tags[i:], f"ancestry on {branch} (compare {tag}...{self.sha[:12]})")
                return

    def _series_picks(self, tags: list[str]) -> None:
        """Below the first series holding the fix: a pick into the head (rc) or into a patch release."""
        head = tags[0]
        if self._after_merge(head) and self._picks(self._ask(self.sha, self.names[head])):
            self._mark(tags, f"cherry-pick (compare {self.sha[:12]}...{head})")
            return
        self.decided.add(head)
        for i, (previous, tag) in enumerate(pairwise(tags), start=1):
            if self._after_merge(tag) and self._picks(self._ask(self.names[previous], self.names[tag])):
                self._mark(tags[i:], f"cherry-pick (compare {previous}...{tag})")
                return
            self.decided.add(tag)
