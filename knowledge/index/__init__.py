"""Fast regex search over a vLLM tree: files in memory, a trigram prefilter, ripgrep's line semantics."""

from __future__ import annotations

from .search import Found, InvalidPatternError, LineHit, PatternTimeoutError, search, surrounding_lines
from .trigram import SourceIndex, index_for

__all__ = [
    "Found",
    "InvalidPatternError",
    "LineHit",
    "PatternTimeoutError",
    "SourceIndex",
    "index_for",
    "search",
    "surrounding_lines",
]
