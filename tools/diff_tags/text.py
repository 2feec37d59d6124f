"""`diff_tags` for people: + added, - removed, ~ changed (field: before → after), per kind, then where the page sits."""

from __future__ import annotations

from vllm_quant_mcp.tools.paging import more_line

from .models import DiffPage

__all__ = ["render"]


def render(result: DiffPage) -> str:
    lines = [f"{result.from_tag} → {result.to_tag}"]
    shown = 0
    for k in result.kinds:
        if k.empty:
            continue
        lines.append(f"{k.kind}:")
        lines += [f"  + {e.name}  ({e.provenance.path}:{e.provenance.line})" for e in k.added]
        lines += [
            f"  - {e.name}" + (f": {e.replaced_by} ({e.provenance.path}:{e.provenance.line})" if e.replaced_by else "")
            for e in k.removed
        ]
        for c in k.changed:
            what = ", ".join(f"{f}: {ch.before!r} → {ch.after!r}" for f, ch in c.changes.items())
            lines.append(f"  ~ {c.name}: {what}")
        shown += len(k.added) + len(k.removed) + len(k.changed)
    if not result.total:
        lines.append("  no differences")
    else:
        lines.append(more_line(result, shown, result.total, "changes"))
    return "\n".join(lines)
