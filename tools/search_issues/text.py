"""`search_issues` for people: one row per issue or PR."""

from __future__ import annotations

from vllm_quant_mcp.tools.paging import more_line

from .models import IssueSearch

__all__ = ["render"]


def render(result: IssueSearch) -> str:
    lines = [f"{result.total_count} results for {result.query!r} [{result.freshness}]"]
    lines += [
        f"  #{r.number:<6} {r.kind:<5} {r.state:<6} {r.title}  [release: {r.first_release.tag or '-'}, "
        f"{r.first_release.basis}]"
        for r in result.rows
    ]
    lines += [f"  note: {n}" for n in result.notes]
    lines.append(more_line(result, len(result.rows), min(result.total_count, 1000), "results"))
    return "\n".join(lines)
