"""Plain-text renderings of tool results for people at a terminal (`--json` is for scripts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rendering needs none of these at run time, and `serve` must start light
    from vllm_quant_mcp.knowledge.diff import RegistryDiff
    from vllm_quant_mcp.knowledge.refresh import RefreshResult
    from vllm_quant_mcp.tools.find_symbol import SymbolResult
    from vllm_quant_mcp.tools.grep_source import GrepResult
    from vllm_quant_mcp.tools.read_source import ReadResult
    from vllm_quant_mcp.tools.registry_view import RegistryKindView, RegistrySummary, TagList


def tag_list(result: TagList) -> str:
    return "\n".join(f"{t}{'  (default)' if t == result.default_tag else ''}" for t in result.tags)


def summary(result: RegistrySummary) -> str:
    origin = result.source.commit or result.source.sha256 or ""
    lines = [f"vLLM {result.tag}  (from {result.source.kind}: {result.source.origin} {origin[:12]})".rstrip()]
    for k in result.kinds:
        lines.append(f"  {k.kind:<22} {k.count:>4}" + (f"  — {k.note}" if k.note else ""))
    lines.append("Use --kind KIND for the entries, --json for the whole registry.")
    return "\n".join(lines)


def _details(details: dict[str, Any]) -> str:
    return "  ".join(f"{k}={v}" for k, v in details.items() if v not in (None, False, [], ""))


def kind_view(result: RegistryKindView) -> str:
    shown = len(result.entries)
    head = f"{result.kind} at {result.tag}: {shown}" + (f" of {result.total}" if shown != result.total else "")
    lines = [head + (f"  — {result.note}" if result.note else "")]
    for e in result.entries:
        where = f"{e.provenance.path}:{e.provenance.line}"
        lines.append(f"  {e.name:<40} {where:<60} {_details(e.details)}".rstrip())
    return "\n".join(lines)


def registry_diff(result: RegistryDiff) -> str:
    lines = [f"{result.from_tag} → {result.to_tag}"]
    for k in result.kinds:
        if k.empty:
            continue
        lines.append(f"{k.kind}:")
        lines += [f"  + {e.name}  ({e.provenance.path}:{e.provenance.line})" for e in k.added]
        lines += [f"  - {e.name}" for e in k.removed]
        for c in k.changed:
            what = ", ".join(f"{f}: {ch.before!r} → {ch.after!r}" for f, ch in c.changes.items())
            lines.append(f"  ~ {c.name}: {what}")
    if len(lines) == 1:
        lines.append("  no differences")
    return "\n".join(lines)


def refresh_result(result: RefreshResult) -> str:
    lines = [f"{result.tag}: tree {result.tree} from {result.source.kind} ({result.source.origin})"]
    lines.append(f"registry: {result.registry_path}")
    lines += [f"note: {n}" for n in result.notes]
    return "\n".join(lines)


def grep_result(result: GrepResult) -> str:
    lines = [f"note: {result.note}"] if result.note else []
    for m in result.matches:
        lines += [f"{m.path}-{m.line - len(m.before) + i}-{b}" for i, b in enumerate(m.before)]
        lines.append(f"{m.path}:{m.line}:{m.text}")
        lines += [f"{m.path}-{m.line + 1 + i}-{a}" for i, a in enumerate(m.after)]
    lines.append(f"[{result.tag}] {result.total_matches} matching lines in {result.files_searched} files searched")
    if result.hint:
        lines.append(result.hint)
    return "\n".join(lines)


def read_result(result: ReadResult) -> str:
    width = len(str(result.end_line))
    body = [f"{result.start_line + i:>{width}}  {line}" for i, line in enumerate(result.text.splitlines())]
    tail = f"{result.permalink}"
    if result.next_start_line:
        tail += f"\n(more: --start-line {result.next_start_line})"
    return "\n".join([*([f"note: {result.note}"] if result.note else []), *body, tail])


def symbols(result: SymbolResult) -> str:
    lines = [f"note: {result.note}"] if result.note else []
    lines += [f"{d.kind:<8} {d.qualified_name}  {d.path}:{d.line}  {d.first_line.strip()}" for d in result.definitions]
    lines += [f"         {d.permalink}" for d in result.definitions[:1]]
    return "\n".join(lines)
