"""`find_symbol` for people: kind, qualified name, path:line and the first line of each definition."""

from __future__ import annotations

from .models import SymbolResult

__all__ = ["render"]


def render(result: SymbolResult) -> str:
    lines = [f"note: {result.note}"] if result.note else []
    lines += [f"{d.kind:<8} {d.qualified_name}  {d.path}:{d.line}  {d.first_line.strip()}" for d in result.definitions]
    lines += [f"         {d.permalink}" for d in result.definitions[:1]]
    return "\n".join(lines)
