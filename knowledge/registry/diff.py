"""What changed between the registries of two tags, kind by kind.

Provenance is left out of the comparison: lines move every release, and an
agent asking "what changed" wants names and meanings, not reflowed files. Beside
the `kernels` kind (the priority lists) stands what those lists do on each GPU:
the kernel picks that changed (kernel_diff.py), since a list reordered says little
until it is walked for a scheme and a capability.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .kernel_diff import KernelChange, diff_kernel_support
from .kinds import KIND_NAMES, entries_of
from .model import Entry, Provenance, Registry

__all__ = [
    "ChangedEntry",
    "DiffEntry",
    "FieldChange",
    "KindDiff",
    "RegistryDiff",
    "diff_kind",
    "diff_registries",
]


class DiffEntry(BaseModel):
    name: str
    provenance: Provenance
    replaced_by: str | None = Field(
        default=None, description="Removed: the way the release before names, in its own deprecation message."
    )


class FieldChange(BaseModel):
    before: Any
    after: Any


class ChangedEntry(BaseModel):
    name: str
    changes: dict[str, FieldChange]
    provenance: Provenance


class KindDiff(BaseModel):
    kind: str
    added: list[DiffEntry]
    removed: list[DiffEntry]
    changed: list[ChangedEntry]

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


class RegistryDiff(BaseModel):
    from_tag: str
    to_tag: str
    kinds: list[KindDiff]
    kernel_picks: list[KernelChange] = Field(
        default=[], description="Which kernel a scheme gets per GPU, where it changed (all kinds, or kind kernels)."
    )

    @property
    def size(self) -> int:
        """Added, removed and changed entries, and kernel picks changed: the items a page of the diff counts."""
        return sum(len(k.added) + len(k.removed) + len(k.changed) for k in self.kinds) + len(self.kernel_picks)


def _comparable(entry: Entry) -> dict[str, Any]:
    """An entry's meaning: where its lines sit moves with every release and is no change to report."""
    kept: dict[str, Any] = _located_nowhere(entry.model_dump(exclude={"name", "provenance"}))
    return kept


def _located_nowhere(value: Any) -> Any:
    if isinstance(value, dict):
        if {"path", "line", "permalink"} <= value.keys():  # a Provenance
            return None
        return {k: _located_nowhere(v) for k, v in value.items() if k != "line"}
    if isinstance(value, list):
        return [_located_nowhere(v) for v in value]
    return value


def diff_kind(old: list[Entry], new: list[Entry], kind: str) -> KindDiff:
    before = {e.name: e for e in old}
    after = {e.name: e for e in new}
    changed: list[ChangedEntry] = []
    for name in before.keys() & after.keys():
        a, b = _comparable(before[name]), _comparable(after[name])
        fields = {k: FieldChange(before=a.get(k), after=b.get(k)) for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
        if fields:
            changed.append(
                ChangedEntry(name=name, changes=dict(sorted(fields.items())), provenance=after[name].provenance)
            )
    return KindDiff(
        kind=kind,
        added=[DiffEntry(name=e.name, provenance=e.provenance) for e in new if e.name not in before],
        removed=[_removed(e) for e in old if e.name not in after],
        changed=sorted(changed, key=lambda c: c.name),
    )


def _removed(entry: Entry) -> DiffEntry:
    """A removed entry, with the replacement its last release named where it did (cited at that message's line)."""
    said = getattr(entry, "deprecation", None)
    where = getattr(entry, "deprecation_provenance", None)
    if isinstance(said, str) and isinstance(where, Provenance):
        return DiffEntry(name=entry.name, provenance=where, replaced_by=said)
    return DiffEntry(name=entry.name, provenance=entry.provenance)


def diff_registries(old: Registry, new: Registry, kinds: list[str] | None = None) -> RegistryDiff:
    """Added, removed and changed entries from `old` to `new` (works in either direction), and with the `kernels`
    kind the kernel picks that changed."""
    selected = kinds or list(KIND_NAMES)
    picks = diff_kernel_support(old.kernel_support, new.kernel_support) if "kernels" in selected else []
    return RegistryDiff(
        from_tag=old.tag,
        to_tag=new.tag,
        kinds=[diff_kind(entries_of(old, k), entries_of(new, k), k) for k in selected],
        kernel_picks=picks,
    )
