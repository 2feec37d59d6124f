"""`get_registry`: the registries as agents read them.

The whole registry of a tag runs to ~190 kB of JSON (CLI flags and env vars
dominate), more than an agent should pay for one question, so without `kind` the
answer is a summary and the entries come one kind at a time, filterable by substring.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.registry.kinds import KIND_NAMES, entries_of
from vllm_quant_mcp.tools.context import ToolContext

from .models import EntryView, GetRegistryQuery, KindSummary, RegistryView

__all__ = ["get_registry"]


def _note(notes: dict[str, str], kind: str) -> str | None:
    return notes.get(kind) or notes.get(kind.partition(".")[0])


def get_registry(ctx: ToolContext, query: GetRegistryQuery) -> RegistryView:
    registry = ctx.registry(query.tag)
    if query.kind is None:
        if query.contains:
            raise InvalidInputError(
                f"contains={query.contains!r} filters the entries of one kind; pass kind too, e.g. kind='cli_flags'."
            )
        summaries = [
            KindSummary(kind=k, count=len(entries_of(registry, k)), note=_note(registry.notes, k)) for k in KIND_NAMES
        ]
        return RegistryView(tag=registry.tag, source=registry.source, kinds=summaries)
    entries = entries_of(registry, query.kind)
    needle = (query.contains or "").lower()
    return RegistryView(
        tag=registry.tag,
        source=registry.source,
        kinds=[],
        kind=query.kind,
        total=len(entries),
        entries=[EntryView.of(e) for e in entries if needle in e.name.lower()],
        note=_note(registry.notes, query.kind),
    )
