"""Plain-text renderings of tool results for people at a terminal (`--json` is for scripts)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from vllm_quant_mcp.knowledge.diff import RegistryDiff
from vllm_quant_mcp.tools.registry_view import RegistryKindView, RegistrySummary, TagList


def tag_list(result: TagList) -> str:
    return "\n".join(f"{t}{'  (default)' if t == result.default_tag else ''}" for t in result.tags)


def summary(result: RegistrySummary) -> str:
    origin = result.source.commit or result.source.sha256 or ""
    lines = [f"vLLM {result.tag}  (from {result.source.kind}: {result.source.origin} {origin[:12]})".rstrip()]
    for k in result.kinds:
        lines.append(f"  {k.kind:<22} {k.count:>4}" + (f"  — {k.note}" if k.note else ""))
    lines.append("Use --kind KIND for the entries, --json for the whole registry.")
    return "\n".join(lines)


def _details(entry: BaseModel) -> str:
    skip = {"name", "provenance"}
    parts = [f"{k}={v}" for k, v in entry.model_dump(exclude=skip).items() if v not in (None, False, [], "")]
    return "  ".join(parts)


def kind_view(result: RegistryKindView) -> str:
    shown = len(result.entries)
    head = f"{result.kind} at {result.tag}: {shown}" + (f" of {result.total}" if shown != result.total else "")
    lines = [head + (f"  — {result.note}" if result.note else "")]
    for e in result.entries:
        where = f"{e.provenance.path}:{e.provenance.line}"
        lines.append(f"  {e.name:<40} {where:<60} {_details(e)}".rstrip())
    return "\n".join(lines)


def registry_diff(result: RegistryDiff) -> str:
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


def model_fields(result: BaseModel) -> str:
    """Fallback: one `field: value` line each, for results without a dedicated rendering."""
    data: dict[str, Any] = result.model_dump()
    return "\n".join(f"{k}: {v}" for k, v in data.items())


refresh_result = model_fields
grep_result = model_fields
read_result = model_fields
symbols = model_fields
