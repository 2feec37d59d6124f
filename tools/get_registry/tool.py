"""`get_registry`: the registries as agents read them.

The whole registry of a tag runs to ~190 kB of JSON (CLI flags and env vars
dominate), more than an agent should pay for one question, so without `kind` the
answer is a summary and the entries come one kind at a time, filterable by substring,
a page at a time (tools/paging.py).
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.registry.kinds import KIND_NAMES, entries_of
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.paging import Window

from .models import EntryView, GetRegistryQuery, KindSummary, RegistryView

__all__ = ["get_registry", "kind_view"]


def _note(notes: dict[str, str], kind: str) -> str | None:
    return notes.get(kind) or notes.get(kind.partition(".")[0])


def get_registry(ctx: ToolContext, query: GetRegistryQuery) -> RegistryView:
    registry = ctx.registry(query.tag)
    if query.kind is None:
        if query.contains:
            raise InvalidInputError(
                f"contains={clip(query.contains)} filters the entries of one kind; "
                "pass kind too, e.g. kind='cli_flags'."
            )
        summaries = [
            KindSummary(kind=k, count=len(entries_of(registry, k)), note=_note(registry.notes, k)) for k in KIND_NAMES
        ]
        return RegistryView(tag=registry.tag, source=ctx.origin(registry.source), kinds=summaries, total=len(summaries))
    window = Window.of(query, "get_registry", query.limit)
    whole = kind_view(registry, query.kind, query.contains)
    shown = window.take(whole.entries)
    page = window.fields(len(shown), whole.total)
    return whole.model_copy(update={"entries": shown, "source": ctx.origin(registry.source), **page})


def kind_view(registry: Registry, kind: str, contains: str | None = None) -> RegistryView:
    """Every entry of one kind (whose name contains `contains`, if given), on one page."""
    needle = (contains or "").lower()
    matching = [EntryView.of(e) for e in entries_of(registry, kind) if needle in e.name.lower()]
    return RegistryView(
        tag=registry.tag,
        source=registry.source,
        kinds=[],
        kind=kind,
        total=len(matching),
        entries=matching,
        note=_note(registry.notes, kind),
    )
