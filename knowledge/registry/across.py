"""Questions asked of every known registry at once: where else does a name exist, and how to say it briefly."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from vllm_quant_mcp.knowledge.tags import tag_key

from .model import Registry
from .names import NameKind, Names

__all__ = ["NameKind", "RegistrySource", "release_spans", "tags_having", "tags_where"]


class RegistrySource(Protocol):
    def known_tags(self) -> list[str]: ...

    def load_registry(self, tag: str) -> Registry: ...

    def names(self, tag: str) -> Names: ...


def tags_where(store: RegistrySource, test: Callable[[Registry], bool]) -> list[str]:
    """The known tags whose registry passes `test`, oldest first: where a name missing here does exist."""
    return [t for t in sorted(store.known_tags(), key=tag_key) if test(store.load_registry(t))]


def tags_having(store: RegistrySource, wanted: Iterable[tuple[NameKind, str]]) -> dict[tuple[NameKind, str], list[str]]:
    """For each (kind, name), the known tags that define it, oldest first.

    One pass over the releases answers every name: a file naming a thousand unknown flags reads each
    registry once, where asking tags_where per name would read every registry a thousand times.
    A flag is defined by its name, an alias or its --no- form, as Registry.find_flag reads it.
    """
    found: dict[tuple[NameKind, str], list[str]] = {key: [] for key in wanted}
    if not found:
        return found
    for tag in sorted(store.known_tags(), key=tag_key):
        defined = store.names(tag)
        for (kind, name), tags in found.items():
            if name in defined[kind]:
                tags.append(tag)
    return found


def release_spans(known: list[str], tags: list[str]) -> str:
    """`tags` as runs of consecutive `known` releases: a name removed and later restored reads as two spans."""
    runs: list[list[str]] = []
    inside = False
    wanted = set(tags)
    for tag in sorted(known, key=tag_key):
        if tag in wanted:
            if not inside:
                runs.append([])
            runs[-1].append(tag)
        inside = tag in wanted
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}..{run[-1]}" for run in runs)
