"""What an extractor returns: the entries it found and, when it found none, why."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["Extracted", "per_tree"]

T = TypeVar("T")


@dataclass(frozen=True)
class Extracted(Generic[T]):
    entries: T
    note: str | None = None
    warnings: list[str] = field(default_factory=list)


def per_tree(extract: Callable[[SourceTree], Extracted[T]]) -> Callable[[SourceTree], Extracted[T]]:
    """Run an extractor once per tree: the support matrix reads the KV dtypes, env vars and methods again."""

    @functools.wraps(extract)
    def once(tree: SourceTree) -> Extracted[T]:
        return tree.memo(f"{extract.__module__}.{extract.__qualname__}", lambda: extract(tree))

    return once
