"""`diff_tags` for people: + added, - removed, ~ changed (field: before → after), per kind, then the kernel picks that
changed (each side with the line that decides it), then where the page sits."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.registry.kernel_diff import KernelChange, KernelPick
from vllm_quant_mcp.tools.paging import more_line

from .models import DiffPage

__all__ = ["describe_pick", "describe_walk", "render"]


def render(result: DiffPage) -> str:
    lines = [f"{result.from_tag} → {result.to_tag}"]
    shown = 0
    for k in result.kinds:
        if k.empty:
            continue
        lines.append(f"{k.kind}:")
        lines += [f"  + {e.name}  ({e.provenance.path}:{e.provenance.line})" for e in k.added]
        lines += [
            f"  - {e.name}" + (f": {e.replaced_by} ({e.provenance.path}:{e.provenance.line})" if e.replaced_by else "")
            for e in k.removed
        ]
        for c in k.changed:
            what = ", ".join(f"{f}: {ch.before!r} → {ch.after!r}" for f, ch in c.changes.items())
            lines.append(f"  ~ {c.name}: {what}")
        shown += len(k.added) + len(k.removed) + len(k.changed)
    if result.kernel_picks:
        lines.append("kernel picks (which kernel a scheme gets per GPU):")
        lines += [_pick_line(c) for c in result.kernel_picks]
        shown += len(result.kernel_picks)
    if not result.total:
        lines.append("  no differences")
    else:
        lines.append(more_line(result, shown, result.total, "changes"))
    return "\n".join(lines)


def _pick_line(change: KernelChange) -> str:
    gpus = ("ROCm " if change.platform == "rocm" else "") + ", ".join(change.capabilities)
    where = f"{describe_walk(change)} on {gpus}"
    return f"  ~ {where}: {describe_pick(change.before)} → {describe_pick(change.after)}"


def describe_walk(change: KernelChange) -> str:
    """Which walk: the layer, the scheme, the backend value and (MoE) the parallel layout."""
    flag = "--linear-backend" if change.layer == "linear" else "--moe-backend"
    return f"{change.layer} {change.scheme}, {flag} {change.backend}" + (
        f", {change.parallel}" if change.parallel else ""
    )


def describe_pick(pick: KernelPick | None) -> str:
    """One side of a change: the pick, what the machine decides ahead of it, the runner-up, the first deciding line."""
    if pick is None:
        return "not walked"
    said = f"{pick.kernel} ({pick.experts})" if pick.experts else pick.kernel or "no kernel"
    if pick.verdict == "no":
        said = f"none ({pick.kernel} refuses)" if pick.kernel else "none"
    elif pick.pending:
        said += f" unless the machine takes {', '.join(pick.pending)}"
    said += f", then {pick.runner_up}" if pick.runner_up else ""
    at = pick.decided_by[0]
    return f"{said}; {at.path}:{at.line}"
