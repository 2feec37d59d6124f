"""The shapes `lookup_issue` takes and answers in.

Apart from the lookup code so the MCP server can build its output schema at
start-up without loading httpx, git or the knowledge base.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.github.answers import FirstRelease, KbFact, Verdict
from vllm_quant_mcp.knowledge.github.links import LinkedPr
from vllm_quant_mcp.tools.spec import Cli, TagName

__all__ = ["Freshness", "IssueLookup", "LookupIssueQuery", "PullInfo"]

Freshness = Literal["live", "revalidated", "cached", "knowledge_only"]
MAX_NUMBER = 10_000_000


class LookupIssueQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: Annotated[int, Cli(positional=True), Field(ge=1, description="Issue or PR number, e.g. 38652.")]
    tag: TagName | None = None  # the description says: whether the fix is in `tag`
    repo: Annotated[str | None, Field(max_length=201, description="Default vllm-project/vllm.")] = None

    @field_validator("number", mode="before")
    @classmethod
    def _number(cls, value: Any) -> int:
        """38652, "38652" or "#38652" as people write it; anything else is refused with the expected form."""
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValueError(f"issue number {clip(value)} must be a positive integer such as 38652")
        text = str(value).strip().removeprefix("#")
        if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_NUMBER:
            raise ValueError(f"issue number {clip(value)} must be a positive integer such as 38652 (or '#38652')")
        return int(text)


class PullInfo(BaseModel):
    merged: bool | None = Field(description="None when GitHub could not be asked for the PR itself.")
    merged_at: str | None
    merge_commit_sha: str | None = Field(description="Merged PRs only: an open PR's is GitHub's test merge.")
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
    first_release: FirstRelease = Field(description="Proven (git/compare), from release notes, curated, or why none.")
    tag: str | None = Field(description="The release asked about, if any.")
    fixed_in_your_release: Verdict | None = Field(description="With tag: yes, no or unknown.")
    knowledge: list[KbFact] = Field(description="Curated facts citing this number (pain point, gate, workaround).")
    disagreements: list[str] = Field(description="Where GitHub now and the knowledge base disagree.")
    freshness: Freshness
    age_seconds: int | None = Field(description="For cached: seconds since GitHub last confirmed the item.")
    notes: list[str]
