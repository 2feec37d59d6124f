"""Flag by flag: what a serve command loses or sees change at to_tag.

A flag can be gone (absent from to_tag's cli_flags), deprecated, given a value
to_tag no longer takes (a choice, a quantization method, a KV dtype, a
--quantization-config key), or still valid but crossed by a curated gate that
changes what it means. A name is offered as a suggestion only when to_tag's
registry has it.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommand, ServeFlag
from vllm_quant_mcp.knowledge.facts.fact import cite
from vllm_quant_mcp.knowledge.facts.kinds import Affected, VersionGate
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.registry.model import CliFlag, Entry, OnlineQuantEntry, Registry

from .findings import across, env_findings, gate_finding, last_present, make_finding, naming, when
from .models import Evidence, EvidenceKind, Finding, evidence
from .walk import Walk

__all__ = ["command_findings"]

# Flags whose value is a registry entry of its own kind, and the gate vocabulary for it.
_VALUE_KINDS: dict[str, tuple[EvidenceKind, str]] = {
    "--quantization": ("quantization_methods", "method"),
    "--kv-cache-dtype": ("kv_cache_dtypes", "kv_dtype"),
}


def command_findings(
    command: ServeCommand | None, env: dict[str, str] | None, walk: Walk, kb: KnowledgeBase, gates: list[VersionGate]
) -> list[Finding]:
    """Findings for each flag in command order, then each VLLM_ variable (command assignments, then `env`)."""
    found: list[Finding] = []
    for flag in command.flags if command else []:
        found += _flag_findings(flag, walk, kb, gates)
    assigned = {**(command.env if command else {}), **(env or {})}
    for name in assigned:
        if name.startswith("VLLM_"):
            found += env_findings(walk, gates, name)
    return found


def _flag_findings(flag: ServeFlag, walk: Walk, kb: KnowledgeBase, gates: list[VersionGate]) -> list[Finding]:
    located = walk.end.find_flag(flag.option)
    if located is None:
        return [_absent_flag(flag, walk, gates)]
    entry, negated = located
    to, written = walk.end.tag, " ".join(flag.tokens)
    here = evidence(to, "cli_flags", entry.name, entry.provenance)
    out: list[Finding] = []
    if entry.deprecated:
        out.append(
            make_finding(
                walk,
                naming(gates, lambda a: a.kind == "flag" and a.name == entry.name),
                subject=entry.name,
                written=written,
                severity="deprecated",
                problem=f"`{entry.name}` is deprecated at {to}.",
                action=f"Plan to drop `{entry.name}`; a later release may remove it.",
                where=[here],
            )
        )
    if flag.json_error:
        out.append(
            make_finding(
                walk,
                [],
                subject=entry.name,
                written=written,
                severity="breaks",
                problem=f"The value of `{entry.name}` is {flag.json_error}.",
                action="Fix the JSON, and single-quote it so the shell keeps its double quotes.",
                where=[here],
            )
        )
    value = flag.value if flag.value is not None and not flag.path and not negated else None
    if value is not None and entry.name in _VALUE_KINDS:
        out += _value_findings(entry, flag, value, walk, kb, gates)
    elif value is not None and entry.choices is not None and value not in entry.choices:
        out.append(_bad_choice(entry, flag, value, walk, gates))
    if entry.name == "--quantization-config":
        out += _config_key_findings(flag, walk)
    reported = {g.id for f in out for g in f.gates}
    keys = set(flag.path) | (set(flag.json_value) if isinstance(flag.json_value, dict) else set())
    for gate in gates:
        by_value = value is not None and any(_names_value(a, entry.name, value) for a in gate.affects)
        by_flag = any(a.kind == "flag" and a.name == entry.name for a in gate.affects)
        by_key = any(a.kind == "config_key" and a.name in keys for a in gate.affects)
        if gate.id in reported or not (by_value or by_flag or by_key):
            continue
        subject = f"{entry.name} {value}" if by_value else entry.name
        where = [here, *_value_evidence(walk.end, entry, value)] if by_value else [here]
        out.append(gate_finding(walk, gate, subject, written, where))
    return out


def _names_value(item: Affected, flag: str, value: str) -> bool:
    if item.name != value:
        return False
    if item.kind == "flag_value":
        return item.flag in (flag, None)
    return flag in _VALUE_KINDS and item.kind == _VALUE_KINDS[flag][1]


def _value_evidence(registry: Registry, flag: CliFlag, value: str | None) -> list[Evidence]:
    """Where to_tag defines the value itself: its method or KV dtype entry, or the flag's literal choice."""
    if value is None:
        return []
    if flag.name in _VALUE_KINDS:
        kind = _VALUE_KINDS[flag.name][0]
        found = next((e for e in _entries(registry, kind) if e.name == value), None)
        return [evidence(registry.tag, kind, value, found.provenance)] if found else []
    if value in (flag.choices or []):
        return [evidence(registry.tag, "cli_flags", flag.name, flag.provenance, value)]
    return []


