"""`diff_tags` for people: + added, - removed, ~ changed (field: before → after), per kind."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.registry.diff import RegistryDiff

__all__ = ["render"]


def render(result: RegistryDiff) -> str:
    lines = [f"{result.from_tag} → {result.to_tag}"]
    for k in result.kinds:
        if k.empty:
            continue
        lines.append(f"{k.kind}:")
        lines += [f"  + {e.name}  ({e.provenance.path}:{e.provenance.line})" for e in k.added]
        lines += [f"  - {e.name}" for e in k.removed]
        for c in k.changed:
            what = ", ".join(f"{f}: {ch.before!r} → {ch.after!r}" for f, ch in c.changes.items())
            lines.append(f"  ~ {c.name}: {what}")
    if len(lines) == 1:
        lines.append("  no differences")
    return "\n".join(lines)
