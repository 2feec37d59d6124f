"""`get_registry` for people: counts per kind, or one kind's entries with where each is defined."""

from __future__ import annotations

from typing import Any

from .models import RegistryView

__all__ = ["render"]


def _summary(result: RegistryView) -> str:
    origin = result.source.commit or result.source.sha256 or ""
    lines = [f"vLLM {result.tag}  (from {result.source.kind}: {result.source.origin} {origin[:12]})".rstrip()]
    for k in result.kinds:
        lines.append(f"  {k.kind:<22} {k.count:>4}" + (f"  — {k.note}" if k.note else ""))
    lines.append("Use --kind KIND for the entries, --json for the whole registry.")
    return "\n".join(lines)


def _details(details: dict[str, Any]) -> str:
    return "  ".join(f"{k}={v}" for k, v in details.items() if v not in (None, False, [], ""))


def render(result: RegistryView) -> str:
    if result.kind is None:
        return _summary(result)
    shown = len(result.entries)
    head = f"{result.kind} at {result.tag}: {shown}" + (f" of {result.total}" if shown != result.total else "")
    lines = [head + (f"  — {result.note}" if result.note else "")]
    for e in result.entries:
        where = f"{e.provenance.path}:{e.provenance.line}"
        lines.append(f"  {e.name:<40} {where:<60} {_details(e.details)}".rstrip())
    return "\n".join(lines)
