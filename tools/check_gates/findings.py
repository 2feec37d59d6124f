"""What every command finding is built from: the walk's registries, the gates naming the subject, the evidence.

Shared by the flag checks (gates_flags) and the env-var checks here. Presence is
always read from the registries of the walk; the curated gates add the why and
the what-to-do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from vllm_quant_mcp.knowledge.facts.fact import CitationRef
from vllm_quant_mcp.knowledge.facts.kinds import Affected, VersionGate
from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.registry.model import EnvVar, Registry
from vllm_quant_mcp.knowledge.support.judgement import Basis

from .models import Evidence, Finding, Severity, SupportEvidence, evidence, gate_ref
from .walk import Walk

__all__ = ["across", "env_findings", "gate_finding", "last_present", "make_finding", "naming", "when"]

T = TypeVar("T")


def make_finding(
    walk: Walk,
    gates: list[VersionGate],
    *,
    subject: str,
    written: str,
    severity: Severity,
    problem: str,
    action: str,
    also: str = "",
    changed_at: str | None = None,
    where: Iterable[Evidence] = (),
    suggestions: Iterable[str] = (),
    citations: Iterable[CitationRef] = (),
    support: Iterable[SupportEvidence] = (),
    basis: Basis = "source",
) -> Finding:
    """A finding whose citations are those of its gates plus any given, without repeats.

    `action` is the fallback: the gates' upgrade advice replaces it when there is any and
    the walk goes up (going down that advice no longer applies and stays in the gate
    references only). `also` is appended either way.
    """
    refs = [gate_ref(g, walk.direction == "downgrade") for g in gates]
    unique = {c.url: c for c in [*(c for r in refs for c in r.citations), *citations]}
    advice = " ".join(g.action for g in gates) if walk.direction != "downgrade" else ""
    return Finding(
        subject=subject,
        written=written,
        severity=severity,
        basis=basis,
        problem=problem,
        action=" ".join(part for part in (advice or action, also) if part),
        changed_at=changed_at,
        gates=refs,
        citations=list(unique.values()),
        evidence=list(where),
        support=list(support),
        suggestions=list(suggestions),
    )


def gate_finding(walk: Walk, gate: VersionGate, subject: str, written: str, where: list[Evidence]) -> Finding:
    """A gate crossed by something the command still uses at to_tag: a change in meaning, not a break."""
    if walk.direction == "downgrade":
        problem = f"Downgrading below {gate.version} undoes: {gate.change}"
        action = f"Expect the behaviour from before {gate.version}."
    else:
        problem, action = gate.change, gate.action
    return make_finding(
        walk,
        [gate],
        subject=subject,
        written=written,
        severity="changes" if gate.breaking else "info",
        problem=problem,
        action=action,
        changed_at=gate.version,
        where=where,
        basis="curated",
    )


def naming(gates: list[VersionGate], test: Callable[[Affected], bool]) -> list[VersionGate]:
    """The gates that name something `test` accepts among who they affect."""
    return [g for g in gates if any(test(a) for a in g.affects)]


def across(walk: Walk) -> str:
    """The releases a walk looked at, in words: one tag alone when it checked one."""
    if walk.start.tag == walk.end.tag:
        return walk.end.tag
    return f"{walk.start.tag}, {walk.end.tag} or any release between"


def when(walk: Walk, last: str, changed_at: str) -> str:
    """How a name left the registries along the walk, in words that fit the direction."""
    if walk.direction == "downgrade":
        return f"it first appears at {last}, after {walk.end.tag}"
    return f"removed at {changed_at} (last present at {last})"


def last_present(walk: Walk, lookup: Callable[[Registry], T | None]) -> tuple[str, T, str] | None:
    """The last tag of the walk that has the thing, the thing there, and the next tag (which lacks it).

    None when no tag has it, or when to_tag itself has it.
    """
    last: tuple[str, T] | None = None
    for tag in walk.tags:
        found = lookup(walk.registries[tag])
        if found is not None:
            last = (tag, found)
    if last is None or last[0] == walk.tags[-1]:
        return None
    return last[0], last[1], walk.tags[walk.tags.index(last[0]) + 1]


def env_findings(walk: Walk, gates: list[VersionGate], name: str) -> list[Finding]:
    """A VLLM_ variable set for the server: gone at to_tag (vLLM then ignores it), or touched by a gate."""

    def lookup(registry: Registry) -> EnvVar | None:
        return next((e for e in registry.env_vars if e.name == name), None)

    to = walk.end.tag
    named = naming(gates, lambda a: a.kind == "env_var" and a.name == name)
    current = lookup(walk.end)
    if current is not None:
        here = [evidence(to, "env_vars", name, current.provenance)]
        found_here = [gate_finding(walk, g, name, name, here) for g in named]
        if current.deprecation and current.deprecation_provenance and not named:
            said = [evidence(to, "env_vars", name, current.deprecation_provenance)]
            found_here.append(
                make_finding(
                    walk,
                    [],
                    subject=name,
                    written=name,
                    severity="deprecated",
                    problem=f"{name} is deprecated at {to} (removed in {current.removed_in or 'a later release'}).",
                    action=f"vLLM's deprecation at {to} says: {current.deprecation}",
                    where=[*here, *said],
                )
            )
        return found_here
    last = last_present(walk, lookup)
    if last is None:
        return [
            make_finding(
                walk,
                [],
                subject=name,
                written=name,
                severity="info",
                problem=f"{name} is not read by {across(walk)}.",
                action="Check the spelling; vLLM ignores VLLM_ variables it does not define.",
                suggestions=nearest(name, (e.name for e in walk.end.env_vars), cutoff=0.7),
            )
        ]
    tag, found, changed_at = last
    replaced = ""
    where = [evidence(tag, "env_vars", name, found.provenance)]
    if found.deprecation and found.deprecation_provenance:
        replaced = f" {tag}'s deprecation names the way: {found.deprecation}"
        where.append(evidence(tag, "env_vars", name, found.deprecation_provenance))
    return [
        make_finding(
            walk,
            named,
            subject=name,
            written=name,
            severity="changes",  # vLLM starts and ignores it: the same wherever a removed variable appears
            problem=f"{name} is not read at {to}: {when(walk, tag, changed_at)}; setting it silently has no effect.",
            action=f"Unset {name}.{replaced}",
            changed_at=changed_at,
            where=where,
        )
    ]
