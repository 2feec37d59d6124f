"""The shapes lookup answers carry about fixes and curated facts, apart from the code that fills them.

They sit in a module of their own, importing only pydantic, so the MCP server can build
its output schemas at start-up without loading gitpython or the knowledge base.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["FirstRelease", "FixMethod", "KbFact", "Verdict"]

FixMethod = Literal["git_tag_contains", "release_notes", "knowledge_base", "none"]
Verdict = Literal["yes", "no", "unknown"]


class FirstRelease(BaseModel):
    tag: str | None = Field(description="First release containing the fix; None when no method could tell.")
    method: FixMethod
    detail: str = Field(description="What the method looked at, e.g. the commit or the release whose notes name it.")
    certain: bool = Field(description="Whether releases before `tag` are known not to contain the fix.")
    containing: list[str] = Field(default=[], description="git only: local release tags that contain the commit.")
    checked: list[str] = Field(default=[], description="git only: release tags the local repository holds.")


class KbFact(BaseModel):
    id: str
    kind: str = Field(description="Knowledge-base kind: pain_points, version_gates, methods, ...")
    cited_as: Literal["issue", "pr"]
    summary: str
    status: str | None = Field(default=None, description="Pain points: fixed, open, wont_fix, closed_unfixed, rfc.")
    fixed_in: str | None = None
    version: str | None = Field(default=None, description="Version gates: the release the change landed in.")
    workaround: str | None = None