def _absent_flag(flag: ServeFlag, walk: Walk, gates: list[VersionGate]) -> Finding:
    written, to = " ".join(flag.tokens), walk.end.tag
    last = last_present(walk, lambda r: r.find_flag(flag.option))
    if last is None:
        near = nearest(flag.option, (f.name for f in walk.end.cli_flags))
        return make_finding(
            walk,
            [],
            subject=flag.option,
            written=written,
            severity="breaks",
            problem=f"`{flag.option}` is not a `vllm serve` flag at {across(walk)}; vLLM rejects it.",
            action="Remove it" + (f", or use one of {', '.join(near)}." if near else "."),
            suggestions=near,
        )
    tag, (entry, negated), changed_at = last
    if negated and walk.end.find_flag(entry.name) is not None:
        problem = f"`{flag.option}` is not accepted at {to}: `{entry.name}` has no --no- form there (it had at {tag})."
    else:
        problem = f"`{entry.name}` is not in {to}'s registry: {when(walk, tag, changed_at)}."
    return make_finding(
        walk,
        naming(gates, lambda a: a.name in (entry.name, entry.field) and a.kind in ("flag", "config_key")),
        subject=entry.name,
        written=written,
        severity="breaks",
        problem=problem,
        action=f"Remove `{written}`; {to} rejects flags it does not define.",
        changed_at=changed_at,
        where=[evidence(tag, "cli_flags", entry.name, entry.provenance)],
    )


def _value_findings(
    entry: CliFlag, flag: ServeFlag, value: str, walk: Walk, kb: KnowledgeBase, gates: list[VersionGate]
) -> list[Finding]:
    """A --quantization or --kv-cache-dtype value: deprecated at to_tag, or gone from its registry kind."""
    kind, gate_kind = _VALUE_KINDS[entry.name]
    to, written, subject = walk.end.tag, " ".join(flag.tokens), f"{entry.name} {value}"

    def lookup(registry: Registry) -> Entry | None:
        return next((e for e in _entries(registry, kind) if e.name == value), None)

    current = lookup(walk.end)
    if current is not None:
        if not getattr(current, "deprecated", False):
            return []
        return [
            make_finding(
                walk,
                [],
                subject=subject,
                written=written,
                severity="deprecated",
                problem=f"`{value}` is deprecated at {to}.",
                action=f"Move off `{value}` before a release removes it.",
                where=[evidence(to, kind, value, current.provenance)],
            )
        ]
    named = naming(gates, lambda a: _names_value(a, entry.name, value))
    facts = [m for m in kb.methods if m.name == value] if gate_kind == "method" else []
    alive = {e.name for e in _entries(walk.end, kind)}
    replacements = [r for m in facts for r in m.replaced_by if r in alive]
    upgrade = walk.direction != "downgrade"
    gate_advice = " ".join(g.action for g in named) if upgrade else ""
    advice = [
        f"Install the {m.plugin} package, which provides `{value}` out of tree."
        for m in facts
        if upgrade and m.plugin and m.plugin not in gate_advice
    ]
    advice += [
        f"Or switch to `{entry.name} {r}`, which {to} defines."
        for r in replacements[:1]
        if upgrade and r not in gate_advice
    ]
    last = last_present(walk, lookup)
    problem = f"`{value}` is not a {entry.name} value at {across(walk)}."
    if last is not None:
        problem = f"`{subject}` is not valid at {to}: {when(walk, last[0], last[2])}."
    return [
        make_finding(
            walk,
            named,
            subject=subject,
            written=written,
            severity="breaks",
            problem=problem,
            action=f"Pick a {entry.name} value that {to} defines.",
            also=" ".join(advice),
            changed_at=last[2] if last else None,
            where=[evidence(last[0], kind, value, last[1].provenance)] if last else [],
            suggestions=replacements or nearest(value, alive, cutoff=0.5),
            citations=[cite(c) for m in facts for c in m.citations],
        )
    ]


