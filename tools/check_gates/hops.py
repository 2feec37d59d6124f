"""Hop by hop: the curated gates crossed and what the two registries of the hop show changed."""

from __future__ import annotations

from typing import Any

from vllm_quant_mcp.knowledge.facts.kinds import VersionGate
from vllm_quant_mcp.knowledge.registry.diff import ChangedEntry, diff_registries
from vllm_quant_mcp.knowledge.registry.kinds import entries_of
from vllm_quant_mcp.knowledge.registry.model import Registry

from .models import EvidenceKind, GateMatch, Hop, RegistryChange, evidence, gate_ref
from .walk import Usage, Walk, match_gate

__all__ = ["HOP_KINDS", "hop_changes", "walk_hops"]

HOP_KINDS: tuple[EvidenceKind, ...] = ("quantization_methods", "kv_cache_dtypes", "cli_flags", "env_vars")


def walk_hops(
    walk: Walk, gates: list[VersionGate], usage: Usage, gpus: set[str] | None, family: str | None
) -> list[Hop]:
    hops = []
    for a, b in walk.hops():
        matched = []
        for gate in walk.gates(gates, (a, b)):
            why = match_gate(gate, usage, gpus, family)
            if why is not None:
                ref = gate_ref(gate, reversed_=walk.direction == "downgrade")
                matched.append(GateMatch(**ref.model_dump(), why=why))
        hops.append(
            Hop(from_tag=a, to_tag=b, gates=matched, changes=hop_changes(walk.registries[a], walk.registries[b]))
        )
    return hops


def hop_changes(old: Registry, new: Registry) -> list[RegistryChange]:
    """Additions, removals, (un)deprecations, choice changes and other field changes from `old` to `new`."""
    rows: list[RegistryChange] = []
    diff = diff_registries(old, new, list(HOP_KINDS))
    for kind, kind_diff in zip(HOP_KINDS, diff.kinds, strict=True):
        rows += [
            RegistryChange(
                kind=kind, name=e.name, change="added", evidence=evidence(new.tag, kind, e.name, e.provenance)
            )
            for e in kind_diff.added
        ]
        rows += [
            RegistryChange(
                kind=kind, name=e.name, change="removed", evidence=evidence(old.tag, kind, e.name, e.provenance)
            )
            for e in kind_diff.removed
        ]
        for changed in kind_diff.changed:
            rows += _changed_rows(kind, changed, old, new)
    return rows


def _changed_rows(kind: EvidenceKind, changed: ChangedEntry, old: Registry, new: Registry) -> list[RegistryChange]:
    at_new = evidence(new.tag, kind, changed.name, changed.provenance)
    rows = []
    fields = dict(changed.changes)
    deprecation = fields.pop("deprecated", None)
    if deprecation is not None:
        rows.append(
            RegistryChange(
                kind=kind,
                name=changed.name,
                change="deprecated" if deprecation.after else "no_longer_deprecated",
                evidence=at_new,
            )
        )
    choices = fields.pop("choices", None)
    if choices is not None:
        before, after = set(choices.before or []), set(choices.after or [])
        if after - before:
            rows.append(
                RegistryChange(
                    kind=kind, name=changed.name, change="choices_added", values=sorted(after - before), evidence=at_new
                )
            )
        if before - after:
            where = next(e for e in entries_of(old, kind) if e.name == changed.name).provenance
            rows.append(
                RegistryChange(
                    kind=kind,
                    name=changed.name,
                    change="choices_removed",
                    values=sorted(before - after),
                    evidence=evidence(old.tag, kind, changed.name, where),
                )
            )
    if fields:
        detail = "; ".join(f"{k}: {_show(v.before)} -> {_show(v.after)}" for k, v in fields.items())
        rows.append(RegistryChange(kind=kind, name=changed.name, change="changed", detail=detail, evidence=at_new))
    return rows


def _show(value: Any) -> str:
    return "none" if value is None else str(value)
