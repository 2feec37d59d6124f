"""`grep_vllm_source` for people: rg's `path:line:text` lines, context as `path-line-text`, then where the page sits."""

from __future__ import annotations

from vllm_quant_mcp.tools.paging import more_line, permalink_line

from .models import GrepResult

__all__ = ["render"]


def render(result: GrepResult) -> str:
    lines = [f"note: {result.note}"] if result.note else []
    for m in result.matches:
        lines += [f"{m.path}-{m.line - len(m.before) + i}-{b}" for i, b in enumerate(m.before)]
        lines.append(f"{m.path}:{m.line}:{m.text}")
        lines += [f"{m.path}-{m.line + 1 + i}-{a}" for i, a in enumerate(m.after)]
    if result.matches:
        first = result.matches[0]
        lines.append(permalink_line(first.permalink, first.path, first.line))
    lines.append(
        f"[{result.tag}] {result.files_searched} files searched; "
        + more_line(
            result, len(result.matches), result.total_matches, "matching lines", at_least=not result.counted_all
        )
    )
    if result.hint:
        lines.append(result.hint)
    return "\n".join(lines)
