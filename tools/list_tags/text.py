"""`list_tags` for people: one tag a line, the default marked."""

from __future__ import annotations

from .models import TagList

__all__ = ["render"]


def render(result: TagList) -> str:
    return "\n".join(f"{t}{'  (default)' if t == result.default_tag else ''}" for t in result.tags)
