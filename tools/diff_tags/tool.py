"""`diff_tags`: what was added, removed or changed between the registries of two tags, kind by kind, then the kernel
picks that changed, by pages."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.registry.diff import ChangedEntry, DiffEntry, KindDiff, diff_registries
from vllm_quant_mcp.knowledge.registry.kernel_diff import KernelChange
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.paging import Window, json_size

from .models import DiffPage, DiffTagsQuery

__all__ = ["diff_tags"]

PICKS = "kernel_picks"  # the section of the kernel picks, after every kind's
Item = tuple[str, str, DiffEntry | ChangedEntry | KernelChange]  # kind or PICKS, "added" | "removed" | "changed", it


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
    items += [(PICKS, "changed", change) for change in whole.kernel_picks]
    window = Window.of(query, "diff_tags", query.limit)
    shown = window.take(items, lambda item: json_size(item[2]))
    kinds: dict[str, KindDiff] = {}
    picks: list[KernelChange] = []
    for kind, section, entry in shown:
        if isinstance(entry, KernelChange):
            picks.append(entry)
        else:
            diff = kinds.setdefault(kind, KindDiff(kind=kind, added=[], removed=[], changed=[]))
            getattr(diff, section).append(entry)
    return DiffPage(
        from_tag=whole.from_tag,
        to_tag=whole.to_tag,
        kinds=list(kinds.values()),
        kernel_picks=picks,
        total=len(items),
        **window.fields(len(shown), len(items)),
    )
