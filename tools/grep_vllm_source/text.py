"""`grep_vllm_source` for people: rg's `path:line:text` lines, context as `path-line-text`, then a count."""

from __future__ import annotations

from .models import GrepResult

__all__ = ["render"]


def render(result: GrepResult) -> str:
    lines = [f"note: {result.note}"] if result.note else []
    for m in result.matches:
        lines += [f"{m.path}-{m.line - len(m.before) + i}-{b}" for i, b in enumerate(m.before)]
        lines.append(f"{m.path}:{m.line}:{m.text}")
        lines += [f"{m.path}-{m.line + 1 + i}-{a}" for i, a in enumerate(m.after)]
    lines.append(f"[{result.tag}] {result.total_matches} matching lines in {result.files_searched} files searched")
    if result.hint:
        lines.append(result.hint)
    return "\n".join(lines)
