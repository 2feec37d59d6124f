"""The shapes `lookup_issue` and `search_issues` answer in.

Apart from the lookup code so the MCP server can build their output schemas at
start-up without loading httpx, gitpython or the knowledge base.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.github.links import LinkedPr
from vllm_quant_mcp.knowledge.github.models import FirstRelease, KbFact, Verdict

__all__ = ["Freshness", "IssueLookup", "IssueRow", "IssueSearch", "PullInfo"]

Freshness = Literal["live", "revalidated", "cached", "knowledge_only"]


class PullInfo(BaseModel):
    merged: bool | None = Field(description="None when GitHub could not be asked for the PR itself.")
    merged_at: str | None
    merge_commit_sha: str | None
    base_branch: str | None
    closes: list[int] = Field(description="Issues the PR body closes with Fixes/Closes/Resolves #N.")


class IssueLookup(BaseModel):
    repo: str
    number: int
    kind: Literal["issue", "pr"]
    url: str
    title: str | None
    state: str | None = Field(description="open or closed; None when answered from the knowledge base only.")
    state_reason: str | None = Field(description="completed, not_planned, reopened, duplicate; closed is not fixed.")
    labels: list[str]
    created_at: str | None
    closed_at: str | None
    author_association: str | None
    body_excerpt: str | None = Field(description="At most 500 characters of the opening post.")
    pull: PullInfo | None = Field(description="Set when the number is a PR.")
    linked_prs: list[LinkedPr] = Field(description="Issues: PRs that reference it, those closing it first.")
    first_release: FirstRelease
    tag: str | None = Field(description="The release asked about, if any.")
    fixed_in_your_release: Verdict | None = Field(description="With tag: yes, no or unknown.")
    knowledge: list[KbFact] = Field(description="Curated facts citing this number (pain point, gate, workaround).")
    disagreements: list[str] = Field(description="Where GitHub now and the knowledge base disagree.")
    freshness: Freshness
    age_seconds: int | None = Field(description="For cached: seconds since GitHub last confirmed the item.")
    notes: list[str]


class IssueRow(BaseModel):
    number: int
    kind: Literal["issue", "pr"]
    title: str
    state: str
    state_reason: str | None
    labels: list[str]
    created_at: str | None
    closed_at: str | None
    url: str
    knowledge: list[str] = Field(description="Ids of curated facts citing this number.")


class IssueSearch(BaseModel):
    repo: str
    query: str = Field(description="The GitHub search query sent, qualifiers included.")
    total_count: int
    rows: list[IssueRow]
    freshness: Literal["live", "revalidated", "cached"]
    age_seconds: int | None
    notes: list[str]
