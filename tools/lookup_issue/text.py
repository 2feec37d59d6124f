"""`lookup_issue` for people: state, the first release with the fix and how that was found, notes."""

from __future__ import annotations

from .models import IssueLookup

__all__ = ["render"]


def render(result: IssueLookup) -> str:
    lines = [f"{result.repo}#{result.number} ({result.kind}) {result.title or ''}".rstrip()]
    state = result.state or "unknown (GitHub's live state was not read)"
    lines.append(f"  state: {state} {result.state_reason or ''}  [{result.freshness}]".rstrip())
    first = result.first_release
    lines.append(f"  first release with the fix: {first.tag or 'none'} [{first.basis}, {first.method}]: {first.detail}")
    if first.later_without:
        lines.append(f"  later releases without it: {', '.join(first.later_without)}")
    if result.tag:
        lines.append(f"  fixed in {result.tag}: {result.fixed_in_your_release}")
    lines += [f"  disagreement: {d}" for d in result.disagreements]
    lines += [f"  note: {n}" for n in result.notes]
    lines.append(f"  {result.url}")
    return "\n".join(lines)
