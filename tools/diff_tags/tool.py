"""`diff_tags`: what was added, removed or changed between the registries of two tags, kind by kind, by pages."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.registry.diff import ChangedEntry, DiffEntry, KindDiff, diff_registries
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.paging import Window, json_size

from .models import DiffPage, DiffTagsQuery

__all__ = ["diff_tags"]

Item = tuple[str, str, DiffEntry | ChangedEntry]  # kind, "added" | "removed" | "changed", the entry


def diff_tags(ctx: ToolContext, query: DiffTagsQuery) -> DiffPage:
    old = ctx.registry(query.from_tag)
    new = ctx.registry(query.to_tag)
    whole = diff_registries(old, new, [query.kind] if query.kind else None)
    items: list[Item] = [
        (k.kind, section, entry)
        for k in whole.kinds
        for section in ("added", "removed", "changed")
        for entry in getattr(k, section)
    ]
    window = Window.of(query, "diff_tags", query.limit)
    shown = window.take(items, lambda item: json_size(item[2]))
    kinds: dict[str, KindDiff] = {}
    for kind, section, entry in shown:
        getattr(kinds.setdefault(kind, KindDiff(kind=kind, added=[], removed=[], changed=[])), section).append(entry)
    return DiffPage(
        from_tag=whole.from_tag,
        to_tag=whole.to_tag,
        kinds=list(kinds.values()),
        total=len(items),
        **window.fields(len(shown), len(items)),
    )
