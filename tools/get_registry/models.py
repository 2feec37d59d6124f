"""The shapes `get_registry` takes and answers in."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.registry.kinds import RegistryKind
from vllm_quant_mcp.knowledge.registry.model import Entry
from vllm_quant_mcp.knowledge.sources.base import SourceInfo
from vllm_quant_mcp.knowledge.sources.tree import Provenance
from vllm_quant_mcp.tools.paging import Cursor, Limit, Page
from vllm_quant_mcp.tools.spec import Tag

__all__ = ["EntryView", "GetRegistryQuery", "KindSummary", "RegistryView"]


class GetRegistryQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tag: Tag = None
    kind: Annotated[RegistryKind | None, Field(description="Default: counts per kind.")] = None
    contains: Annotated[str | None, Field(max_length=100)] = None  # the tool's description says what it does
    limit: Limit = 100
    cursor: Cursor = None


class KindSummary(BaseModel):
    kind: str
    count: int
    note: str | None = None


class EntryView(BaseModel):
    """One registry entry in a shape shared by every kind; kind-specific fields sit in `details`."""

    name: str
    provenance: Provenance
    details: dict[str, Any] = {}

    @classmethod
    def of(cls, entry: Entry) -> EntryView:
        extra = entry.model_dump(exclude={"name", "provenance"}, exclude_defaults=False)
        return cls(name=entry.name, provenance=entry.provenance, details=extra)


class RegistryView(Page):
    """Without `kind`: the counts per kind. With it: a page of that kind's entries (those matching `contains`)."""

    tag: str
    source: SourceInfo
    kinds: list[KindSummary] = Field(description="Counts per kind; empty when one kind was asked for.")
    kind: str | None = None
    total: int = Field(description="Kinds, or with kind: the entries matching `contains`, on every page.")
    entries: list[EntryView] = Field(default_factory=list)
    note: str | None = None
