"""`get_registry`, `list_tags` and `diff_tags`: the registries as agents read them.

The whole registry of a tag runs to ~190 kB of JSON (CLI flags and env vars
dominate), more than an agent should pay for one question, so without `kind` the
answer is a summary and the entries come one kind at a time, filterable by substring.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.diff import DIFF_KINDS, RegistryDiff, RegistryKind, diff_registries, entries_of
from vllm_quant_mcp.knowledge.registry import Entry, Provenance, SourceInfo
from vllm_quant_mcp.knowledge.tags import tag_key

from .context import ToolContext

__all__ = [
    "EntryView",
    "KindSummary",
    "RegistryKind",
    "RegistryView",
    "TagList",
    "diff_tags",
    "get_registry",
    "list_tags",
]


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


class RegistryView(BaseModel):
    """Without `kind`: the counts per kind. With it: that kind's entries, each with path, line and permalink."""

    tag: str
    source: SourceInfo
    kinds: list[KindSummary] = Field(description="Counts per kind; empty when one kind was asked for.")
    kind: str | None = None
    total: int | None = Field(default=None, description="Entries of `kind` at the tag, before `contains`.")
    entries: list[EntryView] = []
    note: str | None = None


class TagList(BaseModel):
    tags: list[str]
    default_tag: str


def _note(notes: dict[str, str], kind: str) -> str | None:
    return notes.get(kind) or notes.get(kind.partition(".")[0])


def get_registry(
    ctx: ToolContext, tag: str | None = None, kind: RegistryKind | None = None, contains: str | None = None
) -> RegistryView:
    registry = ctx.registry(tag)
    if kind is None:
        if contains:
            raise ValueError(
                f"contains={contains!r} filters the entries of one kind; pass kind too, e.g. kind='cli_flags'."
            )
        summaries = [
            KindSummary(kind=k, count=len(entries_of(registry, k)), note=_note(registry.notes, k)) for k in DIFF_KINDS
        ]
        return RegistryView(tag=registry.tag, source=registry.source, kinds=summaries)
    entries = entries_of(registry, kind)
    needle = (contains or "").lower()
    return RegistryView(
        tag=registry.tag,
        source=registry.source,
        kinds=[],
        kind=kind,
        total=len(entries),
        entries=[EntryView.of(e) for e in entries if needle in e.name.lower()],
        note=_note(registry.notes, kind),
    )


def list_tags(ctx: ToolContext) -> TagList:
    return TagList(tags=sorted(ctx.store.known_tags(), key=tag_key), default_tag=ctx.default_tag)


def diff_tags(ctx: ToolContext, from_tag: str, to_tag: str, kind: RegistryKind | None = None) -> RegistryDiff:
    old = ctx.registry(from_tag)
    new = ctx.registry(to_tag)
    return diff_registries(old, new, [kind] if kind else None)
