"""The one interface every source implements: put the tree at a tag into an empty directory."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ..registry import SourceInfo

__all__ = ["Source"]


class Source(Protocol):
    """Where a vLLM tree at a tag comes from (git, package index sdist or wheel, a directory)."""

    kind: str

    def fetch(self, tag: str, dest: Path) -> SourceInfo:
        """Fill the empty directory `dest` with the tree at `tag` (vllm/ at its top) and say where it came from.

        On failure `dest` may hold a partial tree; the caller owns it and throws it away.
        """
        ...
