"""`check_gates` for people: the summary, each finding with its action and citations, hop by hop, then the page."""

from __future__ import annotations

from vllm_quant_mcp.tools.paging import more_line

from .models import CheckGatesResult

__all__ = ["render"]


def render(result: CheckGatesResult) -> str:
    lines = [result.summary]
    if result.model_shape is not None:
        lines.append(f"  model: {result.model_shape}")
    shown = len(result.findings) + sum(len(h.gates) + len(h.changes) for h in result.hops)
    for f in result.findings:
        lines.append(f"  [{f.severity}, {f.basis}] {f.written}: {f.problem}")
        lines.append(f"      action: {f.action}")
        lines += [f"      {s.tag} [{s.basis}]: {s.verdict}" + (f" via {s.via}" if s.via else "") for s in f.support]
        if f.suggestions:
            lines.append(f"      did you mean: {', '.join(f.suggestions)}")
        lines += [f"      cite: {c.label} {c.url}" for c in f.citations]
    for hop in result.hops:
        if not (hop.gates or hop.changes):
            continue
        lines.append(f"{hop.from_tag} → {hop.to_tag}")
        lines += [f"  gate [curated] {g.id}: {g.change} → {g.action}" for g in hop.gates]
        lines += [
            f"  {c.change} {c.kind} {c.name}" + (f" {', '.join(c.values)}" if c.values else "") + _detail(c.detail)
            for c in hop.changes
        ]
    if result.next or shown < result.total:
        lines.append(more_line(result, shown, result.total, "findings, gates and changes"))
    return "\n".join(lines)


def _detail(detail: str | None) -> str:
    return f" ({detail})" if detail else ""
