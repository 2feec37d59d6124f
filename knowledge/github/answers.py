"""The shapes lookup answers carry about fixes and curated facts, apart from the code that fills them.

They sit in a module of their own, importing only pydantic, so the MCP server can build
its output schemas at start-up without loading gitpython or the knowledge base.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["Basis", "FirstRelease", "FixMethod", "KbFact", "RowRelease", "Verdict"]

FixMethod = Literal["git_ancestry", "git_cherry_pick", "github_compare", "release_notes", "knowledge_base", "none"]
Basis = Literal["proven", "release_notes", "curated_unverified", "none"]
Verdict = Literal["yes", "no", "unknown"]


class FirstRelease(BaseModel):
    """The lowest release holding the fix, with how it was found; `tag` None says why in `detail`."""

    tag: str | None = Field(description="Lowest release holding the fix; None when none does or none is proven.")
    released: Verdict = Field(description="Whether any release holds the fix: no for an open issue or unmerged PR.")
    method: FixMethod
    basis: Basis = Field(
        description="proven (git or compare), release_notes (names it), curated_unverified (knowledge base only)."
    )
    certain: bool = Field(description="Every known release was checked, reverts included (git only).")
    detail: str = Field(description="How it was proven, or why there is no release.")
    fix_commit: str | None = Field(default=None, description="The merge commit or closing commit looked for.")
    later_without: list[str] = Field(
        default=[], description="Releases after `tag` that lack the fix (older series, reverts): first is no promise."
    )
    reverted_in: list[str] = Field(default=[], description="Releases where a revert removed it again.")
    newest_checked: str | None = Field(default=None, description="Newest release tag the proof knew of.")


class RowRelease(BaseModel):
    """A search row's release claim, under the same rules as a lookup's, without the proof (lookup_issue proves)."""

    tag: str | None
    released: Verdict
    basis: Basis
    detail: str

    @staticmethod
    def of(first: FirstRelease) -> RowRelease:
        return RowRelease(tag=first.tag, released=first.released, basis=first.basis, detail=first.detail)


class KbFact(BaseModel):
    id: str
    kind: str = Field(description="Knowledge-base kind: pain_points, version_gates, methods, ...")
    cited_as: Literal["issue", "pr"]
    summary: str
    status: str | None = Field(default=None, description="Pain points: fixed, open, wont_fix, closed_unfixed, rfc.")
    fixed_in: str | None = None
    version: str | None = Field(default=None, description="Version gates: the release the change landed in.")
    workaround: str | None = None
