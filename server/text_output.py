"""Plain-text renderings of tool results for people at a terminal (`--json` is for scripts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rendering needs none of these at run time, and `serve` must start light
    from vllm_quant_mcp.knowledge.diff import RegistryDiff
    from vllm_quant_mcp.knowledge.refresh import RefreshResult
    from vllm_quant_mcp.knowledge.verify import VerifyReport
    from vllm_quant_mcp.tools.audit import AuditReport
    from vllm_quant_mcp.tools.check_gates import CheckGatesResult
    from vllm_quant_mcp.tools.find_symbol import SymbolResult
    from vllm_quant_mcp.tools.grep_source import GrepResult
    from vllm_quant_mcp.tools.lookup_issue import IssueLookup, IssueSearch
    from vllm_quant_mcp.tools.pick_format import PickFormatResult
    from vllm_quant_mcp.tools.read_source import ReadResult
    from vllm_quant_mcp.tools.registry_view import RegistryView, TagList
    from vllm_quant_mcp.tools.render_serve_cmd import RenderResult


def tag_list(result: TagList) -> str:
    return "\n".join(f"{t}{'  (default)' if t == result.default_tag else ''}" for t in result.tags)


def _summary(result: RegistryView) -> str:
    origin = result.source.commit or result.source.sha256 or ""
    lines = [f"vLLM {result.tag}  (from {result.source.kind}: {result.source.origin} {origin[:12]})".rstrip()]
    for k in result.kinds:
        lines.append(f"  {k.kind:<22} {k.count:>4}" + (f"  — {k.note}" if k.note else ""))
    lines.append("Use --kind KIND for the entries, --json for the whole registry.")
    return "\n".join(lines)


def _details(details: dict[str, Any]) -> str:
    return "  ".join(f"{k}={v}" for k, v in details.items() if v not in (None, False, [], ""))


def registry(result: RegistryView) -> str:
    if result.kind is None:
        return _summary(result)
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


def verify_report(result: VerifyReport) -> str:
    lines = [f"{len(result.results)} claims over {len(result.tags)} tags ({result.tags[0]}..{result.tags[-1]})"]
    lines.append("  " + "  ".join(f"{status}: {count}" for status, count in result.counts.items()))
    for r in result.results:
        if r.status != "confirmed":
            where = next((f"{e.tag} {e.path}:{e.line}" for e in r.evidence if e.path), "")
            lines.append(f"  {r.status:<13} {r.fact_id}: {r.claim} — {r.reason} {where}".rstrip())
    return "\n".join(lines)


def gates_result(result: CheckGatesResult) -> str:
    lines = [result.summary]
    for f in result.findings:
        lines.append(f"  [{f.severity}] {f.written}: {f.problem}")
        lines.append(f"      action: {f.action}")
        lines += [f"      cite: {c.label} {c.url}" for c in f.citations]
    for hop in result.hops:
        if not (hop.gates or hop.changes):
            continue
        lines.append(f"{hop.from_tag} → {hop.to_tag}")
        lines += [f"  gate {g.id}: {g.change} → {g.action}" for g in hop.gates]
        lines += [f"  {c.change} {c.kind} {c.name}" + (f" {c.values}" if c.values else "") for c in hop.changes]
    return "\n".join(lines)


def issue(result: IssueLookup) -> str:
    lines = [f"{result.repo}#{result.number} ({result.kind}) {result.title or ''}".rstrip()]
    lines.append(f"  state: {result.state} {result.state_reason or ''}  [{result.freshness}]".rstrip())
    first = result.first_release
    lines.append(f"  first release with the fix: {first.tag or 'unknown'} (by {first.method}: {first.detail})")
    if result.tag:
        lines.append(f"  fixed in {result.tag}: {result.fixed_in_your_release}")
    lines += [f"  disagreement: {d}" for d in result.disagreements]
    lines += [f"  note: {n}" for n in result.notes]
    lines.append(f"  {result.url}")
    return "\n".join(lines)


def issue_search(result: IssueSearch) -> str:
    lines = [f"{result.total_count} results for {result.query!r} [{result.freshness}]"]
    lines += [f"  #{r.number:<6} {r.kind:<5} {r.state:<6} {r.title}" for r in result.rows]
    return "\n".join(lines)


def pick_result(result: PickFormatResult) -> str:
    lines = [f"{result.model.source} on {result.num_gpus} x {result.gpu.name} at {result.tag}"]
    for o in result.options:
        mem = o.memory
        lines.append(
            f"  {o.rank}. --quantization {o.quantization.name} --kv-cache-dtype {o.kv_cache_dtype.name}"
            f"  [{o.support}]  {mem.weights_gb_per_gpu:.1f} GB/GPU weights, {mem.tokens_fit or '?'} tokens fit"
        )
        lines += [f"       caveat: {c.text}" for c in o.caveats]
    lines += [f"  excluded {e.quantization}: {e.reason}" for e in result.excluded]
    lines += [f"  note: {n}" for n in result.notes]
    return "\n".join(lines)


def render_result(result: RenderResult) -> str:
    body = result.output if isinstance(result.output, str) else "\n".join(result.output)
    lines = [body, f"# vLLM {result.tag}:"]
    lines += [f"#   {f.flag}  {f.provenance.permalink}" for f in result.flags]
    lines += [f"# warning: {w}" for w in result.warnings]
    lines += [f"# cite: {c.label} {c.url}" for c in result.citations]
    return "\n".join(lines)


def audit_report(result: AuditReport) -> str:
    lines = [f"{result.filename} ({result.file_kind}) at {result.tag}: {result.summary}"]
    for inv in result.invocations:
        pinned = f" (pinned {inv.from_tag} by {inv.pinned_by})" if inv.from_tag else ""
        lines.append(f"  {inv.where}{pinned}: {'INVALID' if inv.invalid else 'ok'}")
        if inv.error:
            lines.append(f"    unreadable: {inv.error}")
        for f in inv.findings:
            lines.append(f"    [{f.severity}] {f.written}: {f.problem}")
            lines.append(f"        action: {f.action}")
        lines += [f"    note: {n}" for n in inv.notes]
    return "\n".join(lines)
