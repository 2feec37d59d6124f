"""`audit_deployment` for people: per invocation, whether the tag accepts it and each finding with its action."""

from __future__ import annotations

from .models import AuditReport

__all__ = ["render"]


def render(result: AuditReport) -> str:
    lines = [f"{result.filename} ({result.file_kind}) at {result.tag}: {result.summary}"]
    for inv in result.invocations:
        pinned = f" (pinned {inv.from_tag} by {inv.pinned_by})" if inv.from_tag else ""
        lines.append(f"  {inv.where}{pinned}: {'INVALID' if inv.invalid else 'ok'}")
        if inv.model_shape:
            lines.append(f"    model: {inv.model_shape}")
        if inv.error:
            lines.append(f"    unreadable: {inv.error}")
        if inv.unresolved:
            lines.append(f"    unresolved (set outside this file; checked as written): {', '.join(inv.unresolved)}")
        for f in inv.findings:
            lines.append(f"    [{f.severity}, {f.basis}] {f.written}: {f.problem}")
            lines.append(f"        action: {f.action}")
            if f.suggestions:
                lines.append(f"        did you mean: {', '.join(f.suggestions)}")
        lines += [f"    note: {n}" for n in inv.notes]
    return "\n".join(lines)
