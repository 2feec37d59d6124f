"""Lines around a hit, read from the pack within the hit's file (grep's `context`)."""

from __future__ import annotations

from .grep import LineHit
from .index import SearchIndex

__all__ = ["surrounding_lines"]


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def surrounding_lines(index: SearchIndex, hit: LineHit, count: int) -> tuple[list[str], list[str]]:
    """Up to `count` lines before and after a hit's line, within its file."""
    if count == 0:
        return [], []
    blob = index.pack.blob
    first, last = index.pack.starts[hit.file_id], index.pack.ends[hit.file_id]
    before: list[str] = []
    start = hit.start
    while len(before) < count and start > first:
        previous = max(blob.rfind(b"\n", first, start - 1) + 1, first)
        before.append(_decode(blob[previous : start - 1]))
        start = previous
    before.reverse()
    after: list[str] = []
    end = hit.end
    while len(after) < count and end + 1 < last:
        following = blob.find(b"\n", end + 1, last)
        after.append(_decode(blob[end + 1 : following]))
        end = following
    return before, after
