"""`verify_knowledge` for people: the counts, then every claim that is not confirmed, with its evidence."""

from __future__ import annotations

from .models import VerifyReport

__all__ = ["render"]


def render(result: VerifyReport) -> str:
    lines = [f"{len(result.results)} claims over {len(result.tags)} tags ({result.tags[0]}..{result.tags[-1]})"]
    lines.append("  " + "  ".join(f"{status}: {count}" for status, count in result.counts.items()))
    for r in result.results:
        if r.status != "confirmed":
            where = next((f"{e.tag} {e.path}:{e.line}" for e in r.evidence if e.path), "")
            lines.append(f"  {r.status:<13} {r.fact_id}: {r.claim} — {r.reason} {where}".rstrip())
    return "\n".join(lines)
