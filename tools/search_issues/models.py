"""The shapes `search_issues` takes and answers in."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.github.answers import RowRelease
from vllm_quant_mcp.tools.paging import Cursor, Page
from vllm_quant_mcp.tools.spec import Cli

__all__ = ["IssueRow", "IssueSearch", "SearchIssuesQuery"]


class SearchIssuesQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: Annotated[
        str,
        Cli(positional=True),
        Field(min_length=1, max_length=256, description="Search words, e.g. 'fp8 kv mla'."),
    ]
    state: Literal["open", "closed"] | None = None
    label: Annotated[str | None, Field(max_length=100)] = None
    since: Annotated[str | None, Field(max_length=10, description="Created on or after YYYY-MM-DD.")] = None
    limit: Annotated[int, Field(ge=1, le=50)] = 20  # one of GitHub's pages: rows are small
    cursor: Cursor = None


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
    first_release: RowRelease = Field(description="None for open/unmerged/not planned; else curated at most.")


class IssueSearch(Page):
    repo: str
    query: str = Field(description="The GitHub search query sent, qualifiers included.")
    total_count: int = Field(description="GitHub's count of matches; its search serves the first 1,000.")
    rows: list[IssueRow]
    freshness: Literal["live", "revalidated", "cached"]
    age_seconds: int | None
    notes: list[str]
