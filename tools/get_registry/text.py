"""`get_registry` for people (and the text an MCP client reads): counts per kind, or a page of one kind's entries."""

from __future__ import annotations

from typing import Any

from vllm_quant_mcp.knowledge.registry.model import stated_default
from vllm_quant_mcp.tools.paging import more_line, permalink_line

from .models import RegistryView

__all__ = ["render"]


def _summary(result: RegistryView) -> str:
    origin = result.source.commit or result.source.sha256 or ""
    lines = [f"vLLM {result.tag}  (from {result.source.kind}: {result.source.origin} {origin[:12]})".rstrip()]
    for k in result.kinds:
        lines.append(f"  {k.kind:<22} {k.count:>4}" + (f"  — {k.note}" if k.note else ""))
    lines.append("Pass kind for one kind's entries.")
    return "\n".join(lines)


def _details(details: dict[str, Any]) -> str:
    shown = dict(details)
    if "default_provenance" in shown:  # a CLI flag: its default in one cell, with the line that states it
        where = shown.pop("default_provenance")
        at = f"{where['path']}:{where['line']}" if isinstance(where, dict) else None
        shown["default"] = stated_default(shown.pop("default"), at, shown.pop("default_expression", None))
    return "  ".join(f"{k}={v}" for k, v in shown.items() if v not in (None, False, [], ""))


def render(result: RegistryView) -> str:
    if result.kind is None:
        return _summary(result)
    lines = [f"{result.kind} at {result.tag}" + (f"  — {result.note}" if result.note else "")]
    for e in result.entries:
        lines.append(f"  {e.name}  {e.provenance.path}:{e.provenance.line}  {_details(e.details)}".rstrip())
    if result.entries:
        first = result.entries[0].provenance
        lines.append(permalink_line(first.permalink, first.path, first.line))
    lines.append(more_line(result, len(result.entries), result.total, "entries"))
    return "\n".join(lines)
