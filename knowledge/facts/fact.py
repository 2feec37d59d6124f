"""What every curated fact carries: an id, citations, the vLLM range it holds for, and its claims.

A fact without a citation is an opinion; a fact without a range rots silently at the
next release. Both are required here, and tags are validated the same way user input is.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vllm_quant_mcp.knowledge.tags import normalize_tag, tag_key

from .predicates import Predicate

__all__ = [
    "Citation",
    "CitationRef",
    "DocCitation",
    "Fact",
    "IssueCitation",
    "PrCitation",
    "SourceCitation",
    "Strict",
    "cite",
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PrCitation(Strict):
    kind: Literal["pr"]
    number: int = Field(ge=1)
    repo: str = "vllm-project/vllm"

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repo}/pull/{self.number}"


class IssueCitation(Strict):
    kind: Literal["issue"]
    number: int = Field(ge=1)
    repo: str = "vllm-project/vllm"

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repo}/issues/{self.number}"


class DocCitation(Strict):
    kind: Literal["doc"]
    url: str = Field(pattern=r"^https://")


class SourceCitation(Strict):
    """A symbol in the vLLM tree at a tag: the place a reader should grep, not a line range."""

    kind: Literal["source"]
    path: str = Field(pattern=r"^vllm/[\w/.-]+\.py$")
    symbol: str
    tag: str

    @field_validator("tag")
    @classmethod
    def _tag(cls, value: str) -> str:
        return normalize_tag(value)

    @property
    def url(self) -> str:
        return f"https://github.com/vllm-project/vllm/blob/{self.tag}/{self.path}"


Citation = Annotated[PrCitation | IssueCitation | DocCitation | SourceCitation, Field(discriminator="kind")]


class CitationRef(BaseModel):
    """A citation as answers carry it: a short label and a link."""

    label: str = Field(description="e.g. 'PR #49389', 'issue #38652', or a source symbol at a tag.")
    url: str


def cite(citation: Citation) -> CitationRef:
    if citation.kind == "pr":
        return CitationRef(label=f"PR #{citation.number}", url=citation.url)
    if citation.kind == "issue":
        return CitationRef(label=f"issue #{citation.number}", url=citation.url)
    if citation.kind == "doc":
        return CitationRef(label="docs", url=citation.url)
    return CitationRef(label=f"{citation.path} {citation.symbol} at {citation.tag}", url=citation.url)


class Fact(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    citations: list[Citation] = Field(min_length=1)
    since: str | None = Field(
        default=None, description="First vLLM tag the fact holds for; None = as far back as known."
    )
    until: str | None = Field(default=None, description="First tag it no longer holds for (exclusive); None = still.")
    predicates: list[Predicate] = []
    reference_claim: str | None = Field(
        default=None, description="What the reference document said where the source disagrees, with the evidence."
    )

    @field_validator("since", "until")
    @classmethod
    def _tag(cls, value: str | None) -> str | None:
        return None if value is None else normalize_tag(value)

    @model_validator(mode="after")
    def _ordered(self) -> Fact:
        if self.since and self.until and tag_key(self.until) <= tag_key(self.since):
            raise ValueError(f"fact {self.id}: until {self.until} must come after since {self.since}")
        return self

    def cites(self) -> set[int]:
        """PR and issue numbers this fact cites, for coverage checks."""
        return {c.number for c in self.citations if isinstance(c, PrCitation | IssueCitation)}

    def applies_at(self, tag: str) -> bool:
        key = tag_key(normalize_tag(tag))
        return (self.since is None or tag_key(self.since) <= key) and (self.until is None or key < tag_key(self.until))
