"""`audit_deployment`: what in a deployment file (script, Kubernetes manifest, compose file) breaks at a tag.

Each `vllm serve` invocation the file holds is checked with check_gates: against the
tag alone, or, when the file pins a release (an image tag, a pip pin), as an upgrade
from that release, so removals come with the release that made them. `ok` and
`invalid_count` let a CI job fail on anything vLLM would reject at the tag.

Variables the file sets are expanded before the check (knowledge/deploy/expand.py). A
value the file cannot resolve (`--quantization "$QUANT"` with QUANT set only by the
caller's environment) is reported as unresolved, severity info: the file may be right,
and a CI gate must not go red on what only run time can tell.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.deploy.files import find_invocations
from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommandError, parse_serve_command
from vllm_quant_mcp.knowledge.hub.client import ModelNotFoundError
from vllm_quant_mcp.knowledge.registry.across import NameKind, release_spans, tags_having
from vllm_quant_mcp.knowledge.tags import tag_key
from vllm_quant_mcp.tools.check_gates.models import CheckGatesQuery, Finding
from vllm_quant_mcp.tools.check_gates.tool import gates_report
from vllm_quant_mcp.tools.context import ToolContext

from .models import AuditQuery, AuditReport, InvocationAudit

__all__ = ["MAX_FLAGS_PER_AUDIT", "audit_deployment"]

# Each flag is checked at the tag and at every release an upgrade crosses (~0.5 ms); this keeps an audit to seconds.
MAX_FLAGS_PER_AUDIT = 5_000

_RISKY = ("changes", "deprecated")
_VALUE_KINDS: dict[str, NameKind] = {"--quantization": "quantization_methods", "--kv-cache-dtype": "kv_cache_dtypes"}


def audit_deployment(ctx: ToolContext, query: AuditQuery) -> AuditReport:
    """Find the invocations in the file's text and check each against the tag (or from its pinned release)."""
    filename = query.filename
    to = ctx.registry(query.tag).tag
    file_kind, found = find_invocations(query.text, filename)
    known = set(ctx.store.known_tags())
    audits = []
    unpinned: list[int] = []  # audits whose findings get the where-else lookup, done once for all of them
    budget = MAX_FLAGS_PER_AUDIT
    for inv in found:
        notes = list(inv.notes)
        start = inv.pinned_tag if inv.pinned_tag in known else None
        if inv.pinned_tag and start is None:
            notes.append(
                f"The file pins {inv.pinned_tag} ({inv.pinned_by}), which has no registry here; checked at {to}."
            )
        elif start and start != to:
            notes.append(f"The file pins {start} ({inv.pinned_by}): audited as an upgrade from {start} to {to}.")
        base = InvocationAudit(
            where=inv.where,
            line=inv.line,
            command=inv.command,
            env=sorted(inv.env),
            from_tag=start,
            pinned_by=inv.pinned_by,
            invalid=False,
            unresolved=inv.unresolved,
            notes=notes,
        )
        flags = _flag_count(inv.command)
        if flags > budget:
            audits.append(base.model_copy(update={"error": _over_budget(flags, budget)}))
            continue
        budget -= flags
        try:
            gates = CheckGatesQuery(
                from_tag=start or to,
                to_tag=to,
                serve_command=inv.command,
                env=inv.env,
                gpu=query.gpu,
                registry_changes="none",
            )
            result = gates_report(ctx, gates)
        except (ServeCommandError, ModelNotFoundError) as exc:
            audits.append(base.model_copy(update={"error": str(exc)}))
            continue
        if start is None:
            unpinned.append(len(audits))
        audits.append(
            base.model_copy(
                update={
                    "findings": result.findings,
                    "gates": [g for hop in result.hops for g in hop.gates],
                    "model_shape": result.model_shape,
                }
            )
        )
    elsewhere = tags_having(ctx.store, {key for i in unpinned for f in audits[i].findings if (key := _name_of(f))})
    for i, audit in enumerate(audits):
        findings = [_where_else(ctx, f, elsewhere) for f in audit.findings] if i in unpinned else audit.findings
        findings = [_unresolved(f, audit.unresolved, to) for f in findings]
        audits[i] = audit.model_copy(
            update={"findings": findings, "invalid": any(f.severity == "breaks" for f in findings)}
        )
    invalid = sum(f.severity == "breaks" for a in audits for f in a.findings)
    risky = sum(f.severity in _RISKY for a in audits for f in a.findings)
    unreadable = sum(a.error is not None for a in audits)
    return AuditReport(
        tag=to,
        filename=filename,
        file_kind=file_kind,
        ok=invalid == 0,
        invalid_count=invalid,
        risky_count=risky,
        unreadable_count=unreadable,
        summary=_summary(filename, to, audits, invalid, risky, unreadable),
        invocations=audits,
    )


