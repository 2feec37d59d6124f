"""`find_symbol` for people: kind, qualified name, path:line and the first line of each definition."""

from __future__ import annotations

from vllm_quant_mcp.tools.paging import more_line

from .models import SymbolResult

__all__ = ["render"]


def render(result: SymbolResult) -> str:
    lines = [f"note: {result.note}"] if result.note else []
    lines += [f"{d.kind:<8} {d.qualified_name}  {d.path}:{d.line}  {d.first_line.strip()}" for d in result.definitions]
    lines += [f"         {d.permalink}" for d in result.definitions[:1]]
    shown = len(result.definitions)
    lines.append(more_line(result, shown, None, "definitions"))
    return "\n".join(lines)