def _bad_choice(entry: CliFlag, flag: ServeFlag, value: str, walk: Walk, gates: list[VersionGate]) -> Finding:
    to, choices = walk.end.tag, entry.choices or []
    last = last_present(walk, lambda r: _choice_flag(r, entry.name, value))
    ends = to if walk.start.tag == to else f"{walk.start.tag} or {to}"
    problem = f"`{value}` is not among the choices of `{entry.name}` at {ends}."
    where = [evidence(to, "cli_flags", entry.name, entry.provenance)]
    if last is not None:
        tag, old, changed_at = last
        problem = f"`{value}` is not a choice of `{entry.name}` at {to}: {when(walk, tag, changed_at)}."
        where.append(evidence(tag, "cli_flags", old.name, old.provenance, value))
    return make_finding(
        walk,
        naming(gates, lambda a: _names_value(a, entry.name, value)),
        subject=f"{entry.name} {value}",
        written=" ".join(flag.tokens),
        severity="breaks",
        problem=problem,
        action=f"Use one of `{entry.name}`'s choices at {to}: {', '.join(choices)}.",
        changed_at=last[2] if last else None,
        where=where,
        suggestions=nearest(value, choices, cutoff=0.5),
    )


def _choice_flag(registry: Registry, name: str, value: str) -> CliFlag | None:
    located = registry.find_flag(name)
    return located[0] if located and value in (located[0].choices or []) else None


def _config_key_findings(flag: ServeFlag, walk: Walk) -> list[Finding]:
    """Top-level --quantization-config keys that to_tag's online-quantization registry does not list."""
    keys = flag.path[:1] or (tuple(flag.json_value) if isinstance(flag.json_value, dict) else ())
    listed = [e.name for e in walk.end.online_quantization if e.kind == "config_key"]
    out = []
    for key in keys if listed else ():
        if key in listed:
            continue

        def lookup(registry: Registry, key: str = key) -> OnlineQuantEntry | None:
            return next((e for e in registry.online_quantization if e.kind == "config_key" and e.name == key), None)

        last = last_present(walk, lookup)
        subject, written = f"--quantization-config {key}", " ".join(flag.tokens)
        if last is None:
            out.append(
                make_finding(
                    walk,
                    [],
                    subject=subject,
                    written=written,
                    severity="info",
                    problem=f"`{key}` is not among the --quantization-config keys listed at {walk.end.tag}.",
                    action=f"Check the key against vllm/config/quantization.py at {walk.end.tag}.",
                    suggestions=nearest(key, listed, cutoff=0.5),
                )
            )
            continue
        tag, found, changed_at = last
        out.append(
            make_finding(
                walk,
                [],
                subject=subject,
                written=written,
                severity="breaks",
                problem=f"--quantization-config key `{key}` is not valid at {walk.end.tag}: "
                f"{when(walk, tag, changed_at)}.",
                action=f"Drop `{key}` from --quantization-config for {walk.end.tag}.",
                changed_at=changed_at,
                where=[evidence(tag, "online_quantization", key, found.provenance)],
            )
        )
    return out


def _entries(registry: Registry, kind: EvidenceKind) -> list[Entry]:
    """Entries of a kind; quantization methods only where --quantization accepts them."""
    entries: list[Entry] = list(getattr(registry, kind))
    if kind == "quantization_methods":
        return [e for e in entries if getattr(e, "accepted_by_cli", True)]
    return entries
