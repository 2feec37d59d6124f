"""Questions asked of every known registry at once: where else does a name exist, and how to say it briefly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from vllm_quant_mcp.knowledge.tags import tag_key

from .model import Registry

__all__ = ["RegistrySource", "release_spans", "tags_where"]


class RegistrySource(Protocol):
    def known_tags(self) -> list[str]: ...

    def load_registry(self, tag: str) -> Registry: ...


def tags_where(store: RegistrySource, test: Callable[[Registry], bool]) -> list[str]:
    """The known tags whose registry passes `test`, oldest first: where a name missing here does exist."""
    return [t for t in sorted(store.known_tags(), key=tag_key) if test(store.load_registry(t))]


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
