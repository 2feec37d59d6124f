"""What an extractor returns: the entries it found and, when it found none, why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["Extracted"]

T = TypeVar("T")


@dataclass(frozen=True)
class Extracted(Generic[T]):
    entries: T
    note: str | None = None
    warnings: list[str] = field(default_factory=list)