def _unresolved(finding: Finding, unresolved: list[str], tag: str) -> Finding:
    """A finding about a value the file leaves to run time is no verdict on the file: info, saying why."""
    refs = [u for u in unresolved if u in finding.written]
    if not refs:
        return finding
    names = ", ".join(refs)
    return finding.model_copy(
        update={
            "severity": "info",
            "problem": f"Unresolved: `{finding.written}` takes its value from {names}, which the file does not set; "
            f"what it holds is known only at run time, so it was not checked at {tag}.",
            "action": f"Set it in the file (or give a default, ${{NAME:-value}}) to have {names} checked.",
            "changed_at": None,
            "gates": [],
            "citations": [],
            "evidence": [],
            "support": [],
        }
    )


def _flag_count(command: str) -> int:
    try:
        return len(parse_serve_command(command).flags)
    except ServeCommandError:
        return 0  # check_gates reads it again and says why it cannot


def _over_budget(flags: int, left: int) -> str:
    return (
        f"Not checked: it holds {flags:,} flags and {left:,} of the {MAX_FLAGS_PER_AUDIT:,} an audit checks per file "
        "are left. Audit the rest of the file separately."
    )


def _name_of(finding: Finding) -> tuple[NameKind, str] | None:
    """The name a finding says is missing at the tag, as a registry kind and name; None when it is not such a
    finding (it already says when the name changed, or what supports it)."""
    if finding.changed_at is not None or finding.evidence or finding.support:
        return None
    name = finding.subject
    flag, _, value = name.partition(" ")
    if flag in _VALUE_KINDS and value:
        return _VALUE_KINDS[flag], value
    if name.startswith("-"):
        return "cli_flags", name
    if name.startswith("VLLM_"):
        return "env_vars", name
    return None


def _where_else(ctx: ToolContext, finding: Finding, elsewhere: dict[tuple[NameKind, str], list[str]]) -> Finding:
    """With no pinned release, a name missing at the tag is looked up in every known release, to say when it was."""
    key = _name_of(finding)
    tags = elsewhere.get(key, []) if key else []
    if not tags:
        return finding
    spans = release_spans(ctx.store.known_tags(), tags)
    update: dict[str, object] = {
        "problem": f"{finding.problem} It exists at {spans}: the file was written for another release."
    }
    if key is not None and key[0] == "env_vars":
        last = max(tags, key=tag_key)
        var = next((e for e in ctx.registry(last).env_vars if e.name == key[1]), None)
        if var is not None and var.deprecation and var.deprecation_provenance:
            where = var.deprecation_provenance
            update["action"] = f"Unset {key[1]}; {last}'s deprecation names the way: {var.deprecation}"
            update["problem"] = f"{update['problem']} ({where.path}:{where.line} at {last})"
    if finding.severity == "info":
        update["severity"] = "changes"
    return finding.model_copy(update=update)


def _summary(filename: str, tag: str, audits: list[InvocationAudit], invalid: int, risky: int, unreadable: int) -> str:
    if not audits:
        return f"{filename}: no `vllm serve` invocation found; nothing to check at {tag}."
    verdict = "OK" if invalid == 0 else "INVALID"
    parts = [f"{invalid} invalid", f"{risky} risky"] + ([f"{unreadable} unreadable"] if unreadable else [])
    return f"{verdict} at {tag}: {len(audits)} invocation(s) in {filename}; {', '.join(parts)}."
