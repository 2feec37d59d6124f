"""`search_issues` for people: one row per issue or PR."""

from __future__ import annotations

from .models import IssueSearch

__all__ = ["render"]


def render(result: IssueSearch) -> str:
    lines = [f"{result.total_count} results for {result.query!r} [{result.freshness}]"]
    lines += [
        f"  #{r.number:<6} {r.kind:<5} {r.state:<6} {r.title}  [release: {r.first_release.tag or '-'}, "
        f"{r.first_release.basis}]"
        for r in result.rows
    ]
    return "\n".join(lines)
