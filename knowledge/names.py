"""Nearest known names for a miss, so every "unknown X" error can offer what the caller probably meant."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["nearest"]


def nearest(word: str, names: Iterable[str], cutoff: float = 0.6, limit: int = 3) -> list[str]:
    """Up to `limit` of `names` closest to `word` (difflib ratio at least `cutoff`), best first."""
    return difflib.get_close_matches(word, sorted(set(names)), n=limit, cutoff=cutoff)
