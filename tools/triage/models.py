"""The shapes `triage` takes and answers in (apart from the tool so the server can build its schema cheaply)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.facts.fact import CitationRef
from vllm_quant_mcp.knowledge.sources.tree import Provenance
from vllm_quant_mcp.tools.spec import Cli, Tag

__all__ = ["CuratedMatch", "NearMessage", "SiteMatch", "TriageQuery", "TriageResult"]

MAX_TEXT = 8_000


class TriageQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Annotated[
        str,
        Cli(positional=True),
        Field(min_length=1, max_length=MAX_TEXT, description="Error, log line or symptom as printed."),
    ]
    tag: Tag = None
    gpu: Annotated[str | None, Field(max_length=64, description="GPU id (h100), to judge GPU guards.")] = None
    model: Annotated[str | None, Field(max_length=200, description="Repo id or folder, for symptoms.")] = None
    command: Annotated[str | None, Field(max_length=MAX_TEXT, description="The vllm serve line.")] = None
    limit: Annotated[int, Field(ge=1, le=20)] = 5


class SiteMatch(BaseModel):
    """A raise or log site whose format string matches the message: basis source."""

    message: str = Field(description="The format string as the source writes it.")
    kind: Literal["raise", "log"]
    raises: str
    match: Literal["exact", "contains", "fragment"]
    filled: dict[str, str] = Field(description="Placeholder -> what vLLM put there.")
    tag: str
    provenance: Provenance
    function: str | None
    guards: list[str] = Field(description="Conditions that must hold to reach it, innermost first.")
    guard_line: int | None
    on_your_gpu: str | None
    triggered_by: list[str] = Field(description="Which of your inputs the guards read.")
    avoid: list[str]
    first_seen: str = Field(description="First of the unbroken run of bundled releases holding it, through tag.")
    last_seen: str
    gone_in: str | None = Field(description="First bundled release after last_seen without it.")
    reworded_as: str | None = Field(description="The nearest message at gone_in, when the wording changed.")
    moved: list[str]
    basis: Literal["source"] = "source"


class CuratedMatch(BaseModel):
    kind: Literal["pain_point", "version_gate"]
    id: str
    says: str
    action: str
    fixed_in: str | None
    why: list[str] = Field(description="What in your inputs it matched.")
    citations: list[CitationRef]
    basis: Literal["curated"] = "curated"


class NearMessage(BaseModel):
    message: str
    similarity: float
    provenance: Provenance


class TriageResult(BaseModel):
    tag: str
    reading: Literal["message", "symptom"] = Field(description="symptom: nothing printed matched a site.")
    sites: list[SiteMatch] = Field(description="At tag; else at the releases that print it (their own tag).")
    curated: list[CuratedMatch]
    nearest: list[NearMessage] = Field(description="When nothing matched: the closest messages, not verdicts.")
    assumed: list[str]
    notes: list[str]
